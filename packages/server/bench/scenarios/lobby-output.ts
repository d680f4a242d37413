import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { GetLobbyLogsResponse } from '@gcm/contract';
import { dockerSkipReason, type PrivateDockerd, startDockerd } from '../../test/helpers/dockerd.js';
import { buildTestImage } from '../../test/helpers/test-image.js';
import { stopChild } from '../lib/children.js';
import { spread } from '../lib/docker-floor.js';
import { cpuMillis } from '../lib/process-memory.js';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { apiOk, type RunningService } from '../lib/service.js';
import { runtimeGameOf, startMeasuredService, switchVersion, untilCounts } from './lobby-runtime.js';

/**
 * The chatty lobby's lines, ~12 bytes each: the engine's `local` log driver stores each with its timestamp
 * and framing (~50 bytes), and a follower that lags behind its 2 × 10 MiB files loses what they rotate away
 * (a million lines did: 715,143 reached the service), so this stays well under that cap.
 */
const CHATTY_LINES = 300_000;
/** TEST_PRINT_BURST of the steady lobby: that many lines every 0.1 s, ~10,000 lines/s. */
const STEADY_BURST = 1000;
const WINDOW_MS = 20_000;
const MANY_LOBBIES = 100;
/**
 * Each of the many prints its lines once a second, as one burst (test-image.ts: a burst every 0.1 s from 100
 * lobbies spawns 2,000 processes a second, which is all two cores can do, and they then print ~40 lines/s each).
 */
const MANY_PERIOD_US = 1_000_000;
/** The docker CLI the floor runs (Debian's docker.io, or a docker-ce install). */
const DOCKER_CLI = ['/usr/bin/docker', '/usr/local/bin/docker'].find((p) => existsSync(p));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Ids {
  gameId: string;
  namespaceId: string;
  buildId: string;
}

/** A version of `modes` game modes of `perMode` lobbies each, the test server with `env`, no ports. */
function printingConfig(
  ids: Ids,
  prefix: string,
  modes: number,
  perMode: number,
  env: Record<string, string>,
) {
  return {
    matchmaker: {
      game_modes: Object.fromEntries(
        Array.from({ length: modes }, (_, i) => [
          `${prefix}-${i}`,
          {
            idle_lobbies: { min: perMode, max: perMode },
            regions: { eu: {} },
            container: { image_id: ids.buildId, network_mode: 'host', ports: {}, env },
          },
        ]),
      ),
    },
  };
}

interface Container {
  Id: string;
  Labels?: Record<string, string>;
}

/** The containers of the engine whose game mode is `mode`, polled every 10 ms until there is one. */
async function containerOf(dockerd: PrivateDockerd, mode: string): Promise<Container> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const found = await dockerd.engine.json<Container[]>({
      method: 'GET',
      path: '/containers/json',
      query: { all: true, filters: JSON.stringify({ label: [`gcm.game_mode=${mode}`] }) },
    });
    const first = found?.[0];
    if (first !== undefined) return first;
    if (performance.now() > deadline) throw new Error(`no container of game mode ${mode} within 2 min`);
    await sleep(10);
  }
}

function logsPath(ids: Ids, lobbyId: string, query: Record<string, string>): string {
  return `/cloud/games/${ids.gameId}/matchmaker/lobbies/${lobbyId}/logs?${new URLSearchParams({ stream: 'std_out', ...query })}`;
}

const decode = (line: string) => Buffer.from(line, 'base64').toString('latin1');

/**
 * `docker logs -f` of the container with the real CLI, counting lines as they arrive, until `last` has
 * arrived: answers when (Date.now()) and how many lines came before it.
 */
function dockerLogsUntil(cli: string, dockerHost: string, containerId: string, last: string) {
  return new Promise<{ at: number; lines: number }>((resolve, reject) => {
    const child = spawn(cli, ['-H', dockerHost, 'logs', '-f', containerId], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let lines = 0;
    let tail = '';
    let done = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (done) return;
      const text = tail + chunk.toString('latin1');
      const parts = text.split('\n');
      tail = parts.pop() ?? '';
      for (const part of parts) {
        lines++;
        if (part === last) {
          done = true;
          resolve({ at: Date.now(), lines });
          child.kill('SIGTERM');
          return;
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!done) reject(new Error(`docker logs -f ended (${code}) before "${last}"`));
    });
  });
}

/**
 * Reads the lobby's stdout through the service every 10 ms (the newest 4 lines) until `last` is among them:
 * answers when, and the stream's line count then.
 */
async function serviceUntil(service: RunningService, ids: Ids, lobbyId: string, last: string) {
  const deadline = performance.now() + 180_000;
  for (;;) {
    const page = await apiOk<GetLobbyLogsResponse>(service, 'GET', logsPath(ids, lobbyId, { limit: '4' }));
    if (page.lines.some((l) => decode(l) === last)) {
      return { at: Date.now(), lines: Number(page.watch.index) };
    }
    if (performance.now() > deadline) throw new Error(`"${last}" not stored within 3 min`);
    await sleep(10);
  }
}

/** The stream's line count now (`watch.index` of the newest line). */
/** The lobby ids of the running containers of a config's game modes (`mode-0` … `mode-9`). */
async function lobbiesOf(dockerd: PrivateDockerd, mode: string): Promise<string[]> {
  const found = await dockerd.engine.json<Container[]>({ method: 'GET', path: '/containers/json' });
  return (found ?? []).flatMap((c) =>
    c.Labels?.['gcm.game_mode']?.startsWith(`${mode}-`) === true ? (c.Labels['gcm.lobby_id'] ?? []) : [],
  );
}

/** The machine's CPU time (all cores, in clock ticks) and how much of it was idle, from /proc/stat. */
function machineCpu(): { total: number; idle: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are the idle time.
  return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), idle: (fields[3] ?? 0) + (fields[4] ?? 0) };
}

async function lineCount(service: RunningService, ids: Ids, lobbyId: string): Promise<number> {
  const page = await apiOk<GetLobbyLogsResponse>(service, 'GET', logsPath(ids, lobbyId, { limit: '1' }));
  return Number(page.watch.index);
}

/**
 * Follows the lobby's stdout with the watch index until `stop` resolves; each line's delay is the time it was
 * received less its timestamp (the engine's, in ms, on the same machine's clock).
 */
async function follow(service: RunningService, ids: Ids, lobbyId: string, stop: Promise<void>) {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  let index = String(await lineCount(service, ids, lobbyId));
  const delays: number[] = [];
  while (!stopped) {
    const page = await apiOk<GetLobbyLogsResponse>(
      service,
      'GET',
      logsPath(ids, lobbyId, { watch_index: index, limit: '1000' }),
    );
    const now = Date.now();
    for (const t of page.timestamps) delays.push(now - Date.parse(t));
    index = page.watch.index;
  }
  return delays;
}

/** Memory and CPU readings of the service's process, with the lobbies' output flowing through it. */
async function measure(context: ScenarioContext, dockerd: PrivateDockerd, archive: Buffer) {
  const { service, memory, pid } = await startMeasuredService(context, {
    name: 'output-service',
    dockerHost: dockerd.dockerHost,
    portRange: '29400-29499',
  });
  try {
    const ids = await runtimeGameOf(service, 'bench-output', archive, MANY_LOBBIES + 10);
    const noLobbies = async (what: string) => {
      await switchVersion(service, ids, `off-${what}`, {});
      await untilCounts(service, ids, `the ${what} lobbies stopped`, (c) => c.live === 0);
    };

    // 1. A lobby printing CHATTY_LINES as fast as it can: the service and `docker logs -f`, side by side.
    await switchVersion(
      service,
      ids,
      'chatty',
      printingConfig(ids, 'chatty', 1, 1, { TEST_PRINT_LINES: String(CHATTY_LINES), TEST_NO_READY: '1' }),
    );
    const chatty = await containerOf(dockerd, 'chatty-0');
    const lobbyId = chatty.Labels?.['gcm.lobby_id'] ?? '';
    const last = `server: printed ${CHATTY_LINES} lines`;
    const [stored, cli] = await Promise.all([
      serviceUntil(service, ids, lobbyId, last),
      DOCKER_CLI === undefined ? undefined : dockerLogsUntil(DOCKER_CLI, dockerd.dockerHost, chatty.Id, last),
    ]);
    const inspected = await dockerd.engine.json<{ State: { StartedAt: string } }>({
      method: 'GET',
      path: `/containers/${chatty.Id}/json`,
    });
    const startedAt = Date.parse(inspected?.State.StartedAt ?? '');
    const lastPage = await apiOk<GetLobbyLogsResponse>(
      service,
      'GET',
      logsPath(ids, lobbyId, { limit: '4' }),
    );
    const printedAt = Date.parse(
      lastPage.timestamps[lastPage.lines.findIndex((l) => decode(l) === last)] ?? '',
    );
    context.log(`lobby-output: ${CHATTY_LINES} lines stored in ${stored.at - startedAt} ms`);
    await noLobbies('chatty');

    // 2. The service's CPU with a lobby printing ~10,000 lines/s, less the same window with none.
    let cpu = cpuMillis(pid);
    let wall = performance.now();
    await sleep(WINDOW_MS);
    const idleCpu = (cpuMillis(pid) - cpu) / ((performance.now() - wall) / 1000);
    await switchVersion(
      service,
      ids,
      'steady',
      printingConfig(ids, 'steady', 1, 1, { TEST_PRINT_BURST: String(STEADY_BURST) }),
    );
    await untilCounts(service, ids, 'the steady lobby ready', (c) => c.ready >= 1);
    const steadyId = (await containerOf(dockerd, 'steady-0')).Labels?.['gcm.lobby_id'] ?? '';
    await sleep(2000);
    const fromLines = await lineCount(service, ids, steadyId);
    cpu = cpuMillis(pid);
    wall = performance.now();
    await sleep(WINDOW_MS);
    const steadyCpu = (cpuMillis(pid) - cpu) / ((performance.now() - wall) / 1000);
    const steadyRate =
      ((await lineCount(service, ids, steadyId)) - fromLines) / ((performance.now() - wall) / 1000);
    context.log(`lobby-output: ${steadyRate.toFixed(0)} lines/s steady, ${steadyCpu.toFixed(0)} ms CPU/s`);
    await noLobbies('steady');

    // 3. 100 quiet lobbies.
    await switchVersion(service, ids, 'quiet', printingConfig(ids, 'quiet', MANY_LOBBIES / 10, 10, {}));
    await untilCounts(service, ids, 'the quiet lobbies ready', (c) => c.ready >= MANY_LOBBIES);
    const quiet = await memory();
    context.log(`lobby-output: ${MANY_LOBBIES} quiet lobbies measured`);
    await noLobbies('quiet');
    // 4. 100 lobbies printing, with a follower on one: at 100 lines/s each (10,000 in all, what the machine
    // carries), then at the 1,000 lines/s each asked for (100,000 in all, which saturates two cores).
    const atRate = async (mode: string, burst: number) => {
      await switchVersion(
        service,
        ids,
        mode,
        printingConfig(ids, mode, MANY_LOBBIES / 10, 10, {
          TEST_PRINT_BURST: String(burst),
          TEST_PRINT_PERIOD_US: String(MANY_PERIOD_US),
        }),
      );
      await untilCounts(service, ids, `the ${mode} lobbies ready`, (c) => c.ready >= MANY_LOBBIES);
      context.log(`lobby-output: ${MANY_LOBBIES} ${mode} lobbies ready`);
      const followedId = (await containerOf(dockerd, `${mode}-0`)).Labels?.['gcm.lobby_id'] ?? '';
      let stop = () => {};
      const stopped = new Promise<void>((resolve) => {
        stop = resolve;
      });
      const following = follow(service, ids, followedId, stopped);
      const manyIds = await lobbiesOf(dockerd, mode);
      const allLines = async () =>
        (await Promise.all(manyIds.map((id) => lineCount(service, ids, id)))).reduce((a, b) => a + b, 0);
      const fromLines = await allLines();
      const machineFrom = machineCpu();
      const cpuFrom = cpuMillis(pid);
      const from = performance.now();
      const [printing] = await Promise.all([memory(), sleep(WINDOW_MS)]);
      const seconds = (performance.now() - from) / 1000;
      const serviceCpu = (cpuMillis(pid) - cpuFrom) / seconds;
      const machineTo = machineCpu();
      const machineBusy = 1 - (machineTo.idle - machineFrom.idle) / (machineTo.total - machineFrom.total);
      const allRate = ((await allLines()) - fromLines) / seconds;
      stop();
      const delays = await following;
      await noLobbies(mode);
      return { burst, printing, serviceCpu, allRate, lobbies: manyIds.length, machineBusy, delays };
    };
    const rates = [await atRate('hundred', 100), await atRate('thousand', 1000)];
    return {
      chatty: { startedAt, printedAt, stored, cli },
      steady: { idleCpu, steadyCpu, steadyRate },
      many: { quiet, rates },
    };
  } finally {
    await stopChild(service.child);
  }
}

/**
 * Lobby output through the service as its own process on a private engine: how fast a chatty lobby's lines
 * are all stored against `docker logs -f` of the same container; the service's CPU per 10,000 lines/s; its
 * memory with 100 lobbies printing 1,000 lines/s each; and a follower's delay from print to read.
 */
export const lobbyOutput: Scenario = {
  name: 'lobby-output',
  description: `a lobby printing ${CHATTY_LINES.toLocaleString('en')} lines vs docker logs -f; CPU at ~10k lines/s; ${MANY_LOBBIES} lobbies at ~1k lines/s each`,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const title = `lobby-output: ${lobbyOutput.description}`;
    const skip = dockerSkipReason('bench lobby-output');
    if (skip !== false) return { title, rows: [], comparisons: [], notes: [`skipped: ${skip}`] };
    const dockerd = await startDockerd();
    try {
      const built = await buildTestImage(dockerd.engine);
      const { chatty, steady, many } = await measure(context, dockerd, built.archive);
      const perSec = (at: number) => CHATTY_LINES / ((at - chatty.startedAt) / 1000);
      const serviceRate = perSec(chatty.stored.at);
      const k = (n: number) => `${(n / 1000).toFixed(0)}k`;
      const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
      const mem = (m: { rssBytes: number; heapUsedBytes: number; heapTotalBytes: number }) =>
        `RSS ${mib(m.rssBytes)} MiB, heap used ${mib(m.heapUsedBytes)} MiB of ${mib(m.heapTotalBytes)}`;
      const perTenK = ((steady.steadyCpu - steady.idleCpu) * 10_000) / steady.steadyRate;
      return {
        title,
        rows: [],
        comparisons: [],
        notes: [
          `a lobby printing ${CHATTY_LINES.toLocaleString('en')} lines as fast as it can (printed in ${((chatty.printedAt - chatty.startedAt) / 1000).toFixed(1)} s from its start): all stored by the service in ${((chatty.stored.at - chatty.startedAt) / 1000).toFixed(1)} s, ${k(serviceRate)} lines/s (${chatty.stored.lines} lines in the stream, ${chatty.cli?.lines ?? '-'} read by docker logs -f)`,
          chatty.cli === undefined
            ? 'docker logs -f floor: no docker CLI on this machine'
            : `docker logs -f of the same container (the docker CLI, at the same time): all read in ${((chatty.cli.at - chatty.startedAt) / 1000).toFixed(1)} s, ${k(perSec(chatty.cli.at))} lines/s; the service at ${((serviceRate / perSec(chatty.cli.at)) * 100).toFixed(0)}% of it`,
          `a lobby printing ${steady.steadyRate.toFixed(0)} lines/s for ${WINDOW_MS / 1000} s: the service used ${steady.steadyCpu.toFixed(0)} ms CPU/s (idle ${steady.idleCpu.toFixed(0)} ms/s): ${(perTenK / 10).toFixed(1)}% of a core per 10,000 lines/s`,
          `${MANY_LOBBIES} quiet lobbies, memory (median of 5 samples after a full GC): ${mem(many.quiet)}`,
          ...many.rates.map((r) => {
            const delay = spread(r.delays);
            return `${r.lobbies} lobbies each printing ${r.burst.toLocaleString('en')} lines a second (in one burst): ${(r.allRate / r.lobbies).toFixed(0)} lines/s each stored on average, ${r.allRate.toFixed(0)} in all; memory ${mem(r.printing)}; the service's CPU ${(r.serviceCpu / 10).toFixed(0)}% of a core, the machine ${(r.machineBusy * 100).toFixed(0)}% busy; a follower (watch_index) on one: ${r.delays.length} lines, print to read p50 ${delay.p50.toFixed(0)} ms, p99 ${delay.p99.toFixed(0)} ms, max ${delay.max.toFixed(0)} ms`;
          }),
        ],
      };
    } finally {
      await dockerd.stop();
    }
  },
};
