import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { errors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { type BackupManifest, writeBackup } from './backup.js';

export interface WrittenBackup extends BackupManifest {
  name: string;
  path: string;
}

/** Online backups of the embedded store into the backup dir (GCM_BACKUP_DIR), one at a time. */
export class Backups {
  private running = false;

  constructor(
    private readonly options: {
      /** The store's connection; undefined on PostgreSQL, which is backed up with its own tools. */
      sqlite: SqliteDatabase.Database | undefined;
      dataDir: string;
      backupDir: string;
      clock: Clock;
    },
  ) {}

  async create(): Promise<WrittenBackup> {
    const sqlite = this.options.sqlite;
    if (sqlite === undefined) throw errors.backupNotEmbedded();
    // Two at once would copy the same store twice over, each slowing every request twice as long.
    if (this.running) throw errors.backupInProgress();
    this.running = true;
    try {
      const name = backupName(this.options.clock.now());
      const dest = path.join(this.options.backupDir, name);
      const manifest = await writeBackup({
        sqlite,
        dataDir: this.options.dataDir,
        dest,
        now: () => this.options.clock.now(),
      });
      return { name, path: dest, ...manifest };
    } finally {
      this.running = false;
    }
  }
}

/**
 * `gcm-backup-20261124T230342123Z-1a2b3c`: sorts by time, and is a plain file name everywhere; the suffix
 * keeps two backups of one millisecond (or of a clock that stands still, in tests) apart.
 */
export function backupName(ts: number): string {
  return `gcm-backup-${new Date(ts).toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
}
