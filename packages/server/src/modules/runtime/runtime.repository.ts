import { type Selectable, sql } from 'kysely';
import type { LobbiesTable } from '../../db/database.js';
import { type Db, isPostgres } from '../../db/open-db.js';

/** What runs or is about to: a container exists or is being made for it. */
export const LIVE_STATES = ['starting', 'ready', 'stopping'] as const;

export type LobbyRow = Selectable<LobbiesTable>;

/** A namespace's wish as the reconciler reads it: its game, version config and cap. */
export interface NamespaceWish {
  namespace_id: string;
  game_id: string;
  version_id: string;
  mm_lobby_count_max: number;
  mm_max_players_per_client: number;
  mm_max_players_per_client_hosting: number;
  mm_max_players_per_client_proxy: number;
  mm_max_players_per_client_tor: number;
  mm_max_players_per_client_vpn: number;
  config_json: string;
}

/** Every live namespace of a live game with the config of its current version. */
export function namespaceWishes(db: Db, namespaceId?: string): Promise<NamespaceWish[]> {
  let query = db
    .selectFrom('namespaces')
    .innerJoin('games', 'games.game_id', 'namespaces.game_id')
    .innerJoin('versions', 'versions.version_id', 'namespaces.version_id')
    .select([
      'namespaces.namespace_id',
      'namespaces.game_id',
      'namespaces.version_id',
      'namespaces.mm_lobby_count_max',
      'namespaces.mm_max_players_per_client',
      'namespaces.mm_max_players_per_client_hosting',
      'namespaces.mm_max_players_per_client_proxy',
      'namespaces.mm_max_players_per_client_tor',
      'namespaces.mm_max_players_per_client_vpn',
      'versions.config_json',
    ])
    .where('namespaces.delete_ts', 'is', null)
    .where('games.delete_ts', 'is', null);
  if (namespaceId !== undefined) query = query.where('namespaces.namespace_id', '=', namespaceId);
  return query.execute();
}

/** Game of each namespace that still has live lobbies, live or deleted (a deleted one's lobbies end too). */
export async function gamesOfNamespaces(db: Db, namespaceIds: string[]): Promise<Map<string, string>> {
  if (namespaceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('namespaces')
    .select(['namespace_id', 'game_id'])
    .where('namespace_id', 'in', namespaceIds)
    .execute();
  return new Map(rows.map((r) => [r.namespace_id, r.game_id]));
}

/** Every lobby the runtime runs or is about to (the lobbies_live index). */
export function liveLobbies(db: Db): Promise<LobbyRow[]> {
  return db.selectFrom('lobbies').selectAll().where('run_state', 'in', LIVE_STATES).execute();
}

/**
 * Live lobbies per region, every namespace (the operator's view): a scan of the partial index lobbies_live,
 * which holds only live lobbies, whatever the size of the log of stopped ones. Its condition is spelled with
 * literals: a store matches a partial index only on what it can prove (a bound parameter could be anything).
 */
export function liveLobbiesByRegionQuery(db: Db) {
  return db
    .selectFrom('lobbies')
    .select((eb) => ['region_id', eb.fn.countAll<number | string>().as('n')])
    .where(
      sql.ref('run_state'),
      'in',
      LIVE_STATES.map((state) => sql.lit(state)),
    )
    .groupBy('region_id');
}

export async function countLiveByRegion(db: Db): Promise<Map<string, number>> {
  const rows = await liveLobbiesByRegionQuery(db).execute();
  return new Map(rows.map((r) => [r.region_id, Number(r.n)]));
}

export function findLiveLobby(db: Db, namespaceId: string, lobbyId: string) {
  return db
    .selectFrom('lobbies')
    .selectAll()
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', 'in', LIVE_STATES)
    .executeTakeFirst();
}

/** An application-wide advisory lock key for placing lobbies (int8), distinct from the other ones. */
const PLACEMENT_LOCK_ID = 7_036_154_220_261_131n;

/**
 * Inside a placement transaction: on PostgreSQL, instances place one lobby at a time (the counts they read
 * stay true until they commit); on SQLite the single writer already does that.
 */
export async function lockPlacement(trx: Db): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(${PLACEMENT_LOCK_ID})`.execute(trx);
}

export async function countLiveInNamespace(trx: Db, namespaceId: string): Promise<number> {
  const row = await trx
    .selectFrom('lobbies')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('namespace_id', '=', namespaceId)
    .where('run_state', 'in', LIVE_STATES)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The live lobbies of one host, all namespaces: their count is the host's load, per namespace its tenants'
 * shares (placement-shares.ts), their ports are taken.
 */
export function liveOnHost(
  trx: Db,
  hostId: string,
): Promise<{ namespace_id: string; ports: string | null }[]> {
  return trx
    .selectFrom('lobbies')
    .select(['namespace_id', 'ports'])
    .where('runtime_host', '=', hostId)
    .where('run_state', 'in', LIVE_STATES)
    .execute();
}

export type NewRuntimeLobby = Pick<
  LobbiesTable,
  | 'lobby_id'
  | 'namespace_id'
  | 'lobby_group_name_id'
  | 'region_id'
  | 'create_ts'
  | 'version_id'
  | 'max_players'
  | 'max_players_direct'
  | 'max_players_party'
  | 'token_hash'
  | 'runtime_host'
  | 'ports'
  | 'ready_deadline_ts'
> &
  /** A lobby placed for players (find's auto-create, create): its publicity, tags and lobby_config. */
  Partial<Pick<LobbiesTable, 'publicity' | 'tags_json' | 'lobby_config_json'>>;

export async function insertStartingLobby(trx: Db, row: NewRuntimeLobby): Promise<void> {
  await trx
    .insertInto('lobbies')
    .values({ ...row, run_state: 'starting', is_closed: 0, player_count: 0 })
    .execute();
}

/** The container runs: its handle, and start_ts unless the lobby called ready first (which sets it). */
/** Where players reach the lobby, told by an orchestrator that chose its machine (swarm). */
export async function recordPublicHost(db: Db, namespaceId: string, lobbyId: string, host: string) {
  await db
    .updateTable('lobbies')
    .set({ public_host: host })
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', 'in', LIVE_STATES)
    .where((eb) => eb.or([eb('public_host', 'is', null), eb('public_host', '!=', host)]))
    .execute();
}

export async function recordStarted(
  db: Db,
  namespaceId: string,
  lobbyId: string,
  handle: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('lobbies')
    .set((eb) => ({ runtime_handle: handle, start_ts: eb.fn.coalesce('start_ts', eb.val(now)) }))
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', 'in', LIVE_STATES)
    .execute();
}

/**
 * When the lobby began to drain (busy on a version its namespace no longer runs): set once, so the drain
 * timeout counts from there; cleared (null) when its namespace runs its version again.
 */
export async function setDrainStart(
  db: Db,
  namespaceId: string,
  lobbyId: string,
  ts: number | null,
): Promise<void> {
  await db
    .updateTable('lobbies')
    .set({ drain_started_ts: ts })
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('drain_started_ts', ts === null ? 'is not' : 'is', null)
    .execute();
}

export async function recordImage(
  db: Db,
  row: { host_id: string; build_id: string; image: string; loaded_ts: number },
): Promise<void> {
  await db
    .insertInto('runtime_images')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['host_id', 'build_id']).doUpdateSet((eb) => ({
        image: eb.ref('excluded.image'),
        loaded_ts: eb.ref('excluded.loaded_ts'),
      })),
    )
    .execute();
}

/**
 * The versions whose build images the image collector keeps: each live namespace's current and previous
 * version, and the version of every lobby that runs or is about to (a draining one of an older version).
 */
export async function versionsInUse(db: Db): Promise<{ version_id: string; config_json: string }[]> {
  const namespaces = await db
    .selectFrom('namespaces')
    .innerJoin('games', 'games.game_id', 'namespaces.game_id')
    .select(['namespaces.version_id', 'namespaces.previous_version_id'])
    .where('namespaces.delete_ts', 'is', null)
    .where('games.delete_ts', 'is', null)
    .execute();
  const lobbies = await db
    .selectFrom('lobbies')
    .select('version_id')
    .distinct()
    .where('run_state', 'in', LIVE_STATES)
    .execute();
  const ids = new Set<string>();
  for (const ns of namespaces) {
    ids.add(ns.version_id);
    if (ns.previous_version_id !== null) ids.add(ns.previous_version_id);
  }
  for (const lobby of lobbies) if (lobby.version_id !== null) ids.add(lobby.version_id);
  const versions: { version_id: string; config_json: string }[] = [];
  const all = [...ids];
  for (let i = 0; i < all.length; i += 500) {
    versions.push(
      ...(await db
        .selectFrom('versions')
        .select(['version_id', 'config_json'])
        .where('version_id', 'in', all.slice(i, i + 500))
        .execute()),
    );
  }
  return versions;
}
