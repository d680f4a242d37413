import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pngBytes } from '../helpers/api-world.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { api, startServiceProcess } from '../helpers/process.js';
import { pgOnly, sqliteOnly } from '../helpers/stores.js';

const WRITERS = 4;

/** Runs `npm run <script> -- ...args` at the repository root, as the README says, to its exit. */
function npmRun(script: string, args: string[], env: Record<string, string>) {
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  return new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out })),
  );
}

function ok<T extends { status: number; json: Record<string, unknown> | undefined }>(res: T, what: string) {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json ?? {};
}

describe('backups of the embedded store', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gcm-backup-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('on PostgreSQL, the endpoint says to use pg_dump', pgOnly, async () => {
    const dataDir = path.join(root, 'pg-data');
    const svc = await startServiceProcess({ GCM_DATA_DIR: dataDir });
    try {
      const token = readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim();
      const res = await api(svc.baseUrl, token, 'POST', '/cloud/admin/backups');
      assert.equal(res.status, 409);
      assert.equal(res.json?.code, 'BACKUP_NOT_EMBEDDED');
      assert.match(String(res.json?.message), /pg_dump/);
    } finally {
      await svc.stop();
    }
  });

  it('backs up under write load; the restored store has every write acknowledged before', {
    ...sqliteOnly,
  }, async () => {
    const dataDir = path.join(root, 'data');
    const svc = await startServiceProcess({ GCM_DATA_DIR: dataDir });
    const token = readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim();
    let restored: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
    try {
      const game = ok(
        await api(svc.baseUrl, token, 'POST', '/cloud/games', { name_id: 'kept', display_name: 'Kept' }),
        'game',
      );
      const gameId = game.game_id as string;
      const version = ok(
        await api(svc.baseUrl, token, 'POST', `/cloud/games/${gameId}/versions`, {
          display_name: 'v1',
          config: {},
        }),
        'version',
      );
      const versionId = version.version_id as string;
      const cloudToken = ok(
        await api(svc.baseUrl, token, 'POST', `/cloud/games/${gameId}/tokens/cloud`),
        'cloud token',
      ).token as string;
      // An avatar, uploaded and completed: its bytes must come back from the restored blob store.
      const avatarBytes = pngBytes(96);
      const prepared = ok(
        await api(svc.baseUrl, token, 'POST', `/cloud/games/${gameId}/prepare`, {
          path: 'avatar.png',
          mime: 'image/png',
          content_length: avatarBytes.length,
        }),
        'prepare avatar',
      );
      const uploadId = prepared.upload_id as string;
      const signed = new URL((prepared.presigned_request as { url: string }).url);
      const put = await fetch(`${svc.baseUrl}${signed.pathname}${signed.search}`, {
        method: 'PUT',
        body: avatarBytes,
      });
      assert.equal(put.status, 200, await put.text());
      ok(
        await api(svc.baseUrl, token, 'POST', `/cloud/games/${gameId}/avatar-upload/${uploadId}/complete`),
        'complete avatar',
      );

      // Writers create namespaces one after another, each recording when its write was acknowledged.
      const acked: { name: string; namespaceId: string; at: number }[] = [];
      let writing = true;
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        for (let n = 0; writing; n++) {
          const name = `w${w}-${n}`;
          const res = await api(svc.baseUrl, token, 'POST', `/cloud/games/${gameId}/namespaces`, {
            name_id: name,
            display_name: name,
            version_id: versionId,
          });
          assert.equal(res.status, 200, JSON.stringify(res.json));
          acked.push({ name, namespaceId: res.json?.namespace_id as string, at: Date.now() });
        }
      });
      while (acked.length < 40) await new Promise((r) => setTimeout(r, 20));

      const dest = path.join(root, 'copies', 'first');
      const backupStarted = Date.now();
      const ackedBefore = acked.filter((a) => a.at < backupStarted);
      const command = await npmRun('backup', [dest], {
        GCM_DATA_DIR: dataDir,
        GCM_PUBLIC_URL: svc.baseUrl,
        GCM_OPERATOR_TOKEN: '',
      });
      const duringCount = acked.length;
      writing = false;
      await Promise.all(writers);
      assert.equal(command.code, 0, command.out);
      assert.match(command.out, /written by the running service/);
      assert.ok(acked.length > duringCount || duringCount > ackedBefore.length, 'writes went on meanwhile');

      const manifest = JSON.parse(readFileSync(path.join(dest, 'backup.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      assert.ok((manifest.created_ts as number) >= backupStarted);
      assert.equal(manifest.blob_count, 1);
      assert.equal(statSync(dest).mode & 0o777, 0o700);
      for (const file of ['gcm.sqlite3', 'operator-token', 'backup.json']) {
        assert.equal(statSync(path.join(dest, file)).mode & 0o777, 0o600, file);
      }
      assert.deepEqual(readdirSync(path.join(dataDir, 'backups')), [], 'moved out of the service backup dir');

      // The endpoint alone, as an operator calls it; other callers are refused.
      const second = await api(svc.baseUrl, token, 'POST', '/cloud/admin/backups');
      assert.equal(second.status, 200, JSON.stringify(second.json));
      assert.equal(path.dirname(second.json?.path as string), path.join(dataDir, 'backups'));
      assert.equal((await api(svc.baseUrl, cloudToken, 'POST', '/cloud/admin/backups')).status, 403);

      // Restore refuses a data dir with anything in it, then makes a fresh one.
      const busy = path.join(root, 'busy');
      mkdirSync(busy);
      writeFileSync(path.join(busy, 'x'), 'x');
      const refused = await npmRun('restore', [dest, busy], {});
      assert.equal(refused.code, 2, refused.out);
      assert.match(refused.out, /not empty/);
      const freshDir = path.join(root, 'restored');
      const restore = await npmRun('restore', [dest, freshDir], {});
      assert.equal(restore.code, 0, restore.out);
      assert.equal(statSync(freshDir).mode & 0o777, 0o700);

      await svc.stop();
      restored = await startServiceProcess({ GCM_DATA_DIR: freshDir });
      assert.ok(!restored.lines.some((l) => l.includes('operator_token')), 'no new operator token');
      for (const write of ackedBefore) {
        const res = await api(
          restored.baseUrl,
          token,
          'GET',
          `/cloud/games/${gameId}/namespaces/${write.namespaceId}`,
        );
        assert.equal(res.status, 200, `namespace ${write.name}, acknowledged before the backup`);
      }
      const list = await api(restored.baseUrl, cloudToken, 'GET', `/cloud/games/${gameId}`);
      assert.equal(list.status, 200, 'a cloud token minted before the backup still works');
      const avatar = await fetch(`${restored.baseUrl}/avatars/${uploadId}`);
      assert.equal(avatar.status, 200);
      assert.deepEqual(Buffer.from(await avatar.arrayBuffer()), avatarBytes);
      // The restored store takes writes.
      ok(
        await api(restored.baseUrl, token, 'POST', `/cloud/games/${gameId}/namespaces`, {
          name_id: 'after-restore',
          display_name: 'After',
          version_id: versionId,
        }),
        'write after restore',
      );
    } finally {
      await restored?.stop();
      if (svc.child.exitCode === null) await svc.stop();
    }
  });
});
