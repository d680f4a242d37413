import type { LobbyExportsTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';

export function insertExport(db: Db, row: LobbyExportsTable) {
  return db.insertInto('lobby_exports').values(row).execute();
}

/** The oldest exports made before `before`, at most `limit`: a range of lobby_exports_create. */
export function exportsBefore(db: Db, before: number, limit: number) {
  return db
    .selectFrom('lobby_exports')
    .select(['export_id', 'blob_key'])
    .where('create_ts', '<', before)
    .orderBy('create_ts', 'asc')
    .limit(limit)
    .execute();
}

export async function deleteExportRows(db: Db, exportIds: readonly string[]): Promise<void> {
  if (exportIds.length > 0)
    await db.deleteFrom('lobby_exports').where('export_id', 'in', exportIds).execute();
}
