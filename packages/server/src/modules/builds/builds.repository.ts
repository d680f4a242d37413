import type { BuildsTable } from '../../db/database.js';
import { type Db, forUpdate } from '../../db/open-db.js';
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

export type BuildRow = NonNullable<Awaited<ReturnType<typeof findBuild>>>;

export async function markBuildComplete(db: Db, buildId: string, now: number): Promise<void> {
  await db
    .updateTable('builds')
    .set({ complete_ts: now })
    .where('build_id', '=', buildId)
    .where('complete_ts', 'is', null)
    .execute();
}

/**
 * Completed builds of the environment carrying every pair of `tags`, newest first: `build_id` names one,
 * else a page of `limit` after `after`, read along builds_namespace_create (namespace_id, create_ts, build_id).
 */
export function completeBuildsQuery(
  db: Db,
  namespaceId: string,
  tags: ReadonlyMap<string, string>,
  select: { buildId: string } | { after: PageKey | undefined; limit: number },
) {
  let query = db
    .selectFrom('builds')
    .selectAll()
    .where('namespace_id', '=', namespaceId)
    .where('complete_ts', 'is not', null);
  for (const [key, value] of tags) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('build_tags')
          .select('build_tags.build_id')
          .whereRef('build_tags.build_id', '=', 'builds.build_id')
          .where('build_tags.tag_key', '=', key)
          .where('build_tags.tag_value', '=', value),
      ),
    );
  }
  if ('buildId' in select) return query.where('build_id', '=', select.buildId).limit(1);
  const { after } = select;
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('create_ts', 'build_id'), '<', eb.tuple(after.ts, after.id)));
  }
  return query.orderBy('create_ts', 'desc').orderBy('build_id', 'desc').limit(select.limit);
}

export function listCompleteBuilds(
  db: Db,
  namespaceId: string,
  tags: ReadonlyMap<string, string>,
  select: { buildId: string } | { after: PageKey | undefined; limit: number },
) {
  return completeBuildsQuery(db, namespaceId, tags, select).execute();
}

export async function tagsOf(db: Db, buildIds: string[]): Promise<Map<string, Record<string, string>>> {
  const pairs = new Map<string, [string, string][]>(buildIds.map((id) => [id, []]));
  if (buildIds.length > 0) {
    const rows = await db
      .selectFrom('build_tags')
      .select(['build_id', 'tag_key', 'tag_value'])
      .where('build_id', 'in', buildIds)
      .orderBy('tag_key')
      .execute();
    for (const row of rows) pairs.get(row.build_id)?.push([row.tag_key, row.tag_value]);
  }
  // fromEntries defines own properties, where `tags[key] = value` would set the prototype for "__proto__".
  return new Map([...pairs].map(([id, entries]) => [id, Object.fromEntries(entries)]));
}

export async function setTags(db: Db, buildId: string, tags: Record<string, string>): Promise<void> {
  for (const [key, value] of Object.entries(tags)) {
    await db
      .insertInto('build_tags')
      .values({ build_id: buildId, tag_key: key, tag_value: value })
      .onConflict((oc) => oc.columns(['build_id', 'tag_key']).doUpdateSet({ tag_value: value }))
      .execute();
  }
}

/** Removes `keys` from every other build of the environment, so the key names this build alone. */
export async function removeKeysFromOthers(
  db: Db,
  namespaceId: string,
  buildId: string,
  keys: string[],
): Promise<void> {
  if (keys.length === 0) return;
  await db
    .deleteFrom('build_tags')
    .where('tag_key', 'in', keys)
    .where('build_id', '!=', buildId)
    .where('build_id', 'in', (eb) =>
      eb.selectFrom('builds').select('builds.build_id').where('builds.namespace_id', '=', namespaceId),
    )
    .execute();
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
