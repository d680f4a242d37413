/**
 * Which pages may use a session. With GCM_PUBLIC_URL unset, a person opening the dashboard on this machine
 * at 127.0.0.1 or [::1] (not the default's `localhost`) signs in and writes like one at localhost: the
 * loopback forms of the listening port are trusted. Any other origin is refused with a message naming it
 * and the settings that decide, logged once per origin at warn, in bounded memory. Through real HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REFUSED_ORIGINS_LOGGED_MAX } from '../../src/lib/trusted-origins.js';
import { authCall, newTeam, PASSWORD, type Team } from '../helpers/people.js';
import { type LogLine, startTestService, type TestService } from '../helpers/service.js';

const WARN = 40;

async function signInFrom(base: string, origin: string, email: string) {
  const res = await fetch(`${base}/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const body = (await res.json()) as { code?: string; message?: string };
  const cookie = res.headers.getSetCookie().find((c) => c.includes('session_token='));
  return { status: res.status, body, cookie: cookie?.split(';')[0] };
}

function refusalLines(logs: LogLine[], origin: string): LogLine[] {
  return logs.filter((l) => l.level === WARN && l.origin === origin);
}

describe('trusted origins with GCM_PUBLIC_URL unset', () => {
  let svc: TestService;
  let team: Team;
  let port: number;
  before(async () => {
    // PORT=0 as in the tests of a started process: the loopback origins are those of the port it picks.
    svc = await startTestService({ env: { PORT: '0' }, logLevel: 'info' });
    team = await newTeam(svc, 'loopback');
    await svc.app.listen({ host: '127.0.0.1', port: 0 });
    const address = svc.app.server.address();
    assert.ok(typeof address === 'object' && address !== null);
    port = address.port;
  });
  after(() => svc.close());

  for (const host of ['127.0.0.1', '[::1]', 'localhost']) {
    it(`signs in and writes from a page at http://${host}:PORT`, async () => {
      const origin = `http://${host}:${port}`;
      const signedIn = await signInFrom(`http://127.0.0.1:${port}`, origin, team.owner.email);
      assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
      assert.ok(signedIn.cookie !== undefined);
      // A write with the session from that page: a game, made for the team.
      const game = await fetch(`http://127.0.0.1:${port}/cloud/games`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin, cookie: signedIn.cookie },
        body: JSON.stringify({
          name_id: `game-${host.replace(/\W/g, '')}`,
          display_name: 'Loopback',
          team_id: team.teamId,
        }),
      });
      assert.equal(game.status, 200, await game.text());
    });
  }

  it('refuses another port of loopback, naming the origin and the settings that decide', async () => {
    const origin = `http://127.0.0.1:${port + 1}`;
    const res = await signInFrom(`http://127.0.0.1:${port}`, origin, team.owner.email);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'AUTH_CROSS_ORIGIN');
    assert.ok(res.body.message?.includes(origin), res.body.message);
    assert.match(res.body.message ?? '', /GCM_PUBLIC_URL \(unset: http:\/\/localhost:0 and the loopback/);
    assert.match(res.body.message ?? '', /GCM_TRUSTED_ORIGINS/);
  });

  it('logs a refused origin once, at warn, whether by sign-in or by a cookie write', async () => {
    const origin = 'https://elsewhere.example';
    for (let i = 0; i < 3; i += 1) {
      const res = await authCall(svc, 'POST', '/sign-in/email', {
        body: { email: team.owner.email, password: PASSWORD },
        headers: { origin },
      });
      assert.equal(res.statusCode, 403, res.body);
      assert.match(
        res.json<{ message: string }>().message,
        /signing in from the page at https:\/\/elsewhere/,
      );
      const write = await svc.call('POST', '/cloud/games', {
        token: null,
        headers: { origin, cookie: team.owner.cookie },
        body: { name_id: 'refused', display_name: 'Refused', team_id: team.teamId },
      });
      assert.equal(write.statusCode, 403, write.body);
      assert.equal(write.json<{ code: string }>().code, 'AUTH_CROSS_ORIGIN');
      assert.match(
        write.json<{ message: string }>().message,
        /a write with a session cookie from the page at/,
      );
    }
    const lines = refusalLines(svc.logs, origin);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.match(String(lines[0]?.msg), /GCM_PUBLIC_URL .* GCM_TRUSTED_ORIGINS decide/);
    // better-auth's own "Invalid origin" error line is not logged beside it, once per request.
    assert.equal(svc.logs.filter((l) => String(l.msg).startsWith('Invalid origin')).length, 0);
  });

  it('remembers a bounded number of refused origins: made-up ones stop being logged', async () => {
    const made = Array.from({ length: REFUSED_ORIGINS_LOGGED_MAX + 20 }, (_, i) => `https://o${i}.example`);
    for (const origin of made) {
      const res = await svc.call('POST', '/cloud/games', {
        token: null,
        headers: { origin, cookie: team.owner.cookie },
        body: { name_id: 'refused', display_name: 'Refused', team_id: team.teamId },
      });
      assert.equal(res.statusCode, 403);
    }
    const logged = made.filter((origin) => refusalLines(svc.logs, origin).length > 0);
    // Earlier tests' origins took some of the places; never more than the cap in all.
    const all = new Set(
      svc.logs.filter((l) => l.level === WARN && typeof l.origin === 'string').map((l) => l.origin),
    );
    assert.equal(all.size, REFUSED_ORIGINS_LOGGED_MAX);
    assert.ok(logged.length < made.length);
  });
});

describe('trusted origins with GCM_PUBLIC_URL set', () => {
  let svc: TestService;
  let team: Team;
  let port: number;
  before(async () => {
    svc = await startTestService({ env: { PORT: '0', GCM_PUBLIC_URL: 'https://gcm.example.com' } });
    team = await newTeam(svc, 'named');
    await svc.app.listen({ host: '127.0.0.1', port: 0 });
    const address = svc.app.server.address();
    assert.ok(typeof address === 'object' && address !== null);
    port = address.port;
  });
  after(() => svc.close());

  it('trusts only the public URL (and GCM_TRUSTED_ORIGINS): loopback pages are refused', async () => {
    const origin = `http://127.0.0.1:${port}`;
    const res = await signInFrom(origin, origin, team.owner.email);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'AUTH_CROSS_ORIGIN');
    assert.equal(
      res.body.message,
      `signing in from the page at ${origin} is refused: that origin is not trusted; GCM_PUBLIC_URL ` +
        '(https://gcm.example.com) and GCM_TRUSTED_ORIGINS decide which origins are trusted',
    );
    const ok = await signInFrom(origin, 'https://gcm.example.com', team.owner.email);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });
});
