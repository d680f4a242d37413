import type { Kysely } from 'kysely';

// Frozen once released. A namespace's development token keeps the developer's host and ports
// (`{hostname, ports}` as JSON): lobbies found with it will point there (docs/interface-notes.md). Null for
// every other kind of token.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('development_json', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').dropColumn('development_json').execute();
}
