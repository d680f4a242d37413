/**
 * `npm run bench [-- --duration N] [-- --only name[,name]] [-- --pg] [-- --runs N]`: starts the real service on
 * a fresh temp store, runs the chosen scenarios against it with autocannon, prints a table per scenario. Exits
 * 1 if any request failed (error or non-2xx), never because a target was missed: it is a benchmark, not a
 * test. `--pg` runs the scenarios that support it on PostgreSQL (GCM_BENCH_DATABASE_URL, or a throw-away
 * cluster), with one instance and with two on the same database. `--runs N` repeats the whole run N times,
 * each on a fresh store and service, and ends with the min, median and max of every compared figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ChildRegistry } from './lib/children.js';
import { abortLoads } from './lib/load.js';
import { BenchPostgres } from './lib/postgres.js';
import { describeEnvironment, failedRequests, formatReport, formatSummary } from './lib/report.js';
import type { ScenarioContext, ScenarioReport } from './lib/scenario.js';
import { startService } from './lib/service.js';
import { SCENARIOS } from './scenarios/index.js';

const CONNECTIONS = 64;
const PIPELINING = 1;
const WARMUP_SEC = 2;

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run bench -- [--duration seconds] [--only ${SCENARIOS.map((s) => s.name).join(',')}] [--pg] [--runs n]\n`,
  );
  process.exit(2);
}

function parseOptions() {
  let values: { duration?: string; only?: string; pg?: boolean; runs?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        duration: { type: 'string', default: '10' },
        only: { type: 'string' },
        pg: { type: 'boolean' },
        runs: { type: 'string', default: '1' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    usage(err instanceof Error ? err.message : String(err));
  }
  if (values.help === true) usage('');
  const durationSec = Number(values.duration);
  if (!Number.isInteger(durationSec) || durationSec < 1) usage('--duration must be a whole number >= 1');
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 20) usage('--runs must be a whole number from 1 to 20');
  const onPostgres = values.pg === true;
  const candidates = SCENARIOS.filter((s) =>
    onPostgres ? s.supportsPostgres === true : s.postgresOnly !== true,
  );
  const names = values.only?.split(',').map((n) => n.trim()) ?? candidates.map((s) => s.name);
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) usage(`unknown scenario: ${unknown.join(', ')}`);
  const postgresOnly = names.filter(
    (n) => !onPostgres && SCENARIOS.some((s) => s.name === n && s.postgresOnly),
  );
  if (postgresOnly.length > 0) usage(`${postgresOnly.join(', ')} runs on PostgreSQL only: add --pg`);
  const notOnPostgres = names.filter((n) => !candidates.some((s) => s.name === n));
  if (notOnPostgres.length > 0) {
    usage(`--pg runs ${candidates.map((s) => s.name).join(', ')} only, not ${notOnPostgres.join(', ')}`);
  }
  return { durationSec, runs, onPostgres, scenarios: candidates.filter((s) => names.includes(s.name)) };
}

async function main(): Promise<number> {
  const { durationSec, runs, onPostgres, scenarios } = parseOptions();
  const registry = new ChildRegistry();
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-bench-'));
  const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
  const postgres = onPostgres ? new BenchPostgres(workDir, log) : undefined;
  // The services first: they hold connections to the databases that stopping PostgreSQL drops.
  const cleanUp = async () => {
    await registry.stopAll();
    await postgres?.stop();
    rmSync(workDir, { recursive: true, force: true });
  };

  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping`);
    abortLoads();
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await postgres?.start();
    const settings = { connections: CONNECTIONS, pipelining: PIPELINING, durationSec, warmupSec: WARMUP_SEC };
    process.stdout.write(`${describeEnvironment({ ...settings, database: postgres?.description })}\n`);
    const everyRun: ScenarioReport[][] = [];
    for (let run = 1; run <= runs; run++) {
      // Every run on a store and service of its own, so none inherits another's data or warm caches.
      const runDir = runs === 1 ? workDir : mkdtempSync(path.join(workDir, `run${run}-`));
      const databaseUrl = await postgres?.createDatabase('main');
      log(`${runs === 1 ? '' : `run ${run} of ${runs}: `}starting the service`);
      const service = await startService(registry, runDir, { databaseUrl });
      const context: ScenarioContext = { registry, service, workDir: runDir, postgres, log, ...settings };
      const reports: ScenarioReport[] = [];
      for (const scenario of scenarios) {
        log(`scenario ${scenario.name}`);
        reports.push(await scenario.run(context));
      }
      await registry.stopAll();
      everyRun.push(reports);
      if (runs > 1) process.stdout.write(`\n## run ${run} of ${runs}\n`);
      process.stdout.write(`\n${reports.map(formatReport).join('\n\n')}\n`);
    }
    if (runs > 1) process.stdout.write(`\n${formatSummary(everyRun)}\n`);
    const failed = everyRun
      .flat()
      .flatMap((r) => r.rows)
      .reduce((sum, row) => sum + failedRequests(row), 0);
    if (failed > 0) {
      log(`${failed} requests failed`);
      return 1;
    }
    return 0;
  } finally {
    await cleanUp();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
