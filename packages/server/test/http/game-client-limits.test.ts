/**
 * The game clients' routes (`/matchmaker/*` with a public or development token): their per-address and
 * per-token rate limits, counted in the instance's memory, and CORS for pages of any origin, which the
 * cloud routes do not get.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertError } from '../helpers/error-answer.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';

const GAME_ORIGIN = 'https://play.game.example';

async function mintPublic(svc: TestService, gameId: string, namespaceId: string): Promise<string> {
  const res = await svc.call('POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/tokens/public`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ token: string }>().token;
}

/** GET /matchmaker/regions from `address` (each address its own client) with `token`. */
function regionsFrom(
  svc: TestService,
  address: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return svc.app.inject({
    method: 'GET',
    url: '/matchmaker/regions',
    headers: { ...headers, authorization: `Bearer ${token}` },
    remoteAddress: address,
  });
}

function assertRateLimited(res: LightMyRequestResponse, message: RegExp): void {
  const body = assertError<{ code: string; message: string; metadata: { retry_after_seconds: number } }>(
    res,
    429,
    'RATE_LIMITED',
  );
  assert.match(body.message, message);
  assert.equal(res.headers['retry-after'], String(body.metadata.retry_after_seconds));
}

describe('game client rate limits', () => {
  let svc: TestService;
  let fixture: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    svc = await startTestService({
      env: { GCM_RATE_LIMIT_MATCHMAKER_READS: '3', GCM_RATE_LIMIT_MATCHMAKER_TOKEN: '8' },
    });
    fixture = await createGameFixture(svc, 'limited');
  });
  after(async () => {
    await svc?.close();
  });

  it('refuses an address past its reads in the window, not another address, and again after the window', async () => {
    const token = await mintPublic(svc, fixture.gameId, fixture.namespaceId);
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await regionsFrom(svc, '198.51.100.1', token)).statusCode, 200);
    }
    const refused = await regionsFrom(svc, '198.51.100.1', token);
    assertRateLimited(refused, /from this address/);
    assert.equal(refused.headers['retry-after'], '60');
    assert.equal((await regionsFrom(svc, '198.51.100.2', token)).statusCode, 200);
    svc.clock.advance(60_000);
    assert.equal((await regionsFrom(svc, '198.51.100.1', token)).statusCode, 200);
  });

  it('refuses a token past its calls in the window from any address; another token goes on', async () => {
    const token = await mintPublic(svc, fixture.gameId, fixture.namespaceId);
    for (let i = 0; i < 8; i += 1) {
      assert.equal((await regionsFrom(svc, `203.0.113.${i + 1}`, token)).statusCode, 200);
    }
    assertRateLimited(await regionsFrom(svc, '203.0.113.100', token), /with this token/);
    const other = await mintPublic(svc, fixture.gameId, fixture.namespaceId);
    assert.equal((await regionsFrom(svc, '203.0.113.100', other)).statusCode, 200);
  });

  it('counts nothing before the token checks out', async () => {
    for (let i = 0; i < 5; i += 1) {
      assertError(await regionsFrom(svc, '192.0.2.9', 'not-a-token'), 401, 'API_UNAUTHORIZED');
    }
    const token = await mintPublic(svc, fixture.gameId, fixture.namespaceId);
    assert.equal((await regionsFrom(svc, '192.0.2.9', token)).statusCode, 200);
  });
});

describe('CORS for the game clients’ routes', () => {
  let svc: TestService;
  let fixture: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    svc = await startTestService({ env: { GCM_RATE_LIMIT_MATCHMAKER_READS: '1' } });
    fixture = await createGameFixture(svc, 'browser-game');
  });
  after(async () => {
    await svc?.close();
  });

  const preflight = (url: string) =>
    svc.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin: GAME_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  it('answers a preflight from any origin, without credentials', async () => {
    const res = await preflight('/matchmaker/lobbies/find');
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.match(String(res.headers['access-control-allow-methods']), /POST/);
    assert.match(String(res.headers['access-control-allow-headers']), /authorization/);
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
  });

  it('lets the page read answers and refusals: the token’s regions, its 429, a bad token’s 401', async () => {
    const token = await mintPublic(svc, fixture.gameId, fixture.namespaceId);
    const headers = { origin: GAME_ORIGIN };
    const ok = await regionsFrom(svc, '198.51.100.7', token, headers);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.headers['access-control-allow-origin'], '*');
    assert.match(String(ok.headers['access-control-expose-headers']), /retry-after/);
    const limited = await regionsFrom(svc, '198.51.100.7', token, headers);
    assert.equal(limited.statusCode, 429, limited.body);
    assert.equal(limited.headers['access-control-allow-origin'], '*');
    const refused = await regionsFrom(svc, '198.51.100.8', 'not-a-token', headers);
    assert.equal(refused.statusCode, 401, refused.body);
    assert.equal(refused.headers['access-control-allow-origin'], '*');
  });

  it('gives the cloud routes nothing of it (GCM_CORS_ORIGINS decides there)', async () => {
    const res = await svc.call('GET', `/cloud/games/${fixture.gameId}`, { headers: { origin: GAME_ORIGIN } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    const pre = await preflight(`/cloud/games/${fixture.gameId}`);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
  });
});
