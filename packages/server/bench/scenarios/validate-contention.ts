import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { apiOk, type RunningService, startService } from '../lib/service.js';

/** Concurrent validations of the flooding token, as in the probe that found it (issue 33). */
const FLOODERS = 6;
const MODES = 128;
const REGIONS_PER_MODE = 128;
/** The other caller's p99 while the flood runs, "tens of milliseconds" at most. */
const TARGET_P99_MS = 50;
const IDLE_MS = 2_000;

/**
 * The most errors a body under the versions' 256 KiB limit can hold: 128 game modes each naming 128
 * regions the service does not offer (16,384 errors, one per region, and one for the game mode count).
 */
function floodBody(): string {
  const gameModes: Record<string, { regions: Record<string, object> }> = {};
  for (let g = 0; g < MODES; g++) {
    const regions: Record<string, object> = {};
    for (let r = 0; r < REGIONS_PER_MODE; r++) regions[`no-${r}-x`] = {};
    gameModes[`mode-${g}`] = { regions };
  }
  return JSON.stringify({ display_name: 'flood', config: { matchmaker: { game_modes: gameModes } } });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

interface Probe {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** GET /cloud/regions one after another as `token` until `done`, timing each. */
async function probe(service: RunningService, token: string, done: () => boolean): Promise<Probe> {
  const times: number[] = [];
  const headers = { authorization: `Bearer ${token}` };
  while (!done()) {
    const start = performance.now();
    const res = await fetch(`${service.baseUrl}/cloud/regions`, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /cloud/regions answered ${res.status}`);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    count: times.length,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    max: times[times.length - 1] ?? Number.NaN,
  };
}

interface ModeResult {
  mode: string;
  idle: Probe;
  flooded: Probe;
  validations: number;
  answerBytes: number;
}

/** One service: the other caller alone, then the same while one token floods validate. */
async function measure(
  context: ScenarioContext,
  mode: string,
  options: { env?: Record<string, string>; root?: string },
): Promise<ModeResult> {
  const service = await startService(context.registry, context.workDir, {
    dataDir: `${context.workDir}/contention-${mode}`,
    name: `service (validate contention, ${mode})`,
    ...options,
  });
  try {
    const game = async (nameId: string) => {
      const { game_id: gameId } = await apiOk<{ game_id: string }>(service, 'POST', '/cloud/games', {
        body: { name_id: nameId, display_name: nameId },
      });
      const { token } = await apiOk<{ token: string }>(
        service,
        'POST',
        `/cloud/games/${gameId}/tokens/cloud`,
      );
      return { gameId, token };
    };
    const flooder = await game('flooder');
    const other = await game('other');
    const body = floodBody();
    const url = `${service.baseUrl}/cloud/games/${flooder.gameId}/versions/validate`;
    const headers = { authorization: `Bearer ${flooder.token}`, 'content-type': 'application/json' };
    const validate = async () => {
      const res = await fetch(url, { method: 'POST', headers, body });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`validate answered ${res.status}: ${text.slice(0, 300)}`);
      return text.length;
    };
    // Warm: the first large validation starts the worker pool.
    const answerBytes = await validate();

    let until = Date.now() + IDLE_MS;
    const idle = await probe(service, other.token, () => Date.now() > until);

    until = Date.now() + context.durationSec * 1000;
    let validations = 0;
    const flood = Array.from({ length: FLOODERS }, async () => {
      while (Date.now() < until) {
        await validate();
        validations++;
      }
    });
    const flooded = await probe(service, other.token, () => Date.now() > until);
    await Promise.all(flood);
    context.log(
      `validate-contention ${mode}: ${validations} validations, other caller p99 ${flooded.p99.toFixed(1)} ms`,
    );
    return { mode, idle, flooded, validations, answerBytes };
  } finally {
    service.child.process.kill('SIGTERM');
    await service.child.exited;
  }
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/**
 * Another caller's GET /cloud/regions while one cloud token sends FLOODERS concurrent validations of the
 * largest error-laden configuration the versions' body limit admits: with validation on the event loop
 * (GCM_VALIDATE_INLINE_MAX_BYTES at its maximum) and in worker threads (the default). With
 * GCM_BENCH_BEFORE_ROOT naming the server package of an older build (`dist/main.js` built there), that build
 * is measured first, with the same body.
 */
export const validateContention: Scenario = {
  name: 'validate-contention',
  description: `another caller's GET /cloud/regions while one token sends ${FLOODERS} concurrent validations of ${MODES} x ${REGIONS_PER_MODE} bad regions`,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const results: ModeResult[] = [];
    // The other caller's latency moves with everything else on the machine: say how busy it was.
    const loadAtStart = loadavg()[0] ?? Number.NaN;
    const before = process.env.GCM_BENCH_BEFORE_ROOT;
    if (before !== undefined && before !== '') {
      results.push(await measure(context, 'older build', { root: before }));
    }
    results.push(
      await measure(context, 'inline', { env: { GCM_VALIDATE_INLINE_MAX_BYTES: String(64 * 1024 * 1024) } }),
    );
    results.push(await measure(context, 'workers', {}));
    const workers = results[results.length - 1] as ModeResult;
    context.log(`validate-contention: body is ${Buffer.byteLength(floodBody())} bytes`);
    return {
      title: `validate-contention: ${validateContention.description}`,
      rows: [],
      notes: [
        `request body: ${(Buffer.byteLength(floodBody()) / 1024).toFixed(0)} KiB, ${MODES * REGIONS_PER_MODE + 1} errors; ` +
          `load average ${loadAtStart.toFixed(1)} at the start, ${(loadavg()[0] ?? Number.NaN).toFixed(1)} at the end`,
        ...results.map(
          (r) =>
            `${r.mode}: other caller alone p50 ${ms(r.idle.p50)} p99 ${ms(r.idle.p99)}; while flooded ` +
            `p50 ${ms(r.flooded.p50)} p99 ${ms(r.flooded.p99)} max ${ms(r.flooded.max)} (${r.flooded.count} requests); ` +
            `${r.validations} validations in ${context.durationSec} s, answer ${(r.answerBytes / 1024).toFixed(0)} KiB`,
        ),
      ],
      comparisons: [
        {
          label: "other caller's p99 ms while one token floods validate (workers)",
          value: workers.flooded.p99,
          target: `< ${TARGET_P99_MS} ms`,
          met: workers.flooded.p99 < TARGET_P99_MS,
        },
      ],
    };
  },
};
