import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/open-db.js';
import { queryTestDatabase } from '../helpers/postgres.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';
import { proxyDatabase } from '../helpers/tcp-proxy.js';

/**
 * On PostgreSQL, statements outside transactions run as named prepared statements (db/prepared-statements.ts),
 * and must survive what a rolling upgrade does to them: a newer instance's migration changing a table they
 * read while this instance still runs.
 */
describe('prepared statements on PostgreSQL', pgOnly, () => {
  let svc: TestService;
  let gameId: string;
  before(async () => {
    svc = await startTestService();
    ({ gameId } = await createGameFixture(svc, 'prepared'));
  });
  after(async () => {
    await svc?.close();
  });

  const gameQuery = (db: TestService['deps']['db']) =>
    db.selectFrom('games').selectAll().where('game_id', '=', gameId);
  const readGame = (db: TestService['deps']['db']) => gameQuery(db).executeTakeFirstOrThrow();

  it('prepares a statement run outside a transaction once per connection, and never one inside', async () => {
    await svc.deps.db.connection().execute(async (conn) => {
      await readGame(conn);
      await readGame(conn);
      // A text of its own (an alias): the service's reads of versions outside transactions are prepared.
      const inTransaction = (db: TestService['deps']['db']) =>
        db.selectFrom('versions').select('version_id as in_transaction').where('game_id', '=', gameId);
      await conn.transaction().execute(async (trx) => {
        await inTransaction(trx).execute();
      });
      const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(
        conn,
      );
      const texts = prepared.rows.map((r) => r.statement);
      // The exact text: the service's own reads of games (other texts) may have run on this pooled connection.
      const text = gameQuery(conn).compile().sql;
      assert.equal(texts.filter((t) => t === text).length, 1, texts.join('\n'));
      const inTransactionText = inTransaction(conn).compile().sql;
      assert.ok(!texts.includes(inTransactionText), 'a statement in a transaction is not prepared');
    });
  });

  it('keeps answering when a newer instance adds a column to a table a prepared statement reads', async () => {
    // Every pooled connection prepares the game read (a burst takes several of them).
    const reads = () =>
      Promise.all(Array.from({ length: 20 }, () => svc.call('GET', `/cloud/games/${gameId}`)));
    for (const res of await reads()) assert.equal(res.statusCode, 200);
    const before = (await svc.call('GET', `/cloud/games/${gameId}`)).json();
    await svc.deps.db.connection().execute(async (conn) => {
      await readGame(conn);
      await queryTestDatabase(svc.dataDir, 'alter table games add column rolling_upgrade_note text');
      try {
        const row = await readGame(conn);
        assert.equal(row.game_id, gameId);
        assert.ok('rolling_upgrade_note' in row, 'the statement was prepared anew, seeing the new column');
        for (const res of await reads()) {
          assert.equal(res.statusCode, 200, res.body);
          assert.deepEqual(res.json(), before);
        }
      } finally {
        await queryTestDatabase(svc.dataDir, 'alter table games drop column rolling_upgrade_note');
      }
    });
    for (const res of await reads()) assert.equal(res.statusCode, 200, res.body);
  });

  it('fails a statement whose connection drops mid-query, without an uncaught error', async () => {
    const { proxy, url: viaProxy } = await proxyDatabase(svc.deps.config.databaseUrl as string);
    const poolErrors: Error[] = [];
    const { db } = openDatabase({ dataDir: svc.dataDir, databaseUrl: viaProxy, pgPoolMax: 2 }, (err) =>
      poolErrors.push(err),
    );
    // An uncaught 'error' of the checked-out client would fail this test (and kill a service).
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const sleeping = sql`select pg_sleep(30)`.execute(db);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await proxy.stop();
      await assert.rejects(sleeping, /Connection terminated/);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(uncaught, []);
      await proxy.start();
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      assert.equal(rows[0]?.one, 1, 'the pool replaced the broken connection');
    } finally {
      process.off('uncaughtException', onUncaught);
      await db.destroy();
      await proxy.stop();
    }
  });
});
