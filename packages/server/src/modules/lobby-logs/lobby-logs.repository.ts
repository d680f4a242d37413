import { sql } from 'kysely';
import type { LobbiesTable } from '../../db/database.js';
import { type Db, isPostgres } from '../../db/open-db.js';

/** A lobby as reported created: no event yet. */
export type NewLobby = Pick<
  LobbiesTable,
  'lobby_id' | 'namespace_id' | 'lobby_group_name_id' | 'region_id' | 'create_ts'
>;

type LobbyKeyed = { namespace_id: string; lobby_id: string };

const lobbyKey = (row: LobbyKeyed) => `${row.namespace_id} ${row.lobby_id}`;

/**
 * The first row of each lobby in `rows` (one statement must not touch a lobby twice), and `answer`, which
 * tells for each row of `rows` whether it was its lobby's first and that lobby's key is in `done`.
 */
function firstOfEachLobby<T extends LobbyKeyed>(rows: readonly T[]) {
  const firsts = new Map<string, T>();
  for (const row of rows) if (!firsts.has(lobbyKey(row))) firsts.set(lobbyKey(row), row);
  return {
    unique: [...firsts.values()],
    answer: (done: ReadonlySet<string>) =>
      rows.map((row) => firsts.get(lobbyKey(row)) === row && done.has(lobbyKey(row))),
  };
}

/**
 * Inserts, in one statement, the lobbies that do not exist yet, and tells for each row whether it was
 * inserted: false when that namespace already had a lobby of that id, or an earlier row of `rows` has it.
 * On PostgreSQL the rows travel as one array per column through unnest, so a batch of any size is one
 * statement text, prepared once per connection.
 */
export async function insertNewLobbies(db: Db, rows: readonly NewLobby[]): Promise<boolean[]> {
  const { unique, answer } = firstOfEachLobby(rows);
  let inserted: LobbyKeyed[];
  if (isPostgres(db)) {
    const column = <K extends keyof NewLobby>(name: K) => unique.map((row) => row[name]);
    ({ rows: inserted } = await sql<LobbyKeyed>`
      insert into lobbies (lobby_id, namespace_id, lobby_group_name_id, region_id, create_ts)
      select * from unnest(${column('lobby_id')}::text[], ${column('namespace_id')}::text[],
        ${column('lobby_group_name_id')}::text[], ${column('region_id')}::text[], ${column('create_ts')}::int8[])
      on conflict (namespace_id, lobby_id) do nothing
      returning namespace_id, lobby_id`.execute(db));
  } else {
    inserted = await db
      .insertInto('lobbies')
      .values(unique)
      .onConflict((oc) => oc.columns(['namespace_id', 'lobby_id']).doNothing())
      .returning(['namespace_id', 'lobby_id'])
      .execute();
  }
  return answer(new Set(inserted.map(lobbyKey)));
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

/**
 * Whether another namespace has a lobby of this id. A reported lobby never takes an id another tenant's lobby
 * has: whatever is keyed by lobby id outside the lobby log (a player's view, output, a support request)
 * must never reach two tenants' lobbies.
 */
export async function lobbyIdElsewhere(db: Db, namespaceId: string, lobbyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('lobbies')
    .select('lobby_id')
    .where('lobby_id', '=', lobbyId)
    .where('namespace_id', '<>', namespaceId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export type LobbyEventValues = Partial<
  Pick<LobbiesTable, 'start_ts' | 'ready_ts' | 'stop_ts' | 'exit_code' | 'failed'>
>;

/** The next event of a lobby as the service records it: `exit_code` and `failed` with a stop only. */
export interface NextEvent {
  namespace_id: string;
  lobby_id: string;
  kind: 'start' | 'ready' | 'stop';
  ts: number;
  exit_code: number | null;
  failed: number | null;
}

/**
 * Records each event that is its lobby's next, in one statement for them all: exactly where the service's
 * rules allow it (not stopped, not yet recorded, its predecessor recorded, and `ts` not before the latest
 * recorded time). False for an event that wrote nothing, the caller then reads and decides; and for every
 * event but the first of a lobby in `events`, which waits for that decision.
 */
export async function recordNextEvents(db: Db, events: readonly NextEvent[]): Promise<boolean[]> {
  const { unique, answer } = firstOfEachLobby(events);
  const written = new Set<string>();
  if (isPostgres(db)) {
    const column = <K extends keyof NextEvent>(name: K) => unique.map((event) => event[name]);
    // A null start_ts compares as unknown, so the ready of a lobby that never started writes nothing.
    const { rows } = await sql<LobbyKeyed>`
      update lobbies l set
        start_ts = case when v.kind = 'start' then v.ts else l.start_ts end,
        ready_ts = case when v.kind = 'ready' then v.ts else l.ready_ts end,
        stop_ts = case when v.kind = 'stop' then v.ts else l.stop_ts end,
        exit_code = case when v.kind = 'stop' then v.exit_code else l.exit_code end,
        failed = case when v.kind = 'stop' then v.failed else l.failed end
      from unnest(${column('namespace_id')}::text[], ${column('lobby_id')}::text[], ${column('kind')}::text[],
        ${column('ts')}::int8[], ${column('exit_code')}::int4[], ${column('failed')}::int4[])
        as v(namespace_id, lobby_id, kind, ts, exit_code, failed)
      where l.namespace_id = v.namespace_id and l.lobby_id = v.lobby_id and l.stop_ts is null
        and case v.kind
          when 'start' then l.start_ts is null and l.create_ts <= v.ts
          when 'ready' then l.ready_ts is null and l.start_ts <= v.ts
          else coalesce(l.ready_ts, l.start_ts, l.create_ts) <= v.ts
        end
      returning l.namespace_id, l.lobby_id`.execute(db);
    for (const row of rows) written.add(lobbyKey(row));
  } else {
    // One process owns the embedded store: no round trip to save, one statement each.
    for (const event of unique) {
      if (await recordNextEvent(db, event)) written.add(lobbyKey(event));
    }
  }
  return answer(written);
}

async function recordNextEvent(db: Db, event: NextEvent): Promise<boolean> {
  const { kind, ts } = event;
  let query = db
    .updateTable('lobbies')
    .set(
      kind === 'start'
        ? { start_ts: ts }
        : kind === 'ready'
          ? { ready_ts: ts }
          : { stop_ts: ts, exit_code: event.exit_code, failed: event.failed },
    )
    .where('namespace_id', '=', event.namespace_id)
    .where('lobby_id', '=', event.lobby_id)
    .where('stop_ts', 'is', null);
  if (kind === 'start') query = query.where('start_ts', 'is', null).where('create_ts', '<=', ts);
  else if (kind === 'ready') query = query.where('ready_ts', 'is', null).where('start_ts', '<=', ts);
  else query = query.where(sql`coalesce(ready_ts, start_ts, create_ts)`, '<=', ts);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

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

/** Every namespace that may hold lobbies, for passes that walk the lobby log one namespace at a time. */
export async function namespaceIdsWithLobbies(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('namespaces').select('namespace_id').execute();
  return rows.map((r) => r.namespace_id);
}

/**
 * Deletes up to `limit` lobbies of the namespace whose last report (stop, else ready, start, creation) is
 * before `before`. The creation bound lets the listing index (namespace_id, create_ts) find them; the last
 * report, never earlier than the creation, decides.
 */
export async function deleteLobbiesBefore(
  db: Db,
  namespaceId: string,
  before: number,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('lobbies')
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', 'in', (eb) =>
      eb
        .selectFrom('lobbies')
        .select('lobby_id')
        .where('namespace_id', '=', namespaceId)
        .where('create_ts', '<', before)
        .where(sql<number>`coalesce(stop_ts, ready_ts, start_ts, create_ts)`, '<', before)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * A runtime lobby's end, written once: only a row the runtime runs (run_state set) and not stopped yet.
 * The reason the service gave (a stop it asked for) is kept; otherwise `reason` says why it ended.
 */
export async function markRuntimeLobbyStopped(
  db: Db,
  namespaceId: string,
  lobbyId: string,
  stop: { ts: number; exitCode: number | null; failed: boolean },
  reason: string,
): Promise<boolean> {
  const result = await db
    .updateTable('lobbies')
    .set((eb) => ({
      run_state: 'stopped',
      stop_ts: stop.ts,
      exit_code: stop.exitCode,
      failed: stop.failed ? 1 : 0,
      stop_reason: eb.fn.coalesce('stop_reason', eb.val(reason)),
    }))
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', 'in', ['starting', 'ready', 'stopping'])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Lobbies of these namespaces created in [start, end) and before `before` (create_ts, lobby_id), newest
 * first: one page of the history export, which walks back from `end` a page at a time.
 */
export function lobbiesCreatedIn(
  db: Db,
  namespaceIds: readonly string[],
  start: number,
  before: { ts: number; lobbyId: string | undefined },
  limit: number,
) {
  let query = db
    .selectFrom('lobbies')
    .selectAll()
    .where('namespace_id', 'in', namespaceIds)
    .where('create_ts', '>=', start);
  query =
    before.lobbyId === undefined
      ? query.where('create_ts', '<', before.ts)
      : query.where((eb) =>
          eb(eb.refTuple('create_ts', 'lobby_id'), '<', eb.tuple(before.ts, before.lobbyId as string)),
        );
  return query.orderBy('create_ts', 'desc').orderBy('lobby_id', 'desc').limit(limit).execute();
}
