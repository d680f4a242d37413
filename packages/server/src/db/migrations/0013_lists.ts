import type { Kysely } from 'kysely';

// Frozen once released. The lists page by (create_ts, id) within a game: each gets an index holding exactly
// that order, so a page is a range read that stops after `limit` rows (the id breaks ties inside one
// millisecond). The indexes these replace were a prefix of them. tokens.last_used_ts: the token list shows
// when each token was last used.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('last_used_ts', 'bigint').execute();
  await db.schema
    .createIndex('tokens_game_create')
    .on('tokens')
    .columns(['game_id', 'create_ts', 'token_id'])
    .execute();
  await db.schema.dropIndex('tokens_game').execute();
  await db.schema
    .createIndex('versions_game_create_id')
    .on('versions')
    .columns(['game_id', 'create_ts', 'version_id'])
    .execute();
  await db.schema.dropIndex('versions_game_create').execute();
  await db.schema
    .createIndex('namespaces_game_create')
    .on('namespaces')
    .columns(['game_id', 'create_ts', 'namespace_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('namespaces_game_create').execute();
  await db.schema
    .createIndex('versions_game_create')
    .on('versions')
    .columns(['game_id', 'create_ts'])
    .execute();
  await db.schema.dropIndex('versions_game_create_id').execute();
  await db.schema.createIndex('tokens_game').on('tokens').columns(['game_id', 'create_ts']).execute();
  await db.schema.dropIndex('tokens_game_create').execute();
  await db.schema.alterTable('tokens').dropColumn('last_used_ts').execute();
}
