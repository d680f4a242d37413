/**
 * Callers that share one address must not lock each other out: every lobby of a host in host networking
 * calls the service from 127.0.0.1 (as app.inject's requests do), players share a NAT. The failed-token
 * count is per address, so it may refuse the failures of an address, never a token that checks out.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createGameWorld, type GameWorld } from '../helpers/api-world.js';
import { assertError } from '../helpers/error-answer.js';
import {
  find,
  issuePlayerToken,
  mintPublicToken,
  playerTokenOf,
  seedRuntimeLobby,
  switchToRuntimeVersion,
} from '../helpers/runtime-lobbies.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** A bearer shaped as a lobby token, of no lobby: what a lobby probing for its neighbours' tokens sends. */
const guessedLobbyToken = () => `gcm_lobby_${randomBytes(32).toString('base64url')}`;

describe('one address, many tenants: the failed-token limit (20 a minute)', () => {
  let svc: TestService;
  /** The game whose lobby sends bad tokens. */
  let noisy: GameWorld;
  /** Another game, with lobbies on the same host (so the same address) and players. */
  let quiet: GameWorld;
  let publicToken: string;

  before(async () => {
    svc = await startTestService({ env: { GCM_RATE_LIMIT_AUTH_FAILURES: '' } });
    noisy = await createGameWorld(svc, 'noisy-game');
    quiet = await createGameWorld(svc, 'quiet-game');
    await switchToRuntimeVersion(svc, quiet, { min: 0, max: 0 });
    publicToken = await mintPublicToken(svc, quiet);
  });
  after(() => svc?.close());

  const ready = (token: string) => svc.call('POST', '/matchmaker/lobbies/ready', { token });
  const connected = (lobbyToken: string, playerToken: string) =>
    svc.call('POST', '/matchmaker/players/connected', {
      token: lobbyToken,
      body: { player_token: playerToken },
    });

  it("lets another lobby's valid calls and players' valid tokens through while the bad ones get 429", async () => {
    const starting = await seedRuntimeLobby(svc, {
      namespaceId: quiet.namespaceId,
      versionId: quiet.versionId,
    });
    const open = await seedRuntimeLobby(
      svc,
      { namespaceId: quiet.namespaceId, versionId: quiet.versionId },
      { runState: 'ready', maxPlayers: 4 },
    );
    const alice = await playerTokenOf(svc, publicToken, open.lobbyId);
    await seedRuntimeLobby(svc, { namespaceId: noisy.namespaceId, versionId: noisy.versionId });

    for (let i = 0; i < 20; i += 1) assertError(await ready(guessedLobbyToken()), 401, 'API_UNAUTHORIZED');
    for (let i = 0; i < 5; i += 1) assertError(await ready(guessedLobbyToken()), 429, 'RATE_LIMITED');

    // The other game's lobbies, from the same address, at once.
    const readied = await ready(starting.token);
    assert.equal(readied.statusCode, 200, readied.body);
    const admitted = await connected(open.token, alice);
    assert.equal(admitted.statusCode, 200, admitted.body);
    // A public token never seen before (nothing in memory vouches for it), and a player's find with it.
    const freshPublic = await mintPublicToken(svc, quiet);
    const found = await find(svc, freshPublic);
    assert.equal(found.statusCode, 200, found.body);
    const reports = await svc.call('GET', '/cloud/games');
    assert.equal(reports.statusCode, 200, 'and the operator, from the same address');

    // The bad ones keep getting 429, whatever their shape: a lobby token's, a forged JWT, nothing like either.
    const [head, body] = freshPublic.split('.');
    const forged = `${head}.${body}.${Buffer.alloc(64).toString('base64url')}`;
    for (const bad of [guessedLobbyToken(), forged, 'not-a-token-at-all']) {
      assertError(await ready(bad), 429, 'RATE_LIMITED');
      assertError(await find(svc, bad), 429, 'RATE_LIMITED');
    }
    // A stopped lobby's token is a failure too.
    const stopped = await seedRuntimeLobby(
      svc,
      { namespaceId: quiet.namespaceId, versionId: quiet.versionId },
      { runState: 'stopped' },
    );
    assertError(await ready(stopped.token), 429, 'RATE_LIMITED');

    // The window ends: the failures start over at 401.
    svc.clock.advance(60_000);
    assertError(await ready(guessedLobbyToken()), 401, 'API_UNAUTHORIZED');
  });

  it("keeps a lobby's bad player tokens to itself: another lobby's players still connect", async () => {
    const noisyLobby = await seedRuntimeLobby(
      svc,
      { namespaceId: noisy.namespaceId, versionId: noisy.versionId },
      { runState: 'ready' },
    );
    const open = await seedRuntimeLobby(
      svc,
      { namespaceId: quiet.namespaceId, versionId: quiet.versionId },
      { runState: 'ready', maxPlayers: 4 },
    );
    const bob = await issuePlayerToken(svc, open.token, 'bob');
    for (let i = 0; i < 25; i += 1) {
      assertError(await connected(noisyLobby.token, `not-a-player-token-${i}`), 403, 'PLAYER_TOKEN_INVALID');
    }
    const admitted = await connected(open.token, bob);
    assert.equal(admitted.statusCode, 200, admitted.body);
  });

  it('checks the tokens of an address over the limit one at a time, and all of them', async () => {
    for (let i = 0; i < 21; i += 1) await ready(guessedLobbyToken());
    const lobbies = await Promise.all(
      Array.from({ length: 6 }, () =>
        seedRuntimeLobby(svc, { namespaceId: quiet.namespaceId, versionId: quiet.versionId }),
      ),
    );
    const answers = await Promise.all([
      ...lobbies.map((lobby) => ready(lobby.token)),
      ...Array.from({ length: 6 }, () => ready(guessedLobbyToken())),
    ]);
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      [...Array(6).fill(200), ...Array(6).fill(429)],
      answers.map((a) => a.body).join('\n'),
    );
  });
});

describe('X-Forwarded-For from an address that is not a trusted proxy (a lobby on 127.0.0.1)', () => {
  it('is not believed: the finds count against the address they came from', async () => {
    const svc = await startTestService({
      env: { GCM_TRUST_PROXY: '203.0.113.7', GCM_RATE_LIMIT_MATCHMAKER_PLAYER_CALLS: '3' },
    });
    try {
      const world = await createGameWorld(svc, 'forwarded-game');
      await switchToRuntimeVersion(svc, world, { min: 0, max: 0 });
      const token = await mintPublicToken(svc, world);
      const findAs = (remoteAddress: string, client: string) =>
        svc.app.inject({
          method: 'POST',
          url: '/matchmaker/lobbies/find',
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client },
          payload: { game_modes: ['default'], prevent_auto_create_lobby: true },
          remoteAddress,
        });
      for (let i = 0; i < 3; i += 1) {
        assertError(await findAs('127.0.0.1', `198.51.100.${i}`), 503, 'MATCHMAKER_NO_CAPACITY');
      }
      assertError(await findAs('127.0.0.1', '198.51.100.99'), 429, 'RATE_LIMITED');
      // Through the proxy, each client it names has a budget of its own.
      for (let i = 0; i < 4; i += 1) {
        assertError(await findAs('203.0.113.7', `198.51.100.${i}`), 503, 'MATCHMAKER_NO_CAPACITY');
      }
    } finally {
      await svc.close();
    }
  });
});
