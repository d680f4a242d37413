/**
 * A running lobby's own calls (POST /matchmaker/lobbies/ready, PUT /matchmaker/lobbies/closed, POST
 * /matchmaker/players/connected|disconnected) with its GCM_LOBBY_TOKEN, a studio's stop of one lobby
 * (DELETE /cloud/games/{g}/matchmaker/lobbies/{id}) and the namespace's rollout view, on both stores. The
 * lobby rows are written as the reconciler writes them (helpers/runtime-lobbies.ts), so these run without
 * a Docker engine; the reconciler's own tests run real containers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type AuditEvent,
  type LobbySummary,
  type NamespaceRollout,
  STOP_REASON_MAX_LENGTH,
} from '@gcm/contract';
import { recentFailedLobbiesQuery } from '../../src/modules/runtime/lobby-control.repository.js';
import { createGameWorld, type GameWorld, newLobby } from '../helpers/api-world.js';
import { assertError } from '../helpers/error-answer.js';
import { onPostgres } from '../helpers/postgres.js';
import { queryPlan } from '../helpers/query-plan.js';
import {
  find,
  mintPublicToken,
  playerTokenOf,
  type SeededLobby,
  seedRuntimeLobby,
  switchToRuntimeVersion,
} from '../helpers/runtime-lobbies.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('a lobby’s own calls, its stop and the rollout view', () => {
  let svc: TestService;
  let game: GameWorld;
  let other: GameWorld;
  /** A namespace whose version runs game mode `default`, and a public token of it: players find its lobbies. */
  let players: GameWorld;
  let publicToken: string;

  before(async () => {
    svc = await startTestService();
    game = await createGameWorld(svc, 'mm-game');
    other = await createGameWorld(svc, 'mm-other');
    players = await createGameWorld(svc, 'mm-players');
    await switchToRuntimeVersion(svc, players, { min: 0, max: 0 });
    publicToken = await mintPublicToken(svc, players);
  });
  after(async () => {
    await svc?.close();
  });

  const seed = (options: Parameters<typeof seedRuntimeLobby>[2] = {}, world = game) =>
    seedRuntimeLobby(svc, { namespaceId: world.namespaceId, versionId: world.versionId }, options);

  async function lobbyOf(lobbyId: string, world = game): Promise<LobbySummary> {
    const res = await svc.call(
      'GET',
      `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/logs/lobbies/${lobbyId}`,
    );
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ lobby: LobbySummary }>().lobby;
  }

  async function listed(lobbyId: string): Promise<LobbySummary | undefined> {
    const res = await svc.call(
      'GET',
      `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/logs/lobbies`,
    );
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ lobbies: LobbySummary[] }>().lobbies.find((l) => l.lobby_id === lobbyId);
  }

  const ready = (lobby: SeededLobby) => svc.call('POST', '/matchmaker/lobbies/ready', { token: lobby.token });
  const closed = (lobby: SeededLobby, isClosed: boolean) =>
    svc.call('PUT', '/matchmaker/lobbies/closed', { token: lobby.token, body: { is_closed: isClosed } });
  const player = (lobby: SeededLobby, what: 'connected' | 'disconnected', playerToken: string) =>
    svc.call('POST', `/matchmaker/players/${what}`, {
      token: lobby.token,
      body: { player_token: playerToken },
    });

  async function playerRows(lobbyId: string): Promise<number> {
    const rows = await svc.deps.db
      .selectFrom('lobby_players')
      .select('player_token_hash')
      .where('lobby_id', '=', lobbyId)
      .execute();
    return rows.length;
  }

  it('ready moves a starting lobby to ready, once, and the list shows its live state', async () => {
    const lobby = await seed({ maxPlayers: 6 });
    assert.deepEqual((await listed(lobby.lobbyId))?.status.running, {
      state: 'starting',
      player_count: 0,
      max_players: 6,
      version_id: game.versionId,
    });
    const first = await ready(lobby);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), {});
    const afterReady = await lobbyOf(lobby.lobbyId);
    assert.equal(afterReady.status.running.state, 'ready');
    assert.equal(typeof afterReady.ready_ts, 'string');
    assert.equal((await listed(lobby.lobbyId))?.status.running.state, 'ready');

    svc.clock.advance(1000);
    // As busybox wget --post-data= and curl -d '' send it: an empty form body, not JSON.
    const again = await svc.app.inject({
      method: 'POST',
      url: '/matchmaker/lobbies/ready',
      headers: {
        authorization: `Bearer ${lobby.token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: '',
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(
      (await lobbyOf(lobby.lobbyId)).ready_ts,
      afterReady.ready_ts,
      'a repeated ready changes nothing',
    );
  });

  it('ready takes any content type and ignores its body; closed and players/* keep JSON only', async () => {
    const lobby = await seed();
    const form = {
      authorization: `Bearer ${lobby.token}`,
      'content-type': 'application/x-www-form-urlencoded',
    };
    const sent = await svc.app.inject({
      method: 'POST',
      url: '/matchmaker/lobbies/ready',
      headers: { ...form, 'content-type': 'text/plain' },
      payload: 'ready=1',
    });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal((await lobbyOf(lobby.lobbyId)).status.running.state, 'ready');
    // The ready route's body limit (4 KiB) holds for the body it ignores.
    const tooBig = await svc.app.inject({
      method: 'POST',
      url: '/matchmaker/lobbies/ready',
      headers: form,
      payload: 'x'.repeat(4097),
    });
    assertError(tooBig, 413, 'API_BODY_TOO_LARGE');
    // Routes that read a body refuse a form as before, before reading it: the same 415 as any JSON route.
    for (const [method, url] of [
      ['PUT', '/matchmaker/lobbies/closed'],
      ['POST', '/matchmaker/players/connected'],
      ['POST', '/matchmaker/players/disconnected'],
    ] as const) {
      for (const payload of ['', 'player_token=alice']) {
        const res = await svc.app.inject({ method, url, headers: form, payload });
        const error = assertError(res, 415, 'API_UNSUPPORTED_MEDIA_TYPE');
        assert.match(error.message, /application\/x-www-form-urlencoded.*send application\/json/);
      }
    }
    assert.equal((await lobbyOf(lobby.lobbyId)).status.running.player_count, 0);
  });

  it('closed closes and reopens the lobby', async () => {
    const lobby = await seed({ runState: 'ready' });
    assert.equal((await closed(lobby, true)).statusCode, 200);
    assert.equal((await lobbyOf(lobby.lobbyId)).status.running.state, 'closed');
    assert.equal((await closed(lobby, false)).statusCode, 200);
    assert.equal((await lobbyOf(lobby.lobbyId)).status.running.state, 'ready');
  });

  it('admits a player token of find once, for its own lobby; the count is the players’ rows', async () => {
    const lobby = await seed({ runState: 'ready', maxPlayers: 2 }, players);
    const alice = await playerTokenOf(svc, publicToken, lobby.lobbyId);
    const bob = await playerTokenOf(svc, publicToken, lobby.lobbyId);
    assert.equal(
      (await lobbyOf(lobby.lobbyId, players)).status.running.player_count,
      2,
      'slots held from find',
    );
    assertError(await find(svc, publicToken), 503, 'MATCHMAKER_NO_CAPACITY');

    assert.equal((await player(lobby, 'connected', alice)).statusCode, 200);
    const again = assertError(await player(lobby, 'connected', alice), 403, 'PLAYER_TOKEN_INVALID');
    assert.equal(again.metadata?.reason, 'used');
    for (const [token, reason] of [
      ['never-issued', 'unknown'],
      [publicToken, 'unknown'],
    ] as const) {
      const refused = assertError(await player(lobby, 'connected', token), 403, 'PLAYER_TOKEN_INVALID');
      assert.equal(refused.metadata?.reason, reason);
    }
    const neighbour = await seed({ runState: 'starting' }, players);
    const elsewhere = assertError(await player(neighbour, 'connected', bob), 403, 'PLAYER_TOKEN_INVALID');
    assert.equal(elsewhere.metadata?.reason, 'other_lobby');
    assert.equal((await player(lobby, 'connected', bob)).statusCode, 200);

    assert.equal((await player(lobby, 'disconnected', alice)).statusCode, 200);
    assert.equal((await player(lobby, 'disconnected', alice)).statusCode, 200, 'a repeat is a no-op');
    assert.equal((await player(lobby, 'disconnected', 'never-seen')).statusCode, 200);
    assert.equal((await lobbyOf(lobby.lobbyId, players)).status.running.player_count, 1);
    const carol = await playerTokenOf(svc, publicToken, lobby.lobbyId);
    assert.equal((await player(lobby, 'connected', carol)).statusCode, 200);
    assert.equal((await lobbyOf(lobby.lobbyId, players)).status.running.player_count, 2);
    assert.equal(await playerRows(lobby.lobbyId), 2);
  });

  it('gives the last slots once when many players find at the same time', async () => {
    const lobby = await seed({ runState: 'ready', maxPlayers: 4, region: 'lnd-fra' }, players);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => find(svc, publicToken, { regions: ['lnd-fra'] })),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.deepEqual(
      statuses,
      [...Array(4).fill(200), ...Array(8).fill(503)],
      answers.map((a) => a.body).join('\n'),
    );
    assert.equal((await lobbyOf(lobby.lobbyId, players)).status.running.player_count, 4);
    assert.equal(await playerRows(lobby.lobbyId), 4);
  });

  it('refuses a player token longer than 512 characters', async () => {
    const lobby = await seed({ runState: 'ready' });
    assertError(await player(lobby, 'connected', 'x'.repeat(513)), 400, 'API_BAD_BODY');
    assertError(await player(lobby, 'connected', 'x'.repeat(512)), 403, 'PLAYER_TOKEN_INVALID');
  });

  it('a stopped lobby’s token works no more; an unknown one was never valid', async () => {
    const lobby = await seed({ runState: 'stopped' });
    assertError(await ready(lobby), 401, 'LOBBY_TOKEN_STOPPED');
    assertError(await closed(lobby, true), 401, 'LOBBY_TOKEN_STOPPED');
    assertError(await player(lobby, 'connected', 'p'), 401, 'LOBBY_TOKEN_STOPPED');
    assertError(await player(lobby, 'disconnected', 'p'), 401, 'LOBBY_TOKEN_STOPPED');
    assertError(
      await svc.call('POST', '/matchmaker/lobbies/ready', { token: `gcm_lobby_${'A'.repeat(43)}` }),
      401,
      'API_UNAUTHORIZED',
    );
  });

  it('a lobby token reaches its own lobby only, and no /cloud route; no other caller makes lobby calls', async () => {
    const mine = await seed({ runState: 'starting' });
    const neighbour = await seed({ runState: 'starting' });
    const before = await lobbyOf(neighbour.lobbyId);
    assert.equal((await ready(mine)).statusCode, 200);
    assert.equal((await closed(mine, true)).statusCode, 200);
    assert.equal((await player(mine, 'disconnected', 'p1')).statusCode, 200);
    assert.deepEqual(await lobbyOf(neighbour.lobbyId), before, 'the other lobby is as it was');

    for (const [method, url] of [
      ['GET', `/cloud/games/${game.gameId}`],
      ['GET', `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/logs/lobbies`],
      ['DELETE', `/cloud/games/${game.gameId}/matchmaker/lobbies/${mine.lobbyId}`],
      ['GET', '/cloud/auth/inspect'],
      ['GET', '/cloud/games'],
    ] as const) {
      assertError(await svc.call(method, url, { token: mine.token }), 403, 'API_FORBIDDEN');
    }
    for (const token of [svc.operatorToken, game.cloudToken, game.reporterToken]) {
      assertError(await svc.call('POST', '/matchmaker/lobbies/ready', { token }), 403, 'API_FORBIDDEN');
    }

    // Its refused write is in the game's audit log, by a lobby token; its own calls are not recorded.
    const audit = await svc.call('GET', `/cloud/games/${game.gameId}/audit?limit=100`);
    assert.equal(audit.statusCode, 200, audit.body);
    const events = audit.json<{ events: AuditEvent[] }>().events;
    const byLobby = events.filter((e) => e.actor.kind === 'lobby_token');
    assert.deepEqual(
      byLobby.map((e) => [e.operation, e.outcome]),
      [['games.matchmaker.deleteMatchmakerLobby', 'refused']],
    );
    assert.equal(events.filter((e) => e.operation.startsWith('matchmaker.')).length, 0);
  });

  it('a reported lobby keeps running: {}', async () => {
    assert.deepEqual((await lobbyOf(game.lobbyId)).status.running, {});
    const stopped = await seed({ runState: 'stopped' });
    assert.deepEqual((await lobbyOf(stopped.lobbyId)).status.running, {});
  });

  it('a stopped runtime lobby says why it stopped and the version it ran; a reported one says neither', async () => {
    const timedOut = await seed({ runState: 'stopped', failed: { exitCode: 137, reason: 'ready-timeout' } });
    const { stop_ts, ...stopped } = (await lobbyOf(timedOut.lobbyId)).status.stopped ?? {};
    assert.deepEqual(stopped, {
      exit_code: 137,
      failed: true,
      stop_reason: 'ready-timeout',
      version_id: game.versionId,
    });
    assert.equal(typeof stop_ts, 'string');
    assert.deepEqual((await listed(timedOut.lobbyId))?.status.stopped?.stop_reason, 'ready-timeout');
    // A driver's message longer than an answer carries is cut at the contract's limit.
    const image = await seed({
      runState: 'stopped',
      failed: { exitCode: 0, reason: `image: ${'x'.repeat(STOP_REASON_MAX_LENGTH)}` },
    });
    const reason = (await lobbyOf(image.lobbyId)).status.stopped?.stop_reason ?? '';
    assert.equal(reason.length, STOP_REASON_MAX_LENGTH);
    assert.match(reason, /^image: x+$/);

    // A lobby its data plane reported stopped has the interface's three fields, nothing of the runtime's.
    const reported = await newLobby(svc, game.gameId, game.namespaceId);
    const stop = await svc.call(
      'POST',
      `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/logs/lobbies/${reported}/events`,
      { token: game.reporterToken, body: { kind: 'stop', exit_code: 3 } },
    );
    assert.equal(stop.statusCode, 204, stop.body);
    assert.deepEqual(Object.keys((await lobbyOf(reported)).status.stopped ?? {}).sort(), [
      'exit_code',
      'failed',
      'stop_ts',
    ]);
  });

  it('DELETE marks a runtime lobby stopping, once; a reported, missing or other game’s lobby is refused', async () => {
    const lobby = await seed({ runState: 'ready', region: 'lnd-atl' }, players);
    const late = await playerTokenOf(svc, publicToken, lobby.lobbyId);
    const url = `/cloud/games/${players.gameId}/matchmaker/lobbies/${lobby.lobbyId}`;
    const first = await svc.call('DELETE', url, { token: players.cloudToken });
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { did_remove: true });
    const row = await svc.deps.db
      .selectFrom('lobbies')
      .select(['run_state', 'stop_reason', 'stop_requested_ts', 'stop_ts'])
      .where('lobby_id', '=', lobby.lobbyId)
      .executeTakeFirstOrThrow();
    assert.equal(row.run_state, 'stopping');
    assert.equal(row.stop_reason, 'studio');
    assert.equal(Number(row.stop_requested_ts), svc.clock.now());
    assert.equal(row.stop_ts, null, 'the reconciler writes the stop once the container exited');
    assert.equal((await lobbyOf(lobby.lobbyId, players)).status.running.state, 'stopping');
    assert.deepEqual((await svc.call('DELETE', url)).json(), { did_remove: false });

    // Its token works until it has stopped, but takes no new player.
    assert.equal((await ready(lobby)).statusCode, 200);
    assertError(await player(lobby, 'connected', late), 409, 'LOBBY_STOPPING');

    assertError(
      await svc.call('DELETE', `/cloud/games/${game.gameId}/matchmaker/lobbies/${game.lobbyId}`),
      409,
      'LOBBY_NOT_RUNTIME',
    );
    const theirs = await seed({ runState: 'ready' }, other);
    assertError(
      await svc.call('DELETE', `/cloud/games/${game.gameId}/matchmaker/lobbies/${theirs.lobbyId}`),
      404,
      'LOBBY_NOT_FOUND',
    );
    assert.equal((await lobbyOf(theirs.lobbyId, other)).status.running.state, 'ready');
    assertError(
      await svc.call('DELETE', `/cloud/games/${game.gameId}/matchmaker/lobbies/${crypto.randomUUID()}`),
      404,
      'LOBBY_NOT_FOUND',
    );
  });

  it('the rollout view counts lobbies per version and state and says when the idle lobbies are ready', async () => {
    const world = await createGameWorld(svc, 'mm-rollout');
    const v2 = await switchToRuntimeVersion(svc, world, { min: 2, max: 4 }, { min: 1, max: 2 });
    const rolloutUrl = `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/rollout`;
    const at = (options: Parameters<typeof seedRuntimeLobby>[2], versionId = v2) =>
      seedRuntimeLobby(svc, { namespaceId: world.namespaceId, versionId }, options);
    // The old version: one busy lobby draining, one idle one being stopped.
    await at({ runState: 'ready', playerCount: 3 }, world.versionId);
    await at({ runState: 'stopping' }, world.versionId);
    // The new one: atl has 2 ready idle and 1 starting; fra 1 busy, 1 closed, no idle yet.
    await at({ runState: 'ready' });
    await at({ runState: 'ready' });
    await at({ runState: 'starting' });
    await at({ runState: 'ready', region: 'lnd-fra', playerCount: 1 });
    await at({ runState: 'ready', region: 'lnd-fra', isClosed: true });
    await at({ runState: 'stopped', region: 'lnd-fra', failed: { exitCode: 137, reason: 'ready-timeout' } });

    const view = await svc.call('GET', rolloutUrl, { token: world.cloudToken });
    assert.equal(view.statusCode, 200, view.body);
    const rollout = view.json<NamespaceRollout>();
    assert.equal(rollout.version_id, v2);
    assert.equal(rollout.complete, false, 'lnd-fra has no idle lobby ready');
    const none = { starting: 0, ready_idle: 0, ready_busy: 0, closed: 0, stopping: 0 };
    const group = (versionId: string, region: string) =>
      rollout.groups.find(
        (g) => g.version_id === versionId && g.region_id === region && g.game_mode === 'default',
      );
    assert.deepEqual(group(v2, 'lnd-atl')?.lobbies, { ...none, ready_idle: 2, starting: 1 });
    assert.equal(group(v2, 'lnd-atl')?.idle_wanted, 2);
    assert.deepEqual(group(v2, 'lnd-fra')?.lobbies, { ...none, ready_busy: 1, closed: 1 });
    assert.equal(group(v2, 'lnd-fra')?.idle_wanted, 1);
    assert.equal(group(v2, 'lnd-sfo'), undefined, 'the game mode names its regions: it runs in no other');
    assert.deepEqual(group(world.versionId, 'lnd-atl')?.lobbies, { ...none, ready_busy: 1, stopping: 1 });
    assert.equal(rollout.failed.length, 1);
    assert.equal(rollout.failed[0]?.exit_code, 137);
    assert.equal(rollout.failed[0]?.stop_reason, 'ready-timeout');
    assert.equal(rollout.failed[0]?.region_id, 'lnd-fra');
    // The current version's groups come first.
    assert.equal(rollout.groups[0]?.version_id, v2);

    // Every region that wants idle lobbies has them: complete.
    await at({ runState: 'ready', region: 'lnd-fra' });
    assert.equal((await svc.call('GET', rolloutUrl)).json<NamespaceRollout>().complete, true);
    assertError(await svc.call('GET', rolloutUrl, { token: game.cloudToken }), 403, 'API_FORBIDDEN');
  });
});

describe("the rollout's failed lobbies", () => {
  it('are read through the lobbies_failed index in stop order: no scan of the lobby log, no sort', async () => {
    const svc = await startTestService();
    try {
      const world = await createGameWorld(svc, 'mm-failed-plan');
      const compiled = recentFailedLobbiesQuery(
        svc.deps.db,
        world.namespaceId,
        world.versionId,
        20,
      ).compile();
      const plan = await queryPlan(svc.deps.db, compiled);
      if (onPostgres) {
        assert.match(plan, /Index Scan Backward using lobbies_failed on lobbies/, plan);
        assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
      } else {
        assert.match(
          plan,
          /SEARCH lobbies USING INDEX lobbies_failed \(namespace_id=\? AND version_id=\?\)/,
          plan,
        );
        assert.doesNotMatch(plan, /SCAN|TEMP B-TREE/, plan);
      }
    } finally {
      await svc.close();
    }
  });
});
