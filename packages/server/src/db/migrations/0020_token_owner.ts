import type { Kysely } from 'kysely';

// Frozen once released. The person a token was minted for (a device link they approved, or a mint by a
// signed-in admin): such a token is revoked when its person can no longer act for the game's team. Null
// for tokens the operator or a token minted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('user_id', 'text').execute();
  await db.schema.createIndex('tokens_user').on('tokens').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tokens_user').execute();
  await db.schema.alterTable('tokens').dropColumn('user_id').execute();
}
