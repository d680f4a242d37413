import type { ExpressionBuilder, Insertable } from 'kysely';
import type { BuildsTable, Database } from '../../db/database.js';
import { type Db, forUpdate } from '../../db/open-db.js';
import { liveNamespace } from '../../db/scope.js';
import type { PageKey } from '../../lib/paging.js';

export function insertBuild(db: Db, row: Insertable<BuildsTable>) {
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

export function findCompleteBuildOfGame(db: Db, gameId: string, buildId: string) {
  return db
    .selectFrom('builds')
    .select(['upload_id', 'content_length', 'archive_sha256'])
    .where('build_id', '=', buildId)
    .where('game_id', '=', gameId)
    .where('complete_ts', 'is not', null)
    .executeTakeFirst();
}

/** The recorded archive digests of these builds (a build not hashed yet has none). */
export function archiveDigestsOf(db: Db, buildIds: readonly string[]) {
  return db
    .selectFrom('builds')
    .select('archive_sha256')
    .where('build_id', 'in', buildIds)
    .where('archive_sha256', 'is not', null)
    .execute();
}

/** Records a completed build's archive digest, once: a digest recorded already is the one kept (and answered). */
export async function recordArchiveDigest(
  db: Db,
  buildId: string,
  sha256: string,
): Promise<string | undefined> {
  await db
    .updateTable('builds')
    .set({ archive_sha256: sha256 })
    .where('build_id', '=', buildId)
    .where('complete_ts', 'is not', null)
    .where('archive_sha256', 'is', null)
    .execute();
  const row = await db
    .selectFrom('builds')
    .select('archive_sha256')
    .where('build_id', '=', buildId)
    .executeTakeFirst();
  return row?.archive_sha256 ?? undefined;
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
const SUMMARY_COLUMNS = ['build_id', 'name', 'content_length', 'create_ts', 'tags_json'] as const;

/**
 * The pair of `tags` the fewest builds of the environment carry (counted up to SELECTIVITY_PROBE_CAP each,
 * along build_tags_filter, all pairs in one statement), or null when some pair is carried by none: then
 * nothing can match.
 */
async function mostSelective(
  db: Db,
  namespaceId: string,
  tags: ReadonlyMap<string, string>,
): Promise<[string, string] | null> {
  const pairs = [...tags];
  const counts = await db
    .selectNoFrom((eb) =>
      pairs.map(([key, value], i) =>
        eb
          .selectFrom((inner) =>
            inner
              .selectFrom('build_tags')
              .select('build_id')
              .where('namespace_id', '=', namespaceId)
              .where('tag_key', '=', key)
              .where('tag_value', '=', value)
              .limit(SELECTIVITY_PROBE_CAP)
              .as('probe'),
          )
          .select((c) => c.fn.countAll<number | string>().as('n'))
          .as(`c${i}`),
      ),
    )
    .executeTakeFirstOrThrow();
  const found = pairs.map((_, i) => Number((counts as Record<string, unknown>)[`c${i}`]));
  const fewest = Math.min(...found);
  return fewest === 0 ? null : (pairs[found.indexOf(fewest)] as [string, string]);
}

/**
 * The completed builds of the environment carrying every pair of `tags`, newest first: `build_id` names one,
 * else a page of `limit` after `after`. Unfiltered, the page is a range of builds_namespace_create
 * (namespace_id, create_ts, build_id); filtered, a range of build_tags_filter for the rarest pair, in the
 * same order, each row checked for the other pairs by primary key. Either way it stops after the page.
 * Rows come only while the environment is live and the game's (a check the database makes once), so a
 * page with builds needs no other read; only an empty one leaves the caller to find out which it was.
 */
export async function completeBuildsQuery(
  db: Db,
  place: { gameId: string; namespaceId: string },
  tags: ReadonlyMap<string, string>,
  select: Select,
) {
  const { namespaceId } = place;
  const inLiveEnvironment = (eb: ExpressionBuilder<Database, 'builds'>) =>
    eb.exists(liveNamespace(db, place.gameId, namespaceId).select('namespaces.namespace_id'));
  if (tags.size === 0) {
    let query = db
      .selectFrom('builds')
      .select(SUMMARY_COLUMNS)
      .where('namespace_id', '=', namespaceId)
      .where('complete_ts', 'is not', null)
      .where(inLiveEnvironment);
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
    .where('builds.complete_ts', 'is not', null)
    .where(inLiveEnvironment);
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
/** What a page reads of each build: its summary columns, its tags as one JSON object among them. */
export type BuildSummaryRow = Pick<BuildRow, (typeof SUMMARY_COLUMNS)[number]>;

/** A build's tags from its row's copy (builds.tags_json, which triggers keep). */
export function tagsOf(row: { tags_json: string }): Record<string, string> {
  // JSON.parse defines own properties, so a "__proto__" tag stays a tag.
  return JSON.parse(row.tags_json) as Record<string, string>;
}

/**
 * The builds `completeBuildsQuery` selects: one row per build with its tags in a column of its own row,
 * never a list of a thousand ids sent back, nor a row per tag.
 */
export async function listCompleteBuilds(
  db: Db,
  place: { gameId: string; namespaceId: string },
  tags: ReadonlyMap<string, string>,
  select: Select,
): Promise<BuildSummaryRow[]> {
  const page = await completeBuildsQuery(db, place, tags, select);
  return page === undefined ? [] : page.execute();
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

/** The builds made for these uploads (one each, but for an upload whose build was never inserted). */
export async function buildIdsOfUploads(db: Db, uploadIds: string[]): Promise<string[]> {
  if (uploadIds.length === 0) return [];
  const rows = await db.selectFrom('builds').select('build_id').where('upload_id', 'in', uploadIds).execute();
  return rows.map((r) => r.build_id);
}

/** Deletes the builds and their tags (inside the purge's transaction). */
export async function deleteBuilds(db: Db, buildIds: string[]): Promise<void> {
  if (buildIds.length === 0) return;
  await db.deleteFrom('build_tags').where('build_id', 'in', buildIds).execute();
  await db.deleteFrom('builds').where('build_id', 'in', buildIds).execute();
}
