import { type Kysely, sql } from 'kysely';

// Frozen once released. A build's tags carry its namespace and creation time, so that filtering the builds
// list by a tag is one range read of build_tags_filter in the list's order (newest first), stopping after a
// page: "no build has this tag" and "one old build has it" are one index probe, not a scan of every build of
// the namespace. Removing an exclusive tag from the namespace's other builds reads the same index by
// (namespace_id, tag_key). The (tag_key, tag_value) index it replaces spanned every namespace.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('build_tags').addColumn('namespace_id', 'text').execute();
  await db.schema.alterTable('build_tags').addColumn('create_ts', 'bigint').execute();
  await sql`
    update build_tags set
      namespace_id = (select b.namespace_id from builds b where b.build_id = build_tags.build_id),
      create_ts = (select b.create_ts from builds b where b.build_id = build_tags.build_id)`.execute(db);
  await db.schema
    .createIndex('build_tags_filter')
    .on('build_tags')
    .columns(['namespace_id', 'tag_key', 'tag_value', 'create_ts', 'build_id'])
    .execute();
  await db.schema.dropIndex('build_tags_key_value').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('build_tags_key_value')
    .on('build_tags')
    .columns(['tag_key', 'tag_value'])
    .execute();
  await db.schema.dropIndex('build_tags_filter').execute();
  await db.schema.alterTable('build_tags').dropColumn('create_ts').execute();
  await db.schema.alterTable('build_tags').dropColumn('namespace_id').execute();
}
