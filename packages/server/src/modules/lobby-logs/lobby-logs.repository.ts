import type { LobbiesTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';

export function insertLobby(db: Db, row: LobbiesTable) {
  return db.insertInto('lobbies').values(row).execute();
}

/** A lobby is (namespace_id, lobby_id): the same id in another namespace is another lobby, never this one. */
export function findLobby(db: Db, namespaceId: string, lobbyId: string) {
  return db
    .selectFrom('lobbies')
    .selectAll()
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .executeTakeFirst();
}

export type LobbyEventValues = Partial<
  Pick<LobbiesTable, 'start_ts' | 'ready_ts' | 'stop_ts' | 'exit_code' | 'failed'>
>;

/**
 * Writes `values` if the lobby's event times are still those of `read` (every event sets a time that was
 * null, and is decided on the others); false when another event got there first.
 */
export async function updateLobbyIfUnchanged(
  db: Db,
  read: LobbiesTable,
  values: LobbyEventValues,
): Promise<boolean> {
  let query = db
    .updateTable('lobbies')
    .set(values)
    .where('namespace_id', '=', read.namespace_id)
    .where('lobby_id', '=', read.lobby_id);
  for (const column of ['start_ts', 'ready_ts', 'stop_ts'] as const) {
    const was = read[column];
    query = was === null ? query.where(column, 'is', null) : query.where(column, '=', was);
  }
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Lobbies created strictly before the cursor, newest first: a range scan of
 * lobbies_namespace_create (namespace_id, create_ts, lobby_id) that stops after `limit` rows, so its cost
 * does not grow with the namespace. With `beforeLobbyId` the cursor is the exact (create_ts, lobby_id) pair.
 */
export function listLobbiesBefore(
  db: Db,
  namespaceId: string,
  beforeTs: number,
  beforeLobbyId: string | undefined,
  limit: number,
) {
  return lobbiesBeforeQuery(db, namespaceId, beforeTs, beforeLobbyId, limit).execute();
}

/** The listing query itself, also for the test that checks its plan. */
export function lobbiesBeforeQuery(
  db: Db,
  namespaceId: string,
  beforeTs: number,
  beforeLobbyId: string | undefined,
  limit: number,
) {
  let query = db.selectFrom('lobbies').selectAll().where('namespace_id', '=', namespaceId);
  query =
    beforeLobbyId === undefined
      ? query.where('create_ts', '<', beforeTs)
      : query.where((eb) => eb(eb.refTuple('create_ts', 'lobby_id'), '<', eb.tuple(beforeTs, beforeLobbyId)));
  return query.orderBy('create_ts', 'desc').orderBy('lobby_id', 'desc').limit(limit);
}

/**
 * Deletes up to `limit` lobbies of the namespace, in one statement (a range of the primary key); returns
 * how many. The purge of a deleted namespace calls it until none are left, a short transaction each time.
 */
export async function deleteLobbyBatch(db: Db, namespaceId: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('lobbies')
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', 'in', (eb) =>
      eb.selectFrom('lobbies').select('lobby_id').where('namespace_id', '=', namespaceId).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
