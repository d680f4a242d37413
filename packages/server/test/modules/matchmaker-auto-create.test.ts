/**
 * Lobbies made for players, on real lobbies of the test engine (helpers/dockerd.ts), on both stores: find
 * with no lobby creates one and answers once it is ready (the player's port and token work); it never
 * creates one with prevent_auto_create_lobby, nor more than lobby_count_max under a burst, nor puts more
 * players in one than its maximum; a lobby not ready within GCM_MATCHMAKER_READY_WAIT_SECONDS, or one that
 * stops first, is a 503 and its slot is free again; a full host, too few ports or a build that failed to
 * load is a 503 naming it that writes nothing; a build with no archive digest yet is hashed for the lobby.
 * POST /matchmaker/lobbies/create, through the original's published client: a private custom lobby with its
 * lobby_config in the container's environment, joined by id, never found nor listed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { JoinLobbyAnswer } from '@gcm/contract';
import { RivetClient } from '@rivet-gg/api';
import { recordedArchiveDigest } from '../helpers/api-world.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import { assertError } from '../helpers/error-answer.js';
import { mintPublicToken } from '../helpers/runtime-lobbies.js';
import {
  containerEnvOf,
  deploy,
  isLive,
  lobbiesOf,
  runtimeGame,
  sayToLobby,
  startRuntimeService,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import type { TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const skip = dockerSkipReason('matchmaker-auto-create.test.ts');
/** A range per test: lobbies outlive their service, and each test's service knows only its own. */
const PORT_RANGES = ['28000-28029', '28030-28059', '28060-28099', '28100-28129'];
/** The shared host's test: two games' lobbies. */
const SHARED_HOST_PORTS = '28140-28169';
/** One port: a lobby of two ports never fits, one of one port does. */
const ONE_PORT = '28130-28130';
const WAIT_MS = 90_000;

const say = sayToLobby;

async function sayWhenUp(host: string, port: number, line: string): Promise<string> {
  await until(
    'the game port answers',
    WAIT_MS,
    () =>
      say(host, port, 'hello').then(
        () => true,
        () => false,
      ),
    100,
  );
  return say(host, port, line);
}

function findBody(body: Record<string, unknown> = {}) {
  return { game_modes: ['default'], regions: ['eu'], ...body };
}

async function setCaps(
  svc: TestService,
  ids: { gameId: string; namespaceId: string },
  lobbyCountMax: number,
) {
  const res = await svc.call('POST', `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/mm-config`, {
    body: { lobby_count_max: lobbyCountMax, max_players: 10_000 },
  });
  assert.ok(res.statusCode < 300, res.body);
}

/** The player rows (slots held) of a namespace. */
function namespacePlayersOf(svc: TestService, namespaceId: string) {
  return svc.deps.db
    .selectFrom('lobby_players')
    .select('state')
    .where('namespace_id', '=', namespaceId)
    .execute();
}

/** The player rows (slots held) of a lobby. */
function playersOf(svc: TestService, lobbyId: string) {
  return svc.deps.db.selectFrom('lobby_players').select('state').where('lobby_id', '=', lobbyId).execute();
}

describe('lobbies created for players', { skip }, () => {
  const engine = useRuntimeEngine();

  it('find with no lobby creates one, answers once it is ready; a burst stays within lobby_count_max', async (t) => {
    const { svc, publicUrl } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGES[0] as string,
    });
    try {
      const ids = await runtimeGame(svc, 'auto-create');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 0, max: 1, config: { max_players: 2 } } });
      const publicToken = await mintPublicToken(svc, ids);

      // prevent_auto_create_lobby: no lobby, and none is created.
      const prevented = await svc.call('POST', '/matchmaker/lobbies/find', {
        token: publicToken,
        body: findBody({ prevent_auto_create_lobby: true }),
      });
      assert.equal(
        assertError(prevented, 503, 'MATCHMAKER_NO_CAPACITY').metadata?.reason,
        'prevent-auto-create-lobby',
      );
      assert.ok(Number(prevented.headers['retry-after']) > 0);
      assert.deepEqual(await lobbiesOf(svc, ids.namespaceId), []);

      // No lobby: find creates one and answers when it is ready, through the original's client.
      const client = new RivetClient({ environment: publicUrl, token: publicToken });
      const found = await client.matchmaker.lobbies.find({ gameModes: ['default'], regions: ['eu'] });
      const [lobby, ...others] = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(others.length, 0, 'one lobby created');
      assert.equal(lobby?.lobby_id, found.lobby.lobbyId);
      assert.equal(lobby?.run_state, 'ready', 'answered once ready');
      assert.equal(lobby?.player_count, 1, "the player's slot was held from the placement");
      const game = found.ports.game;
      assert.ok(game?.port !== undefined, JSON.stringify(found.ports));
      assert.equal(await sayWhenUp(game.hostname, game.port, `player ${found.player.token}`), 'admitted');

      // A lobby holding a player is not idle: the reconciler (idle max 1) leaves it alone.
      await svc.reconciler?.pass();
      assert.equal((await lobbiesOf(svc, ids.namespaceId)).find(isLive)?.lobby_id, lobby?.lobby_id);

      // A burst into a namespace of at most 2 lobbies of 2 players: never a third lobby, never a third player.
      assert.equal(await say(game.hostname, game.port, `leave ${found.player.token}`), 'left');
      await setCaps(svc, ids, 2);
      const burst = await Promise.all(
        Array.from({ length: 8 }, () =>
          svc.call('POST', '/matchmaker/lobbies/find', { token: publicToken, body: findBody() }),
        ),
      );
      const admitted = burst.filter((r) => r.statusCode === 200);
      for (const res of burst.filter((r) => r.statusCode !== 200)) {
        const refused = assertError(res, 503, 'MATCHMAKER_NO_CAPACITY');
        assert.equal(refused.metadata?.reason, 'namespace-full', refused.message);
        assert.match(refused.message, /lobby_count_max \(2\)/);
      }
      const live = (await lobbiesOf(svc, ids.namespaceId)).filter(isLive);
      assert.ok(live.length <= 2, `${live.length} lobbies for lobby_count_max 2`);
      for (const row of live) assert.ok((row.player_count ?? 0) <= 2, `a lobby has ${row.player_count} of 2`);
      t.diagnostic(`${admitted.length} of 8 finds admitted into ${live.length} lobbies of 2`);
      assert.ok(admitted.length >= 2 && admitted.length <= 4, `${admitted.length} admitted`);
      const perLobby = new Map<string, number>();
      for (const res of admitted) {
        const id = res.json<JoinLobbyAnswer>().lobby.lobby_id;
        perLobby.set(id, (perLobby.get(id) ?? 0) + 1);
      }
      for (const [id, n] of perLobby) assert.ok(n <= 2, `lobby ${id} was answered to ${n} players`);
    } finally {
      await svc.close();
    }
  });

  it('a lobby not ready within the wait is a 503, and the slot it held is free again', async () => {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGES[1] as string,
      env: { GCM_MATCHMAKER_READY_WAIT_SECONDS: '2' },
    });
    try {
      const ids = await runtimeGame(svc, 'never-ready');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 0, max: 1, env: { TEST_NO_READY: '1' } } });
      const publicToken = await mintPublicToken(svc, ids);
      const res = await svc.call('POST', '/matchmaker/lobbies/find', {
        token: publicToken,
        body: findBody(),
      });
      const body = assertError(res, 503, 'MATCHMAKER_NO_CAPACITY');
      assert.equal(body.metadata?.reason, 'ready-timeout');
      assert.match(body.message, /GCM_MATCHMAKER_READY_WAIT_SECONDS \(2 s\)/);
      const [lobby] = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(lobby?.run_state, 'starting', 'the lobby was created and never called ready');
      assert.equal(lobby?.player_count, 0, 'the slot is free again');
      const players = await playersOf(svc, lobby?.lobby_id ?? '');
      assert.deepEqual(players, []);

      // A starting lobby's slots count against the client's cap too: of two finds from one address with a cap
      // of 1 (and no room for another lobby), one waits in the starting lobby, the other is refused at once.
      const capped = await svc.call(
        'POST',
        `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/mm-config`,
        {
          body: { lobby_count_max: 1, max_players: 1 },
        },
      );
      assert.ok(capped.statusCode < 300, capped.body);
      const two = await Promise.all(
        [0, 1].map(() =>
          svc.call('POST', '/matchmaker/lobbies/find', { token: publicToken, body: findBody() }),
        ),
      );
      const codes = two.map((r) => r.json<{ code: string }>().code).sort();
      assert.deepEqual(
        codes,
        ['MATCHMAKER_NO_CAPACITY', 'MATCHMAKER_TOO_MANY_PLAYERS_FROM_CLIENT'],
        JSON.stringify(codes),
      );
    } finally {
      await svc.close();
    }
  });

  it('a lobby that stops before it is ready is a 503 at once, and the slot it held is free again', async () => {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGES[3] as string,
    });
    try {
      const ids = await runtimeGame(svc, 'crash-at-start');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      const crash = { TEST_NO_READY: '1', TEST_EXIT_AFTER: '0', TEST_EXIT_CODE: '1' };
      await deploy(svc, ids, { default: { buildId, min: 0, max: 1, env: crash } });
      const publicToken = await mintPublicToken(svc, ids);
      const started = Date.now();
      const res = await svc.call('POST', '/matchmaker/lobbies/find', {
        token: publicToken,
        body: findBody(),
      });
      assert.equal(assertError(res, 503, 'MATCHMAKER_NO_CAPACITY').metadata?.reason, 'lobby-stopped');
      assert.ok(Date.now() - started < 30_000, 'answered when the lobby stopped, not at the end of the wait');
      const [lobby] = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(lobby?.failed, 1, 'the lobby was recorded failed');
      const players = await playersOf(svc, lobby?.lobby_id ?? '');
      assert.deepEqual(players, [], 'the slot is free again');
    } finally {
      await svc.close();
    }
  });

  it('create: a private custom lobby with its lobby_config, joined by id, never found nor listed', async () => {
    const { svc, publicUrl } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGES[2] as string,
    });
    try {
      const ids = await runtimeGame(svc, 'custom-lobby');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, {
        default: {
          buildId,
          min: 0,
          max: 1,
          config: {
            max_players: 8,
            taggable: true,
            allow_dynamic_max_players: true,
            actions: { create: { enabled: true, enable_public: false, enable_private: true } },
          },
        },
        closed: { buildId, min: 0, max: 0 },
      });
      const publicToken = await mintPublicToken(svc, ids);
      const create = (body: Record<string, unknown>) =>
        svc.call('POST', '/matchmaker/lobbies/create', { token: publicToken, body });

      // What create refuses, before any lobby is made.
      assertError(await create({ game_mode: 'closed' }), 403, 'MATCHMAKER_ACTION_DISABLED');
      assertError(
        await create({ game_mode: 'default', publicity: 'public' }),
        403,
        'MATCHMAKER_ACTION_DISABLED',
      );
      assertError(
        await create({ game_mode: 'default', publicity: 'private', max_players: 9 }),
        400,
        'VALIDATION_ERROR',
      );
      assertError(
        await create({ game_mode: 'default', publicity: 'private', lobby_config: 'x'.repeat(17 * 1024) }),
        400,
        'VALIDATION_ERROR',
      );
      assert.deepEqual(await lobbiesOf(svc, ids.namespaceId), []);

      const client = new RivetClient({ environment: publicUrl, token: publicToken });
      const lobbyConfig = { map: 'dust', rounds: 3 };
      const created = await client.matchmaker.lobbies.create({
        gameMode: 'default',
        region: 'eu',
        publicity: 'private',
        tags: { mode: 'ranked' },
        maxPlayers: 4,
        lobbyConfig,
      });
      const [row] = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(row?.lobby_id, created.lobby.lobbyId);
      assert.equal(row?.run_state, 'ready');
      assert.equal(row?.publicity, 'private');
      assert.equal(row?.tags_json, JSON.stringify({ mode: 'ranked' }));
      assert.equal(row?.max_players, 4, 'max_players as asked');
      assert.equal(row?.player_count, 1, "the creator's slot");
      for (const name of ['GCM_LOBBY_CONFIG', 'RIVET_LOBBY_CONFIG']) {
        assert.equal(
          await containerEnvOf(engine.dockerd.engine, row?.runtime_handle ?? '', name),
          JSON.stringify(lobbyConfig),
          name,
        );
      }
      const game = created.ports.game;
      assert.ok(game?.port !== undefined);
      assert.equal(await sayWhenUp(game.hostname, game.port, `player ${created.player.token}`), 'admitted');

      // Private: find (same tags) and list do not see it; join by its id does.
      const found = await svc.call('POST', '/matchmaker/lobbies/find', {
        token: publicToken,
        body: findBody({ tags: { mode: 'ranked' }, prevent_auto_create_lobby: true }),
      });
      assertError(found, 503, 'MATCHMAKER_NO_CAPACITY');
      const listed = await client.matchmaker.lobbies.list({});
      assert.deepEqual(
        listed.lobbies.map((l) => l.lobbyId),
        [],
      );
      const joined = await client.matchmaker.lobbies.join({ lobbyId: created.lobby.lobbyId });
      assert.equal(joined.lobby.lobbyId, created.lobby.lobbyId);
    } finally {
      await svc.close();
    }
  });

  it("one game's flood of finds and creates leaves another game its idle lobbies and its finds", async (t) => {
    // A host of 4 lobbies shared by game A (no idle lobbies) and game B (one idle lobby of one player).
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: SHARED_HOST_PORTS,
      env: { GCM_RUNTIME_MAX_LOBBIES_PER_HOST: '4' },
      logLevel: 'info',
    });
    try {
      const a = await runtimeGame(svc, 'flood-a');
      const aBuild = await uploadBuild(svc, a.gameId, a.namespaceId, engine.image.archive);
      await deploy(svc, a, {
        plain: { buildId: aBuild, min: 0, max: 0, config: { max_players: 1 } },
        open: {
          buildId: aBuild,
          min: 0,
          max: 0,
          config: {
            max_players: 1,
            taggable: true,
            actions: { create: { enabled: true, enable_public: true } },
          },
        },
      });
      const b = await runtimeGame(svc, 'steady-b');
      const bBuild = await uploadBuild(svc, b.gameId, b.namespaceId, engine.image.archive);
      await deploy(svc, b, { default: { buildId: bBuild, min: 1, max: 1, config: { max_players: 1 } } });
      await until(
        "B's idle lobby ready",
        WAIT_MS,
        async () => (await lobbiesOf(svc, b.namespaceId)).some((r) => r.run_state === 'ready'),
        100,
      );
      const aToken = await mintPublicToken(svc, a);
      const bToken = await mintPublicToken(svc, b);

      // Fresh tags on a game mode that is neither taggable nor creatable: refused, no lobby started.
      const tagged = await Promise.all(
        [1, 2, 3].map((i) =>
          svc.call('POST', '/matchmaker/lobbies/find', {
            token: aToken,
            body: findBody({ game_modes: ['plain'], tags: { room: `r${i}` } }),
          }),
        ),
      );
      for (const res of tagged) {
        const body = assertError<{ code: string; metadata: { errors: { path: string[] }[] } }>(
          res,
          400,
          'VALIDATION_ERROR',
        );
        assert.deepEqual(body.metadata.errors[0]?.path, ['tags', 'not-allowed']);
      }
      assert.deepEqual(await lobbiesOf(svc, a.namespaceId), [], 'no lobby for tags');

      // A floods creates: it gets what B's idle lobby and B's reservation leave (4 - 1 - 1), no more.
      const flood = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          svc.call('POST', '/matchmaker/lobbies/create', {
            token: aToken,
            body: { game_mode: 'open', region: 'eu', tags: { room: `flood-${i}` } },
          }),
        ),
      );
      const refused = flood.filter((r) => r.statusCode !== 200);
      for (const res of refused) {
        const body = assertError(res, 503, 'MATCHMAKER_NO_CAPACITY');
        assert.equal(body.metadata?.reason, 'host-share', body.message);
        assert.match(body.message, /other namespaces' idle lobbies/);
        assert.ok(Number(res.headers['retry-after']) > 0, 'a Retry-After');
      }
      assert.equal(flood.length - refused.length, 2, flood.map((r) => r.statusCode).join(' '));
      assert.equal((await lobbiesOf(svc, a.namespaceId)).filter(isLive).length, 2);

      // B's players: the first takes the idle lobby, the next gets a lobby in the slot B kept.
      for (const player of ['first', 'second']) {
        const found = await svc.call('POST', '/matchmaker/lobbies/find', { token: bToken, body: findBody() });
        assert.equal(found.statusCode, 200, `B's ${player} player: ${found.body}`);
      }

      // A storm of A's finds with new tags on the full host: each refused at once, writing nothing.
      const storm = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          svc.call('POST', '/matchmaker/lobbies/find', {
            token: aToken,
            body: findBody({ game_modes: ['open'], tags: { room: `storm-${i}` } }),
          }),
        ),
      );
      for (const res of storm) assertError(res, 503, 'MATCHMAKER_NO_CAPACITY');
      assert.equal((await lobbiesOf(svc, a.namespaceId)).filter(isLive).length, 2);

      // Every refusal was a player's, logged at info with its reason: none at error.
      const refusals = refused.length + storm.length;
      const capacityLines = svc.logs.filter((l) => l.code === 'MATCHMAKER_NO_CAPACITY');
      const errorLines = svc.logs.filter((l) => l.level >= 50 && /lobby can be created/.test(l.msg ?? ''));
      const bytes = [...capacityLines, ...errorLines].reduce((n, l) => n + JSON.stringify(l).length, 0);
      t.diagnostic(
        `${refusals} refusals: ${capacityLines.length} info lines, ${errorLines.length} error lines, ${bytes} bytes`,
      );
      assert.deepEqual(errorLines, []);
      assert.equal(capacityLines.length, refusals);
      for (const line of capacityLines) {
        assert.equal(line.level, 30);
        assert.ok(line.reason === 'host-share' || line.reason === 'host-full', String(line.reason));
      }
    } finally {
      await svc.close();
    }
  });

  /**
   * The refusals placement makes before any lobby exists (docs/runtime.md), on one service whose one host
   * runs one lobby (GCM_RUNTIME_MAX_LOBBIES_PER_HOST=1) on one port: each is a 503 naming its cause, and
   * writes nothing. The cases share the host, so they run in order: the last one fills it.
   * `not-run` is not reachable through HTTP: every region of GCM_REGIONS runs on a host (GCM_RUNTIME_HOSTS,
   * else DOCKER_HOST), and a version whose game mode has no build is refused when it is created; only a
   * version switched (or a namespace deleted) between find's read and its placement meets it.
   */
  describe('no lobby can be created', () => {
    let svc: TestService;
    before(async () => {
      ({ svc } = await startRuntimeService({
        dockerHost: engine.dockerd.dockerHost,
        portRange: ONE_PORT,
        env: { GCM_RUNTIME_MAX_LOBBIES_PER_HOST: '1' },
      }));
    });
    after(() => svc?.close());

    /** A 503 MATCHMAKER_NO_CAPACITY with `reason`, a Retry-After and a message matching `cause`. */
    function assertRefused(res: Awaited<ReturnType<TestService['call']>>, reason: string, cause: RegExp) {
      const body = assertError(res, 503, 'MATCHMAKER_NO_CAPACITY');
      assert.equal(body.metadata?.reason, reason, body.message);
      assert.match(body.message, cause);
      assert.ok(Number(res.headers['retry-after']) > 0, 'a Retry-After');
    }

    it('no-ports: a lobby needing more ports than GCM_RUNTIME_PORT_RANGE has free, by find and create', async () => {
      const ids = await runtimeGame(svc, 'no-ports');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      const ports = { game: { port: 7777, protocol: 'tcp' }, voice: { port: 7778, protocol: 'udp' } };
      await deploy(svc, ids, {
        default: {
          buildId,
          min: 0,
          max: 1,
          config: {
            container: { image_id: buildId, network_mode: 'host', ports },
            actions: { create: { enabled: true, enable_public: true } },
          },
        },
      });
      const publicToken = await mintPublicToken(svc, ids);
      const cause = /no free port of GCM_RUNTIME_PORT_RANGE/;
      const found = await svc.call('POST', '/matchmaker/lobbies/find', {
        token: publicToken,
        body: findBody(),
      });
      assertRefused(found, 'no-ports', cause);
      const created = await svc.call('POST', '/matchmaker/lobbies/create', {
        token: publicToken,
        body: { game_mode: 'default' },
      });
      assertRefused(created, 'no-ports', cause);
      assert.deepEqual(await lobbiesOf(svc, ids.namespaceId), [], 'no lobby row');
      assert.deepEqual(await namespacePlayersOf(svc, ids.namespaceId), [], 'no slot held');
      assert.deepEqual(await engine.containersOf(svc), [], 'no container');
    });

    it("image: a build that is not an image fails find's lobby once, then find says so at once", async () => {
      const ids = await runtimeGame(svc, 'bad-image');
      const archive = Buffer.from('not a docker save archive');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, archive);
      await deploy(svc, ids, { default: { buildId, min: 0, max: 1 } });
      const publicToken = await mintPublicToken(svc, ids);
      const first = await svc.call('POST', '/matchmaker/lobbies/find', {
        token: publicToken,
        body: findBody(),
      });
      assertRefused(first, 'lobby-stopped', /stopped before it was ready/);
      const [failed, ...more] = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(more.length, 0);
      assert.equal(failed?.failed, 1);
      assert.match(failed?.stop_reason ?? '', /^image: /);

      // The build's back-off holds: no second lobby fails the same way.
      const again = await svc.call('POST', '/matchmaker/lobbies/find', {
        token: publicToken,
        body: findBody(),
      });
      assertRefused(again, 'image', /build failed to load/);
      const rows = await lobbiesOf(svc, ids.namespaceId);
      assert.deepEqual(
        rows.map((r) => r.lobby_id),
        [failed?.lobby_id],
        'no lobby row besides the failed one',
      );
      assert.deepEqual(await namespacePlayersOf(svc, ids.namespaceId), [], 'no slot held');
      assert.deepEqual(await engine.containersOf(svc), [], 'no container');
    });

    it('a build with no archive digest yet is hashed, and its lobby answers; then the host is full', async () => {
      const ids = await runtimeGame(svc, 'no-digest');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      // As a build completed before digests were recorded (or one still hashed in the background).
      await svc.deps.db
        .updateTable('builds')
        .set({ archive_sha256: null })
        .where('build_id', '=', buildId)
        .execute();
      await deploy(svc, ids, { default: { buildId, min: 0, max: 1, config: { max_players: 1 } } });
      const publicToken = await mintPublicToken(svc, ids);
      const found = await svc.call('POST', '/matchmaker/lobbies/find', {
        token: publicToken,
        body: findBody(),
      });
      assert.equal(found.statusCode, 200, found.body);
      const answer = found.json<JoinLobbyAnswer>();
      const [lobby] = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(lobby?.lobby_id, answer.lobby.lobby_id);
      assert.equal(lobby?.run_state, 'ready');
      assert.equal(
        await recordedArchiveDigest(svc, buildId),
        createHash('sha256').update(engine.image.archive).digest('hex'),
      );

      // That lobby is full (max_players 1) and is the host's one: the next find can create none.
      const full = await svc.call('POST', '/matchmaker/lobbies/find', {
        token: publicToken,
        body: findBody(),
      });
      assertRefused(full, 'host-full', /GCM_RUNTIME_MAX_LOBBIES_PER_HOST/);
      const rows = await lobbiesOf(svc, ids.namespaceId);
      assert.deepEqual(
        rows.map((r) => r.lobby_id),
        [answer.lobby.lobby_id],
        'no lobby row besides the first',
      );
      assert.equal(
        (await namespacePlayersOf(svc, ids.namespaceId)).length,
        1,
        "only the first player's slot",
      );
      assert.equal((await engine.containersOf(svc)).length, 1, "only the first lobby's container");
    });
  });
});
