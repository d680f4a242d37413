#!/usr/bin/env node
/**
 * `npm run mutate [-- name …]`: StrykerJS on each module of scripts/mutation-modules.mjs (all by default),
 * one after the other, then a table of the scores (killed + timed out over all mutants) written to
 * reports/mutation/summary.md. Slow by nature (every mutant runs its test files): not part of `npm test`.
 *
 * `npm run mutate -- --recheck name …`: after tests were added for a module's survivors, runs Stryker again
 * on the lines of the survivors only (minutes, not the hour a module can take) and writes their new status
 * into the module's report. Mutants are matched by file, mutator, replacement and the code they replace, so
 * lines moved since the full run still match; the summary then counts the merged report.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { MUTATION_MODULES } from './mutation-modules.mjs';

const recheck = process.argv[2] === '--recheck';
const asked = process.argv.slice(recheck ? 3 : 2);
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
/** The statuses a recheck looks at again. */
const STILL_ALIVE = new Set(['Survived', 'NoCoverage']);
const DETECTED = new Set(['Killed', 'Timeout']);
let failed = false;
for (const m of modules) {
  if (recheck) {
    failed = !recheckSurvivors(m) || failed;
    continue;
  }
  console.log(`\n=== ${m.name}: ${m.mutate.join(', ')}`);
  const first = m.testFiles.filter((f) => !(m.lastFiles ?? []).includes(f));
  if (!runStryker(m, { GCM_MUTATE_TEST_FILES: first.join(',') })) {
    failed = true;
    continue;
  }
  // The slowest files only against what the others left alive: the same verdicts as one run of every file,
  // without a survivor or a hang paying minutes of them.
  if (m.lastFiles !== undefined) failed = !recheckSurvivors(m, m.lastFiles) || failed;
}

/** Stryker on module `m` (stryker.config.mjs reads `env`'s GCM_MUTATE_* settings); whether it succeeded. */
function runStryker(m, env) {
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, GCM_MUTATE_MODULE: m.name, ...env },
  });
  return run.status === 0;
}

/** What identifies a mutant across runs whose line numbers differ: where it is by content, and what it does. */
function mutantKey(file, source, mutant) {
  const lines = source.split('\n');
  const { start, end } = mutant.location;
  const replaced =
    start.line === end.line
      ? lines[start.line - 1].slice(start.column - 1, end.column - 1)
      : lines.slice(start.line - 1, end.line).join('\n');
  return JSON.stringify([
    file,
    mutant.mutatorName,
    mutant.replacement,
    lines[start.line - 1].trim(),
    replaced,
  ]);
}

/**
 * Re-runs Stryker on the lines of the module's surviving mutants and merges their new status; with
 * `testFiles`, only those files run (else GCM_MUTATE_TEST_FILES's, or all of the module's).
 */
function recheckSurvivors(m, testFiles) {
  const file = `reports/mutation/${m.name}.json`;
  if (!existsSync(file)) {
    console.error(`${m.name}: no report to recheck; run \`npm run mutate -- ${m.name}\` first`);
    return false;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const ranges = [];
  for (const [name, f] of Object.entries(report.files)) {
    const now = readFileSync(name, 'utf8').split('\n');
    const then = f.source.split('\n');
    for (const mutant of f.mutants.filter((x) => STILL_ALIVE.has(x.status))) {
      // The survivor's first line where it is now: the nearest line with the same text.
      const text = then[mutant.location.start.line - 1];
      const span = mutant.location.end.line - mutant.location.start.line;
      const at = now
        .map((line, i) => (line === text ? i : -1))
        .filter((i) => i >= 0)
        .sort(
          (a, b) =>
            Math.abs(a + 1 - mutant.location.start.line) - Math.abs(b + 1 - mutant.location.start.line),
        )[0];
      if (at !== undefined) ranges.push(`${name}:${at + 1}-${at + 1 + span}`);
    }
  }
  const unique = [...new Set(ranges)];
  console.log(`\n=== ${m.name}: recheck of ${unique.length} line range(s)`);
  if (unique.length === 0) return true;
  const ran = runStryker(m, {
    GCM_MUTATE_RANGES: JSON.stringify(unique),
    GCM_MUTATE_REPORT: `${m.name}.recheck`,
    ...(testFiles === undefined ? {} : { GCM_MUTATE_TEST_FILES: testFiles.join(',') }),
  });
  if (!ran) return false;
  const again = JSON.parse(readFileSync(`reports/mutation/${m.name}.recheck.json`, 'utf8'));
  const fresh = new Map();
  for (const [name, f] of Object.entries(again.files))
    for (const mutant of f.mutants) fresh.set(mutantKey(name, f.source, mutant), mutant);
  let changed = 0;
  for (const [name, f] of Object.entries(report.files)) {
    for (const [i, mutant] of f.mutants.entries()) {
      if (!STILL_ALIVE.has(mutant.status)) continue;
      const now = fresh.get(mutantKey(name, f.source, mutant));
      // Only a kill changes a verdict: a recheck with fewer files may find a survivor uncovered by them.
      if (now === undefined || !DETECTED.has(now.status)) continue;
      f.mutants[i] = { ...mutant, status: now.status, killedBy: now.killedBy, rechecked: true };
      changed += 1;
    }
  }
  writeFileSync(file, JSON.stringify(report));
  console.log(`${m.name}: ${changed} survivor(s) changed status`);
  return true;
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
