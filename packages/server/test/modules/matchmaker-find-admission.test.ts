/**
 * What POST /matchmaker/lobbies/find asks of a player before a slot, over HTTP (issue 37): the version's
 * captcha, checked by a local server speaking the providers' siteverify contract, with its pass kept per
 * client address; and the per-address limit of the game clients' POST calls. A refused find takes no slot.
 * admission.ts's own rules (ttl, providers, the hook) are tested in matchmaker-admission.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createGameWorld, type GameWorld } from '../helpers/api-world.js';
import { assertError } from '../helpers/error-answer.js';
import { mintPublicToken, seedRuntimeLobby } from '../helpers/runtime-lobbies.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { SiteverifyServer } from '../helpers/siteverify-server.js';

/** A version whose default game mode runs in lnd-atl, with `matchmaker` fields added; the namespace runs it. */
async function runVersion(svc: TestService, world: GameWorld, matchmaker: Record<string, unknown>) {
  const version = await svc.call('POST', `/cloud/games/${world.gameId}/versions`, {
    body: {
      display_name: 'admitted',
      config: {
        matchmaker: {
          game_modes: { default: { container: { image_id: world.buildId }, regions: { 'lnd-atl': {} } } },
          ...matchmaker,
        },
      },
    },
  });
  assert.equal(version.statusCode, 200, version.body);
  const versionId = version.json<{ version_id: string }>().version_id;
  const put = await svc.call('PUT', `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/version`, {
    body: { version_id: versionId },
  });
  assert.equal(put.statusCode, 204, put.body);
  return versionId;
}

/** A find from `address` (each address its own client). */
function findFrom(
  svc: TestService,
  token: string,
  address: string,
  body: Record<string, unknown> = {},
): Promise<LightMyRequestResponse> {
  return svc.app.inject({
    method: 'POST',
    url: '/matchmaker/lobbies/find',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ game_modes: ['default'], prevent_auto_create_lobby: true, ...body }),
    remoteAddress: address,
  });
}

async function playerCount(svc: TestService, lobbyId: string): Promise<number> {
  const row = await svc.deps.db
    .selectFrom('lobbies')
    .select('player_count')
    .where('lobby_id', '=', lobbyId)
    .executeTakeFirstOrThrow();
  return Number(row.player_count);
}

describe('find with a captcha, over HTTP', () => {
  let svc: TestService;
  let provider: SiteverifyServer;
  let token: string;
  let lobbyId: string;

  before(async () => {
    provider = await SiteverifyServer.start('secret-a');
    provider.accepted.add('solved');
    svc = await startTestService({ env: { GCM_CAPTCHA_A_VERIFY_URL: provider.url } });
    const world = await createGameWorld(svc, 'captcha-find');
    const versionId = await runVersion(svc, world, {
      captcha: {
        captcha_provider_a: { site_key: 'site-a', secret_key: 'secret-a' },
        requests_before_reverify: 1,
        verification_ttl: 60_000,
      },
    });
    token = await mintPublicToken(svc, world);
    lobbyId = (
      await seedRuntimeLobby(
        svc,
        { namespaceId: world.namespaceId, versionId },
        { runState: 'ready', region: 'lnd-atl', maxPlayers: 8 },
      )
    ).lobbyId;
  });
  after(async () => {
    await svc?.close();
    await provider?.close();
  });

  it('asks for it, checks the answer with siteverify, admits requests_before_reverify more, then asks again', async () => {
    const address = '198.51.100.31';
    const asked = assertError<{ code: string; metadata: unknown }>(
      await findFrom(svc, token, address),
      403,
      'MATCHMAKER_CAPTCHA_REQUIRED',
    );
    assert.deepEqual(asked.metadata, { providers: { hcaptcha: { site_key: 'site-a' } } });
    assertError(
      await findFrom(svc, token, address, { captcha: { hcaptcha: { client_response: 'guessed' } } }),
      403,
      'MATCHMAKER_CAPTCHA_INVALID',
    );
    assert.equal(await playerCount(svc, lobbyId), 0, 'a refused find takes no slot');

    const solved = await findFrom(svc, token, address, {
      captcha: { hcaptcha: { client_response: 'solved' } },
    });
    assert.equal(solved.statusCode, 200, solved.body);
    assert.deepEqual(provider.calls.at(-1), {
      path: '/siteverify',
      contentType: 'application/x-www-form-urlencoded',
      secret: 'secret-a',
      response: 'solved',
      remoteip: address,
    });
    const calls = provider.calls.length;
    assert.equal((await findFrom(svc, token, address)).statusCode, 200, 'one more without asking');
    assert.equal(provider.calls.length, calls);
    assertError(await findFrom(svc, token, address), 403, 'MATCHMAKER_CAPTCHA_REQUIRED');
    // The pass was this address's alone.
    assertError(await findFrom(svc, token, '198.51.100.32'), 403, 'MATCHMAKER_CAPTCHA_REQUIRED');
    assert.equal(await playerCount(svc, lobbyId), 2);
  });
});

describe("the game clients' POST calls per address, over HTTP", () => {
  let svc: TestService;
  let token: string;
  let lobbyId: string;

  before(async () => {
    svc = await startTestService({ env: { GCM_RATE_LIMIT_MATCHMAKER_PLAYER_CALLS: '2' } });
    const world = await createGameWorld(svc, 'limited-find');
    const versionId = await runVersion(svc, world, {});
    token = await mintPublicToken(svc, world);
    lobbyId = (
      await seedRuntimeLobby(
        svc,
        { namespaceId: world.namespaceId, versionId },
        { runState: 'ready', region: 'lnd-atl', maxPlayers: 32 },
      )
    ).lobbyId;
  });
  after(async () => {
    await svc?.close();
  });

  it('refuses an address past its finds in the window, takes no slot for it, and lets another address on', async () => {
    const address = '203.0.113.41';
    for (let i = 0; i < 2; i += 1) {
      const res = await findFrom(svc, token, address);
      assert.equal(res.statusCode, 200, res.body);
    }
    const limited = assertError<{ code: string; message: string; metadata: { retry_after_seconds: number } }>(
      await findFrom(svc, token, address),
      429,
      'RATE_LIMITED',
    );
    assert.match(limited.message, /from this address/);
    assert.equal(await playerCount(svc, lobbyId), 2);
    assert.equal((await findFrom(svc, token, '203.0.113.42')).statusCode, 200);
    svc.clock.advance(limited.metadata.retry_after_seconds * 1000);
    assert.equal((await findFrom(svc, token, address)).statusCode, 200);
    assert.equal(await playerCount(svc, lobbyId), 4);
  });
});
