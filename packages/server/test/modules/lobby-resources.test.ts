import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LobbyResources } from '@gcm/contract';
import { purgeDeleted } from '../../src/modules/purge/purge.service.js';
import { deleteExpiredLobbyResources } from '../../src/modules/runtime/runtime.service.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import {
  deploy,
  isLive,
  lobbiesOf,
  runtimeGame,
  startRuntimeService,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import type { TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const skip = dockerSkipReason('lobby-resources.test.ts');
/** This file's host ports (runtime test files each keep to their own range). */
const PORT_RANGE = '29100-29199';
const WAIT_MS = 90_000;
const MiB = 1024 * 1024;
const METRICS_TOKEN = 'scraper-token-0123456789-abcdefghijklmnop';

async function resources(svc: TestService, gameId: string, lobbyId: string) {
  return svc.call('GET', `/cloud/games/${gameId}/matchmaker/lobbies/${lobbyId}/resources`);
}

/** The value of the series `name` with exactly `labels`, from GET /metrics. */
async function metric(svc: TestService, name: string, labels: Record<string, string>) {
  const res = await svc.call('GET', '/metrics', { token: METRICS_TOKEN });
  assert.equal(res.statusCode, 200, res.body);
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const line = res.body.split('\n').find((l) => l.startsWith(`${name}{${want}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe("a lobby's resource use", { skip }, () => {
  const engine = useRuntimeEngine();

  it('samples CPU, memory and network while it runs, keeps a coarse history, and reports per namespace', async () => {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
      env: {
        GCM_LOBBY_STATS_INTERVAL: '1',
        GCM_LOBBY_STATS_HISTORY_INTERVAL: '60',
        GCM_METRICS_TOKEN: METRICS_TOKEN,
      },
    });
    try {
      const ids = await runtimeGame(svc, 'stats-game');
      const other = await runtimeGame(svc, 'stats-other');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      // A quarter of a core: the spinning server uses all of it, and no more.
      await deploy(svc, ids, {
        default: { buildId, min: 1, max: 1, tier: 'basic-1d4', env: { TEST_BURN: '1' } },
      });
      await until(
        'the lobby ready',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.run_state === 'ready'),
        100,
      );
      const lobby = (await lobbiesOf(svc, ids.namespaceId)).find(isLive);
      assert.ok(lobby !== undefined);
      const lobbyId = lobby.lobby_id;

      // Two samples of the running lobby: the second's CPU is counted over the time since the first.
      let latest: LobbyResources['latest'];
      await until(
        'a sample with the spinning CPU',
        WAIT_MS,
        async () => {
          const res = await resources(svc, ids.gameId, lobbyId);
          assert.equal(res.statusCode, 200, res.body);
          latest = res.json<LobbyResources>().latest;
          return latest !== undefined && latest.cpu_cores > 0.15;
        },
        200,
      );
      // Over a few samples, busy but never much past its tier's limit (0.25 core). The floor is only "busy":
      // on a saturated machine (CI runs three test files at once on two cores) it may get less than its share.
      for (let i = 0; i < 3; i++) {
        await svc.reconciler?.sampler.pass();
        latest = (await resources(svc, ids.gameId, lobbyId)).json<LobbyResources>().latest;
        assert.ok(latest !== undefined);
        assert.ok(latest.cpu_cores > 0.02 && latest.cpu_cores < 0.35, `cpu_cores ${latest.cpu_cores}`);
      }
      assert.ok(latest !== undefined);
      assert.equal(latest.memory_limit_bytes, 512 * MiB);
      assert.ok(latest.memory_bytes > 0 && latest.memory_bytes < 512 * MiB, String(latest.memory_bytes));
      // Host networking: the engine counts nothing for a container on the host's network namespace.
      assert.deepEqual([latest.rx_bytes, latest.tx_bytes], [0, 0]);

      // The store holds the latest sample too (another instance, a restart read it there).
      const stored = await svc.deps.db
        .selectFrom('lobby_resource_latest')
        .selectAll()
        .where('lobby_id', '=', lobbyId)
        .executeTakeFirstOrThrow();
      assert.equal(stored.namespace_id, ids.namespaceId);
      assert.equal(Number(stored.memory_limit_bytes), 512 * MiB);

      // One history sample per minute: the service's clock moves two minutes, two more.
      const first = (await resources(svc, ids.gameId, lobbyId)).json<LobbyResources>().history;
      assert.equal(first.length, 1);
      svc.clock.advance(60_000);
      await svc.reconciler?.sampler.pass();
      await svc.reconciler?.sampler.pass();
      svc.clock.advance(60_000);
      await svc.reconciler?.sampler.pass();
      const history = (await resources(svc, ids.gameId, lobbyId)).json<LobbyResources>().history;
      assert.equal(history.length, 3);
      assert.deepEqual(
        history.map((h) => Date.parse(h.ts) - Date.parse(first[0]?.ts ?? '')),
        [0, 60_000, 120_000],
      );

      // Prometheus: per namespace, no lobby label.
      const cpu = await metric(svc, 'gcm_lobby_cpu_cores', { namespace_id: ids.namespaceId });
      // The same floor as above: a saturated machine may give the lobby less than its share.
      assert.ok(cpu !== undefined && cpu > 0.02 && cpu < 0.35, String(cpu));
      const memory = await metric(svc, 'gcm_lobby_memory_bytes', { namespace_id: ids.namespaceId });
      assert.ok(memory !== undefined && memory > 0);
      assert.ok(
        (await metric(svc, 'gcm_lobby_network_receive_bytes', { namespace_id: ids.namespaceId })) !==
          undefined,
      );
      assert.equal(await metric(svc, 'gcm_lobbies', { namespace_id: ids.namespaceId, state: 'ready' }), 1);
      assert.equal(await metric(svc, 'gcm_lobbies', { namespace_id: ids.namespaceId, state: 'starting' }), 0);
      const all = await svc.call('GET', '/metrics', { token: METRICS_TOKEN });
      assert.ok(!all.body.includes(lobbyId), 'no series names a lobby');

      // Another game's path, and an id no lobby has: not found, alike.
      for (const [gameId, id] of [
        [other.gameId, lobbyId],
        [ids.gameId, '0190a0a0-0000-7000-8000-000000000000'],
      ] as const) {
        const res = await resources(svc, gameId, id);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json<{ code: string }>().code, 'LOBBY_NOT_FOUND');
      }

      // Stopped: its samples stay readable until the lobby log's retention deletes them with it.
      await deploy(svc, ids, { default: { buildId, min: 0, max: 1, tier: 'basic-1d4' } }, 'v2');
      await until(
        'the lobby stopped',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).every((r) => r.run_state === 'stopped'),
        100,
      );
      await svc.reconciler?.sampler.pass();
      assert.equal(
        await metric(svc, 'gcm_lobbies', { namespace_id: ids.namespaceId, state: 'ready' }),
        undefined,
      );
      const kept = (await resources(svc, ids.gameId, lobbyId)).json<LobbyResources>();
      assert.ok(kept.latest !== undefined && kept.history.length === 3);
      svc.clock.advance((svc.deps.config.lobbyRetentionDays + 1) * 86_400_000);
      assert.equal(await deleteExpiredLobbyResources(svc.deps), 4);
      const gone = (await resources(svc, ids.gameId, lobbyId)).json<LobbyResources>();
      assert.deepEqual(gone, { history: [] });

      // A deleted namespace's samples go with its purge.
      const row = {
        namespace_id: other.namespaceId,
        lobby_id: '0190a0a0-0000-7000-8000-000000000001',
        ts: svc.clock.now(),
        cpu_millicores: 10,
        memory_bytes: 1,
        memory_limit_bytes: 2,
        rx_bytes: 3,
        tx_bytes: 4,
      };
      await svc.deps.db.insertInto('lobby_resource_latest').values(row).execute();
      await svc.deps.db.insertInto('lobby_resource_samples').values(row).execute();
      const deleted = await svc.call(
        'DELETE',
        `/cloud/games/${other.gameId}/namespaces/${other.namespaceId}`,
      );
      assert.ok(deleted.statusCode < 300, deleted.body);
      await purgeDeleted(svc.deps);
      for (const table of ['lobby_resource_latest', 'lobby_resource_samples'] as const) {
        const left = await svc.deps.db
          .selectFrom(table)
          .select('lobby_id')
          .where('namespace_id', '=', other.namespaceId)
          .execute();
        assert.deepEqual(left, [], table);
      }
    } finally {
      await svc.close();
    }
  });

  it('says in the service log that a lobby was killed for exceeding its memory limit', async () => {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
      logLevel: 'info',
    });
    try {
      const ids = await runtimeGame(svc, 'oom-game');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      // The server itself (PID 1) eats memory past its tier's 128 MiB.
      await deploy(svc, ids, {
        default: { buildId, min: 1, max: 1, tier: 'basic-1d16', env: { TEST_OOM: 'exec' } },
      });
      await until(
        'a lobby stopped for its memory',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.stop_reason === 'out-of-memory'),
        100,
      );
      const killed = (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.stop_reason === 'out-of-memory');
      assert.ok(killed !== undefined);
      assert.equal(killed.exit_code, 137);
      assert.equal(killed.failed, 1);
      // The lobby log says so.
      const logged = await svc.call(
        'GET',
        `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/logs/lobbies/${killed.lobby_id}`,
      );
      assert.equal(logged.statusCode, 200, logged.body);
      assert.ok(logged.body.includes('"stop_reason":"out-of-memory"'), logged.body);
      assert.ok(logged.body.includes('"exit_code":137'), logged.body);
      await until(
        'the warning in the service log',
        WAIT_MS,
        () => svc.logs.some((l) => l.lobby_id === killed.lobby_id && String(l.msg).includes('memory limit')),
        50,
      );
      const line = svc.logs.find(
        (l) => l.lobby_id === killed.lobby_id && String(l.msg).includes('memory limit'),
      );
      assert.equal(line?.level, 40);
      assert.equal(line?.msg, `lobby killed for exceeding its memory limit of ${128 * MiB} bytes`);
      assert.equal(line?.namespace_id, ids.namespaceId);
      assert.equal(line?.memory_limit_bytes, 128 * MiB);
      assert.equal(line?.exit_code, 137);
    } finally {
      await svc.close();
    }
  });
});
