import path from 'node:path';
import { MIGRATION_NAMES } from '../db/migrations/index.js';
import { BackupError, restoreBackup } from '../modules/backups/backup.js';

/**
 * `npm run restore -- <backup dir> <data dir>`: makes a new data dir of a backup, with the service stopped.
 * Refuses a data dir that holds anything, and a backup that is damaged or newer than this code.
 */
async function main(): Promise<void> {
  const [backupDir, dataDir] = process.argv.slice(2);
  if (backupDir === undefined || dataDir === undefined) {
    throw new BackupError('usage: npm run restore -- <backup dir> <new data dir>');
  }
  const manifest = await restoreBackup({
    backupDir: path.resolve(backupDir),
    dataDir: path.resolve(dataDir),
    knownMigrations: MIGRATION_NAMES,
  });
  process.stdout.write(
    `restored the backup of ${new Date(manifest.created_ts).toISOString()} (${manifest.blob_count} blobs) ` +
      `into ${path.resolve(dataDir)}; start the service with GCM_DATA_DIR set to it\n`,
  );
}

main().catch((err: unknown) => {
  const known = err instanceof BackupError;
  process.stderr.write(
    `restore failed: ${err instanceof Error ? (known ? err.message : (err.stack ?? err.message)) : String(err)}\n`,
  );
  process.exit(known ? 2 : 1);
});
