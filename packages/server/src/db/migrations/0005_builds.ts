import type { Kysely } from 'kysely';

// Frozen once released. Builds of a game within an environment (a namespace of the game), and their tags
// one row each, so "has every pair" filters are portable EXISTS lookups rather than JSON functions.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('builds')
    .addColumn('build_id', 'text', (c) => c.primaryKey())
    .addColumn('game_id', 'text', (c) => c.notNull().references('games.game_id'))
    .addColumn('namespace_id', 'text', (c) => c.notNull().references('namespaces.namespace_id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('upload_id', 'text', (c) => c.notNull().references('uploads.upload_id'))
    .addColumn('content_length', 'bigint', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('complete_ts', 'bigint')
    .execute();
  await db.schema
    .createIndex('builds_namespace_create')
    .on('builds')
    .columns(['namespace_id', 'create_ts', 'build_id'])
    .execute();
  await db.schema
    .createTable('build_tags')
    .addColumn('build_id', 'text', (c) => c.notNull().references('builds.build_id'))
    .addColumn('tag_key', 'text', (c) => c.notNull())
    .addColumn('tag_value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('build_tags_pk', ['build_id', 'tag_key'])
    .execute();
  await db.schema
    .createIndex('build_tags_key_value')
    .on('build_tags')
    .columns(['tag_key', 'tag_value'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('build_tags').execute();
  await db.schema.dropTable('builds').execute();
}
