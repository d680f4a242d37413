import { execFile } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { dockerSkipReason } from '../../test/helpers/dockerd.js';
import { registrySkipReason, startRegistry, type TestRegistry } from '../../test/helpers/registry.js';
import { startSwarm, type TestSwarm } from '../../test/helpers/swarm.js';
import { buildTestImage } from '../../test/helpers/test-image.js';
import { stopChild } from '../lib/children.js';
import { spread } from '../lib/docker-floor.js';
import { cpuMillis } from '../lib/process-memory.js';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import type { RunningService } from '../lib/service.js';
import {
  lobbyCounts,
  runtimeGameOf,
  startMeasuredService,
  switchVersion,
  untilCounts,
} from './lobby-runtime.js';

const run = promisify(execFile);

/** Rounds of each of the two starts, interleaved (a lobby, then the floor), after one unmeasured of each. */
const ROUNDS = 8;
const IDLE_LOBBIES = 100;
/**
 * The swarm reserves a lobby's tier on its node, and each private engine reports the machine's 2 cores:
 * basic-1d16 (1/16 of a core) fits 32 lobbies a node, so 100 need four nodes.
 */
const TIER = 'basic-1d16';
const NODES = 4;
const REGION = 'eu';
/** The service's CPU over this long, with no lobby and with 100 ready. */
const STEADY_MS = 20_000;
const POLL_MS = 10;
/** This scenario's host ports (GCM_RUNTIME_PORT_RANGE): every node shares the machine's loopback. */
const PORT_RANGE = '30000-30999';
/** How long the 100 may take before the scenario reports how many came up instead. */
const MANY_TIMEOUT_MS = 600_000;

interface SwarmTask {
  ID: string;
  Status?: { State?: string };
}

/** A game mode of `idle` idle lobbies of the test server in the region, on the smallest tier. */
function gameMode(buildId: string, idle: number) {
  return {
    idle_lobbies: { min: idle, max: idle },
    regions: { [REGION]: { tier: TIER } },
    container: {
      image_id: buildId,
      network_mode: 'host',
      ports: { game: { port: 7777, protocol: 'tcp' } },
    },
  };
}

/** Polls the rollout view every POLL_MS until `count` lobbies are ready idle; answers the ms since `from`. */
async function untilReady(
  service: RunningService,
  ids: { gameId: string; namespaceId: string },
  count: number,
  from: number,
  timeoutMs: number,
): Promise<{ ms: number; ready: number }> {
  let ready = 0;
  for (;;) {
    ready = (await lobbyCounts(service, ids.gameId, ids.namespaceId)).ready;
    if (ready >= count) return { ms: performance.now() - from, ready };
    if (performance.now() - from > timeoutMs) return { ms: Number.NaN, ready };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * The swarm's own floor for one lobby: `docker service create` (the CLI, on the manager) of the same image
 * by its registry digest, host network, no restart, placed by the same region label, until its task is
 * `running` (the manager's /tasks polled every POLL_MS); then `docker service rm` and the wait until the
 * swarm has no task of it left.
 */
async function serviceCreateFloor(swarm: TestSwarm, image: string, round: number): Promise<number> {
  const name = `bench-floor-${round}`;
  const docker = (...args: string[]) => run('docker', ['-H', swarm.managerHost, ...args]);
  const tasks = async () =>
    (await swarm.manager.json<SwarmTask[]>({
      method: 'GET',
      path: '/tasks',
      query: { filters: JSON.stringify({ service: [name] }) },
    })) ?? [];
  const from = performance.now();
  await docker(
    'service',
    'create',
    '--detach',
    '--quiet',
    '--name',
    name,
    '--network',
    'host',
    '--restart-condition',
    'none',
    '--constraint',
    `node.labels.gcm.region==${REGION}`,
    // The test server without a service to call: it prints and idles, as a lobby does after its ready.
    '--env',
    'TEST_NO_READY=1',
    image,
  );
  for (;;) {
    if ((await tasks()).some((t) => t.Status?.State === 'running')) break;
    if (performance.now() - from > 120_000) throw new Error(`${name}: no running task within 2 min`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const ms = performance.now() - from;
  await docker('service', 'rm', name);
  await untilNoContainers(swarm, name);
  return ms;
}

/** Waits until no node's engine has a container left (running or not), so the next round starts alone. */
async function untilNoContainers(swarm: TestSwarm, what: string): Promise<void> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const counts = await Promise.all(
      swarm.nodes.map(
        async (node) =>
          (
            (await node.dockerd.engine.json<unknown[]>({
              method: 'GET',
              path: '/containers/json',
              query: { all: true },
            })) ?? []
          ).length,
      ),
    );
    if (counts.every((n) => n === 0)) return;
    if (performance.now() > deadline) throw new Error(`${what}: containers left 2 min after its removal`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The image a running lobby's service names: the build as the driver pushed it, by registry digest. */
async function lobbyImage(swarm: TestSwarm): Promise<string> {
  const services =
    (await swarm.manager.json<
      { Spec: { Name?: string; TaskTemplate?: { ContainerSpec?: { Image?: string } } } }[]
    >({ method: 'GET', path: '/services' })) ?? [];
  const image = services.find((s) => s.Spec.Name?.startsWith('gcm-'))?.Spec.TaskTemplate?.ContainerSpec
    ?.Image;
  if (image === undefined || !image.includes('@sha256:'))
    throw new Error(`no lobby service names its image by digest`);
  return image;
}

/** CPU ms of the service and of every node's dockerd over STEADY_MS; answers each as a share of a core. */
async function cpuWindow(servicePid: number, swarm: TestSwarm) {
  const pids = [servicePid, ...swarm.nodes.map((n) => n.dockerd.pid)];
  const from = pids.map(cpuMillis);
  const wallFrom = performance.now();
  await new Promise((resolve) => setTimeout(resolve, STEADY_MS));
  const wall = performance.now() - wallFrom;
  const shares = pids.map((pid, i) => (cpuMillis(pid) - (from[i] ?? 0)) / wall);
  return {
    service: shares[0] ?? Number.NaN,
    manager: shares[1] ?? Number.NaN,
    workers: shares.slice(2).reduce((a, b) => a + b, 0),
  };
}

/**
 * The swarm runtime (GCM_RUNTIME=swarm) measured as lobby-runtime measures the docker one: a lobby's start
 * to ready through the service against `docker service create` of the same image in the same run, rounds
 * interleaved; 100 idle lobbies brought up across a swarm of four private engines on this machine; the
 * service's CPU (its own process, from /proc) with 100 ready lobbies less the same window with none, and the
 * engines' alongside.
 */
export const swarmRuntime: Scenario = {
  name: 'swarm-runtime',
  description: `start to ready of one lobby on a swarm (${ROUNDS} rounds) vs docker service create; ${IDLE_LOBBIES} idle lobbies on ${NODES} nodes`,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const title = `swarm-runtime: ${swarmRuntime.description}`;
    const skip = dockerSkipReason('bench swarm-runtime') || registrySkipReason('bench swarm-runtime');
    if (skip !== false) return { title, rows: [], comparisons: [], notes: [`skipped: ${skip}`] };
    let swarm: TestSwarm | undefined;
    let registry: TestRegistry | undefined;
    let serviceRunning: RunningService | undefined;
    const loadAtStart = os.loadavg();
    try {
      swarm = await startSwarm({
        nodes: NODES,
        regions: [REGION],
        labels: { 'gcm.public_host': '127.0.0.1' },
      });
      registry = await startRegistry();
      const built = await buildTestImage(swarm.manager);
      const { service, pid } = await startMeasuredService(context, {
        name: 'swarm-service',
        dockerHost: swarm.managerHost,
        portRange: PORT_RANGE,
        env: {
          GCM_RUNTIME: 'swarm',
          GCM_SWARM_MANAGER: swarm.managerHost,
          GCM_REGISTRY: registry.address,
          GCM_REGIONS: REGION,
          GCM_LOBBY_STOP_GRACE: '1',
        },
      });
      serviceRunning = service;
      const ids = await runtimeGameOf(service, 'bench-swarm', built.archive, IDLE_LOBBIES);
      context.log(`swarm-runtime: ${NODES} nodes, registry ${registry.address}, service pid ${pid}`);

      // Round 0 of the lobby pushes the build to the registry and pulls it on its node: unmeasured, as is
      // round 0 of the floor. Every later lobby (and floor) may land on any of the four nodes.
      const starts: number[] = [];
      const floors: number[] = [];
      let image = '';
      for (let round = 0; round <= ROUNDS; round++) {
        const from = performance.now();
        await switchVersion(service, ids, `one-${round}`, {
          matchmaker: { game_modes: { default: gameMode(ids.buildId, 1) } },
        });
        const { ms } = await untilReady(service, ids, 1, from, 300_000);
        if (Number.isNaN(ms)) throw new Error(`round ${round}: the lobby was not ready within 5 min`);
        if (round === 0) image = await lobbyImage(swarm);
        await switchVersion(service, ids, `off-${round}`, {});
        await untilCounts(service, ids, 'the lobby stopped', (c) => c.live === 0);
        await untilNoContainers(swarm, `round ${round}'s lobby`);
        const floor = await serviceCreateFloor(swarm, image, round);
        if (round > 0) {
          starts.push(ms);
          floors.push(floor);
        }
        context.log(
          `swarm-runtime: round ${round}: lobby ${ms.toFixed(0)} ms, service create ${floor.toFixed(0)} ms`,
        );
      }

      const none = await cpuWindow(pid, swarm);
      const from = performance.now();
      await switchVersion(service, ids, 'many', {
        matchmaker: {
          // A game mode keeps at most 16 idle lobbies per region (the validator): ten modes of ten.
          game_modes: Object.fromEntries(
            Array.from({ length: IDLE_LOBBIES / 10 }, (_, i) => [`mode-${i}`, gameMode(ids.buildId, 10)]),
          ),
        },
      });
      const many = await untilReady(service, ids, IDLE_LOBBIES, from, MANY_TIMEOUT_MS);
      context.log(`swarm-runtime: ${many.ready} lobbies ready in ${(many.ms / 1000).toFixed(1)} s`);
      const running = await cpuWindow(pid, swarm);
      const stillReady = (await lobbyCounts(service, ids.gameId, ids.namespaceId)).ready;
      const perNode = await lobbiesPerNode(swarm);
      await switchVersion(service, ids, 'off', {});
      await untilCounts(service, ids, 'every lobby stopped', (c) => c.live === 0);

      const ms = (n: number) => n.toFixed(0);
      const lobby = spread(starts);
      const floor = spread(floors);
      const median = (xs: number[]) => spread(xs).p50;
      const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
      return {
        title,
        rows: [],
        comparisons: [],
        notes: [
          `lobby on the swarm, version switch to the server's ready call (rollout polled every ${POLL_MS} ms): median ${ms(lobby.p50)} ms, min ${ms(Math.min(...starts))}, max ${ms(lobby.max)} (${starts.map(ms).join(', ')})`,
          `docker service create (CLI, --detach) to its task running: median ${ms(floor.p50)} ms, min ${ms(Math.min(...floors))}, max ${ms(floor.max)} (${floors.map(ms).join(', ')})`,
          `ratio of medians lobby / service create: ${(lobby.p50 / floor.p50).toFixed(2)}; per round: median ${median(starts.map((s, i) => s / (floors[i] ?? Number.NaN))).toFixed(2)}`,
          Number.isNaN(many.ms)
            ? `${IDLE_LOBBIES} idle lobbies on ${NODES} nodes: only ${many.ready} ready after ${MANY_TIMEOUT_MS / 1000} s`
            : `${IDLE_LOBBIES} idle lobbies on ${NODES} nodes (${TIER}), version switch to all ready: ${(many.ms / 1000).toFixed(1)} s (${(IDLE_LOBBIES / (many.ms / 1000)).toFixed(1)} lobbies/s); per node ${perNode.join(', ')}`,
          `CPU over ${STEADY_MS / 1000} s, no lobby: service ${pct(none.service)} of a core, manager dockerd ${pct(none.manager)}, the ${NODES - 1} workers' dockerd ${pct(none.workers)}`,
          `CPU over ${STEADY_MS / 1000} s, ${stillReady} lobbies ready: service ${pct(running.service)} of a core, manager dockerd ${pct(running.manager)}, the ${NODES - 1} workers' dockerd ${pct(running.workers)}`,
          `per ${IDLE_LOBBIES} running lobbies (with less without): service ${pct(((running.service - none.service) * IDLE_LOBBIES) / Math.max(1, stillReady))} of a core, manager dockerd ${pct(((running.manager - none.manager) * IDLE_LOBBIES) / Math.max(1, stillReady))}`,
          `load average (1, 5, 15 min) at the start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}, at the end ${os
            .loadavg()
            .map((l) => l.toFixed(2))
            .join(' ')} (${os.cpus().length} cores)`,
          "anchors: Nomad's C1M (a million containers on 5,000 hosts in under 5 min), Agones ~300-400 allocations/s",
        ],
      };
    } finally {
      // The service first: its driver would otherwise go on polling engines that are going away.
      if (serviceRunning !== undefined) await stopChild(serviceRunning.child);
      await registry?.stop();
      await swarm?.stop();
    }
  },
};

/** How many of the swarm's running tasks each node holds, in node order. */
async function lobbiesPerNode(swarm: TestSwarm): Promise<number[]> {
  const tasks =
    (await swarm.manager.json<{ NodeID?: string; Status?: { State?: string } }[]>({
      method: 'GET',
      path: '/tasks',
      query: { filters: JSON.stringify({ 'desired-state': ['running'] }) },
    })) ?? [];
  return swarm.nodes.map(
    (node) => tasks.filter((t) => t.NodeID === node.id && t.Status?.State === 'running').length,
  );
}
