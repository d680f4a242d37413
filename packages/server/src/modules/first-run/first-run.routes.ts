import {
  CompleteSetupBody,
  CompleteSetupResponse,
  SetupStatusBody,
  SetupStatusResponse,
} from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { assertSetupOpen, completeSetup, removeSetupFile } from './first-run.service.js';

/**
 * The first-run setup link's two calls, made by its page in the dashboard (/setup/<secret>). Public: the
 * secret is the credential, and it travels in the body, not the path, so no access log holds it. Limited per
 * address like sign-in (`accountCalls`), though a 256-bit secret leaves nothing to guess.
 */
export function firstRunRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/cloud/setup/status',
    routeOptions(
      {
        operationId: 'setup.getStatus',
        auth: 'public',
        limit: 'accountCalls',
        summary: 'Whether a first-run setup link is still open (docs/first-run.md)',
        tag: 'teams',
      },
      { body: SetupStatusBody, response: { 200: SetupStatusResponse } },
    ),
    async (request) => {
      await assertSetupOpen(deps, request.body.secret);
      return { status: 'open' as const };
    },
  );

  app.post(
    '/cloud/setup',
    routeOptions(
      {
        operationId: 'setup.complete',
        auth: 'public',
        limit: 'accountCalls',
        summary: 'Use the first-run setup link: the first team, its owner’s account, and a session for them',
        tag: 'teams',
      },
      { body: CompleteSetupBody, response: { 200: CompleteSetupResponse } },
    ),
    async (request, reply) => {
      const { answer, cookies } = await completeSetup(deps, request.body);
      removeSetupFile(deps.config.dataDir);
      request.log.info({ team_id: answer.team_id, user_id: answer.user_id }, 'first-run setup done');
      for (const cookie of cookies) reply.header('set-cookie', cookie);
      return answer;
    },
  );
}
