import type { Kysely } from 'kysely';

// Frozen once released. Host networking (network_mode "host") is off for every game until the operator
// turns it on, because it removes the isolation between a lobby and its host.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('games')
    .addColumn('host_networking_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('games').dropColumn('host_networking_enabled').execute();
}
