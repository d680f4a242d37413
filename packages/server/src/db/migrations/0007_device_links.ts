import type { Kysely } from 'kysely';

// Frozen once released. Device links (interface 4.8, 4.9): a command-line tool's login, completed by a
// person in a browser. The cloud token is kept as its `tokens` row id only, never as text.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('device_links')
    .addColumn('link_id', 'text', (c) => c.primaryKey())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('expire_ts', 'bigint', (c) => c.notNull())
    .addColumn('game_id', 'text', (c) => c.references('games.game_id'))
    .addColumn('token_id', 'text', (c) => c.references('tokens.token_id'))
    .addColumn('complete_ts', 'bigint')
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  // The periodic clean-up deletes by expiry.
  await db.schema.createIndex('device_links_expire').on('device_links').column('expire_ts').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_links').execute();
}
