/**
 * POST /matchmaker/lobbies/find on both stores, over lobby rows written as the reconciler writes them
 * (helpers/runtime-lobbies.ts): the slot is taken exactly once under a burst, a player token admits once
 * and expires, and what find refuses. The find → connect → disconnect of a real lobby, through the
 * original's published client, is in matchmaker-find-runtime.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JoinLobbyAnswer } from '@gcm/contract';
import { sql } from 'kysely';
import { createGameWorld, type GameWorld } from '../helpers/api-world.js';
import { assertError } from '../helpers/error-answer.js';
import { onPostgres } from '../helpers/postgres.js';
import {
  find,
  mintPublicToken,
  playerTokenOf,
  seedRuntimeLobby,
  switchToRuntimeVersion,
} from '../helpers/runtime-lobbies.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

describe('finding a lobby', () => {
  let svc: TestService;
  let world: GameWorld;
  let publicToken: string;
  let versionId: string;

  before(async () => {
    // A short connect timeout: the expiry test waits for the job, not for 90 s.
    svc = await startTestService({
      env: {
        GCM_PLAYER_CONNECT_TIMEOUT: '2',
        GCM_WEBHOOK_ALLOW_HTTP: 'true',
        GCM_WEBHOOK_ALLOW_INTERNAL: 'true',
      },
    });
    world = await createGameWorld(svc, 'find-game');
    versionId = await switchToRuntimeVersion(svc, world, { min: 0, max: 0 });
    publicToken = await mintPublicToken(svc, world);
    await mmConfig(world, 10_000);
  });
  after(async () => {
    await svc?.close();
  });

  async function mmConfig(w: GameWorld, maxPlayers: number) {
    const res = await svc.call('POST', `/cloud/games/${w.gameId}/namespaces/${w.namespaceId}/mm-config`, {
      body: { lobby_count_max: 100, max_players: maxPlayers },
    });
    assert.ok(res.statusCode < 300, res.body);
  }

  const seed = (region: string, maxPlayers = 8) =>
    seedRuntimeLobby(
      svc,
      { namespaceId: world.namespaceId, versionId },
      { runState: 'ready', region, maxPlayers },
    );

  /** Lobbies of earlier tests with room left would be found first: each test starts with them closed. */
  async function closeAll() {
    await svc.deps.db
      .updateTable('lobbies')
      .set({ is_closed: 1 })
      .where('namespace_id', '=', world.namespaceId)
      .execute();
  }

  async function counts(region: string) {
    const rows = await svc.deps.db
      .selectFrom('lobbies')
      .select(['lobby_id', 'player_count', 'max_players'])
      .where('namespace_id', '=', world.namespaceId)
      .where('region_id', '=', region)
      .execute();
    return rows;
  }

  it('a burst of 1,000 finds into 10 ready lobbies of 8 admits exactly 80 and starts no lobby', async () => {
    for (let i = 0; i < 10; i++) await seed('lnd-fra');
    const answers = await Promise.all(
      Array.from({ length: 1_000 }, () => find(svc, publicToken, { regions: ['lnd-fra'] })),
    );
    const admitted = answers.filter((a) => a.statusCode === 200);
    const refused = answers.filter((a) => a.statusCode !== 200);
    assert.equal(admitted.length, 80);
    for (const res of refused) assertError(res, 503, 'MATCHMAKER_NO_CAPACITY');
    assert.ok(
      refused.every((r) => Number(r.headers['retry-after']) > 0),
      'Retry-After on each refusal',
    );
    const rows = await counts('lnd-fra');
    assert.equal(rows.length, 10, 'no lobby was created (no runtime here)');
    assert.deepEqual(
      rows.map((r) => r.player_count),
      Array(10).fill(8),
    );
    const tokens = admitted.map((a) => a.json<JoinLobbyAnswer>().player.token);
    assert.equal(new Set(tokens).size, 80, 'every player token is its own');
    const players = await svc.deps.db
      .selectFrom('lobby_players')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('namespace_id', '=', world.namespaceId)
      .where('state', '=', 'pending')
      .executeTakeFirstOrThrow();
    assert.equal(Number(players.n), 80);
  });

  it('answers the lobby, its ports and a player token, filling the fullest lobby first', async () => {
    await closeAll();
    const a = await seed('lnd-atl', 4);
    const first = await find(svc, publicToken, { regions: ['lnd-atl'] });
    assert.equal(first.statusCode, 200, first.body);
    const answer = first.json<JoinLobbyAnswer>();
    assert.equal(answer.lobby.lobby_id, a.lobbyId);
    assert.deepEqual(answer.lobby.region, { region_id: 'lnd-atl', display_name: 'lnd-atl' });
    assert.deepEqual(answer.ports, {}, 'a seeded lobby has no ports');
    assert.deepEqual(answer.lobby.player, answer.player, 'the deprecated copies agree');
    const b = await seed('lnd-atl', 4);
    assert.notEqual(b.lobbyId, a.lobbyId);
    // a holds one player and has room: it is filled before the empty b.
    for (let i = 0; i < 3; i++) await playerTokenOf(svc, publicToken, a.lobbyId);
    await playerTokenOf(svc, publicToken, b.lobbyId);
  });

  /** A transaction of the test's own holding lobby `lobbyId`'s row lock (PostgreSQL), until `release`. */
  async function holdLobby(lobbyId: string) {
    const holder = await svc.deps.db.startTransaction().execute();
    await sql`select lobby_id from lobbies where lobby_id = ${lobbyId} for update`.execute(holder);
    let released: Promise<void> | undefined;
    return {
      release: () => {
        released ??= holder.rollback().execute();
        return released;
      },
    };
  }

  it('on PostgreSQL takes the fullest lobby no other find holds, not waiting for the held one', {
    skip: !onPostgres,
  }, async () => {
    await closeAll();
    const a = await seed('lnd-atl', 4);
    await playerTokenOf(svc, publicToken, a.lobbyId);
    const b = await seed('lnd-atl', 4);
    const hold = await holdLobby(a.lobbyId);
    // Let go after 10 s should the find wait for a (as every find did, one after another, before).
    const fallback = setTimeout(() => void hold.release(), 10_000);
    try {
      const res = await find(svc, publicToken, { regions: ['lnd-atl'] });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<JoinLobbyAnswer>().lobby.lobby_id, b.lobbyId, 'the lobby nobody held');
    } finally {
      clearTimeout(fallback);
      await hold.release();
    }
  });

  it('on PostgreSQL waits for the held lobby when it is the only one with room, rather than refusing', {
    skip: !onPostgres,
  }, async () => {
    await closeAll();
    const a = await seed('lnd-atl', 4);
    const hold = await holdLobby(a.lobbyId);
    try {
      const pending = find(svc, publicToken, { regions: ['lnd-atl'] });
      await until('a find waits for the lobby lock', 20_000, async () => {
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from pg_stat_activity
          where wait_event_type = 'Lock' and datname = current_database()`.execute(svc.deps.db);
        return Number(rows[0]?.n) > 0;
      });
      await hold.release();
      const res = await pending;
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<JoinLobbyAnswer>().lobby.lobby_id, a.lobbyId);
    } finally {
      await hold.release();
    }
  });

  it('takes the first game mode and region, in the order given, that has room', async () => {
    await closeAll();
    const fra = await seed('lnd-fra');
    const atl = await seed('lnd-atl');
    const res = await find(svc, publicToken, { regions: ['lnd-fra', 'lnd-atl'] });
    assert.equal(res.json<JoinLobbyAnswer>().lobby.lobby_id, fra.lobbyId);
    const res2 = await find(svc, publicToken, { regions: ['lnd-atl', 'lnd-fra'] });
    assert.equal(res2.json<JoinLobbyAnswer>().lobby.lobby_id, atl.lobbyId);
  });

  it('frees the slot of a player who never connected once the token expires, and refuses the token', async () => {
    await closeAll();
    const lobby = await seed('lnd-atl', 1);
    const token = await playerTokenOf(svc, publicToken, lobby.lobbyId);
    const full = async () => (await counts('lnd-atl')).find((r) => r.lobby_id === lobby.lobbyId);
    assert.equal((await full())?.player_count, 1);
    svc.clock.advance(2_001);
    await until('the expired slot freed', 20_000, async () => (await full())?.player_count === 0, 100);
    const refused = assertError(
      await svc.call('POST', '/matchmaker/players/connected', {
        token: lobby.token,
        body: { player_token: token },
      }),
      403,
      'PLAYER_TOKEN_INVALID',
    );
    assert.equal(refused.metadata?.reason, 'expired');
    await playerTokenOf(svc, publicToken, lobby.lobbyId);
  });

  it('joins a lobby by id within its direct maximum, closed or not; a full or unknown one is refused', async () => {
    await closeAll();
    const lobby = await seed('lnd-atl', 2);
    const join = () =>
      svc.call('POST', '/matchmaker/lobbies/join', { token: publicToken, body: { lobby_id: lobby.lobbyId } });
    const first = await join();
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json<JoinLobbyAnswer>().lobby.lobby_id, lobby.lobbyId);
    await svc.deps.db
      .updateTable('lobbies')
      .set({ is_closed: 1 })
      .where('lobby_id', '=', lobby.lobbyId)
      .execute();
    assert.equal((await join()).statusCode, 200, 'a closed lobby may still be joined');
    const full = assertError(await join(), 409, 'LOBBY_FULL');
    assert.equal(full.metadata?.max_players, 2);
    const player = await svc.deps.db
      .selectFrom('lobby_players')
      .select('join_kind')
      .where('lobby_id', '=', lobby.lobbyId)
      .execute();
    assert.deepEqual(
      player.map((p) => p.join_kind),
      ['direct', 'direct'],
    );
    assertError(
      await svc.call('POST', '/matchmaker/lobbies/join', {
        token: publicToken,
        body: { lobby_id: crypto.randomUUID() },
      }),
      404,
      'MATCHMAKER_LOBBY_NOT_FOUND',
    );
    assertError(
      await svc.call('POST', '/matchmaker/lobbies/join', { token: publicToken, body: { lobby_id: 'nope' } }),
      400,
      'API_BAD_BODY',
    );
  });

  it("answers a development token's join with the developer's own server, taking no slot", async () => {
    await closeAll();
    const lobby = await seed('lnd-atl', 2);
    const minted = await svc.call(
      'POST',
      `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/tokens/development`,
      {
        body: {
          hostname: '192.168.1.20',
          lobby_ports: [{ label: 'game', target_port: 7777, proxy_protocol: 'udp' }],
        },
      },
    );
    assert.equal(minted.statusCode, 200, minted.body);
    const devToken = minted.json<{ token: string }>().token;
    const joined = await svc.call('POST', '/matchmaker/lobbies/join', {
      token: devToken,
      body: { lobby_id: lobby.lobbyId },
    });
    assert.equal(joined.statusCode, 200, joined.body);
    const answer = joined.json<JoinLobbyAnswer>();
    assert.notEqual(answer.lobby.lobby_id, lobby.lobbyId, 'a lobby id made up for the answer');
    assert.deepEqual(answer.ports.game, {
      host: '192.168.1.20:7777',
      hostname: '192.168.1.20',
      port: 7777,
      is_tls: false,
    });
    const [row] = await counts('lnd-atl').then((rows) => rows.filter((r) => r.lobby_id === lobby.lobbyId));
    assert.equal(row?.player_count, 0, 'no slot of the real lobby taken');
    const players = await svc.deps.db
      .selectFrom('lobby_players')
      .select('state')
      .where('lobby_id', '=', lobby.lobbyId)
      .execute();
    assert.deepEqual(players, []);
    // Its player token names the made-up lobby: the real lobby refuses it.
    const refused = assertError(
      await svc.call('POST', '/matchmaker/players/connected', {
        token: lobby.token,
        body: { player_token: answer.player.token },
      }),
      403,
      'PLAYER_TOKEN_INVALID',
    );
    assert.equal(refused.metadata?.reason, 'other_lobby');
  });

  it('refuses unknown game modes and regions, a disabled find, and counts slots per client address', async () => {
    // Tags on a game mode that is not taggable (the original's MATCHMAKER_TAGS_DISABLED): no lobby is
    // looked for or started with them.
    const tagged = assertError<{ code: string; metadata: { errors: { path: string[]; message: string }[] } }>(
      await find(svc, publicToken, { game_modes: ['default'], tags: { map: 'fresh' } }),
      400,
      'VALIDATION_ERROR',
    );
    assert.deepEqual(tagged.metadata.errors[0]?.path, ['tags', 'not-allowed']);
    assert.match(tagged.metadata.errors[0]?.message ?? '', /"default" is not taggable/);
    assertError(
      await find(svc, publicToken, { game_modes: ['nope'] }),
      400,
      'MATCHMAKER_GAME_MODE_NOT_FOUND',
    );
    assertError(await find(svc, publicToken, { regions: ['mars'] }), 400, 'MATCHMAKER_REGION_NOT_FOUND');
    assertError(await find(svc, publicToken, { game_modes: [] }), 400, 'API_BAD_BODY');

    const capped = await createGameWorld(svc, 'find-capped');
    const cappedVersion = await switchToRuntimeVersion(svc, capped, { min: 0, max: 0 });
    await mmConfig(capped, 2);
    const cappedToken = await mintPublicToken(svc, capped);
    await seedRuntimeLobby(
      svc,
      { namespaceId: capped.namespaceId, versionId: cappedVersion },
      { runState: 'ready', region: 'lnd-atl', maxPlayers: 8 },
    );
    for (let i = 0; i < 2; i++) assert.equal((await find(svc, cappedToken)).statusCode, 200);
    const over = assertError(await find(svc, cappedToken), 429, 'MATCHMAKER_TOO_MANY_PLAYERS_FROM_CLIENT');
    assert.equal(over.metadata?.max, 2);
    // The namespace's config is cached for find: a new cap applies to the very next find.
    await mmConfig(capped, 3);
    assert.equal((await find(svc, cappedToken)).statusCode, 200);
    assertError(await find(svc, cappedToken), 429, 'MATCHMAKER_TOO_MANY_PLAYERS_FROM_CLIENT');

    // Namespace A's public token finds nothing of namespace B, however many lobbies B has free.
    const empty = await createGameWorld(svc, 'find-empty');
    await switchToRuntimeVersion(svc, empty, { min: 0, max: 0 });
    const emptyToken = await mintPublicToken(svc, empty);
    assertError(await find(svc, emptyToken), 503, 'MATCHMAKER_NO_CAPACITY');
    // Auto-create asked of a service that runs no lobbies (GCM_RUNTIME=none): it says so.
    const noRuntime = assertError(
      await find(svc, emptyToken, { prevent_auto_create_lobby: false }),
      503,
      'MATCHMAKER_NO_CAPACITY',
    );
    assert.equal(noRuntime.metadata?.reason, 'no-runtime');
    assert.match(noRuntime.message, /this service runs no lobbies itself \(GCM_RUNTIME=none\)/);
    const noRuntimeCreate = assertError(
      await svc.call('POST', '/matchmaker/lobbies/create', {
        token: emptyToken,
        body: { game_mode: 'default' },
      }),
      503,
      'MATCHMAKER_NO_CAPACITY',
    );
    assert.equal(noRuntimeCreate.metadata?.reason, 'no-runtime');

    const disabled = await svc.call('POST', `/cloud/games/${empty.gameId}/versions`, {
      body: {
        display_name: 'no-find',
        config: {
          matchmaker: {
            game_modes: {
              default: {
                container: { image_id: empty.buildId },
                regions: { 'lnd-atl': {} },
                actions: { find: { enabled: false } },
              },
            },
          },
        },
      },
    });
    assert.equal(disabled.statusCode, 200, disabled.body);
    const switched = await svc.call(
      'PUT',
      `/cloud/games/${empty.gameId}/namespaces/${empty.namespaceId}/version`,
      {
        body: { version_id: disabled.json<{ version_id: string }>().version_id },
      },
    );
    assert.equal(switched.statusCode, 204, switched.body);
    const off = assertError(await find(svc, emptyToken), 403, 'MATCHMAKER_ACTION_DISABLED');
    assert.equal(off.metadata?.action, 'find');
    // Join is on by default; a lobby of another namespace is not found, whatever its id.
    const theirs = await seed('lnd-atl');
    assertError(
      await svc.call('POST', '/matchmaker/lobbies/join', {
        token: emptyToken,
        body: { lobby_id: theirs.lobbyId },
      }),
      404,
      'MATCHMAKER_LOBBY_NOT_FOUND',
    );
  });

  it("asks the game mode's verification hook before it takes a slot: 2xx admits, anything else refuses", async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const hooked = await createGameWorld(svc, 'find-hooked');
      const version = await svc.call('POST', `/cloud/games/${hooked.gameId}/versions`, {
        body: {
          display_name: 'hooked',
          config: {
            matchmaker: {
              game_modes: {
                default: {
                  container: { image_id: hooked.buildId },
                  regions: { 'lnd-atl': {} },
                  actions: {
                    find: {
                      enabled: true,
                      verification: { url: 'https://verify.example/verify', headers: {} },
                    },
                  },
                },
              },
            },
          },
        },
      });
      assert.equal(version.statusCode, 200, version.body);
      const versionId = version.json<{ version_id: string }>().version_id;
      const put = await svc.call(
        'PUT',
        `/cloud/games/${hooked.gameId}/namespaces/${hooked.namespaceId}/version`,
        {
          body: { version_id: versionId },
        },
      );
      assert.equal(put.statusCode, 204, put.body);
      // The version check refuses internal hosts; the test's hook listens on loopback (which the service is
      // told to allow), so the stored config is pointed at it directly.
      const stored = await svc.deps.db
        .selectFrom('versions')
        .select('config_json')
        .where('version_id', '=', versionId)
        .executeTakeFirstOrThrow();
      await svc.deps.db
        .updateTable('versions')
        .set({
          config_json: stored.config_json.replace('https://verify.example/verify', `${receiver.url}/verify`),
        })
        .where('version_id', '=', versionId)
        .execute();
      const token = await mintPublicToken(svc, hooked);
      const lobby = await seedRuntimeLobby(
        svc,
        { namespaceId: hooked.namespaceId, versionId },
        { runState: 'ready', region: 'lnd-atl', maxPlayers: 8 },
      );
      receiver.mode = 'fail';
      const refused = assertError(
        await find(svc, token, { verification_data: { pass: 'no' } }),
        403,
        'MATCHMAKER_VERIFICATION_FAILED',
      );
      assert.equal(refused.metadata?.status, 500);
      const rows = await svc.deps.db
        .selectFrom('lobby_players')
        .select('lobby_id')
        .where('lobby_id', '=', lobby.lobbyId)
        .execute();
      assert.equal(rows.length, 0, 'a refused player holds no slot');
      receiver.mode = 'ok';
      const admitted = await find(svc, token, { verification_data: { pass: 'yes' } });
      assert.equal(admitted.statusCode, 200, admitted.body);
      assert.equal(admitted.json<JoinLobbyAnswer>().lobby.lobby_id, lobby.lobbyId);
    } finally {
      await receiver.close();
    }
  });
});
