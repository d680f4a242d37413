#!/usr/bin/env node
/**
 * `npm run mutate [-- name …]`: StrykerJS on each module of scripts/mutation-modules.mjs (all by default),
 * one after the other, then a table of the scores (killed + timed out over all mutants) written to
 * reports/mutation/summary.md. Slow by nature (every mutant runs its test files): not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { MUTATION_MODULES } from './mutation-modules.mjs';

const asked = process.argv.slice(2);
const unknown = asked.filter((n) => !MUTATION_MODULES.some((m) => m.name === n));
if (unknown.length > 0) {
  console.error(
    `unknown module(s): ${unknown.join(', ')}; known: ${MUTATION_MODULES.map((m) => m.name).join(', ')}`,
  );
  process.exit(2);
}
const modules =
  asked.length === 0 ? MUTATION_MODULES : MUTATION_MODULES.filter((m) => asked.includes(m.name));
mkdirSync('reports/mutation', { recursive: true });
let failed = false;
for (const m of modules) {
  console.log(`\n=== ${m.name}: ${m.mutate.join(', ')}`);
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, GCM_MUTATE_MODULE: m.name },
  });
  if (run.status !== 0) failed = true;
}

/** Counts by status from a Stryker JSON report (mutation-testing-report-schema). */
function counts(report) {
  const c = {
    Killed: 0,
    Timeout: 0,
    Survived: 0,
    NoCoverage: 0,
    CompileError: 0,
    RuntimeError: 0,
    Ignored: 0,
  };
  for (const file of Object.values(report.files))
    for (const mutant of file.mutants) c[mutant.status] = (c[mutant.status] ?? 0) + 1;
  return c;
}

const rows = [
  '| Module | Mutants | Killed | Timed out | Survived | No coverage | Score |',
  '|---|---|---|---|---|---|---|',
];
for (const m of MUTATION_MODULES) {
  const file = `reports/mutation/${m.name}.json`;
  if (!existsSync(file)) continue;
  const c = counts(JSON.parse(readFileSync(file, 'utf8')));
  const detected = c.Killed + c.Timeout;
  const valid = detected + c.Survived + c.NoCoverage;
  const score = valid === 0 ? 0 : (100 * detected) / valid;
  rows.push(
    `| ${m.name} | ${valid} | ${c.Killed} | ${c.Timeout} | ${c.Survived} | ${c.NoCoverage} | ${score.toFixed(1)} % |`,
  );
}
writeFileSync('reports/mutation/summary.md', `${rows.join('\n')}\n`);
console.log(`\n${rows.join('\n')}`);
process.exit(failed ? 1 : 0);
