import { type RawBuilder, sql } from 'kysely';
import { inGroupCommit } from '../../db/group-commit.js';
import { type Db, isPostgres } from '../../db/open-db.js';

/** A lobby a slot was taken in, with what the answer needs. */
export interface TakenLobby {
  lobby_id: string;
  region_id: string;
  ports: string | null;
  /** Where players reach it when the orchestrator chose its machine (swarm); null: the region's host. */
  public_host: string | null;
}

/** A lobby a slot was just taken in by find or join, and its player count with that slot. */
export interface TakenSlot extends TakenLobby {
  player_count: number;
}

/** Which lobbies a find's group is: namespace, game mode, region and tags. */
export interface SlotGroup {
  namespaceId: string;
  gameMode: string;
  region: string;
  tagsJson: string | null;
}

/** The lobbies of the group a find may take a normal slot in now: ready, open, public, with room. */
function openWithRoom({ namespaceId, gameMode, region, tagsJson }: SlotGroup) {
  const tags = tagsJson === null ? sql`tags_json is null` : sql`tags_json = ${tagsJson}`;
  return sql`namespace_id = ${namespaceId} and lobby_group_name_id = ${gameMode} and region_id = ${region}
    and run_state = 'ready' and is_closed = 0 and player_count < max_players
    and (publicity is null or publicity = 'public') and ${tags}`;
}

/**
 * The statement that takes one slot of `target`, when `condition` holds. A find's slot is in the fullest
 * ready, open lobby of (namespace, game mode, region) whose tags are `tagsJson` and that has room: the outer
 * `player_count < max_players` is checked again on the row itself when it is written, so a find that finds
 * the lobby full takes nothing (and the caller tries again); on SQLite the one writer serializes them.
 * Fullest first packs players into few lobbies, leaving the others idle for the reconciler to count. A
 * join's slot counts against the lobby's direct maximum, checked the same way.
 *
 * On PostgreSQL, `skipLocked` picks the fullest lobby no other find holds (`for update skip locked`), so
 * concurrent finds fill several lobbies side by side instead of queuing on one row's lock: fullness order is
 * then approximate while finds overlap. Without it the candidate is locked, waiting for its holder (the
 * caller's last resort when every candidate was held: it then tells "full" from "held" exactly).
 */
function takeStatement(target: SlotTarget, condition: RawBuilder<unknown>, postgres: boolean) {
  if (target.kind === 'lobby') {
    return sql`update lobbies set player_count = player_count + 1
      where namespace_id = ${target.namespaceId} and lobby_id = ${target.lobbyId} and run_state = 'ready'
        and player_count < coalesce(max_players_direct, max_players) and ${condition}
      returning lobby_id, region_id, ports, public_host, player_count`;
  }
  const lock = !postgres ? sql`` : target.skipLocked ? sql`for update skip locked` : sql`for update`;
  return sql`update lobbies set player_count = player_count + 1
    where namespace_id = ${target.group.namespaceId} and player_count < max_players and run_state = 'ready'
      and is_closed = 0 and ${condition}
      and lobby_id = (
        select lobby_id from lobbies
        where ${openWithRoom(target.group)}
        order by player_count desc, create_ts, lobby_id
        limit 1 ${lock})
    returning lobby_id, region_id, ports, public_host, player_count`;
}

/** A lobby players may join by id: ready, in the namespace; with its direct maximum. */
export async function findJoinable(db: Db, namespaceId: string, lobbyId: string) {
  const row = await db
    .selectFrom('lobbies')
    .select(['lobby_id', 'region_id', 'lobby_group_name_id', 'max_players', 'max_players_direct'])
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', '=', 'ready')
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return { ...row, max_direct: row.max_players_direct ?? row.max_players ?? 0 };
}

/** Whether some lobby of the group could take a player: the retry loop's way to tell "full" from "raced". */
export async function hasRoom(db: Db, group: SlotGroup): Promise<boolean> {
  const { rows } = await sql<{ one: number }>`
    select 1 as one from lobbies where ${openWithRoom(group)} limit 1`.execute(db);
  return rows.length > 0;
}

/**
 * The slots one client address holds in a namespace (pending and connected). Read in the slot's
 * transaction but not locked: on PostgreSQL, finds from one address at the very same moment may each read
 * the count before the others commit (a lock per address serialized a burst from one address, a NAT's
 * players, through one connection at a time until the pool timed out).
 */
export async function countClientPlayers(
  trx: Db,
  namespaceId: string,
  clientAddr: string,
  cap: number,
): Promise<number> {
  const { rows } = await sql<{
    n: number | string;
  }>`${clientSlotCount(namespaceId, clientAddr, cap)}`.execute(trx);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Counted up to the cap only: whatever an address holds beyond it, the answer is the same, and a busy
 * address (a NAT, a proxy) costs no more than its cap's rows of the index.
 */
function clientSlotCount(namespaceId: string, clientAddr: string, cap: number) {
  return sql`select count(*) as n from (
      select 1 from lobby_players where namespace_id = ${namespaceId} and client_addr = ${clientAddr}
      limit ${cap}) as mine`;
}

export async function insertPendingPlayer(
  trx: Db,
  row: {
    namespaceId: string;
    lobbyId: string;
    hash: string;
    joinKind: 'normal' | 'direct' | 'party';
    now: number;
    deadline: number;
    clientAddr: string;
  },
): Promise<void> {
  await trx
    .insertInto('lobby_players')
    .values({
      namespace_id: row.namespaceId,
      lobby_id: row.lobbyId,
      player_token_hash: row.hash,
      state: 'pending',
      join_kind: row.joinKind,
      issued_ts: row.now,
      connect_deadline_ts: row.deadline,
      connected_ts: null,
      client_addr: row.clientAddr,
    })
    .execute();
}

/** Where a slot is taken: the group's fullest lobby with room (find), or one lobby by id (join). */
export type SlotTarget =
  | { kind: 'group'; group: SlotGroup; skipLocked: boolean }
  | { kind: 'lobby'; namespaceId: string; lobbyId: string };

/** The pending player row a taken slot gets, and the client's cap it is held to. */
export interface PendingHold {
  namespaceId: string;
  hash: string;
  joinKind: 'normal' | 'direct';
  now: number;
  deadline: number;
  clientAddr: string;
  /** max_players_per_client (or its address class's): nothing is taken when the address holds this many. */
  cap: number;
}

/**
 * The client's count (up to its cap), one slot of `target` and the player's pending row, atomically:
 * `held` is what the address held before (at its cap, nothing was taken), `lobby` the lobby whose slot was
 * taken, undefined when none was. On PostgreSQL this is ONE statement (data-modifying CTEs run once, all in
 * one snapshot, atomic without BEGIN/COMMIT): a find held a pool connection for five round trips (BEGIN,
 * count, take, insert, COMMIT), and with 64 finds in flight the pool, not the store, set the pace. On
 * SQLite the statements share a group commit (one fsync for the finds of one event-loop turn).
 */
export async function takeAndHold(
  db: Db,
  target: SlotTarget,
  hold: PendingHold,
): Promise<{ held: number; lobby: TakenSlot | undefined }> {
  if (isPostgres(db)) return takeAndHoldInOneStatement(db, target, hold);
  return inGroupCommit(db, async (trx) => {
    const held = await countClientPlayers(trx, hold.namespaceId, hold.clientAddr, hold.cap);
    if (held >= hold.cap) return { held, lobby: undefined };
    const { rows } = await sql<TakenSlot>`${takeStatement(target, sql`1 = 1`, false)}`.execute(trx);
    const lobby = rows[0];
    if (lobby !== undefined) await insertPendingPlayer(trx, { ...hold, lobbyId: lobby.lobby_id });
    return { held, lobby };
  });
}

async function takeAndHoldInOneStatement(
  db: Db,
  target: SlotTarget,
  hold: PendingHold,
): Promise<{ held: number; lobby: TakenSlot | undefined }> {
  const take = takeStatement(target, sql`(select n from held) < ${hold.cap}`, true);
  const { rows } = await sql<{
    held: number | string;
    lobby_id: string | null;
    region_id: string | null;
    ports: string | null;
    public_host: string | null;
    player_count: number | null;
  }>`
    with held as (${clientSlotCount(hold.namespaceId, hold.clientAddr, hold.cap)}), taken as (${take}), pending as (
      insert into lobby_players (namespace_id, lobby_id, player_token_hash, state, join_kind, issued_ts,
        connect_deadline_ts, client_addr)
      select ${hold.namespaceId}, lobby_id, ${hold.hash}, 'pending', ${hold.joinKind}, ${hold.now}::bigint,
        ${hold.deadline}::bigint, ${hold.clientAddr} from taken
    )
    select (select n from held) as held, taken.lobby_id, taken.region_id, taken.ports, taken.public_host,
      taken.player_count
    from (select 1) as one left join taken on true`.execute(db);
  const row = rows[0];
  const held = Number(row?.held ?? 0);
  // The left join's row: its lobby columns are null when nothing was taken.
  if (!row?.lobby_id || !row.region_id) return { held, lobby: undefined };
  const { lobby_id, region_id, ports, public_host, player_count } = row;
  return { held, lobby: { lobby_id, region_id, ports, public_host, player_count: Number(player_count) } };
}

/** The lobbies with player tokens past their deadline, at most `limit` rows (the partial index's range). */
export function expiredPending(db: Db, now: number, limit: number) {
  return db
    .selectFrom('lobby_players')
    .select(['namespace_id', 'lobby_id', 'player_token_hash'])
    .where('state', '=', 'pending')
    .where('connect_deadline_ts', '<=', now)
    .limit(limit)
    .execute();
}

/**
 * Deletes these rows if they are still pending and past their deadline (a connect may have won meanwhile),
 * in one statement (the rows are at most the expiry pass's batch).
 */
export async function deleteExpired(
  trx: Db,
  rows: { namespace_id: string; lobby_id: string; player_token_hash: string }[],
  now: number,
): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await trx
    .deleteFrom('lobby_players')
    .where((eb) =>
      eb(
        eb.refTuple('namespace_id', 'lobby_id', 'player_token_hash'),
        'in',
        rows.map((row) => eb.tuple(row.namespace_id, row.lobby_id, row.player_token_hash)),
      ),
    )
    .where('state', '=', 'pending')
    .where('connect_deadline_ts', '<=', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** player_count := the lobby's player rows (pending and connected). */
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

/**
 * Takes one normal slot in a starting lobby of the group with room (one a find or the reconciler placed and
 * whose container is not ready yet), as takeSlot does for ready ones: its player waits for the lobby's ready.
 */
export async function takeStartingSlot(
  trx: Db,
  where: { namespaceId: string; gameMode: string; region: string; tagsJson: string | null },
): Promise<TakenLobby | undefined> {
  const { namespaceId, gameMode, region, tagsJson } = where;
  const tags = tagsJson === null ? sql`tags_json is null` : sql`tags_json = ${tagsJson}`;
  const { rows } = await sql<TakenLobby>`
    update lobbies set player_count = player_count + 1
    where namespace_id = ${namespaceId} and player_count < max_players and run_state = 'starting'
      and lobby_id = (
        select lobby_id from lobbies
        where namespace_id = ${namespaceId} and lobby_group_name_id = ${gameMode} and region_id = ${region}
          and run_state = 'starting' and player_count < max_players
          and (publicity is null or publicity = 'public') and ${tags}
        order by player_count desc, create_ts, lobby_id
        limit 1)
    returning lobby_id, region_id, ports, public_host`.execute(trx);
  return rows[0];
}

/** A lobby a player waits on: its state, and what the answer needs once it is ready. */
export function lobbyForWait(db: Db, namespaceId: string, lobbyId: string) {
  return db
    .selectFrom('lobbies')
    .select(['lobby_id', 'region_id', 'ports', 'public_host', 'run_state'])
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .executeTakeFirst();
}

/** Frees a slot a player never got to use (its lobby did not become ready): the row, then the count. */
export async function releasePending(trx: Db, namespaceId: string, lobbyId: string, hash: string) {
  await trx
    .deleteFrom('lobby_players')
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('player_token_hash', '=', hash)
    .where('state', '=', 'pending')
    .execute();
  await recountPlayers(trx, namespaceId, lobbyId);
}
