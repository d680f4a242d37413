/**
 * What guards people's accounts against strangers, through the real HTTP stack: sign-up answers that do not
 * tell which emails have accounts, the password strength check, the per-account limit on failed sign-ins
 * (shared by instances on PostgreSQL) and the cap on password hashes running at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { authCall, newTeam, PASSWORD } from '../helpers/people.js';
import { startTestService } from '../helpers/service.js';

/** What a refusal says, without its ray id (which differs per request). */
function refusalOf(res: LightMyRequestResponse) {
  const { ray_id: _ray, ...rest } = res.json<{ ray_id: string }>();
  return { status: res.statusCode, ...rest };
}

describe('sign-up does not tell which emails have accounts', () => {
  for (const mode of ['invite', 'off'] as const) {
    it(`${mode}: an email with an account is refused exactly as one without`, async () => {
      const svc = await startTestService({ env: { GCM_SIGNUP: mode } });
      try {
        const team = await newTeam(svc, `enum-${mode}`);
        const signUp = (email: string) =>
          authCall(svc, 'POST', '/sign-up/email', { body: { email, password: PASSWORD, name: 'Probe' } });
        const known = refusalOf(await signUp(team.owner.email));
        const unknown = refusalOf(await signUp('nobody-here@example.com'));
        assert.ok(known.status >= 400, JSON.stringify(known));
        assert.deepEqual(known, unknown);
      } finally {
        await svc.close();
      }
    });
  }
});
