import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import { DataDirInUseError, openSqliteFile } from '../db/open-db.js';
import { BackupError, SQLITE_FILE, writeBackup } from '../modules/backups/backup.js';
import { backupName } from '../modules/backups/backups.service.js';
import { OPERATOR_TOKEN_FILE } from '../modules/tokens/operator-token.js';

/**
 * `npm run backup -- [dest]`, with the service's environment (GCM_DATA_DIR, PORT or GCM_PUBLIC_URL). A running
 * service holds the store's exclusive lock, so nothing else can read the file: the command asks it for an
 * online backup (POST /cloud/admin/backups, with the operator token of the data dir or GCM_OPERATOR_TOKEN)
 * and moves what it wrote to `dest`. A stopped service's store is copied directly, taking the lock so a
 * service started meanwhile waits its turn by failing to start. GCM_BACKUP_URL overrides the URL asked.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (config.databaseUrl !== undefined) {
    throw new BackupError(
      'DATABASE_URL is set: the store is PostgreSQL; back it up with pg_dump or base backups and WAL ' +
        'archiving (README "Backups and restore")',
    );
  }
  const destArg = process.argv[2];
  const dest = destArg === undefined ? undefined : path.resolve(destArg);
  if (dest !== undefined && existsSync(dest)) throw new BackupError(`${dest} exists already`);
  if (!existsSync(path.join(config.dataDir, SQLITE_FILE))) {
    throw new BackupError(`${config.dataDir} holds no store (${SQLITE_FILE}): is GCM_DATA_DIR right?`);
  }
  let sqlite: ReturnType<typeof openSqliteFile> | undefined;
  try {
    sqlite = openSqliteFile(config.dataDir);
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
  }
  if (sqlite !== undefined) {
    try {
      const target = dest ?? path.join(config.backupDir, backupName(Date.now()));
      const manifest = await writeBackup({ sqlite, dataDir: config.dataDir, dest: target, now: Date.now });
      report(target, manifest.bytes, 'the service is not running: copied its data dir');
    } finally {
      sqlite.close();
    }
    return;
  }
  const url = `${(process.env.GCM_BACKUP_URL ?? config.publicUrl).replace(/\/+$/, '')}/cloud/admin/backups`;
  const token =
    config.operatorToken ?? (await readFile(path.join(config.dataDir, OPERATOR_TOKEN_FILE), 'utf8')).trim();
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { path?: string; bytes?: number; message?: string };
  if (res.status !== 200 || typeof body.path !== 'string') {
    throw new BackupError(`${url} answered ${res.status}: ${body.message ?? JSON.stringify(body)}`);
  }
  if (dest === undefined) {
    report(body.path, body.bytes ?? 0, 'written by the running service');
    return;
  }
  await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
  try {
    await rename(body.path, dest);
  } catch (err) {
    // Another file system: copied, then removed from the service's backup dir.
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await cp(body.path, dest, { recursive: true, errorOnExist: true, force: false });
    await rm(body.path, { recursive: true, force: true });
  }
  report(dest, body.bytes ?? 0, 'written by the running service');
}

function report(where: string, bytes: number, how: string): void {
  process.stdout.write(`backup ${where} (${bytes} bytes), ${how}\n`);
}

main().catch((err: unknown) => {
  const known = err instanceof ConfigError || err instanceof BackupError;
  process.stderr.write(
    `backup failed: ${known || !(err instanceof Error) ? String(err instanceof Error ? err.message : err) : (err.stack ?? err.message)}\n`,
  );
  process.exit(known ? 2 : 1);
});
