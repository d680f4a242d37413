import { performance } from 'node:perf_hooks';
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
import { measureDockerRunFloor, spread } from '../lib/docker-floor.js';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';

const RUNS = 10;
const IDLE_LOBBIES = 100;
/** Steady state with the lobbies running: the service's CPU over this long. */
const STEADY_MS = 20_000;

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

      const many = await namespaceOf(svc, game.gameId, 999);
      await svc.call('POST', `/cloud/games/${game.gameId}/namespaces/${many}/mm-config`, {
        body: { lobby_count_max: IDLE_LOBBIES, max_players: 8 },
      });
      const rssBefore = process.memoryUsage().rss;
      const from = performance.now();
      await deploy(
        svc,
        { gameId: game.gameId, namespaceId: many },
        // A game mode keeps at most 16 idle lobbies per region (the validator): ten modes of ten.
        Object.fromEntries(
          Array.from({ length: IDLE_LOBBIES / 10 }, (_, i) => [`mode-${i}`, { buildId, min: 10, max: 10 }]),
        ),
        'many',
      );
      const hundred = await untilReady(svc, many, IDLE_LOBBIES, from);
      context.log(`lobby-runtime: ${IDLE_LOBBIES} lobbies ready`);
      const cpuFrom = process.cpuUsage();
      const wallFrom = performance.now();
      await new Promise((resolve) => setTimeout(resolve, STEADY_MS));
      const cpu = process.cpuUsage(cpuFrom);
      const cpuShare = (cpu.user + cpu.system) / 1000 / (performance.now() - wallFrom);
      const rss = process.memoryUsage().rss;
      await deploy(
        svc,
        { gameId: game.gameId, namespaceId: many },
        { default: { buildId, min: 0, max: 0 } },
        'many-off',
      );
      await untilGone(svc, many);
      const ms = (n: number) => n.toFixed(0);
      const service = spread(starts);
      return {
        title,
        rows: [],
        comparisons: [],
        notes: [
          `through the service, deploy to ready: p50 ${ms(service.p50)} ms, p99 ${ms(service.p99)} ms, max ${ms(service.max)} ms`,
          `docker run floor, create + start to port accepting: p50 ${ms(floor.toListening.p50)} ms, p99 ${ms(floor.toListening.p99)} ms`,
          `${IDLE_LOBBIES} idle lobbies on one host, deploy to all ready: ${(hundred / 1000).toFixed(1)} s`,
          `with ${IDLE_LOBBIES} lobbies running (a pass every 10 s): the service process used ${(cpuShare * 100).toFixed(1)}% of a core over ${STEADY_MS / 1000} s; its RSS grew ${((rss - rssBefore) / 1024 / 1024).toFixed(0)} MiB (bench process, whole)`,
          'anchors: Gameye ~0.5 s average session start, a Kubernetes pod ~6 s, Agones ~0.5 s batched allocation',
        ],
      };
    } finally {
      await svc.close();
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

async function untilGone(svc: TestService, namespaceId: string): Promise<void> {
  for (let i = 0; i < 6000; i++) {
    const rows = await lobbiesOf(svc, namespaceId);
    if (rows.every((r) => r.run_state === 'stopped')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
