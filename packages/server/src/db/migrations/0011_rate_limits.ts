import type { Kysely } from 'kysely';

// Frozen once released. Per-client-address limits shared by every instance of a PostgreSQL deployment
// (on SQLite the counters live in the one process's memory, but the table is made on both stores so the
// schema stays the same), and who started each device link, so the page can show it to the person asked
// to confirm and pending links can be capped per address.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_limit_windows')
    // `<limit name>:<normalised client address>`.
    .addColumn('bucket_key', 'text', (c) => c.primaryKey())
    .addColumn('hits', 'bigint', (c) => c.notNull())
    .addColumn('reset_ts', 'bigint', (c) => c.notNull())
    .execute();
  // The clean-up deletes by end of window.
  await db.schema
    .createIndex('rate_limit_windows_reset')
    .on('rate_limit_windows')
    .column('reset_ts')
    .execute();
  // SQLite adds one column per ALTER TABLE. Null for links started before this migration.
  for (const column of ['client_address', 'user_agent', 'user_code']) {
    await db.schema.alterTable('device_links').addColumn(column, 'text').execute();
  }
  // The pending-links cap counts one address's live links.
  await db.schema
    .createIndex('device_links_client')
    .on('device_links')
    .columns(['client_address', 'expire_ts'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('device_links_client').execute();
  for (const column of ['client_address', 'user_agent', 'user_code']) {
    await db.schema.alterTable('device_links').dropColumn(column).execute();
  }
  await db.schema.dropTable('rate_limit_windows').execute();
}
