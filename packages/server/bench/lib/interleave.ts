import { type LoadOptions, runLoad } from './load.js';
import { cpuMillis } from './process-memory.js';
import { median } from './report.js';
import type { Comparison } from './scenario.js';

/**
 * Rounds of a minimal app and the service loaded in turn after the one-after-another runs: the machine is
 * shared (and this VM's speed varies), so a load that came and went during one target's only run skewed its
 * ratio by up to half; in turn, each round's two figures saw about the same machine, and the median round
 * is the figure.
 */
export const INTERLEAVED_ROUNDS = 5;
export const ROUND_SEC = 3;

/** One target of the rounds: what to load, and its process for the CPU counters. */
export interface RoundTarget {
  pid: number;
  load: Omit<LoadOptions, 'target' | 'connections' | 'pipelining' | 'durationSec' | 'warmupSec'>;
}

export interface Interleaved {
  /** Per round: the service's answered requests/s ÷ the minimal app's. */
  ratios: number[];
  /** Per round: CPU (user + system) of each process per answered request, in microseconds. */
  svcCpuUs: number[];
  minimalCpuUs: number[];
}

/**
 * The minimal app and the service, INTERLEAVED_ROUNDS times in turn. CPU per request is read from each
 * process's own counters around its run. Answers other than 2xx fail the round unless `refusalsAnswer`
 * (a find may answer 503 when every lobby with room is held at that instant): then they count neither in
 * the rate nor in the CPU per answer.
 */
export async function interleave(
  settings: Pick<LoadOptions, 'connections' | 'pipelining'>,
  minimal: RoundTarget,
  svc: RoundTarget,
  options: { refusalsAnswer?: boolean } = {},
): Promise<Interleaved> {
  const out: Interleaved = { ratios: [], svcCpuUs: [], minimalCpuUs: [] };
  const once = async (target: RoundTarget) => {
    const before = cpuMillis(target.pid);
    const result = await runLoad({
      ...settings,
      ...target.load,
      target: 'round',
      durationSec: ROUND_SEC,
      warmupSec: 0,
    });
    if (result.errors > 0 || (result.non2xx > 0 && options.refusalsAnswer !== true))
      throw new Error(`${String(target.load.url)} failed requests in an interleaved round`);
    const answered = result.totalRequests - result.non2xx;
    return {
      rate: result.requestsPerSec * (answered / Math.max(1, result.totalRequests)),
      cpuUs: ((cpuMillis(target.pid) - before) * 1000) / Math.max(1, answered),
    };
  };
  for (let round = 0; round < INTERLEAVED_ROUNDS; round++) {
    const m = await once(minimal);
    const s = await once(svc);
    out.ratios.push(m.rate > 0 ? s.rate / m.rate : 0);
    out.minimalCpuUs.push(m.cpuUs);
    out.svcCpuUs.push(s.cpuUs);
  }
  return out;
}

/** The rounds' medians as comparisons against `target`, and every round's figures as a note. */
export function interleavedReport(
  what: { label: string; minimal: string; unit: string; target: number },
  rounds: Interleaved,
): { comparisons: Comparison[]; notes: string[] } {
  const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b);
  const ratio = median(sorted(rounds.ratios));
  const cpuRatio = median(sorted(rounds.minimalCpuUs)) / median(sorted(rounds.svcCpuUs));
  const fmt = (values: number[], digits: number) => values.map((v) => v.toFixed(digits)).join(', ');
  return {
    comparisons: [
      {
        label: `ratio service/${what.minimal} ${what.unit}/s, median of ${INTERLEAVED_ROUNDS} interleaved rounds${what.label}`,
        value: ratio,
        target: `ratio >= ${what.target}`,
        met: ratio >= what.target,
      },
      {
        label: `CPU per ${what.unit.replace(/s$/, '')}, ${what.minimal} ÷ service (medians of the rounds)${what.label}`,
        value: cpuRatio,
        target: `ratio >= ${what.target}`,
        met: cpuRatio >= what.target,
      },
    ],
    notes: [
      `interleaved rounds${what.label} (${ROUND_SEC} s each, ${what.minimal} then the service): ratios ${fmt(rounds.ratios, 2)}; ` +
        `CPU µs per ${what.unit.replace(/s$/, '')}: service ${fmt(rounds.svcCpuUs, 1)}, ${what.minimal} ${fmt(rounds.minimalCpuUs, 1)}`,
    ],
  };
}
