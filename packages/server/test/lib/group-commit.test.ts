/**
 * db/group-commit.ts on a real SQLite file: the transactions of one moment share one commit, each is
 * answered only once that commit is done, one that fails undoes only its own writes, and a commit that fails
 * acknowledges none.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { inGroupCommit } from '../../src/db/group-commit.js';
import { type Db, type OpenedDb, openDatabase } from '../../src/db/open-db.js';

describe('group commit (SQLite)', () => {
  let dir: string;
  let store: OpenedDb;
  let db: Db;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-group-commit-'));
    store = openDatabase({ dataDir: dir, databaseUrl: undefined, pgPoolMax: 1 }, () => {});
    db = store.db;
    await sql`create table parent (id integer primary key)`.execute(db);
    // Checked at COMMIT only: the way to make a commit itself fail.
    await sql`create table child (v integer not null, parent_id integer
      references parent (id) deferrable initially deferred)`.execute(db);
  });
  after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const values = async () =>
    (await sql<{ v: number }>`select v from child order by v`.execute(db)).rows.map((r) => r.v);

  /** A transaction inserting v, answering what it saw: its trx, and whether the file was mid-transaction. */
  function insert(v: number, fail?: Error, parentId: number | null = null) {
    return inGroupCommit(db, async (trx) => {
      await sql`insert into child (v, parent_id) values (${v}, ${parentId})`.execute(trx);
      const seen = (await sql<{ n: number }>`select count(*) as n from child`.execute(trx)).rows[0]?.n;
      if (fail !== undefined) throw fail;
      return { trx, seen };
    }).then((answer) => ({ ...answer, committed: store.sqlite?.inTransaction === false }));
  }

  it('runs the transactions of one moment in one commit, answering each once committed', async () => {
    await sql`delete from child`.execute(db);
    const answers = await Promise.all([insert(1), insert(2), insert(3)]);
    assert.ok(
      answers.every((a) => a.trx === answers[0]?.trx),
      'one transaction held all three',
    );
    assert.deepEqual(
      answers.map((a) => a.seen),
      [1, 2, 3],
      'each saw the writes of those before it',
    );
    assert.ok(
      answers.every((a) => a.committed),
      'none was answered before the commit',
    );
    assert.deepEqual(await values(), [1, 2, 3]);
  });

  it('rolls back only the transaction that failed; the others commit', async () => {
    await sql`delete from child`.execute(db);
    const failure = new Error('this one fails after writing');
    const [a, b, c, d] = await Promise.allSettled([insert(1), insert(2, failure), insert(3), insert(4)]);
    assert.equal(b?.status, 'rejected');
    assert.equal(b.status === 'rejected' ? b.reason : undefined, failure, 'its own error');
    for (const ok of [a, c, d]) assert.equal(ok?.status, 'fulfilled');
    const trxs = [a, c, d].map((r) => (r?.status === 'fulfilled' ? r.value.trx : undefined));
    assert.ok(
      trxs.every((t) => t !== undefined && t === trxs[0]),
      'the others shared one commit',
    );
    assert.deepEqual(
      [a, c, d].map((r) => (r?.status === 'fulfilled' ? r.value.seen : undefined)),
      [1, 2, 3],
      'the failed one’s row was gone for those after it',
    );
    assert.deepEqual(await values(), [1, 3, 4]);
  });

  it('acknowledges none of a batch whose commit fails', async () => {
    await sql`delete from child`.execute(db);
    // The third names a parent that does not exist: the deferred key fails the COMMIT, not its statement.
    const results = await Promise.allSettled([insert(1), insert(2), insert(3, undefined, 999)]);
    assert.ok(
      results.every((r) => r.status === 'rejected'),
      JSON.stringify(results.map((r) => r.status)),
    );
    assert.deepEqual(await values(), []);
    assert.equal(store.sqlite?.inTransaction, false, 'the failed transaction was rolled back');
    // The store goes on: the next moment's transactions commit.
    await Promise.all([insert(5), insert(6)]);
    assert.deepEqual(await values(), [5, 6]);
  });
});
