import os from 'node:os';
import type { LoadResult } from './load.js';
import type { ScenarioReport } from './scenario.js';

/** Date, machine and load settings, so the figures can be copied into the README with their context. */
export function describeEnvironment(settings: {
  connections: number;
  pipelining: number;
  durationSec: number;
  warmupSec: number;
  /** The store, when it is not the default embedded SQLite (`--pg`). */
  database?: string;
}): string {
  const memGiB = os.totalmem() / 1024 ** 3;
  return [
    `date: ${new Date().toISOString()}`,
    `machine: ${os.cpus().length} cores, ${memGiB.toFixed(1)} GiB memory, ${os.platform()} ${os.arch()}`,
    `node: ${process.version}`,
    ...(settings.database === undefined ? [] : [`database: ${settings.database}`]),
    `load: autocannon, ${settings.connections} connections, pipelining ${settings.pipelining}, ` +
      `${settings.durationSec} s per target after a ${settings.warmupSec} s warm-up`,
  ].join('\n');
}

/** Requests that did not succeed: socket errors (timeouts included) and non-2xx responses. */
export function failedRequests(row: LoadResult): number {
  return row.errors + row.non2xx;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `-${'-'.repeat(w)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** One scenario as a Markdown table, then its comparisons. */
export function formatReport(report: ScenarioReport): string {
  const rows = report.rows.map((r) => [
    r.target,
    int.format(r.requestsPerSec),
    r.p50Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    `${r.errors} / ${r.non2xx}`,
  ]);
  const lines = [`### ${report.title}`, ''];
  if (rows.length > 0) {
    lines.push(table(['target', 'requests/s (mean)', 'p50 ms', 'p99 ms', 'errors / non-2xx'], rows), '');
  }
  for (const note of report.notes ?? []) lines.push(note);
  if (report.comparisons.length > 0 && (report.notes ?? []).length > 0) lines.push('');
  for (const c of report.comparisons) {
    lines.push(`${c.label}: ${c.value.toFixed(2)} (target ${c.target}: ${c.met ? 'met' : 'NOT met'})`);
  }
  const odd = report.rows.filter((r) => failedRequests(r) > 0);
  for (const r of odd) {
    lines.push(
      `FAILED requests on ${r.target}: status codes ${JSON.stringify(r.statusCodes)}, timeouts ${r.timeouts}`,
    );
  }
  return lines.join('\n');
}

/** The median of values sorted in ascending order. */
export function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Every compared figure over the runs of `--runs`: min, median, max, and in how many runs it met its target. */
export function formatSummary(runs: readonly (readonly ScenarioReport[])[]): string {
  const figures = new Map<string, { target: string; values: number[]; met: number }>();
  for (const reports of runs) {
    for (const report of reports) {
      for (const c of report.comparisons) {
        const key = `${report.title.split(':')[0]}: ${c.label}`;
        const figure = figures.get(key) ?? { target: c.target, values: [], met: 0 };
        figure.values.push(c.value);
        if (c.met) figure.met++;
        figures.set(key, figure);
      }
    }
  }
  const rows = [...figures].map(([key, f]) => {
    const sorted = [...f.values].sort((x, y) => x - y);
    return [
      key,
      (sorted[0] as number).toFixed(2),
      median(sorted).toFixed(2),
      (sorted.at(-1) as number).toFixed(2),
      f.target,
      `${f.met} of ${f.values.length}`,
    ];
  });
  return [
    `### summary over ${runs.length} runs`,
    '',
    table(['scenario: figure', 'min', 'median', 'max', 'target', 'met in'], rows),
  ].join('\n');
}
