import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen once released. A lobby is (namespace_id, lobby_id), not lobby_id alone: with one id space for all
// games, a reporter of one game could learn another game's lobby ids (409 on a known id, 200 on a fresh one)
// and take ids before their owner reported them. Per namespace, one game's reports cannot see or block
// another's.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.alterTable('lobbies').dropConstraint('lobbies_pkey').execute();
    await db.schema
      .alterTable('lobbies')
      .addPrimaryKeyConstraint('lobbies_pkey', ['namespace_id', 'lobby_id'])
      .execute();
    return;
  }
  await rebuildSqlite(db, ['namespace_id', 'lobby_id']);
}

/** Fails, as it should, once two namespaces hold the same lobby id. */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.alterTable('lobbies').dropConstraint('lobbies_pkey').execute();
    await db.schema.alterTable('lobbies').addPrimaryKeyConstraint('lobbies_pkey', ['lobby_id']).execute();
    return;
  }
  await rebuildSqlite(db, ['lobby_id']);
}

/**
 * SQLite cannot change a table's primary key in place: a copy with the new key takes the rows, replaces the
 * table, and gets the listing index of 0003 back (dropping the old table dropped it).
 */
async function rebuildSqlite(
  db: Kysely<unknown>,
  primaryKey: ('namespace_id' | 'lobby_id')[],
): Promise<void> {
  await db.schema
    .createTable('lobbies_rebuilt')
    .addColumn('lobby_id', 'text', (c) => c.notNull())
    .addColumn('namespace_id', 'text', (c) => c.notNull().references('namespaces.namespace_id'))
    .addColumn('lobby_group_name_id', 'text', (c) => c.notNull())
    .addColumn('region_id', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('start_ts', 'bigint')
    .addColumn('ready_ts', 'bigint')
    .addColumn('stop_ts', 'bigint')
    .addColumn('exit_code', 'integer')
    .addColumn('failed', 'integer')
    .addPrimaryKeyConstraint('lobbies_pkey', primaryKey)
    .execute();
  await sql`insert into lobbies_rebuilt (lobby_id, namespace_id, lobby_group_name_id, region_id, create_ts,
    start_ts, ready_ts, stop_ts, exit_code, failed)
    select lobby_id, namespace_id, lobby_group_name_id, region_id, create_ts, start_ts, ready_ts, stop_ts,
      exit_code, failed from lobbies`.execute(db);
  await db.schema.dropTable('lobbies').execute();
  await db.schema.alterTable('lobbies_rebuilt').renameTo('lobbies').execute();
  await db.schema
    .createIndex('lobbies_namespace_create')
    .on('lobbies')
    .columns(['namespace_id', 'create_ts', 'lobby_id'])
    .execute();
}
