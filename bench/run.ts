/**
 * `npm run bench [-- --duration N] [-- --only name[,name]]`: starts the real service on a fresh temp store,
 * runs the chosen scenarios against it with autocannon, prints a table per scenario. Exits 1 if any request
 * failed (error or non-2xx), never because a target was missed: it is a benchmark, not a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ChildRegistry } from './lib/children.js';
import { abortLoads } from './lib/load.js';
import { describeEnvironment, failedRequests, formatReport } from './lib/report.js';
import type { ScenarioContext } from './lib/scenario.js';
import { startService } from './lib/service.js';
import { SCENARIOS } from './scenarios/index.js';

const CONNECTIONS = 64;
const PIPELINING = 1;
const WARMUP_SEC = 2;

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run bench -- [--duration seconds] [--only ${SCENARIOS.map((s) => s.name).join(',')}]\n`,
  );
  process.exit(2);
}

function parseOptions() {
  let values: { duration?: string; only?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        duration: { type: 'string', default: '10' },
        only: { type: 'string' },
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
  const names = values.only?.split(',').map((n) => n.trim()) ?? SCENARIOS.map((s) => s.name);
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) usage(`unknown scenario: ${unknown.join(', ')}`);
  return { durationSec, scenarios: SCENARIOS.filter((s) => names.includes(s.name)) };
}

async function main(): Promise<number> {
  const { durationSec, scenarios } = parseOptions();
  const registry = new ChildRegistry();
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-bench-'));
  const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping`);
    abortLoads();
    void registry.stopAll().finally(() => {
      rmSync(workDir, { recursive: true, force: true });
      process.exit(130);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    log('starting the service');
    const service = await startService(registry, workDir);
    const settings = { connections: CONNECTIONS, pipelining: PIPELINING, durationSec, warmupSec: WARMUP_SEC };
    const context: ScenarioContext = { registry, service, workDir, log, ...settings };
    const reports = [];
    for (const scenario of scenarios) {
      log(`scenario ${scenario.name}`);
      reports.push(await scenario.run(context));
    }
    process.stdout.write(`${describeEnvironment(settings)}\n\n`);
    process.stdout.write(`${reports.map(formatReport).join('\n\n')}\n`);
    const failed = reports.flatMap((r) => r.rows).reduce((sum, row) => sum + failedRequests(row), 0);
    if (failed > 0) {
      log(`${failed} requests failed`);
      return 1;
    }
    return 0;
  } finally {
    await registry.stopAll();
    rmSync(workDir, { recursive: true, force: true });
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
