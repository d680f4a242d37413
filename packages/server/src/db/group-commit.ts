import { sql } from 'kysely';
import { Batcher } from '../lib/batcher.js';
import { type Db, isPostgres } from './open-db.js';

/** A transaction's work: its statements on `trx`, and what it answers. */
export type TransactionWork<T> = (trx: Db) => Promise<T>;

/** Transactions committed together at most: a commit's size (and the time it holds the connection) is bounded. */
export const GROUP_COMMIT_MAX = 256;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** One batcher per SQLite store (the store's one connection is what they share). */
const batchers = new WeakMap<Db, Batcher<TransactionWork<unknown>, unknown>>();

/**
 * Runs `work` as a transaction of its own, answering once the commit that holds it is durable. On SQLite
 * every commit is an fsync (synchronous=FULL), so the transactions that arrive in one turn of the event loop
 * run back to back inside ONE transaction, each in its own savepoint: one that fails is rolled back to its
 * savepoint (its writes undone, its error its own) while the others go on, and all are answered after the
 * one COMMIT, so many writes share an fsync and none is acknowledged before it is on disk. If the COMMIT
 * fails, every transaction of the batch fails with its error. Each work sees the writes of those before it
 * in the batch, as it would have had they committed first. On PostgreSQL, whose connections commit side by
 * side, it is a plain transaction.
 */
export function inGroupCommit<T>(db: Db, work: TransactionWork<T>): Promise<T> {
  if (isPostgres(db)) return db.transaction().execute(work);
  let batcher = batchers.get(db);
  if (batcher === undefined) {
    batcher = new Batcher((works) => commitTogether(db, works), GROUP_COMMIT_MAX);
    batchers.set(db, batcher);
  }
  return batcher.submit(work as TransactionWork<unknown>) as Promise<T>;
}

async function commitTogether(db: Db, works: TransactionWork<unknown>[]): Promise<unknown[]> {
  const outcomes: Outcome[] = [];
  await db.transaction().execute(async (trx) => {
    for (const work of works) {
      await sql`savepoint group_commit`.execute(trx);
      try {
        const value = await work(trx);
        await sql`release savepoint group_commit`.execute(trx);
        outcomes.push({ ok: true, value });
      } catch (error) {
        // Rolling back to the savepoint keeps it open: released too, so the next work starts at depth one.
        await sql`rollback to savepoint group_commit`.execute(trx);
        await sql`release savepoint group_commit`.execute(trx);
        outcomes.push({ ok: false, error });
      }
    }
  });
  // Built only now that the commit succeeded: a rejected promise made earlier would be an unhandled one.
  return outcomes.map((o) => (o.ok ? o.value : Promise.reject(o.error)));
}
