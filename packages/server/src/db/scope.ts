import { errors } from '../errors.js';
import type { Db } from './open-db.js';

// The tenancy scope every module works inside: a team owns games, a game holds namespaces. Whether one
// exists, its row, and the game's write lock are read here, on the ground floor, so that modules need not
// reach into the games (or namespaces, or teams) module's repository for them. What a game, namespace or
// team IS (its rules, its other queries, its writes) stays with its module.

/** Games that are not retired: every read of a game starts here. */
export function liveGames(db: Db) {
  return db.selectFrom('games').where('games.delete_ts', 'is', null);
}

/** The living game's row, or undefined. */
export function findGame(db: Db, gameId: string) {
  return liveGames(db).selectAll().where('game_id', '=', gameId).executeTakeFirst();
}

export type GameRow = NonNullable<Awaited<ReturnType<typeof findGame>>>;

export async function gameExists(db: Db, gameId: string): Promise<boolean> {
  const row = await liveGames(db).select('game_id').where('game_id', '=', gameId).executeTakeFirst();
  return row !== undefined;
}

/** Throws 404 GAME_NOT_FOUND unless the game lives. */
export async function assertGameExists(deps: { readonly db: Db }, gameId: string): Promise<void> {
  if (!(await gameExists(deps.db, gameId))) throw errors.gameNotFound();
}

/**
 * Takes the living game row's write lock inside a transaction (a no-op update, portable to SQLite and
 * PostgreSQL), so checks over the game's children and the insert that follows them cannot interleave with
 * another's, nor with the game's retirement. False when there is no such living game.
 */
export async function lockGame(db: Db, gameId: string): Promise<boolean> {
  const result = await db
    .updateTable('games')
    .set((eb) => ({ game_id: eb.ref('game_id') }))
    .where('game_id', '=', gameId)
    .where('delete_ts', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The game's live namespace `namespaceId`, as a query to select from (or to test with `exists`). */
export function liveNamespace(db: Db, gameId: string, namespaceId: string) {
  return db
    .selectFrom('namespaces')
    .where('namespaces.delete_ts', 'is', null)
    .where('namespaces.namespace_id', '=', namespaceId)
    .where('namespaces.game_id', '=', gameId);
}

export async function namespaceExists(db: Db, gameId: string, namespaceId: string): Promise<boolean> {
  const row = await liveNamespace(db, gameId, namespaceId)
    .select('namespaces.namespace_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function teamExists(db: Db, teamId: string): Promise<boolean> {
  const row = await db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst();
  return row !== undefined;
}
