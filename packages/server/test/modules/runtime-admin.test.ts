/**
 * The operator's view of the runtime, end to end on a private engine: GET /cloud/admin/runtime and the built
 * `gcm-server runtime status` (plain and --json) answer the engine as a ready node with its regions,
 * capacity and running lobbies, and an engine that does not answer as down with its region's problem.
 * Runs on either store (GCM_TEST_DATABASE_URL for PostgreSQL).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import type { GetRuntimeResponse } from '@gcm/contract';
import { isPostgres } from '../../src/db/open-db.js';
import { liveLobbiesByRegionQuery } from '../../src/modules/runtime/runtime.repository.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import { SERVER_ROOT } from '../helpers/paths.js';
import { outputUntilClose } from '../helpers/process.js';
import { queryPlan } from '../helpers/query-plan.js';
import {
  deploy,
  lobbiesOf,
  runtimeGame,
  startRuntimeService,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import type { TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const skip = dockerSkipReason('runtime-admin.test.ts');
/** This file's host ports (the other runtime test files have others). */
const PORT_RANGE = '29600-29699';
const WAIT_MS = 90_000;
const MISSING_ENGINE = 'unix:///nonexistent/gcm-runtime-admin.sock';
/** GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES of the view's service: a GiB, shown as such. */
const BUDGET = 1024 ** 3;

/** Runs the built `gcm-server runtime status` with the service's own store and data dir. */
function runtimeStatus(svc: TestService, env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, ['bin/gcm-server.js', 'runtime', 'status', ...args], {
    cwd: SERVER_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      GCM_DATA_DIR: svc.dataDir,
      ...(svc.deps.config.databaseUrl === undefined ? {} : { DATABASE_URL: svc.deps.config.databaseUrl }),
      GCM_RUNTIME: 'docker',
      GCM_REGIONS: 'eu,us',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return outputUntilClose(child);
}

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe("the operator's view of the runtime", { skip }, () => {
  const engine = useRuntimeEngine();

  it('answers the engine as a ready node of both regions, with its capacity and running lobbies', async () => {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
      env: { GCM_RUNTIME_MAX_LOBBIES_PER_HOST: '7', GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES: String(BUDGET) },
    });
    try {
      const empty = (await svc.call('GET', '/cloud/admin/runtime')).json<GetRuntimeResponse>();
      assert.equal(empty.kind, 'docker');
      assert.deepEqual(
        empty.regions.map((r) => [
          r.region_id,
          r.nodes,
          r.nodes_ready,
          r.capacity,
          r.lobbies,
          r.live_lobbies,
        ]),
        [
          ['eu', 1, 1, 7, 0, 0],
          ['us', 1, 1, 7, 0, 0],
        ],
      );
      assert.ok(empty.regions.every((r) => r.problem === undefined));

      const ids = await runtimeGame(svc, 'admin-view');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 2, max: 2, regions: ['eu'] } });
      await until(
        'two lobbies ready',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready').length === 2,
        50,
      );
      const res = await svc.call('GET', '/cloud/admin/runtime');
      assert.equal(res.statusCode, 200, res.body);
      const view = res.json<GetRuntimeResponse>();
      assert.equal(view.nodes.length, 1);
      const [node] = view.nodes;
      assert.equal(node?.address, engine.dockerd.dockerHost);
      assert.equal(node?.state, 'ready');
      assert.equal(node?.availability, 'active');
      assert.equal(node?.role, 'engine');
      assert.deepEqual(node?.region_ids, ['eu', 'us']);
      assert.equal(node?.capacity, 7);
      assert.equal(node?.lobbies, 2);
      assert.ok((node?.cpu_nanos ?? 0) >= 1e9, `cpu_nanos ${node?.cpu_nanos}`);
      assert.ok((node?.memory_bytes ?? 0) > 0);
      assert.match(node?.engine_version ?? '', /^\d+\.\d+/);
      assert.equal(node?.message, undefined);
      // The engine's own disk figures, and the build image the service loaded there against its budget.
      const disk = node?.disk;
      assert.equal(disk?.service_images, 1);
      assert.ok((disk?.service_images_bytes ?? 0) > 0);
      assert.ok((disk?.images_bytes ?? 0) >= (disk?.service_images_bytes ?? 0), JSON.stringify(disk));
      assert.equal(disk?.budget_bytes, BUDGET);
      for (const figure of [disk?.containers_bytes, disk?.build_cache_bytes, disk?.volumes_bytes]) {
        assert.ok(Number.isInteger(figure) && (figure ?? -1) >= 0, JSON.stringify(disk));
      }
      const eu = view.regions.find((r) => r.region_id === 'eu');
      const us = view.regions.find((r) => r.region_id === 'us');
      assert.deepEqual([eu?.lobbies, eu?.live_lobbies, eu?.problem], [2, 2, undefined]);
      assert.deepEqual([us?.lobbies, us?.live_lobbies, us?.problem], [0, 0, undefined]);

      // The built command, beside the running service, sees the same engine and lobbies.
      const json = await runtimeStatus(
        svc,
        {
          GCM_RUNTIME_HOSTS: `eu=${engine.dockerd.dockerHost},us=${engine.dockerd.dockerHost}`,
          GCM_RUNTIME_MAX_LOBBIES_PER_HOST: '7',
          GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES: String(BUDGET),
        },
        ['--json'],
      );
      assert.equal(json.code, 0, json.stderr);
      const printed = JSON.parse(json.stdout) as GetRuntimeResponse;
      // What containers wrote moves between two reads; the rest is the same engine's.
      const steady = (nodes: GetRuntimeResponse['nodes']) =>
        nodes.map(({ disk: d, ...rest }) => ({
          ...rest,
          builds: [d?.service_images, d?.service_images_bytes, d?.budget_bytes],
        }));
      assert.deepEqual(steady(printed.nodes), steady(view.nodes));
      const printedEu = printed.regions.find((r) => r.region_id === 'eu');
      assert.deepEqual([printedEu?.nodes_ready, printedEu?.capacity, printedEu?.lobbies], [1, 7, 2]);
      // PostgreSQL is read beside the service; the embedded store is locked by it, and the command says so.
      assert.equal(printedEu?.live_lobbies, isPostgres(svc.deps.db) ? 2 : undefined);

      const plain = await runtimeStatus(svc, {
        GCM_RUNTIME_HOSTS: `eu=${engine.dockerd.dockerHost},us=${engine.dockerd.dockerHost}`,
        GCM_RUNTIME_MAX_LOBBIES_PER_HOST: '7',
        GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES: String(BUDGET),
      });
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(plain.stdout, /^runtime: docker/);
      assert.match(plain.stdout, /^REGION\s+NODES\s+READY\s+CAPACITY\s+LOBBIES\s+LIVE\s+PROBLEM$/m);
      assert.match(
        plain.stdout,
        new RegExp(`^eu\\s+1\\s+1\\s+7\\s+2\\s+${isPostgres(svc.deps.db) ? '2' : '-'}$`, 'm'),
      );
      assert.match(plain.stdout, /^NODE\s+STATE\s+AVAILABILITY/m);
      assert.match(
        plain.stdout,
        new RegExp(`\\sready\\s+active\\s+engine\\s+eu,us\\s.*${literal(engine.dockerd.dockerHost)}$`, 'm'),
      );
      assert.match(
        plain.stdout,
        /^NODE\s+IMAGES\s+CONTAINERS\s+BUILD CACHE\s+VOLUMES\s+BUILDS\s+BUILDS SIZE\s+BUDGET$/m,
      );
      assert.match(
        plain.stdout,
        /^\S+\s+[\d.]+ [MG]iB\s+[\d.]+ [MG]iB\s+[\d.]+ [MG]iB\s+[\d.]+ [MG]iB\s+1\s+[\d.]+ [MG]iB\s+1\.0 GiB$/m,
      );
      assert.ok(!plain.stdout.includes('\u001b['), 'no colours off a terminal');
      if (!isPostgres(svc.deps.db))
        assert.match(plain.stdout, /live lobbies not read: the running service holds/);
    } finally {
      await svc.close();
    }
  });

  it('answers an engine that does not answer as down, with its message and the region it leaves without', async () => {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
      env: { GCM_RUNTIME_HOSTS: `eu=${engine.dockerd.dockerHost},us=${MISSING_ENGINE}` },
    });
    try {
      const view = (await svc.call('GET', '/cloud/admin/runtime')).json<GetRuntimeResponse>();
      const down = view.nodes.find((n) => n.address === MISSING_ENGINE);
      assert.equal(down?.state, 'down');
      assert.deepEqual(down?.region_ids, ['us']);
      assert.match(down?.message ?? '', /nonexistent/);
      assert.equal(view.nodes.find((n) => n.address === engine.dockerd.dockerHost)?.state, 'ready');
      const us = view.regions.find((r) => r.region_id === 'us');
      assert.deepEqual([us?.nodes, us?.nodes_ready, us?.capacity], [1, 0, 0]);
      assert.match(us?.problem ?? '', /^no ready node serves region us/);
      assert.equal(view.regions.find((r) => r.region_id === 'eu')?.problem, undefined);

      const cli = await runtimeStatus(svc, {
        GCM_RUNTIME_HOSTS: `eu=${engine.dockerd.dockerHost},us=${MISSING_ENGINE}`,
      });
      assert.equal(cli.code, 1, `${cli.stdout}\n${cli.stderr}`);
      assert.match(cli.stdout, /^us\s+1\s+0\s+0\s+0\s+\S+\s+no ready node serves region us/m);
      assert.match(cli.stdout, /nonexistent/);
    } finally {
      await svc.close();
    }
  });

  it('counts the live lobbies by region from the partial index lobbies_live, whatever the log', async () => {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
    });
    try {
      const plan = await queryPlan(svc.deps.db, liveLobbiesByRegionQuery(svc.deps.db).compile());
      assert.match(plan, /lobbies_live\b/, plan);
    } finally {
      await svc.close();
    }
  });
});
