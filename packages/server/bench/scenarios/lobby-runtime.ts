import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { NamespaceRollout } from '@gcm/contract';
import { DockerDriver } from '../../src/runtime/docker/docker-driver.js';
import { dockerSkipReason, startDockerd } from '../../test/helpers/dockerd.js';
import {
  deploy,
  lobbiesOf,
  runtimeGame,
  startRuntimeService,
  uploadBuild,
} from '../../test/helpers/runtime-world.js';
import type { TestService } from '../../test/helpers/service.js';
import { buildTestImage, imageArchive } from '../../test/helpers/test-image.js';
import { freePort } from '../lib/children.js';
import { measureDockerRunFloor, spread } from '../lib/docker-floor.js';
import { cpuMillis, medianMemory } from '../lib/process-memory.js';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { apiOk, createGameWithNamespace, type RunningService, startService } from '../lib/service.js';

const RUNS = 10;
const IDLE_LOBBIES = 100;
/** Steady state with the lobbies running: the service's CPU over this long. */
const STEADY_MS = 20_000;
/** Memory samples, each after a full collection, whose median is a reading. */
const MEMORY_SAMPLES = 5;

/** Waits (polling the store every 5 ms) until `count` lobbies of the namespace are ready; answers the ms. */
async function untilReady(svc: TestService, namespaceId: string, count: number, from: number) {
  for (;;) {
    const ready = (await lobbiesOf(svc, namespaceId)).filter((r) => r.run_state === 'ready').length;
    if (ready >= count) return performance.now() - from;
    if (performance.now() - from > 600_000) throw new Error(`${count} lobbies not ready within 10 min`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A lobby's start to ready through the service (a namespace deployed, the reconciler woken, the build loaded
 * once before, the container started, its server calling ready) against `docker run` of the same image in
 * the same run; then the time for 100 idle lobbies to come up on one host, and what the service costs while
 * they run.
 */
export const lobbyRuntime: Scenario = {
  name: 'lobby-runtime',
  description: `start to ready of one lobby through the reconciler (${RUNS} runs) vs docker run; ${IDLE_LOBBIES} idle lobbies on one host`,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const title = `lobby-runtime: ${lobbyRuntime.description}`;
    const skip = dockerSkipReason('bench lobby-runtime');
    if (skip !== false) return { title, rows: [], comparisons: [], notes: [`skipped: ${skip}`] };
    const dockerd = await startDockerd();
    const driver = new DockerDriver({
      hosts: [{ dockerHost: dockerd.dockerHost, regions: ['eu'], capacity: 1 }],
    });
    const { svc } = await startRuntimeService({
      dockerHost: dockerd.dockerHost,
      portRange: '28000-28999',
      env: {
        GCM_REGIONS: 'eu',
        GCM_RUNTIME_HOSTS: `eu=${dockerd.dockerHost}`,
        GCM_RUNTIME_MAX_LOBBIES_PER_HOST: '500',
        GCM_RUNTIME_RECONCILE_INTERVAL: '10',
      },
    });
    let closed = false;
    try {
      const built = await buildTestImage(dockerd.engine);
      const { image } = await driver.ensureImage('eu', imageArchive(built.archive));
      await measureDockerRunFloor(driver, { region: 'eu', image, runs: 1 });
      const floor = await measureDockerRunFloor(driver, { region: 'eu', image, runs: RUNS });

      // One lobby per namespace; the first run loads the build, unmeasured.
      const game = await runtimeGame(svc, 'bench-runtime');
      const buildId = await uploadBuild(svc, game.gameId, game.namespaceId, built.archive);
      const starts: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const ids =
          run === 0 ? game : { gameId: game.gameId, namespaceId: await namespaceOf(svc, game.gameId, run) };
        const from = performance.now();
        await deploy(svc, ids, { default: { buildId, min: 1, max: 1 } }, `v${run}`);
        const ms = await untilReady(svc, ids.namespaceId, 1, from);
        if (run > 0) starts.push(ms);
        // Back to no lobby, so the next run's is alone on the host.
        await deploy(svc, ids, { default: { buildId, min: 0, max: 0 } }, `off${run}`);
      }
      const first = spread(starts);
      context.log(
        `lobby-runtime: deploy to ready p50 ${first.p50.toFixed(0)} ms, p99 ${first.p99.toFixed(0)} ms; floor p50 ${floor.toListening.p50.toFixed(0)} ms`,
      );

      await svc.close();
      closed = true;

      const many = await manyLobbies(context, dockerd.dockerHost, built.archive);
      const ms = (n: number) => n.toFixed(0);
      const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
      const kib = (n: number) => (n / 1024).toFixed(0);
      const service = spread(starts);
      const { idle, running, after } = many;
      return {
        title,
        rows: [],
        comparisons: [],
        notes: [
          `through the service, deploy to ready: p50 ${ms(service.p50)} ms, p99 ${ms(service.p99)} ms, max ${ms(service.max)} ms`,
          `docker run floor, create + start to port accepting: p50 ${ms(floor.toListening.p50)} ms, p99 ${ms(floor.toListening.p99)} ms`,
          `${IDLE_LOBBIES} idle lobbies on one host, deploy to all ready: ${(many.readyMs / 1000).toFixed(1)} s (the service as its own process)`,
          `with ${IDLE_LOBBIES} lobbies running (a pass every 10 s): the service process used ${(many.cpuShare * 100).toFixed(1)}% of a core over ${STEADY_MS / 1000} s`,
          `the service process's memory (median of ${MEMORY_SAMPLES} samples, each after a full GC): 0 lobbies RSS ${mib(idle.rssBytes)} MiB, heap used ${mib(idle.heapUsedBytes)} MiB of ${mib(idle.heapTotalBytes)}; ${IDLE_LOBBIES} lobbies running RSS ${mib(running.rssBytes)} MiB, heap used ${mib(running.heapUsedBytes)} MiB of ${mib(running.heapTotalBytes)}; all stopped again RSS ${mib(after.rssBytes)} MiB, heap used ${mib(after.heapUsedBytes)} MiB`,
          `per lobby: RSS ${kib((running.rssBytes - idle.rssBytes) / IDLE_LOBBIES)} KiB, heap used ${kib((running.heapUsedBytes - idle.heapUsedBytes) / IDLE_LOBBIES)} KiB`,
          'anchors: Gameye ~0.5 s average session start, a Kubernetes pod ~6 s, Agones ~0.5 s batched allocation',
        ],
      };
    } finally {
      if (!closed) await svc.close();
      await driver.close();
      await dockerd.stop();
    }
  },
};

async function namespaceOf(svc: TestService, gameId: string, n: number): Promise<string> {
  const versions = await svc.call('GET', `/cloud/games/${gameId}/versions`);
  const versionId = versions.json<{ versions: { version_id: string }[] }>().versions[0]?.version_id ?? '';
  const made = await svc.call('POST', `/cloud/games/${gameId}/namespaces`, {
    body: { name_id: `ns-${n}`, display_name: `ns ${n}`, version_id: versionId },
  });
  return made.json<{ namespace_id: string }>().namespace_id;
}

/**
 * The service as a process of its own on the bench's engine (`node dist/main.js`, its own data dir and port,
 * GCM_RUNTIME=docker through DOCKER_HOST, room for 500 lobbies on the host), with its pid for /proc and
 * `memory()`: the median of MEMORY_SAMPLES readings, each after a full garbage collection.
 */
export async function startMeasuredService(
  context: ScenarioContext,
  options: { name: string; dockerHost: string; portRange: string; env?: Record<string, string> },
) {
  const port = await freePort();
  const inspectPort = await freePort();
  const metricsToken = `bench_metrics_${randomBytes(24).toString('base64url')}`;
  const service = await startService(context.registry, context.workDir, {
    name: options.name,
    dataDir: path.join(context.workDir, `${options.name}-data`),
    port,
    // On loopback, for the bench alone: what lets it run a full garbage collection before reading the heap.
    nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`],
    env: {
      GCM_PUBLIC_URL: `http://127.0.0.1:${port}`,
      GCM_RUNTIME: 'docker',
      DOCKER_HOST: options.dockerHost,
      GCM_REGIONS: 'eu',
      GCM_RUNTIME_PORT_RANGE: options.portRange,
      GCM_RUNTIME_MAX_LOBBIES_PER_HOST: '500',
      GCM_RUNTIME_RECONCILE_INTERVAL: '10',
      GCM_METRICS_TOKEN: metricsToken,
      ...options.env,
    },
  });
  const pid = service.child.process.pid;
  if (pid === undefined) throw new Error(`${options.name} has no pid`);
  const memory = () =>
    medianMemory(pid, inspectPort, `${service.baseUrl}/metrics`, metricsToken, MEMORY_SAMPLES);
  return { service, memory, pid };
}

/**
 * A game with host networking and a namespace running nothing yet, the test server uploaded as a build, and
 * room for `lobbyCountMax` lobbies: what a separate service process needs before lobbies are deployed.
 */
export async function runtimeGameOf(
  service: RunningService,
  nameId: string,
  archive: Buffer,
  lobbyCountMax: number,
): Promise<{ gameId: string; namespaceId: string; buildId: string }> {
  const { gameId, namespaceId } = await createGameWithNamespace(service, nameId, nameId);
  await apiOk(service, 'PUT', `/cloud/games/${gameId}/host-networking`, { body: { enabled: true } });
  const base = `/games/${gameId}/environments/${namespaceId}/builds`;
  const prepared = await apiOk<{ build_id: string; presigned_requests: { url: string }[] }>(
    service,
    'POST',
    `${base}/prepare`,
    { body: { name: 'server', image_file: { path: 'server.tar', content_length: archive.length } } },
  );
  const put = await fetch(prepared.presigned_requests[0]?.url ?? '', {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: archive,
  });
  if (!put.ok) throw new Error(`uploading the build answered ${put.status}: ${await put.text()}`);
  await apiOk(service, 'POST', `${base}/${prepared.build_id}/complete`);
  await apiOk(service, 'POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/mm-config`, {
    body: { lobby_count_max: lobbyCountMax, max_players: 8 },
  });
  return { gameId, namespaceId, buildId: prepared.build_id };
}

/** How the namespace's lobbies stand, from the rollout view: ready and idle, and live in any state. */
export async function lobbyCounts(service: RunningService, gameId: string, namespaceId: string) {
  const rollout = await apiOk<NamespaceRollout>(
    service,
    'GET',
    `/cloud/games/${gameId}/namespaces/${namespaceId}/rollout`,
  );
  let ready = 0;
  let live = 0;
  for (const group of rollout.groups) {
    const l = group.lobbies;
    ready += l.ready_idle;
    live += l.starting + l.ready_idle + l.ready_busy + l.closed + l.stopping;
  }
  return { ready, live };
}

export async function untilCounts(
  service: RunningService,
  ids: { gameId: string; namespaceId: string },
  what: string,
  done: (counts: { ready: number; live: number }) => boolean,
): Promise<void> {
  const deadline = performance.now() + 900_000;
  while (!done(await lobbyCounts(service, ids.gameId, ids.namespaceId))) {
    if (performance.now() > deadline) throw new Error(`${what}: not within 15 min`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * 100 idle lobbies run by the service as a process of its own (`node dist/main.js`, its own data dir and
 * port, GCM_RUNTIME=docker on the bench's engine through DOCKER_HOST), so that its memory is the service's
 * alone, not the bench's: RSS from the kernel and heap from its /metrics, with no lobby and with 100 ready.
 */
async function manyLobbies(context: ScenarioContext, dockerHost: string, archive: Buffer) {
  const { service, memory, pid } = await startMeasuredService(context, {
    name: 'runtime-service',
    dockerHost,
    portRange: '29000-29999',
  });

  const ids = await runtimeGameOf(service, 'bench-many', archive, IDLE_LOBBIES);
  const buildId = ids.buildId;
  // Everything up to the lobbies has been done once, so the baseline holds the code paths warm.
  const idle = await memory();

  const from = performance.now();
  const config = {
    matchmaker: {
      // A game mode keeps at most 16 idle lobbies per region (the validator): ten modes of ten.
      game_modes: Object.fromEntries(
        Array.from({ length: IDLE_LOBBIES / 10 }, (_, i) => [
          `mode-${i}`,
          {
            idle_lobbies: { min: 10, max: 10 },
            regions: { eu: {} },
            container: {
              image_id: buildId,
              network_mode: 'host',
              ports: { game: { port: 7777, protocol: 'tcp' } },
            },
          },
        ]),
      ),
    },
  };
  await switchVersion(service, ids, 'many', config);
  await untilCounts(service, ids, `${IDLE_LOBBIES} lobbies ready`, (c) => c.ready >= IDLE_LOBBIES);
  const readyMs = performance.now() - from;
  context.log(`lobby-runtime: ${IDLE_LOBBIES} lobbies ready in a separate service process`);

  const cpuFrom = cpuMillis(pid);
  const wallFrom = performance.now();
  await new Promise((resolve) => setTimeout(resolve, STEADY_MS));
  const cpuShare = (cpuMillis(pid) - cpuFrom) / (performance.now() - wallFrom);
  const running = await memory();

  await switchVersion(service, ids, 'off', {});
  await untilCounts(service, ids, 'every lobby stopped', (c) => c.live === 0);
  const after = await memory();
  return { readyMs, cpuShare, idle, running, after };
}

export async function switchVersion(
  service: RunningService,
  ids: { gameId: string; namespaceId: string },
  name: string,
  config: unknown,
): Promise<void> {
  const { version_id } = await apiOk<{ version_id: string }>(
    service,
    'POST',
    `/cloud/games/${ids.gameId}/versions`,
    { body: { display_name: name, config } },
  );
  await apiOk(service, 'PUT', `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/version`, {
    body: { version_id },
  });
}
