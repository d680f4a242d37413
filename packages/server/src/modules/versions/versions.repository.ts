import type { VersionsTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';
import type { PageKey } from '../../lib/paging.js';

export function insertVersion(db: Db, row: VersionsTable) {
  return db.insertInto('versions').values(row).execute();
}

/** A version of a living game: a retired game's versions are kept, but no longer shown. */
export function findVersion(db: Db, gameId: string, versionId: string) {
  return db
    .selectFrom('versions')
    .innerJoin('games', 'games.game_id', 'versions.game_id')
    .selectAll('versions')
    .where('versions.version_id', '=', versionId)
    .where('versions.game_id', '=', gameId)
    .where('games.delete_ts', 'is', null)
    .executeTakeFirst();
}

export async function versionExists(db: Db, gameId: string, versionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('versions')
    .select('version_id')
    .where('version_id', '=', versionId)
    .where('game_id', '=', gameId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function gameHasVersion(db: Db, gameId: string): Promise<boolean> {
  const row = await db
    .selectFrom('versions')
    .select('version_id')
    .where('game_id', '=', gameId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export function listVersionSummaries(db: Db, gameId: string) {
  return db
    .selectFrom('versions')
    .select(['version_id', 'display_name', 'create_ts'])
    .where('game_id', '=', gameId)
    .orderBy('create_ts', 'asc')
    .orderBy('version_id', 'asc')
    .execute();
}

/** A page of the game's versions, newest first, after `after`: a range of versions_game_create_id. */
export function listVersionsQuery(db: Db, gameId: string, after: PageKey | undefined, limit: number) {
  let query = db
    .selectFrom('versions')
    .select(['version_id', 'display_name', 'create_ts'])
    .where('game_id', '=', gameId);
  if (after !== undefined) {
    query = query.where((eb) =>
      eb(eb.refTuple('create_ts', 'version_id'), '<', eb.tuple(after.ts, after.id)),
    );
  }
  return query.orderBy('create_ts', 'desc').orderBy('version_id', 'desc').limit(limit);
}

export function listVersionPage(db: Db, gameId: string, after: PageKey | undefined, limit: number) {
  return listVersionsQuery(db, gameId, after, limit).execute();
}

/**
 * Which of `ids` name completed builds of the game in any of its living environments: the builds a deleted
 * namespace keeps for the versions that already name them are not for new versions.
 */
export async function completedBuildIdsAmong(db: Db, gameId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('builds')
    .innerJoin('namespaces', 'namespaces.namespace_id', 'builds.namespace_id')
    .select('builds.build_id')
    .where('builds.game_id', '=', gameId)
    .where('builds.complete_ts', 'is not', null)
    .where('builds.build_id', 'in', ids)
    .where('namespaces.delete_ts', 'is', null)
    .execute();
  return rows.map((r) => r.build_id);
}

/** The config of every version of the game, for the purge to find which builds they name. */
export function versionConfigsOf(db: Db, gameId: string) {
  return db.selectFrom('versions').select('config_json').where('game_id', '=', gameId).execute();
}
