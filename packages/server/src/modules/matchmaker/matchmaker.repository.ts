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

/** A player token's row in the lobby: its state and, while pending, its deadline. */
export function findPlayer(trx: Db, namespaceId: string, lobbyId: string, playerHash: string) {
  return trx
    .selectFrom('lobby_players')
    .select(['state', 'connect_deadline_ts'])
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('player_token_hash', '=', playerHash)
    .executeTakeFirst();
}

/** pending → connected: the slot no longer expires. */
export async function markConnected(
  trx: Db,
  namespaceId: string,
  lobbyId: string,
  playerHash: string,
  now: number,
) {
  await trx
    .updateTable('lobby_players')
    .set({ state: 'connected', connected_ts: now, connect_deadline_ts: null })
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('player_token_hash', '=', playerHash)
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
