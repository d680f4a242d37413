import type { GamesTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';
import { liveGames } from '../../db/scope.js';

export function insertGame(db: Db, row: GamesTable) {
  return db.insertInto('games').values(row).execute();
}

export async function gameNameIdTaken(db: Db, nameId: string): Promise<boolean> {
  const row = await liveGames(db).select('game_id').where('name_id', '=', nameId).executeTakeFirst();
  return row !== undefined;
}

/** Which games a list shows: every game (the operator), one (a cloud token's), or its teams' (a person's). */
export type GameScope = { all: true } | { gameId: string } | { teamIds: readonly string[] };

export function listGames(db: Db, scope: GameScope) {
  let query = liveGames(db).selectAll();
  if ('gameId' in scope) query = query.where('game_id', '=', scope.gameId);
  if ('teamIds' in scope) {
    if (scope.teamIds.length === 0) return Promise.resolve([]);
    query = query.where('team_id', 'in', scope.teamIds);
  }
  return query.orderBy('create_ts', 'asc').orderBy('game_id', 'asc').execute();
}

/** True when a live or retired-but-unpurged game names the team: such a team may not be deleted. */
export async function teamOwnsGames(db: Db, teamId: string): Promise<boolean> {
  const row = await db.selectFrom('games').select('game_id').where('team_id', '=', teamId).executeTakeFirst();
  return row !== undefined;
}

export async function setDisplayName(db: Db, gameId: string, displayName: string): Promise<boolean> {
  const result = await db
    .updateTable('games')
    .set({ display_name: displayName })
    .where('game_id', '=', gameId)
    .where('delete_ts', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function setHostNetworking(db: Db, gameId: string, enabled: boolean): Promise<boolean> {
  const result = await db
    .updateTable('games')
    .set({ host_networking_enabled: enabled ? 1 : 0 })
    .where('game_id', '=', gameId)
    .where('delete_ts', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Marks the living game retired and frees its name_id (the row takes its own id as name_id, which no valid
 * name_id can equal); false when there is none. Its avatar is no longer shown (the purge deletes the file).
 */
export async function markGameDeleted(db: Db, gameId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('games')
    .set((eb) => ({ delete_ts: now, name_id: eb.ref('game_id'), avatar_url: null }))
    .where('game_id', '=', gameId)
    .where('delete_ts', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Retired games whose purge has not finished, oldest first: a scan of games_purge_pending. */
export function gamesToPurge(db: Db, limit: number) {
  return db
    .selectFrom('games')
    .select(['game_id', 'delete_ts'])
    .where('delete_ts', 'is not', null)
    .where('purge_ts', 'is', null)
    .orderBy('delete_ts', 'asc')
    .limit(limit)
    .execute();
}

export async function markGamePurged(db: Db, gameId: string, now: number): Promise<void> {
  await db
    .updateTable('games')
    .set({ purge_ts: now })
    .where('game_id', '=', gameId)
    .where('delete_ts', 'is not', null)
    .execute();
}
