/**
 * What players browse (GET /matchmaker/lobbies/list) and the state a lobby publishes for them
 * (PUT /matchmaker/lobbies/state, GET /matchmaker/lobbies/{id}/state), on both stores. Lobby rows are
 * written as the reconciler writes them (helpers/runtime-lobbies.ts); player counts come from the lobby's
 * own players/connected calls.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ListLobbiesResponse, MATCHMAKER_LIMITS } from '@gcm/contract';
import { listOpenLobbiesQuery } from '../../src/modules/matchmaker/matchmaker-lobbies.repository.js';
import { createGameWorld, type GameWorld } from '../helpers/api-world.js';
import { assertError } from '../helpers/error-answer.js';
import { queryPlan } from '../helpers/query-plan.js';
import { issuePlayerToken, seedRuntimeLobby } from '../helpers/runtime-lobbies.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('the lobby list and lobby state', () => {
  let svc: TestService;
  let game: GameWorld;
  let other: GameWorld;
  let versionId: string;
  let publicToken: string;
  let otherPublic: string;

  async function mintPublic(world: GameWorld): Promise<string> {
    const res = await svc.call(
      'POST',
      `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/tokens/public`,
      {},
    );
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ token: string }>().token;
  }

  before(async () => {
    svc = await startTestService();
    game = await createGameWorld(svc, 'mm-list');
    other = await createGameWorld(svc, 'mm-list-other');
    const version = await svc.call('POST', `/cloud/games/${game.gameId}/versions`, {
      body: {
        display_name: 'listed',
        config: {
          matchmaker: {
            game_modes: {
              default: { container: { image_id: game.buildId }, regions: { 'lnd-atl': {} } },
              hidden: { listable: false, container: { image_id: game.buildId }, regions: { 'lnd-atl': {} } },
            },
          },
        },
      },
    });
    assert.equal(version.statusCode, 200, version.body);
    versionId = version.json<{ version_id: string }>().version_id;
    const switched = await svc.call(
      'PUT',
      `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/version`,
      { body: { version_id: versionId } },
    );
    assert.equal(switched.statusCode, 204, switched.body);
    publicToken = await mintPublic(game);
    otherPublic = await mintPublic(other);
  });
  after(async () => {
    await svc?.close();
  });

  const seed = (options: Parameters<typeof seedRuntimeLobby>[2] = {}) =>
    seedRuntimeLobby(svc, { namespaceId: game.namespaceId, versionId }, options);
  const connect = async (token: string, player: string) => {
    const res = await svc.call('POST', '/matchmaker/players/connected', {
      token,
      // A slot reserved for `player` in this lobby, as find would (find picks the lobby itself).
      body: { player_token: await issuePlayerToken(svc, token, player) },
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  const list = async (token: string, query = '') => {
    const res = await svc.call('GET', `/matchmaker/lobbies/list${query}`, { token });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<ListLobbiesResponse>();
  };
  const setState = (token: string, body?: unknown) =>
    svc.call('PUT', '/matchmaker/lobbies/state', body === undefined ? { token } : { token, body });
  const getState = (token: string, lobbyId: string) =>
    svc.call('GET', `/matchmaker/lobbies/${lobbyId}/state`, { token });

  it('lists the ready, open, public lobbies of listable game modes, the fullest first, with their counts', async () => {
    const quiet = await seed({ runState: 'ready', maxPlayers: 8 });
    const busy = await seed({ runState: 'ready', maxPlayers: 8 });
    await connect(busy.token, 'p1');
    await connect(busy.token, 'p2');
    const starting = await seed({ runState: 'starting' });
    const closed = await seed({ runState: 'ready', isClosed: true });
    const unlisted = await seed({ runState: 'ready', gameMode: 'hidden' });
    const stopped = await seed({ runState: 'stopped' });
    const priv = await seed({ runState: 'ready' });
    await svc.deps.db
      .updateTable('lobbies')
      .set({ publicity: 'private' })
      .where('lobby_id', '=', priv.lobbyId)
      .execute();
    const pub = await seed({ runState: 'ready' });
    await svc.deps.db
      .updateTable('lobbies')
      .set({ publicity: 'public', max_players_direct: 10, max_players_party: 12 })
      .where('lobby_id', '=', pub.lobbyId)
      .execute();
    const otherLobby = await seedRuntimeLobby(svc, other, { runState: 'ready' });

    const answer = await list(publicToken);
    assert.deepEqual(answer.game_modes, [{ game_mode_id: 'default' }, { game_mode_id: 'hidden' }]);
    assert.deepEqual(
      answer.regions.map((r) => r.region_id),
      ['lnd-atl'],
    );
    const ids = answer.lobbies.map((l) => l.lobby_id);
    assert.equal(ids[0], busy.lobbyId, 'the fullest first');
    assert.deepEqual(new Set(ids), new Set([busy.lobbyId, quiet.lobbyId, pub.lobbyId]));
    for (const gone of [starting, closed, unlisted, stopped, priv, otherLobby])
      assert.ok(!ids.includes(gone.lobbyId));
    assert.deepEqual(answer.lobbies[0], {
      region_id: 'lnd-atl',
      game_mode_id: 'default',
      lobby_id: busy.lobbyId,
      max_players_normal: 8,
      max_players_direct: 8,
      max_players_party: 8,
      total_player_count: 2,
    });
    const listedPub = answer.lobbies.find((l) => l.lobby_id === pub.lobbyId);
    assert.equal(listedPub?.max_players_direct, 10);
    assert.equal(listedPub?.max_players_party, 12);
    assert.ok(
      answer.lobbies.every((l) => !('state' in l)),
      'state only when asked',
    );
    assert.deepEqual((await list(otherPublic)).lobbies, []);

    await setState(busy.token, { map: 'dust' });
    const withState = await list(publicToken, '?include_state=true');
    assert.deepEqual(withState.lobbies.find((l) => l.lobby_id === busy.lobbyId)?.state, { map: 'dust' });
    assert.equal(withState.lobbies.find((l) => l.lobby_id === quiet.lobbyId)?.state, null);
  });

  it('answers at most MATCHMAKER_LIMITS.listLobbies lobbies in one range of lobbies_listed', async () => {
    const compiled = listOpenLobbiesQuery(svc.deps.db, game.namespaceId, ['default'], true, 10).compile();
    const plan = await queryPlan(svc.deps.db, compiled);
    assert.match(plan, /lobbies_listed/, plan);
    assert.ok(MATCHMAKER_LIMITS.listLobbies <= 1024);
  });

  it('a lobby sets, replaces and clears its state; its namespace reads it, nobody else', async () => {
    const lobby = await seed({ runState: 'ready' });
    const sibling = await seed({ runState: 'ready' });
    assert.equal((await getState(publicToken, lobby.lobbyId)).body, 'null');
    assert.equal((await setState(lobby.token, { round: 1, players: ['a'] })).statusCode, 200);
    const read = await getState(publicToken, lobby.lobbyId);
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json(), { round: 1, players: ['a'] });
    assert.deepEqual((await getState(sibling.token, lobby.lobbyId)).json(), { round: 1, players: ['a'] });
    const plain = await svc.call('PUT', '/matchmaker/lobbies/state', {
      token: lobby.token,
      body: '"plain"',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(plain.statusCode, 200, plain.body);
    assert.equal((await getState(publicToken, lobby.lobbyId)).json(), 'plain');
    assert.equal((await setState(lobby.token)).statusCode, 200, 'no body clears it');
    assert.equal((await getState(publicToken, lobby.lobbyId)).body, 'null');

    assertError(await getState(otherPublic, lobby.lobbyId), 404, 'MATCHMAKER_LOBBY_NOT_FOUND');
    assertError(
      await getState(publicToken, '00000000-0000-4000-8000-000000000000'),
      404,
      'MATCHMAKER_LOBBY_NOT_FOUND',
    );
  });

  it('refuses a state above MATCHMAKER_LIMITS.stateBytes with 413, keeping the old one', async () => {
    const lobby = await seed({ runState: 'ready' });
    await setState(lobby.token, { kept: true });
    const big = { blob: 'x'.repeat(MATCHMAKER_LIMITS.stateBytes) };
    assertError(await setState(lobby.token, big), 413, 'API_BODY_TOO_LARGE');
    assert.deepEqual((await getState(publicToken, lobby.lobbyId)).json(), { kept: true });
  });

  it('answers a lobby that writes its state faster than its rate 429 with Retry-After, keeping the last taken', async () => {
    const lobby = await seed({ runState: 'ready' });
    const neighbour = await seed({ runState: 'ready' });
    const { lobbyStateWriteBurst } = svc.deps.config.matchmaker;
    // The burst is taken at once (well within a second, so the rate adds at most one or two)...
    const answers: number[] = [];
    for (let i = 0; i < lobbyStateWriteBurst + 5; i++) {
      const res = await setState(lobby.token, { round: i, blob: 'x'.repeat(60_000) });
      answers.push(res.statusCode);
      if (res.statusCode === 429) {
        assertError(res, 429, 'RATE_LIMITED');
        assert.match(String(res.headers['retry-after']), /^[1-9]\d*$/);
        assert.match(res.json<{ message: string }>().message, /GCM_LOBBY_STATE_WRITES_PER_SECOND/);
      }
    }
    const taken = answers.filter((s) => s === 200).length;
    assert.ok(taken >= lobbyStateWriteBurst && taken <= lobbyStateWriteBurst + 2, answers.join(' '));
    assert.deepEqual([...new Set(answers)].sort(), [200, 429]);
    // ...the refused ones changed nothing, and another lobby of the namespace has its own bucket.
    const kept = (await getState(publicToken, lobby.lobbyId)).json<{ round: number }>();
    assert.equal(kept.round, answers.lastIndexOf(200));
    assert.equal((await setState(neighbour.token, { mine: true })).statusCode, 200);
  });
});
