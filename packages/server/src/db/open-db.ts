import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
} from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { migrationProvider } from './migrations/index.js';
import { preparingPool } from './prepared-statements.js';

/** What a statement does, from its Kysely node kind; raw SQL and transaction control are `other`. */
export type QueryOperation = 'select' | 'insert' | 'update' | 'delete' | 'other';

/** The store's connections at one moment: the pool's on PostgreSQL, the one connection on SQLite. */
export interface ConnectionStats {
  /** Connections open now (busy and idle). */
  open: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  /** The most the pool may open. */
  max: number;
}

export type Db = Kysely<Database>;

export class DataDirInUseError extends Error {
  constructor(filePath: string) {
    super(`${filePath} is in use by another process: run one service per data directory (GCM_DATA_DIR)`);
    this.name = 'DataDirInUseError';
  }
}

export interface OpenedDb {
  db: Db;
  /** On PostgreSQL only: the pool, and the settings its connections use (the LISTEN connection uses them too). */
  postgres: { pool: pg.Pool; clientConfig: pg.ClientConfig } | undefined;
  /** On SQLite only: the file's own connection, for its online backup API (modules/backups). */
  sqlite: SqliteDatabase.Database | undefined;
  /** The store's connections right now (read when metrics are scraped). */
  connections(): ConnectionStats;
}

/** Hears how long each statement took to run once it had its connection (the metrics' histogram). */
export type QueryObserver = (operation: QueryOperation, seconds: number) => void;

/**
 * DATABASE_URL picks PostgreSQL, shared by any number of instances; unset keeps the embedded SQLite file
 * in the data dir, owned by this one process. `onPoolError` hears errors of idle pooled connections (a
 * database restart), which would otherwise crash the process. `observeQuery`, when given, times every
 * statement.
 */
export function openDatabase(
  config: { dataDir: string; databaseUrl: string | undefined; pgPoolMax: number },
  onPoolError: (err: Error) => void,
  observeQuery?: QueryObserver,
): OpenedDb {
  if (config.databaseUrl === undefined) {
    const file = openSqliteFile(config.dataDir);
    return { ...sqliteStore(file, observeQuery), postgres: undefined, sqlite: file };
  }
  // The data dir still holds the first operator token's file and the embedded blob store.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const clientConfig: pg.ClientConfig = { connectionString: config.databaseUrl, types: pgTypes };
  const pool = new pg.Pool({
    ...clientConfig,
    max: config.pgPoolMax,
    // A request never waits forever for a connection of an exhausted pool or an unreachable server.
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', onPoolError);
  return {
    db: new Kysely<Database>({
      dialect: timedDialect(new PostgresDialect({ pool: preparingPool(pool) }), observeQuery),
    }),
    postgres: { pool, clientConfig },
    sqlite: undefined,
    connections: () => ({
      open: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: config.pgPoolMax,
    }),
  };
}

/**
 * Timestamps are epoch milliseconds in bigint columns, which pg hands back as strings by default (int8 can
 * exceed 2^53). Ours never do, so they come back as numbers, as they do from SQLite.
 */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8 && format !== 'binary') return parseInt8;
    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads take a literal format; ours is the union.
    return pg.types.getTypeParser(oid, format as any);
  },
};

function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`int8 value ${text} is beyond 2^53`);
  return value;
}

/** True when `db` (or a transaction of it) runs on PostgreSQL. */
export function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Row locks for read-then-write transactions: `FOR UPDATE` on PostgreSQL, where concurrent transactions on
 * several instances would otherwise decide on the same stale row; nothing on SQLite, whose single writer
 * already serializes write transactions (and which has no FOR UPDATE).
 */
export function forUpdate<Q extends { forUpdate(): Q }>(db: Kysely<Database>, query: Q): Q {
  return isPostgres(db) ? query.forUpdate() : query;
}

/** Opens the embedded store in `dataDir`, creating the directory on first start. */
export function openSqlite(dataDir: string): Db {
  return sqliteStore(openSqliteFile(dataDir)).db;
}

/** The store's file, locked to this process (DataDirInUseError when another holds it). */
export function openSqliteFile(dataDir: string): SqliteDatabase.Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const filePath = path.join(dataDir, 'gcm.sqlite3');
  // SQLite would create the file 0644 (less the umask) and gives its WAL and journal the file's mode; it
  // holds the signing key and secrets, so it is made 0600 first.
  closeSync(openSync(filePath, 'a', 0o600));
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
  return file;
}

/** Kysely over the file's one connection, timed for the metrics, and that connection's state. */
function sqliteStore(
  file: SqliteDatabase.Database,
  observeQuery?: QueryObserver,
): Pick<OpenedDb, 'db' | 'connections'> {
  const dialect = new FifoSqliteDialect({ database: withStatementCache(file) });
  return {
    db: new Kysely<Database>({ dialect: timedDialect(dialect, observeQuery) }),
    connections: () => ({
      open: 1,
      idle: dialect.queue.busy ? 0 : 1,
      waiting: dialect.queue.waiting,
      max: 1,
    }),
  };
}

/** The one connection's hand-over queue of the embedded store, as the metrics see it. */
interface QueueState {
  readonly busy: boolean;
  readonly waiting: number;
}

/**
 * Kysely's SQLite driver queues callers for its one connection by waking every waiter at each release (all
 * re-check, all but one wait again): fine for tens of waiters, quadratic for thousands, and 10,000 watch
 * requests woken by one change spent seconds there. This hands the connection to one waiter at a time, in
 * arrival order, so the driver's own lock is never contended.
 */
class FifoSqliteDialect extends SqliteDialect {
  queue: QueueState = { busy: false, waiting: 0 };

  override createDriver(): Driver {
    const { driver, state } = fifoDriver(super.createDriver());
    this.queue = state;
    return driver;
  }
}

/** A wrapping driver's transaction and savepoint calls: `inner`'s own, passed straight through. */
function passTransactions(
  inner: Driver,
): Pick<
  Driver,
  | 'beginTransaction'
  | 'commitTransaction'
  | 'rollbackTransaction'
  | 'savepoint'
  | 'rollbackToSavepoint'
  | 'releaseSavepoint'
> {
  return {
    beginTransaction: (connection, settings) => inner.beginTransaction(connection, settings),
    commitTransaction: (connection) => inner.commitTransaction(connection),
    rollbackTransaction: (connection) => inner.rollbackTransaction(connection),
    ...(inner.savepoint && { savepoint: inner.savepoint.bind(inner) }),
    ...(inner.rollbackToSavepoint && { rollbackToSavepoint: inner.rollbackToSavepoint.bind(inner) }),
    ...(inner.releaseSavepoint && { releaseSavepoint: inner.releaseSavepoint.bind(inner) }),
  };
}

function fifoDriver(inner: Driver): { driver: Driver; state: QueueState } {
  let busy = false;
  let queue: (() => void)[] = [];
  let head = 0;
  const state: QueueState = {
    get busy() {
      return busy;
    },
    get waiting() {
      return queue.length - head;
    },
  };
  const driver: Driver = {
    init: () => inner.init(),
    async acquireConnection() {
      // Released to us by releaseConnection below, which leaves `busy` set for the hand-over.
      if (busy) await new Promise<void>((resolve) => queue.push(resolve));
      else busy = true;
      return inner.acquireConnection();
    },
    async releaseConnection(connection: DatabaseConnection) {
      await inner.releaseConnection(connection);
      const next = queue[head];
      if (next === undefined) {
        busy = false;
        return;
      }
      head++;
      if (head === queue.length) {
        queue = [];
        head = 0;
      }
      next();
    },
    ...passTransactions(inner),
    destroy: () => inner.destroy(),
  };
  return { driver, state };
}

const OPERATIONS: Readonly<Record<string, QueryOperation>> = {
  SelectQueryNode: 'select',
  InsertQueryNode: 'insert',
  UpdateQueryNode: 'update',
  DeleteQueryNode: 'delete',
};

/** `inner` with every statement its connections run timed for `observe` (none: `inner` as it is). */
function timedDialect(inner: Dialect, observe: QueryObserver | undefined): Dialect {
  if (observe === undefined) return inner;
  return {
    createDriver: () => timedDriver(inner.createDriver(), observe),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db) => inner.createIntrospector(db),
  };
}

/**
 * Times each statement from when it is handed to its connection until it answers: the store's own latency,
 * not the wait for a connection (gcm_db_waiting shows that). Transaction control (begin, commit: SQLite's
 * fsync) is timed too, as `other`. Each connection is wrapped once; the inner driver gets its own back.
 */
function timedDriver(inner: Driver, observe: QueryObserver): Driver {
  const timed = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const own = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    let wrapped = timed.get(connection);
    if (wrapped === undefined) {
      wrapped = {
        async executeQuery<R>(query: CompiledQuery) {
          const start = performance.now();
          try {
            return await connection.executeQuery<R>(query);
          } finally {
            observe(OPERATIONS[query.query.kind] ?? 'other', (performance.now() - start) / 1000);
          }
        },
        streamQuery: <R>(query: CompiledQuery, chunkSize?: number) =>
          connection.streamQuery<R>(query, chunkSize),
      };
      timed.set(connection, wrapped);
      own.set(wrapped, connection);
    }
    return wrapped;
  };
  return {
    init: () => inner.init(),
    acquireConnection: async () => wrap(await inner.acquireConnection()),
    ...passTransactions(inner),
    // PostgreSQL's driver releases through a private method of its own connection object.
    releaseConnection: (connection) => inner.releaseConnection(own.get(connection) ?? connection),
    destroy: () => inner.destroy(),
  };
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

/**
 * The store opened only to read, by a command run beside the service (`gcm-server runtime status`): one
 * PostgreSQL connection, or the embedded file read-only. A running service holds the embedded file's
 * exclusive lock, so reading it then fails (SQLITE_BUSY); the caller says so rather than wait.
 * Undefined: the data dir holds no embedded store yet.
 */
export function openStoreToRead(config: {
  dataDir: string;
  databaseUrl: string | undefined;
}): { db: Db; close: () => Promise<void> } | undefined {
  if (config.databaseUrl === undefined) {
    const filePath = path.join(config.dataDir, 'gcm.sqlite3');
    let file: SqliteDatabase.Database;
    try {
      file = new SqliteDatabase(filePath, { readonly: true, fileMustExist: true });
    } catch (err) {
      if (err instanceof Error && 'code' in err && err.code === 'SQLITE_CANTOPEN') return undefined;
      throw err;
    }
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
    return { db, close: () => db.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    types: pgTypes,
    max: 1,
    connectionTimeoutMillis: 10_000,
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, close: () => db.destroy() };
}
