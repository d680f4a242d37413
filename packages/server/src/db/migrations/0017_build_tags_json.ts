import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen once released. Each build carries its tags as one JSON object (`tags_json`), so a page of a
// thousand builds reads one column per row instead of gathering each build's tags from build_tags (which
// stays the index the tag filters and exclusive tags use). The database keeps the copy true with triggers
// on build_tags, not the service: every writer, an older instance in a rolling upgrade included, keeps it.
// Keys are in byte order on both stores.
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable('builds')
    .addColumn('tags_json', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  const events = [
    ['insert', 'new'],
    ['update', 'new'],
    ['delete', 'old'],
  ] as const;
  if (pg) {
    // Statement triggers with the changed rows as a table: a build made with 32 tags is one update of it.
    await sql`
      create function gcm_builds_tags_json() returns trigger language plpgsql as $$
      begin
        update builds b set tags_json = ${tagsOf(pg, 'b.build_id')}
        where b.build_id in (select distinct c.build_id from changed c);
        return null;
      end $$`.execute(db);
    for (const [event, table] of events) {
      await sql`
        create trigger ${sql.raw(`build_tags_json_${event}`)} after ${sql.raw(event)} on build_tags
        referencing ${sql.raw(table)} table as changed
        for each statement execute function gcm_builds_tags_json()`.execute(db);
    }
  } else {
    for (const [event, row] of events) {
      await sql`
        create trigger ${sql.raw(`build_tags_json_${event}`)} after ${sql.raw(event)} on build_tags
        begin
          update builds set tags_json = ${tagsOf(pg, `${row}.build_id`)} where build_id = ${sql.raw(row)}.build_id;
        end`.execute(db);
    }
  }
  await sql`
    update builds set tags_json = ${tagsOf(pg, 'builds.build_id')}
    where exists (select 1 from build_tags t where t.build_id = builds.build_id)`.execute(db);
}

/** The JSON object of the tags of the build `buildId` (an SQL expression) names, keys in byte order. */
function tagsOf(pg: boolean, buildId: string) {
  const id = sql.raw(buildId);
  return pg
    ? sql`coalesce((select json_object_agg(t.tag_key, t.tag_value order by t.tag_key collate "C")::text
        from build_tags t where t.build_id = ${id}), '{}')`
    : // SQLite's aggregate takes the rows in the order the subquery gives them.
      sql`(select coalesce(json_group_object(tag_key, tag_value), '{}') from (
        select t.tag_key, t.tag_value from build_tags t where t.build_id = ${id} order by t.tag_key))`;
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const event of ['insert', 'update', 'delete']) {
    await sql`drop trigger ${sql.raw(`build_tags_json_${event}`)}${sql.raw(pg ? ' on build_tags' : '')}`.execute(
      db,
    );
  }
  if (pg) await sql`drop function gcm_builds_tags_json()`.execute(db);
  await db.schema.alterTable('builds').dropColumn('tags_json').execute();
}
