import pg from 'pg';
import { AppError, ERROR_CATALOGUE } from '../errors.js';

/** Runs work that must not overlap other work of the same key, on this instance and on every other. */
export interface KeyedLock {
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Connections an instance holds for keyed locks at most: one per key being changed right now. */
export const KEYED_LOCK_CONNECTIONS = 4;

/** How long a call waits for another instance's turn on the same key before it is answered 503. */
export const KEYED_LOCK_WAIT_MS = 10_000;

/**
 * A per-key lock for work that reads and then writes through connections it does not control (better-auth's
 * checks and writes): on this instance, calls of one key take turns in memory (all a SQLite store needs,
 * since one process owns it); on PostgreSQL each turn also holds a transaction-scoped advisory lock of the
 * key, so instances take turns too. The lock's connections come from a small pool of their own: were they
 * taken from the main pool, turns waiting for a lock could hold every connection the turn holding it needs
 * for its own statements, and none would go on. A crash or a lost connection ends the transaction, and the
 * lock with it.
 */
export function createKeyedLock(
  databaseUrl: string | undefined,
  onError: (err: unknown, what: string) => void,
): KeyedLock {
  const tails = new Map<string, Promise<void>>();
  const pool =
    databaseUrl === undefined
      ? undefined
      : new pg.Pool({
          connectionString: databaseUrl,
          max: KEYED_LOCK_CONNECTIONS,
          connectionTimeoutMillis: KEYED_LOCK_WAIT_MS,
        });
  // An idle connection's error (a database restart) would otherwise end the process.
  pool?.on('error', (err) => onError(err, 'an idle keyed-lock connection failed'));

  /** This instance's turn for `key`: the calls before it have ended. */
  async function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = tails.get(key) ?? Promise.resolve();
    let done = (): void => {};
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    const tail = before.then(() => mine);
    tails.set(key, tail);
    try {
      await before;
      return await work();
    } finally {
      done();
      if (tails.get(key) === tail) tails.delete(key);
    }
  }

  async function acrossInstances<T>(lockPool: pg.Pool, key: string, work: () => Promise<T>): Promise<T> {
    const client = await lockPool.connect();
    try {
      await client.query('begin');
      await client.query(`set local lock_timeout = ${KEYED_LOCK_WAIT_MS}`);
      await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
    } catch (err) {
      client.release(true);
      if ((err as { code?: unknown }).code === '55P03') {
        throw new AppError(
          ERROR_CATALOGUE.STORE_UNAVAILABLE.status,
          'STORE_UNAVAILABLE',
          `another change of the same thing took over ${KEYED_LOCK_WAIT_MS / 1000} s; retry shortly`,
        );
      }
      throw err;
    }
    try {
      return await work();
    } finally {
      // The work is done (or failed) either way: ending the lock's transaction only lets the next turn go.
      await client.query('commit').then(
        () => client.release(),
        (err: unknown) => {
          client.release(true);
          onError(err, 'ending a keyed lock failed; its connection is dropped, which ends it');
        },
      );
    }
  }

  return {
    run: (key, work) => inTurn(key, () => (pool === undefined ? work() : acrossInstances(pool, key, work))),
    close: async () => {
      await pool?.end();
    },
  };
}
