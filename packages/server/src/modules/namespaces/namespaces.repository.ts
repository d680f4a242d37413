import type { NamespacesTable } from '../../db/database.js';
import { type Db, forUpdate } from '../../db/open-db.js';
import { liveNamespace } from '../../db/scope.js';
import type { PageKey } from '../../lib/paging.js';

declare const writeScope: unique symbol;

/**
 * The only handle namespace rows (and their CDN users) are written through: one namespace of one game, in
 * the transaction `db`. Only `Namespaces` (namespaces.service.ts) makes one, and it drops the cached view of
 * that namespace once the transaction is over, so no write can leave a stale view behind. Every write below
 * takes one and is scoped by it; test/modules/namespace-writes.test.ts checks that no other code writes
 * these tables and that no other file makes a handle.
 */
export interface NamespaceWrite {
  readonly db: Db;
  readonly gameId: string;
  readonly namespaceId: string;
  readonly [writeScope]: 'namespace';
}

/** The same for every namespace of one game at once (retiring the game drops all their views). */
export interface GameNamespacesWrite {
  readonly db: Db;
  readonly gameId: string;
  readonly [writeScope]: 'game';
}

type Editable = Partial<
  Omit<NamespacesTable, 'namespace_id' | 'game_id' | 'create_ts' | 'delete_ts' | 'purge_ts'>
>;

/** Namespaces that are not deleted: every read of a namespace starts here. */
function live(db: Db) {
  return db.selectFrom('namespaces').where('namespaces.delete_ts', 'is', null);
}

export function insertNamespace(w: NamespaceWrite, row: Omit<NamespacesTable, 'namespace_id' | 'game_id'>) {
  return w.db
    .insertInto('namespaces')
    .values({ ...row, namespace_id: w.namespaceId, game_id: w.gameId })
    .execute();
}

export function findNamespace(db: Db, gameId: string, namespaceId: string) {
  return liveNamespace(db, gameId, namespaceId).selectAll().executeTakeFirst();
}

export async function namespaceNameIdTaken(db: Db, gameId: string, nameId: string): Promise<boolean> {
  const row = await live(db)
    .select('namespace_id')
    .where('game_id', '=', gameId)
    .where('name_id', '=', nameId)
    .executeTakeFirst();
  return row !== undefined;
}

export function listNamespaceSummaries(db: Db, gameId: string) {
  return live(db)
    .select(['namespace_id', 'version_id', 'name_id', 'display_name', 'create_ts'])
    .where('game_id', '=', gameId)
    .orderBy('create_ts', 'asc')
    .orderBy('namespace_id', 'asc')
    .execute();
}

/** A page of the game's namespaces, oldest first, after `after`: a range of namespaces_game_create. */
export function listNamespacesQuery(db: Db, gameId: string, after: PageKey | undefined, limit: number) {
  let query = live(db)
    .select(['namespace_id', 'version_id', 'name_id', 'display_name', 'create_ts'])
    .where('game_id', '=', gameId);
  if (after !== undefined) {
    query = query.where((eb) =>
      eb(eb.refTuple('create_ts', 'namespace_id'), '>', eb.tuple(after.ts, after.id)),
    );
  }
  return query.orderBy('create_ts', 'asc').orderBy('namespace_id', 'asc').limit(limit);
}

export function listNamespacePage(db: Db, gameId: string, after: PageKey | undefined, limit: number) {
  return listNamespacesQuery(db, gameId, after, limit).execute();
}

/** The version a live namespace runs, its row locked (PostgreSQL) until the write's transaction ends. */
export async function lockedVersionOf(w: NamespaceWrite): Promise<string | undefined> {
  const row = await forUpdate(
    w.db,
    live(w.db).select('version_id').where('namespace_id', '=', w.namespaceId).where('game_id', '=', w.gameId),
  ).executeTakeFirst();
  return row?.version_id;
}

/**
 * Updates the living namespace row and reports whether there is one. Inside a transaction this also takes the
 * row's write lock, which serialises concurrent edits of the same namespace on PostgreSQL as on SQLite.
 */
export async function updateNamespace(
  w: NamespaceWrite,
  values: Editable & { update_ts: number },
): Promise<boolean> {
  const result = await w.db
    .updateTable('namespaces')
    .set(values)
    .where('namespace_id', '=', w.namespaceId)
    .where('game_id', '=', w.gameId)
    .where('delete_ts', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The namespace and the names of its CDN users in one round-trip: one row per user (at most 32), or one row
 * with a null user_name when it has none; no rows when there is no such living namespace in the game.
 */
export function findNamespaceWithUserNames(db: Db, gameId: string, namespaceId: string) {
  return live(db)
    .leftJoin('namespace_cdn_auth_users as u', 'u.namespace_id', 'namespaces.namespace_id')
    .selectAll('namespaces')
    .select('u.user_name')
    .where('namespaces.namespace_id', '=', namespaceId)
    .where('namespaces.game_id', '=', gameId)
    .orderBy('u.user_name', 'asc')
    .execute();
}

export async function countCdnAuthUsersExcept(db: Db, namespaceId: string, userName: string) {
  const row = await db
    .selectFrom('namespace_cdn_auth_users')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('namespace_id', '=', namespaceId)
    .where('user_name', '!=', userName)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function upsertCdnAuthUser(
  w: NamespaceWrite,
  row: { user_name: string; password_hash: string; create_ts: number },
) {
  return w.db
    .insertInto('namespace_cdn_auth_users')
    .values({ ...row, namespace_id: w.namespaceId })
    .onConflict((oc) =>
      oc.columns(['namespace_id', 'user_name']).doUpdateSet({ password_hash: row.password_hash }),
    )
    .execute();
}

export async function deleteCdnAuthUser(w: NamespaceWrite, userName: string): Promise<boolean> {
  const result = await w.db
    .deleteFrom('namespace_cdn_auth_users')
    .where('namespace_id', '=', w.namespaceId)
    .where('user_name', '=', userName)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Marks the living namespace deleted and frees its name_id (the row takes its own id as name_id, which no
 * valid name_id can equal: those are at most 16 characters); false when there is none. Its CDN users go at
 * once (no password hash outlives the namespace); lobbies and builds are left to the purge.
 */
export async function markNamespaceDeleted(w: NamespaceWrite, now: number): Promise<boolean> {
  const result = await w.db
    .updateTable('namespaces')
    .set((eb) => ({ delete_ts: now, update_ts: now, name_id: eb.ref('namespace_id') }))
    .where('namespace_id', '=', w.namespaceId)
    .where('game_id', '=', w.gameId)
    .where('delete_ts', 'is', null)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  await w.db.deleteFrom('namespace_cdn_auth_users').where('namespace_id', '=', w.namespaceId).execute();
  return true;
}

/** markNamespaceDeleted for every living namespace of the game (retiring it). */
export async function markGameNamespacesDeleted(w: GameNamespacesWrite, now: number): Promise<void> {
  await w.db
    .deleteFrom('namespace_cdn_auth_users')
    .where('namespace_id', 'in', (eb) =>
      eb
        .selectFrom('namespaces')
        .select('namespaces.namespace_id')
        .where('namespaces.game_id', '=', w.gameId)
        .where('namespaces.delete_ts', 'is', null),
    )
    .execute();
  await w.db
    .updateTable('namespaces')
    .set((eb) => ({ delete_ts: now, update_ts: now, name_id: eb.ref('namespace_id') }))
    .where('game_id', '=', w.gameId)
    .where('delete_ts', 'is', null)
    .execute();
}

/** Deleted namespaces whose purge has not finished, oldest first: a scan of namespaces_purge_pending. */
export function namespacesToPurge(db: Db, limit: number) {
  return db
    .selectFrom('namespaces')
    .select(['namespace_id', 'game_id', 'delete_ts'])
    .where('delete_ts', 'is not', null)
    .where('purge_ts', 'is', null)
    .orderBy('delete_ts', 'asc')
    .limit(limit)
    .execute();
}

/** Records that a deleted namespace's purge finished. */
export async function markNamespacePurged(w: NamespaceWrite, now: number): Promise<void> {
  await w.db
    .updateTable('namespaces')
    .set({ purge_ts: now })
    .where('namespace_id', '=', w.namespaceId)
    .where('game_id', '=', w.gameId)
    .where('delete_ts', 'is not', null)
    .execute();
}

/** How many namespaces of the game are deleted but not yet purged. */
export async function unpurgedNamespacesOf(db: Db, gameId: string): Promise<number> {
  const row = await db
    .selectFrom('namespaces')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('game_id', '=', gameId)
    .where('delete_ts', 'is not', null)
    .where('purge_ts', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every namespace of the game, deleted ones included (the purge of a retired game). */
export async function namespaceIdsOfGame(db: Db, gameId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('namespaces')
    .select('namespace_id')
    .where('game_id', '=', gameId)
    .execute();
  return rows.map((r) => r.namespace_id);
}
