import { sql } from 'kysely';
import { type Db, forUpdate } from '../../db/open-db.js';

// The lobby's own calls write its live columns (0024) and its players: only on rows the runtime runs
// (run_state set), so a lobby an external data plane reports is never touched from here.

/** starting → ready; records ready_ts, and start_ts if the container's start was not recorded yet. */
export async function markReady(db: Db, namespaceId: string, lobbyId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('lobbies')
    .set((eb) => ({
      run_state: 'ready',
      ready_ts: now,
      start_ts: eb.fn.coalesce('start_ts', eb.val(now)),
    }))
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', '=', 'starting')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function setClosed(db: Db, namespaceId: string, lobbyId: string, closed: boolean) {
  await db
    .updateTable('lobbies')
    .set({ is_closed: closed ? 1 : 0 })
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', 'in', ['starting', 'ready', 'stopping'])
    .execute();
}

/** The lobby's row, locked until the transaction ends on PostgreSQL (SQLite's one writer serializes). */
export function lockLobby(trx: Db, namespaceId: string, lobbyId: string) {
  return forUpdate(
    trx,
    trx
      .selectFrom('lobbies')
      .select(['run_state', 'max_players', 'player_count'])
      .where('namespace_id', '=', namespaceId)
      .where('lobby_id', '=', lobbyId),
  ).executeTakeFirst();
}

export async function hasPlayer(trx: Db, namespaceId: string, lobbyId: string, playerHash: string) {
  const row = await trx
    .selectFrom('lobby_players')
    .select('connected_ts')
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('player_token_hash', '=', playerHash)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertPlayer(
  trx: Db,
  namespaceId: string,
  lobbyId: string,
  playerHash: string,
  now: number,
) {
  await trx
    .insertInto('lobby_players')
    .values({
      namespace_id: namespaceId,
      lobby_id: lobbyId,
      player_token_hash: playerHash,
      state: 'connected',
      join_kind: 'normal',
      issued_ts: now,
      connected_ts: now,
    })
    .execute();
}

export async function deletePlayer(trx: Db, namespaceId: string, lobbyId: string, playerHash: string) {
  const result = await trx
    .deleteFrom('lobby_players')
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('player_token_hash', '=', playerHash)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** player_count := the lobby's player rows, in the transaction that changed them, so the two never differ. */
export async function recountPlayers(trx: Db, namespaceId: string, lobbyId: string) {
  await trx
    .updateTable('lobbies')
    .set({
      player_count: sql<number>`(select count(*) from lobby_players where lobby_players.namespace_id = ${namespaceId} and lobby_players.lobby_id = ${lobbyId})`,
    })
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .execute();
}
