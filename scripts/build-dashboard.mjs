#!/usr/bin/env node
/**
 * The root build's dashboard step: `npm run build -w @gcm/dashboard` (tsc, then vite), skipped when neither
 * what the build reads nor the dist/ it wrote changed since it last ran here. `npm ci`'s prepare step builds
 * and `npm test` builds again at once; unlike `tsc -b`, the dashboard's type check and bundle have no
 * up-to-date check of their own, and redoing them cost half a minute of 2 cores for nothing.
 *
 * The stamp lives in node_modules/.cache, which `npm ci` deletes, so a fresh install always builds. A build
 * always runs with GCM_BUILD_DASHBOARD=always, or by calling the workspace's own build.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = path.join(root, 'node_modules/.cache/gcm-dashboard-build.json');

/** Everything the dashboard's tsc and vite read: its own files, the workspaces it imports, the lock. */
const INPUTS = [
  'packages/dashboard/src',
  'packages/dashboard/public',
  'packages/dashboard/index.html',
  'packages/dashboard/vite.config.ts',
  'packages/dashboard/tsconfig.json',
  'packages/dashboard/package.json',
  'packages/contract/dist',
  'packages/sdk/dist',
  'package-lock.json',
];
const OUTPUT = 'packages/dashboard/dist';

function filesUnder(relative) {
  const full = path.join(root, relative);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [relative];
  return readdirSync(full, { withFileTypes: true })
    .map((entry) => entry.name)
    .sort()
    .flatMap((name) => filesUnder(path.join(relative, name)));
}

function hashOf(paths, extra = '') {
  const hash = createHash('sha256').update(extra);
  for (const file of paths.flatMap(filesUnder)) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(path.join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

// Vite reads VITE_* and NODE_ENV; node's version is there in case a tool's output depends on it.
const environment = JSON.stringify([
  process.version,
  ...Object.entries(process.env)
    .filter(([name]) => name.startsWith('VITE_') || name === 'NODE_ENV')
    .sort(),
]);
const inputs = hashOf(INPUTS, environment);

function readStamp() {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return undefined;
  }
}

const stamp = readStamp();
if (
  process.env.GCM_BUILD_DASHBOARD !== 'always' &&
  stamp?.inputs === inputs &&
  existsSync(path.join(root, OUTPUT, 'index.html')) &&
  stamp?.output === hashOf([OUTPUT])
) {
  console.log('dashboard: not rebuilt, its inputs and dist/ are as the last build left them');
  process.exit(0);
}
// A build that fails half-way leaves no stamp to vouch for what it left.
rmSync(stampFile, { force: true });
const build = spawnSync('npm', ['run', 'build', '-w', '@gcm/dashboard'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
mkdirSync(path.dirname(stampFile), { recursive: true });
writeFileSync(stampFile, `${JSON.stringify({ inputs, output: hashOf([OUTPUT]) })}\n`);
