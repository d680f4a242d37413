import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openSqlite } from '../../src/db/open-db.js';

describe('SQLite connection queue', () => {
  it('serves thousands of concurrent callers in arrival order, transactions whole', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-queue-'));
    const db = openSqlite(dir);
    try {
      await sql`create table n (v integer not null)`.execute(db);
      const done: number[] = [];
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < 3_000; i++) {
        if (i === 1_500) {
          // A transaction holds the connection for several statements; nobody may slip in between.
          calls.push(
            db.transaction().execute(async (trx) => {
              await sql`insert into n (v) values (1)`.execute(trx);
              await new Promise((resolve) => setTimeout(resolve, 5));
              await sql`insert into n (v) values (2)`.execute(trx);
              done.push(i);
            }),
          );
          continue;
        }
        calls.push(
          sql<{ c: number }>`select count(*) as c from n`.execute(db).then((r) => {
            // Before the transaction nothing is written; after it, both rows are.
            assert.equal(r.rows[0]?.c, i < 1_500 ? 0 : 2);
            done.push(i);
          }),
        );
      }
      await Promise.all(calls);
      assert.deepEqual(
        done,
        Array.from({ length: 3_000 }, (_, i) => i),
      );
    } finally {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
