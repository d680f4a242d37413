import { sql } from 'kysely';
import type { BuildsTable } from '../../db/database.js';
import { type Db, forUpdate, isPostgres } from '../../db/open-db.js';
import type { PageKey } from '../../lib/paging.js';

export function insertBuild(db: Db, row: BuildsTable) {
  return db.insertInto('builds').values(row).execute();
}

/** `lock`: inside a transaction that changes the build's tags next, so concurrent changes queue up. */
export function findBuild(db: Db, namespaceId: string, buildId: string, lock = false) {
  const query = db
    .selectFrom('builds')
    .selectAll()
    .where('build_id', '=', buildId)
    .where('namespace_id', '=', namespaceId);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function markBuildComplete(db: Db, buildId: string, now: number): Promise<void> {
  await db
    .updateTable('builds')
    .set({ complete_ts: now })
    .where('build_id', '=', buildId)
    .where('complete_ts', 'is', null)
    .execute();
}

/** How far `mostSelective` counts a tag's builds: past this, any pair is as good a place to start. */
const SELECTIVITY_PROBE_CAP = 2_000;

type Select = { buildId: string } | { after: PageKey | undefined; limit: number };

/** What a build's summary shows, the only columns a page reads (a page is up to a thousand rows). */
const SUMMARY_COLUMNS = ['build_id', 'name', 'content_length', 'create_ts'] as const;

/**
 * The pair of `tags` the fewest builds of the environment carry (counted up to SELECTIVITY_PROBE_CAP each,
 * along build_tags_filter), or null when some pair is carried by none: then nothing can match.
 */
async function mostSelective(
  db: Db,
  namespaceId: string,
  tags: ReadonlyMap<string, string>,
): Promise<[string, string] | null> {
  let best: [string, string] | null = null;
  let bestCount = Number.POSITIVE_INFINITY;
  for (const [key, value] of tags) {
    const { count } = await db
      .selectFrom((eb) =>
        eb
          .selectFrom('build_tags')
          .select('build_id')
          .where('namespace_id', '=', namespaceId)
          .where('tag_key', '=', key)
          .where('tag_value', '=', value)
          .limit(SELECTIVITY_PROBE_CAP)
          .as('probe'),
      )
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    const found = Number(count);
    if (found === 0) return null;
    if (found < bestCount) {
      best = [key, value];
      bestCount = found;
    }
  }
  return best;
}

/**
 * The completed builds of the environment carrying every pair of `tags`, newest first: `build_id` names one,
 * else a page of `limit` after `after`. Unfiltered, the page is a range of builds_namespace_create
 * (namespace_id, create_ts, build_id); filtered, a range of build_tags_filter for the rarest pair, in the
 * same order, each row checked for the other pairs by primary key. Either way it stops after the page.
 */
export async function completeBuildsQuery(
  db: Db,
  namespaceId: string,
  tags: ReadonlyMap<string, string>,
  select: Select,
) {
  if (tags.size === 0) {
    let query = db
      .selectFrom('builds')
      .select(SUMMARY_COLUMNS)
      .where('namespace_id', '=', namespaceId)
      .where('complete_ts', 'is not', null);
    if ('buildId' in select) return query.where('build_id', '=', select.buildId).limit(1);
    const { after } = select;
    if (after !== undefined) {
      query = query.where((eb) =>
        eb(eb.refTuple('create_ts', 'build_id'), '<', eb.tuple(after.ts, after.id)),
      );
    }
    return query.orderBy('create_ts', 'desc').orderBy('build_id', 'desc').limit(select.limit);
  }
  const driver =
    tags.size === 1 ? ([...tags][0] as [string, string]) : await mostSelective(db, namespaceId, tags);
  if (driver === null) return undefined;
  let query = db
    .selectFrom('build_tags as d')
    .innerJoin('builds', 'builds.build_id', 'd.build_id')
    .select(SUMMARY_COLUMNS.map((column) => `builds.${column}` as const))
    .where('d.namespace_id', '=', namespaceId)
    .where('d.tag_key', '=', driver[0])
    .where('d.tag_value', '=', driver[1])
    .where('builds.complete_ts', 'is not', null);
  for (const [key, value] of tags) {
    if (key === driver[0]) continue;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('build_tags as o')
          .select('o.build_id')
          .whereRef('o.build_id', '=', 'd.build_id')
          .where('o.tag_key', '=', key)
          .where('o.tag_value', '=', value),
      ),
    );
  }
  if ('buildId' in select) return query.where('d.build_id', '=', select.buildId).limit(1);
  const { after } = select;
  if (after !== undefined) {
    query = query.where((eb) =>
      eb(eb.refTuple('d.create_ts', 'd.build_id'), '<', eb.tuple(after.ts, after.id)),
    );
  }
  return query.orderBy('d.create_ts', 'desc').orderBy('d.build_id', 'desc').limit(select.limit);
}

export type BuildRow = NonNullable<Awaited<ReturnType<typeof findBuild>>>;
export type BuildWithTags = Pick<BuildRow, (typeof SUMMARY_COLUMNS)[number]> & {
  tags: Record<string, string>;
};

/**
 * The builds `completeBuildsQuery` selects, each with its tags, in one query: every build of the page with
 * its tags gathered into one JSON object by the database (a range read of build_tags' primary key per
 * build), never a list of a thousand ids sent back, nor a row per tag.
 */
export async function listCompleteBuilds(
  db: Db,
  namespaceId: string,
  tags: ReadonlyMap<string, string>,
  select: Select,
): Promise<BuildWithTags[]> {
  const page = await completeBuildsQuery(db, namespaceId, tags, select);
  if (page === undefined) return [];
  // Ordered by tag key on both stores: SQLite's aggregate follows the primary key (build_id, tag_key).
  const tagsJson = isPostgres(db)
    ? sql<string | null>`(select json_object_agg(t.tag_key, t.tag_value order by t.tag_key)::text
        from build_tags t where t.build_id = p.build_id)`
    : sql<string | null>`(select json_group_object(t.tag_key, t.tag_value)
        from build_tags t where t.build_id = p.build_id)`;
  const rows = await db
    .selectFrom(page.as('p'))
    .selectAll('p')
    .select(tagsJson.as('tags_json'))
    .orderBy('p.create_ts', 'desc')
    .orderBy('p.build_id', 'desc')
    .execute();
  return rows.map(({ tags_json, ...build }) => ({
    ...build,
    // JSON.parse defines own properties, so a "__proto__" tag stays a tag.
    tags: tags_json === null ? {} : (JSON.parse(tags_json) as Record<string, string>),
  }));
}

/** The tags of one build (PATCH counts them before merging). */
export async function tagsOfBuild(db: Db, buildId: string): Promise<Record<string, string>> {
  const rows = await db
    .selectFrom('build_tags')
    .select(['tag_key', 'tag_value'])
    .where('build_id', '=', buildId)
    .orderBy('tag_key')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.tag_key, r.tag_value]));
}

export async function setTags(
  db: Db,
  build: { build_id: string; namespace_id: string; create_ts: number },
  tags: Record<string, string>,
): Promise<void> {
  const rows = Object.entries(tags).map(([tag_key, tag_value]) => ({
    build_id: build.build_id,
    tag_key,
    tag_value,
    namespace_id: build.namespace_id,
    create_ts: build.create_ts,
  }));
  if (rows.length === 0) return;
  // One statement for all of them; `excluded` is the row that could not be inserted.
  await db
    .insertInto('build_tags')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['build_id', 'tag_key']).doUpdateSet((eb) => ({ tag_value: eb.ref('excluded.tag_value') })),
    )
    .execute();
}

/** Removes `keys` from every other build of the environment, so the key names this build alone. */
export async function removeKeysFromOthers(
  db: Db,
  namespaceId: string,
  buildId: string,
  keys: string[],
): Promise<void> {
  if (keys.length === 0) return;
  await removeKeysQuery(db, namespaceId, buildId, keys).execute();
}

/** Along build_tags_filter (namespace_id, tag_key, ...): the builds carrying the key, not the namespace's all. */
export function removeKeysQuery(db: Db, namespaceId: string, buildId: string, keys: string[]) {
  return db
    .deleteFrom('build_tags')
    .where('namespace_id', '=', namespaceId)
    .where('tag_key', 'in', keys)
    .where('build_id', '!=', buildId);
}

/** A namespace's builds (completed or not) after `afterBuildId` in id order, `limit` at most: the purge's pages. */
export function buildsAfter(db: Db, namespaceId: string, afterBuildId: string, limit: number) {
  return db
    .selectFrom('builds')
    .select(['build_id', 'upload_id'])
    .where('namespace_id', '=', namespaceId)
    .where('build_id', '>', afterBuildId)
    .orderBy('build_id', 'asc')
    .limit(limit)
    .execute();
}

/** Deletes the builds and their tags (inside the purge's transaction). */
export async function deleteBuilds(db: Db, buildIds: string[]): Promise<void> {
  if (buildIds.length === 0) return;
  await db.deleteFrom('build_tags').where('build_id', 'in', buildIds).execute();
  await db.deleteFrom('builds').where('build_id', 'in', buildIds).execute();
}
