import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { apiOk, type RunningService, startService } from '../lib/service.js';

const WATCHERS = 10_000;
/** Connections opened before waiting for the service to hold them all: under its listen backlog (511). */
const BATCH = 500;
const ANSWER_TARGET_MS = 1_000;
const RSS_TARGET_MB = 300;

interface Billing {
  active_plan: string;
  plan: string;
  watch: { index: string };
}

/** Resident and peak memory of a process, in MB, from /proc (Linux). */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** The service's count of waiting watch_index requests (GET /cloud/debug/watchers, operator only). */
async function waiting(service: RunningService): Promise<number> {
  return (await apiOk<{ waiting: number }>(service, 'GET', '/cloud/debug/watchers')).waiting;
}

async function untilWaiting(service: RunningService, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await waiting(service);
    if (now >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${now} of ${count} watchers are waiting`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Answer {
  /** performance.now() when the whole answer had arrived. */
  at: number;
  status: number;
  body: string;
}

interface Watcher {
  readonly answered: Promise<Answer>;
  close(): void;
}

/**
 * One GET with watch_index on its own keep-alive connection, as a watching client holds one. Raw sockets
 * with a minimal response reader rather than node:http or fetch: fetch pools (and caps) connections, and
 * the client's own HTTP parsing of 10,000 answers shares the machine's two cores with the service it
 * measures, so the lighter the client, the more the figure is the service's.
 */
function watch(url: URL, token: string): Watcher {
  const socket = net.connect(Number(url.port), url.hostname);
  socket.setNoDelay(true);
  socket.write(
    `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${token}\r\n\r\n`,
  );
  const answered = new Promise<Answer>((resolve, reject) => {
    let received: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = received.subarray(0, headEnd).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? Number.NaN);
      if (received.length < headEnd + 4 + length) return;
      resolve({
        at: performance.now(),
        status: Number(head.slice(9, 12)),
        body: received.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8'),
      });
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('the connection closed before the answer')));
  });
  // Handled here too, so a scenario that fails half-way (and closes the sockets) does not also crash on
  // thousands of unhandled rejections; Promise.all below still sees each failure.
  answered.catch(() => {});
  return { answered, close: () => socket.destroy() };
}

/**
 * 10,000 clients wait on one game's billing with its current watch_index; the service's memory is read
 * while they all wait, then one plan change must answer every one of them.
 */
export const billingWatch: Scenario = {
  name: 'billing-watch',
  description: `${WATCHERS.toLocaleString('en-US')} concurrent watch_index requests on one game's billing, woken by one plan change`,
  supportsPostgres: true,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const service = await startService(context.registry, context.workDir, {
      dataDir: path.join(context.workDir, 'billing-data'),
      name: 'service (billing watch)',
      operatorToken: `bench_op_${randomBytes(32).toString('base64url')}`,
      databaseUrl: await context.postgres?.createDatabase('billing'),
    });
    const pid = service.child.process.pid;
    if (pid === undefined) throw new Error('the service has no pid');
    const { game_id: gameId } = await apiOk<{ game_id: string }>(service, 'POST', '/cloud/games', {
      body: { name_id: 'bench-billing', display_name: 'Bench Billing' },
    });
    const { token } = await apiOk<{ token: string }>(service, 'POST', `/cloud/games/${gameId}/tokens/cloud`);
    const billingPath = `/cloud/games/${gameId}/billing`;
    const before = await apiOk<Billing>(service, 'GET', billingPath, { token });
    const idle = memoryOf(pid);

    const url = new URL(`${service.baseUrl}${billingPath}?watch_index=${before.watch.index}`);
    const watchers: Watcher[] = [];
    const opening = performance.now();
    try {
      while (watchers.length < WATCHERS) {
        const batch = Math.min(BATCH, WATCHERS - watchers.length);
        for (let i = 0; i < batch; i++) watchers.push(watch(url, token));
        await untilWaiting(service, watchers.length, 30_000);
      }
      const openMs = performance.now() - opening;
      context.log(`billing-watch: ${WATCHERS} watchers waiting after ${(openMs / 1000).toFixed(1)} s`);
      // Let the last reads settle before reading the memory of the service holding them all.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const holding = await waiting(service);
      const loaded = memoryOf(pid);

      const changedAt = performance.now();
      await apiOk(service, 'PUT', `${billingPath}/plan`, { token, body: { plan: 'indie' } });
      const putMs = performance.now() - changedAt;
      const answers = await Promise.all(watchers.map((w) => w.answered));
      const times = answers.map((a) => a.at - changedAt).sort((a, b) => a - b);
      const woken = answers.filter((a) => {
        if (a.status !== 200) return false;
        const body = JSON.parse(a.body) as Billing;
        return body.active_plan === 'indie' && BigInt(body.watch.index) > BigInt(before.watch.index);
      }).length;
      if (woken !== WATCHERS) {
        throw new Error(`${WATCHERS - woken} watchers did not answer 200 with the new plan and index`);
      }
      const allMs = times[times.length - 1] ?? Number.NaN;
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))] ?? Number.NaN;
      const perWatcherKb = ((loaded.rssMb - idle.rssMb) * 1024) / WATCHERS;
      return {
        title: `billing-watch${context.postgres === undefined ? '' : ' on PostgreSQL'}: ${billingWatch.description}`,
        rows: [],
        notes: [
          `opening ${WATCHERS} connections in batches of ${BATCH}: ${(openMs / 1000).toFixed(1)} s; service reported ${holding} waiting`,
          `service RSS idle ${idle.rssMb.toFixed(0)} MB, with every watcher waiting ${loaded.rssMb.toFixed(0)} MB (${perWatcherKb.toFixed(1)} KB a watcher), peak ${memoryOf(pid).peakMb.toFixed(0)} MB`,
          `PUT .../billing/plan answered in ${putMs.toFixed(1)} ms; watchers answered (from the PUT being sent): p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, all ${allMs.toFixed(0)} ms; every answer 200 with the new plan and index`,
        ],
        comparisons: [
          {
            label: `ms until all ${WATCHERS} watchers answered`,
            value: allMs,
            target: `< ${ANSWER_TARGET_MS} ms`,
            met: allMs < ANSWER_TARGET_MS,
          },
          {
            label: `service RSS MB with ${WATCHERS} waiting`,
            value: loaded.rssMb,
            target: `< ${RSS_TARGET_MB} MB`,
            met: loaded.rssMb < RSS_TARGET_MB,
          },
        ],
      };
    } finally {
      for (const watcher of watchers) watcher.close();
    }
  },
};
