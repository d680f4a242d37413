import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import type { Database } from './database.js';
import { migrationProvider } from './migrations/index.js';

export type Db = Kysely<Database>;

/** Opens the embedded store in `dataDir`, creating the directory on first start. */
export function openSqlite(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = new SqliteDatabase(path.join(dataDir, 'gcm.sqlite3'));
  // WAL lets readers run beside the writer; synchronous=FULL fsyncs every commit so an acknowledged write
  // survives a power cut; busy_timeout rides out a checkpoint instead of failing with SQLITE_BUSY.
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = FULL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
}

export async function migrateToLatest(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
