import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import type { Database } from './database.js';
import { migrationProvider } from './migrations/index.js';

export type Db = Kysely<Database>;

export class DataDirInUseError extends Error {
  constructor(filePath: string) {
    super(`${filePath} is in use by another process: run one service per data directory (GCM_DATA_DIR)`);
    this.name = 'DataDirInUseError';
  }
}

/** Opens the embedded store in `dataDir`, creating the directory on first start. */
export function openSqlite(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const filePath = path.join(dataDir, 'gcm.sqlite3');
  const file = new SqliteDatabase(filePath);
  // One process owns the file: watchers are woken in-process, so a second service on the same data dir
  // would miss changes. The exclusive lock makes that mistake fail at start, and lets WAL skip its
  // shared-memory index, which halves the cost of a primary-key read.
  try {
    file.pragma('locking_mode = EXCLUSIVE');
    // WAL lets a crash lose nothing committed; synchronous=FULL fsyncs every commit so an acknowledged write
    // survives a power cut.
    file.pragma('journal_mode = WAL');
    file.pragma('synchronous = FULL');
    file.pragma('foreign_keys = ON');
    // Take the lock now (an empty write transaction) rather than on the first request.
    file.exec('BEGIN IMMEDIATE; COMMIT');
  } catch (err) {
    file.close();
    if (err instanceof Error && 'code' in err && String(err.code).startsWith('SQLITE_BUSY')) {
      throw new DataDirInUseError(filePath);
    }
    throw err;
  }
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(file) }) });
}

/**
 * Kysely prepares every query anew; for the handful of distinct statements a service runs, keeping them
 * prepared saves SQLite's parse and plan on every request. Bounded, so ad-hoc SQL cannot grow it forever.
 */
function withStatementCache(file: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => {
      cache.clear();
      file.close();
    },
    prepare: (sqlText: string) => {
      let statement = cache.get(sqlText);
      if (statement === undefined) {
        statement = file.prepare(sqlText);
        if (cache.size >= 500) cache.clear();
        cache.set(sqlText, statement);
      }
      return statement;
    },
  };
}

export async function migrateToLatest(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
