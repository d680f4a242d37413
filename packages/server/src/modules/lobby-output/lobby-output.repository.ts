import type { LobbyOutputChunksTable, LobbyOutputStreamsTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';

export type StreamName = LobbyOutputStreamsTable['stream'];
export type StreamRow = LobbyOutputStreamsTable;
export type ChunkRow = LobbyOutputChunksTable;

export async function streamsOf(db: Db, namespaceId: string, lobbyId: string): Promise<StreamRow[]> {
  return db
    .selectFrom('lobby_output_streams')
    .selectAll()
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .execute();
}

export async function streamOf(
  db: Db,
  namespaceId: string,
  lobbyId: string,
  stream: StreamName,
): Promise<StreamRow | undefined> {
  return db
    .selectFrom('lobby_output_streams')
    .selectAll()
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('stream', '=', stream)
    .executeTakeFirst();
}

/** A capture that starts again (after a restart) writes new chunks: the one left open is done. */
export async function closeOpenChunks(db: Db, namespaceId: string, lobbyId: string): Promise<void> {
  await db
    .updateTable('lobby_output_chunks')
    .set({ closed: 1 })
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('closed', '=', 0)
    .execute();
}

/** One flush of every capture: its chunks and counters in one transaction, so both agree after a crash. */
export async function saveFlush(db: Db, chunks: readonly ChunkRow[], streams: readonly StreamRow[]) {
  if (chunks.length === 0 && streams.length === 0) return;
  await db.transaction().execute(async (trx) => {
    if (chunks.length > 0) {
      await trx
        .insertInto('lobby_output_chunks')
        .values([...chunks])
        .onConflict((oc) =>
          oc.columns(['namespace_id', 'lobby_id', 'stream', 'first_line']).doUpdateSet((eb) => ({
            line_count: eb.ref('excluded.line_count'),
            last_ts: eb.ref('excluded.last_ts'),
            raw_bytes: eb.ref('excluded.raw_bytes'),
            closed: eb.ref('excluded.closed'),
          })),
        )
        .execute();
    }
    if (streams.length > 0) {
      await trx
        .insertInto('lobby_output_streams')
        .values([...streams])
        .onConflict((oc) =>
          oc.columns(['namespace_id', 'lobby_id', 'stream']).doUpdateSet((eb) => ({
            line_count: eb.ref('excluded.line_count'),
            first_line: eb.ref('excluded.first_line'),
            kept_bytes: eb.ref('excluded.kept_bytes'),
            dropped_bytes: eb.ref('excluded.dropped_bytes'),
            last_ts: eb.ref('excluded.last_ts'),
            last_ts_lines: eb.ref('excluded.last_ts_lines'),
            complete: eb.ref('excluded.complete'),
            update_ts: eb.ref('excluded.update_ts'),
          })),
        )
        .execute();
    }
  });
}

/** The stream's closed chunks, oldest first: what the size cap drops first. */
export async function oldestClosedChunks(
  db: Db,
  namespaceId: string,
  lobbyId: string,
  stream: StreamName,
  limit: number,
) {
  return db
    .selectFrom('lobby_output_chunks')
    .select(['first_line', 'line_count', 'raw_bytes', 'blob_key'])
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('stream', '=', stream)
    .where('closed', '=', 1)
    .orderBy('first_line', 'asc')
    .limit(limit)
    .execute();
}

/** Drops the chunks the cap let go and moves the stream's first kept line past them, in one transaction. */
export async function dropChunks(
  db: Db,
  namespaceId: string,
  lobbyId: string,
  stream: StreamName,
  firstLines: readonly number[],
  counters: Pick<StreamRow, 'first_line' | 'kept_bytes' | 'dropped_bytes'>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('lobby_output_chunks')
      .where('namespace_id', '=', namespaceId)
      .where('lobby_id', '=', lobbyId)
      .where('stream', '=', stream)
      .where('first_line', 'in', [...firstLines])
      .execute();
    await trx
      .updateTable('lobby_output_streams')
      .set(counters)
      .where('namespace_id', '=', namespaceId)
      .where('lobby_id', '=', lobbyId)
      .where('stream', '=', stream)
      .execute();
  });
}

/**
 * The chunks that hold lines before position `before`, newest first: a page of lines reads the last few of
 * these. `limit` bounds the read whatever the log's length.
 */
export async function chunksBefore(
  db: Db,
  namespaceId: string,
  lobbyId: string,
  stream: StreamName,
  before: number,
  limit: number,
): Promise<Pick<ChunkRow, 'first_line' | 'line_count' | 'blob_key'>[]> {
  return db
    .selectFrom('lobby_output_chunks')
    .select(['first_line', 'line_count', 'blob_key'])
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('stream', '=', stream)
    .where('first_line', '<', before)
    .orderBy('first_line', 'desc')
    .limit(limit)
    .execute();
}

/**
 * The chunks that hold lines from position `from` on (and before `before`), oldest first: a forward read
 * (a follower, the export) takes these. `limit` bounds the read whatever the log's length.
 */
export async function chunksFrom(
  db: Db,
  namespaceId: string,
  lobbyId: string,
  stream: StreamName,
  from: number,
  before: number,
  limit: number,
): Promise<Pick<ChunkRow, 'first_line' | 'line_count' | 'blob_key'>[]> {
  const base = db
    .selectFrom('lobby_output_chunks')
    .select(['first_line', 'line_count', 'blob_key'])
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('stream', '=', stream);
  const holding = await base
    .where('first_line', '<=', from)
    .orderBy('first_line', 'desc')
    .limit(1)
    .executeTakeFirst();
  const later = await base
    .where('first_line', '>', from)
    .where('first_line', '<', before)
    .orderBy('first_line', 'asc')
    .limit(limit)
    .execute();
  return holding === undefined || holding.first_line + holding.line_count <= from
    ? later
    : [holding, ...later.slice(0, limit - 1)];
}

/** One lobby's output: a lobby is (namespace_id, lobby_id), never its id alone. */
export interface OutputOwner {
  namespace_id: string;
  lobby_id: string;
}

/**
 * Lobbies whose output retention ends: not written since `before`, or whose lobby is gone from the lobby
 * log (its retention or a purge deleted it).
 */
export async function expiredOutput(db: Db, before: number, limit: number): Promise<OutputOwner[]> {
  return db
    .selectFrom('lobby_output_streams as s')
    .select(['s.namespace_id', 's.lobby_id'])
    .distinct()
    .where((eb) =>
      eb.or([
        eb('s.update_ts', '<', before),
        eb.not(
          eb.exists(
            eb
              .selectFrom('lobbies as l')
              .select('l.lobby_id')
              .whereRef('l.lobby_id', '=', 's.lobby_id')
              .whereRef('l.namespace_id', '=', 's.namespace_id'),
          ),
        ),
      ]),
    )
    .limit(limit)
    .execute();
}

export async function chunkKeysOf(db: Db, owners: readonly OutputOwner[]): Promise<string[]> {
  if (owners.length === 0) return [];
  const rows = await db
    .selectFrom('lobby_output_chunks')
    .select('blob_key')
    .where(({ eb, refTuple, tuple }) =>
      eb(
        refTuple('namespace_id', 'lobby_id'),
        'in',
        owners.map((o) => tuple(o.namespace_id, o.lobby_id)),
      ),
    )
    .execute();
  return rows.map((r) => r.blob_key);
}

export async function deleteOutputOf(db: Db, owners: readonly OutputOwner[]): Promise<void> {
  if (owners.length === 0) return;
  const pairs = owners.map((o) => [o.namespace_id, o.lobby_id] as const);
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('lobby_output_chunks')
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('namespace_id', 'lobby_id'),
          'in',
          pairs.map(([n, l]) => tuple(n, l)),
        ),
      )
      .execute();
    await trx
      .deleteFrom('lobby_output_streams')
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('namespace_id', 'lobby_id'),
          'in',
          pairs.map(([n, l]) => tuple(n, l)),
        ),
      )
      .execute();
  });
}

/** The namespace's lobbies that have output, a batch at a time (its purge). */
export async function lobbiesWithOutput(db: Db, namespaceId: string, limit: number): Promise<OutputOwner[]> {
  return db
    .selectFrom('lobby_output_streams')
    .select(['namespace_id', 'lobby_id'])
    .distinct()
    .where('namespace_id', '=', namespaceId)
    .limit(limit)
    .execute();
}
