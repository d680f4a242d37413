import type { VersionsTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';

export function insertVersion(db: Db, row: VersionsTable) {
  return db.insertInto('versions').values(row).execute();
}

export function findVersion(db: Db, gameId: string, versionId: string) {
  return db
    .selectFrom('versions')
    .selectAll()
    .where('version_id', '=', versionId)
    .where('game_id', '=', gameId)
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

export function listVersionSummaries(db: Db, gameId: string) {
  return db
    .selectFrom('versions')
    .select(['version_id', 'display_name', 'create_ts'])
    .where('game_id', '=', gameId)
    .orderBy('create_ts', 'asc')
    .orderBy('version_id', 'asc')
    .execute();
}
