import type { GamesTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';

export function insertGame(db: Db, row: GamesTable) {
  return db.insertInto('games').values(row).execute();
}

export function findGame(db: Db, gameId: string) {
  return db.selectFrom('games').selectAll().where('game_id', '=', gameId).executeTakeFirst();
}

export async function gameExists(db: Db, gameId: string): Promise<boolean> {
  const row = await db.selectFrom('games').select('game_id').where('game_id', '=', gameId).executeTakeFirst();
  return row !== undefined;
}

export async function gameNameIdTaken(db: Db, nameId: string): Promise<boolean> {
  const row = await db.selectFrom('games').select('game_id').where('name_id', '=', nameId).executeTakeFirst();
  return row !== undefined;
}

export function listGames(db: Db, onlyGameId?: string) {
  let query = db.selectFrom('games').selectAll();
  if (onlyGameId !== undefined) query = query.where('game_id', '=', onlyGameId);
  return query.orderBy('create_ts', 'asc').orderBy('game_id', 'asc').execute();
}

export async function setHostNetworking(db: Db, gameId: string, enabled: boolean): Promise<boolean> {
  const result = await db
    .updateTable('games')
    .set({ host_networking_enabled: enabled ? 1 : 0 })
    .where('game_id', '=', gameId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Takes the game row's write lock inside a transaction (a no-op update, portable to SQLite and PostgreSQL),
 * so checks over the game's children and the insert that follows them cannot interleave with another's.
 */
export async function lockGame(db: Db, gameId: string): Promise<boolean> {
  const result = await db
    .updateTable('games')
    .set((eb) => ({ game_id: eb.ref('game_id') }))
    .where('game_id', '=', gameId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
