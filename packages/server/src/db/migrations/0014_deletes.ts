import { type Kysely, sql } from 'kysely';

// Frozen once released. Deleting a namespace and retiring a game: the row is marked (delete_ts) in the
// transaction that deletes it, and from then on every read treats it as gone; its bulky children (lobbies,
// builds, uploads) are purged afterwards in small batches, and purge_ts records when that finished. The rows
// themselves stay, small, as the record that revoked tokens and kept builds still point at.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['games', 'namespaces']) {
    // SQLite adds one column per ALTER TABLE.
    await db.schema.alterTable(table).addColumn('delete_ts', 'bigint').execute();
    await db.schema.alterTable(table).addColumn('purge_ts', 'bigint').execute();
    // The purge job's queue: partial, so it holds only rows deleted and not yet purged, and finding the work
    // costs the same however many rows were ever deleted.
    await db.schema
      .createIndex(`${table}_purge_pending`)
      .on(table)
      .column('delete_ts')
      .where(sql<boolean>`delete_ts is not null and purge_ts is null`)
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['games', 'namespaces']) {
    await db.schema.dropIndex(`${table}_purge_pending`).execute();
    await db.schema.alterTable(table).dropColumn('purge_ts').execute();
    await db.schema.alterTable(table).dropColumn('delete_ts').execute();
  }
}
