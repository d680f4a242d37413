import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startListening, uploadBuild } from '../helpers/listening.js';
import { dropTestDatabase, onPostgres } from '../helpers/postgres.js';
import { api, runServiceToExit, startServiceProcess } from '../helpers/process.js';
import { createGameFixture } from '../helpers/service.js';

const modeOf = (file: string) => statSync(file).mode & 0o777;
const octal = (mode: number) => mode.toString(8).padStart(4, '0');

/** Every directory and file under `root` (itself included) whose mode is not 0700 / 0600, as `path mode`. */
function looseEntries(root: string): string[] {
  const loose: string[] = [];
  const visit = (target: string) => {
    const info = statSync(target);
    const want = info.isDirectory() ? 0o700 : 0o600;
    if ((info.mode & 0o777) !== want)
      loose.push(`${path.relative(root, target) || '.'} ${octal(info.mode & 0o777)}`);
    if (info.isDirectory()) for (const name of readdirSync(target)) visit(path.join(target, name));
  };
  visit(root);
  return loose;
}

/** The files the data dir must hold once a build was uploaded: the store (on SQLite), the token, a blob. */
function assertSecretsPresent(dataDir: string): void {
  assert.ok(existsSync(path.join(dataDir, 'operator-token')));
  if (!onPostgres) {
    assert.ok(existsSync(path.join(dataDir, 'gcm.sqlite3')));
    assert.ok(existsSync(path.join(dataDir, 'gcm.sqlite3-wal')), 'WAL mode keeps a -wal file');
  }
  const objects = path.join(dataDir, 'blobs', 'objects');
  const blobs: string[] = [];
  const collect = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) collect(path.join(dir, entry.name));
      else blobs.push(path.join(dir, entry.name));
    }
  };
  collect(objects);
  assert.ok(blobs.length > 0, 'the uploaded build is a file under blobs/objects');
}

describe('data dir permissions', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gcm-perm-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  /** A service on `dataDir` with one uploaded build, so the store, token and a blob file all exist. */
  async function populate(dataDir: string) {
    const { svc } = await startListening({ dataDir });
    const fx = await createGameFixture(svc);
    await uploadBuild(svc, fx, 'perm-build');
    return svc;
  }

  it('a fresh data dir is 0700 and every file in it 0600: store, WAL, operator token, blobs', async () => {
    const dataDir = path.join(root, 'fresh', 'data');
    const svc = await populate(dataDir);
    try {
      assertSecretsPresent(dataDir);
      assert.deepEqual(looseEntries(dataDir), []);
    } finally {
      await svc.app.close();
      if (onPostgres) await dropTestDatabase(dataDir);
    }
  });

  it('a pre-existing 0755 data dir and files an older version left 0644 are tightened on start', async () => {
    const dataDir = path.join(root, 'loose');
    let svc = await populate(dataDir);
    await svc.app.close();
    // As an older version, or a hand-made directory, left them.
    chmodSync(dataDir, 0o755);
    for (const name of readdirSync(dataDir)) {
      const file = path.join(dataDir, name);
      chmodSync(file, statSync(file).isDirectory() ? 0o755 : 0o644);
    }
    svc = (await startListening({ dataDir })).svc;
    try {
      assert.deepEqual(looseEntries(dataDir), []);
    } finally {
      await svc.app.close();
      if (onPostgres) await dropTestDatabase(dataDir);
    }
  });

  it('the real process: creates a private data dir, and tightens a 0755 one with a warning', async () => {
    const dataDir = path.join(root, 'process-data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const proc = await startServiceProcess({ GCM_DATA_DIR: dataDir });
    try {
      const warning = proc.lines.find((l) => l.includes('open to group or others'));
      assert.ok(warning !== undefined, 'a warning says the data dir was tightened');
      assert.match(warning, /"level":40/);
      assert.match(warning, /0755/);
      const token = readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim();
      const games = await api(proc.baseUrl, token, 'GET', '/cloud/games');
      assert.equal(games.status, 200);
      assert.equal(modeOf(dataDir), 0o700);
      assert.deepEqual(looseEntries(dataDir), []);
    } finally {
      await proc.stop();
      if (onPostgres) await dropTestDatabase(dataDir);
    }
  });

  it('refuses to start, exit 2, on an open data dir owned by another user', async (t) => {
    if (process.getuid?.() !== 0) {
      t.skip('needs root to give the directory to another user');
      return;
    }
    const dataDir = path.join(root, 'not-ours');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    chownSync(dataDir, 65534, 65534);
    const { code, stderr } = await runServiceToExit({ GCM_DATA_DIR: dataDir });
    try {
      assert.equal(code, 2, stderr);
      assert.match(stderr, /not-ours is mode 0755 \(open to group or others\) and owned by uid 65534/);
      assert.match(stderr, /GCM_DATA_DIR/);
      assert.equal(modeOf(dataDir), 0o755, 'left as it was');
      assert.deepEqual(readdirSync(dataDir), [], 'nothing was written to it');
    } finally {
      if (onPostgres) await dropTestDatabase(dataDir);
    }
  });

  it('a secret file owned by another user in our data dir is refused too', async (t) => {
    if (process.getuid?.() !== 0) {
      t.skip('needs root to give the file to another user');
      return;
    }
    const dataDir = path.join(root, 'foreign-token');
    mkdirSync(dataDir, { mode: 0o700 });
    const tokenFile = path.join(dataDir, 'operator-token');
    writeFileSync(tokenFile, 'x\n');
    chmodSync(tokenFile, 0o644);
    chownSync(tokenFile, 65534, 65534);
    const { code, stderr } = await runServiceToExit({ GCM_DATA_DIR: dataDir });
    try {
      assert.equal(code, 2, stderr);
      assert.match(stderr, /operator-token is mode 0644/);
    } finally {
      if (onPostgres) await dropTestDatabase(dataDir);
    }
  });
});
