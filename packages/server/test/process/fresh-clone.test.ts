import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/paths.js';
import { outputUntilClose } from '../helpers/process.js';
import { sqliteOnly } from '../helpers/stores.js';

/**
 * A new studio's first step: `git clone`, `npm ci`, then `npx --no-install gcm`. npm links a workspace's
 * bins while it installs, before the root `prepare` script builds dist/; a bin pointing into dist/ was
 * therefore not linked, and `npx gcm` fetched a stranger's package of that name from the registry.
 *
 * The clone is of the working tree as it stands (`git stash create`: the commit plus tracked changes, so
 * the test checks what is about to be committed). `npm ci` runs with `--ignore-scripts` and only the cli
 * and server workspaces, from npm's cache: the bins are linked by the same install step either way, and
 * leaving out the prepare build, better-sqlite3's compile and the dashboard's and root's tooling keeps
 * the test near a minute. What the build would write (the contract's, the SDK's and the CLI's dist/) is
 * copied from this tree's own build instead, which is what `npm ci`'s prepare step makes.
 */

function run(command: string, args: string[], cwd: string) {
  const child = spawn(command, args, { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  return outputUntilClose(child);
}

async function ok(command: string, args: string[], cwd: string): Promise<string> {
  const res = await run(command, args, cwd);
  assert.equal(res.code, 0, `${command} ${args.join(' ')} failed:\n${res.stderr}\n${res.stdout}`);
  return res.stdout;
}

// No store is involved: the PostgreSQL pass would pay for a second install for nothing.
describe('a fresh clone after npm ci', { ...sqliteOnly, timeout: 600_000 }, () => {
  let dir: string;
  let clone: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-fresh-clone-'));
    clone = path.join(dir, 'repo');
    const stash = (await ok('git', ['stash', 'create'], REPO_ROOT)).trim();
    const commit = stash === '' ? 'HEAD' : stash;
    const sha = (await ok('git', ['rev-parse', commit], REPO_ROOT)).trim();
    await ok('git', ['clone', '--quiet', '--shared', '--no-checkout', REPO_ROOT, clone], dir);
    await ok('git', ['checkout', '--quiet', sha], clone);
    await ok(
      'npm',
      [
        'ci',
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--workspace',
        '@gcm/cli',
        '--workspace',
        '@gcm/server',
      ],
      clone,
    );
  });
  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('links gcm and gcm-server to committed files that say how to build before the build', async () => {
    for (const [bin, target] of [
      ['gcm', 'packages/cli/bin/gcm.js'],
      ['gcm-server', 'packages/server/bin/gcm-server.js'],
    ] as const) {
      const link = path.join(clone, 'node_modules', '.bin', bin);
      assert.ok(lstatSync(link, { throwIfNoEntry: false }) !== undefined, `npm ci did not link ${bin}`);
      assert.equal(realpathSync(link), realpathSync(path.join(clone, target)));
      const res = await run(link, ['--version'], clone);
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stderr, new RegExp(`^${bin} is not built yet: run \`npm run build\``));
    }
  });

  it('runs our CLI through the link once built, and npx --no-install finds it', async () => {
    for (const pkg of ['contract', 'sdk', 'cli']) {
      cpSync(path.join(REPO_ROOT, 'packages', pkg, 'dist'), path.join(clone, 'packages', pkg, 'dist'), {
        recursive: true,
      });
    }
    const { version } = JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'packages/cli/package.json'), 'utf8'),
    ) as {
      version: string;
    };
    const bin = path.join(clone, 'node_modules', '.bin', 'gcm');
    assert.equal((await ok(bin, ['--version'], clone)).trim(), version);
    const help = await ok(bin, ['--help'], clone);
    assert.match(help, /^Usage: gcm /m);
    assert.match(help, /\bdeploy\b/);
    // The README's form: never the registry, whatever npm's cache holds.
    assert.equal((await ok('npx', ['--no-install', 'gcm', '--version'], clone)).trim(), version);
  });
});
