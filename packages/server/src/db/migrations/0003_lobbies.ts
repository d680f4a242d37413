import type { Kysely } from 'kysely';

// Frozen once released. The lobby log of every namespace; the data plane writes it, studios page through it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lobbies')
    .addColumn('lobby_id', 'text', (c) => c.primaryKey())
    .addColumn('namespace_id', 'text', (c) => c.notNull().references('namespaces.namespace_id'))
    .addColumn('lobby_group_name_id', 'text', (c) => c.notNull())
    .addColumn('region_id', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('start_ts', 'bigint')
    .addColumn('ready_ts', 'bigint')
    .addColumn('stop_ts', 'bigint')
    .addColumn('exit_code', 'integer')
    .addColumn('failed', 'integer')
    .execute();
  // The listing is a range scan of this index, newest first, whatever the size of the namespace; lobby_id
  // breaks ties between lobbies created in the same millisecond.
  await db.schema
    .createIndex('lobbies_namespace_create')
    .on('lobbies')
    .columns(['namespace_id', 'create_ts', 'lobby_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('lobbies').execute();
}
