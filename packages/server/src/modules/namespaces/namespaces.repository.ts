import type { NamespacesTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';
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

type Editable = Partial<Omit<NamespacesTable, 'namespace_id' | 'game_id' | 'create_ts'>>;

export function insertNamespace(w: NamespaceWrite, row: Omit<NamespacesTable, 'namespace_id' | 'game_id'>) {
  return w.db
    .insertInto('namespaces')
    .values({ ...row, namespace_id: w.namespaceId, game_id: w.gameId })
    .execute();
}

export function findNamespace(db: Db, gameId: string, namespaceId: string) {
  return db
    .selectFrom('namespaces')
    .selectAll()
    .where('namespace_id', '=', namespaceId)
    .where('game_id', '=', gameId)
    .executeTakeFirst();
}

export async function namespaceNameIdTaken(db: Db, gameId: string, nameId: string): Promise<boolean> {
  const row = await db
    .selectFrom('namespaces')
    .select('namespace_id')
    .where('game_id', '=', gameId)
    .where('name_id', '=', nameId)
    .executeTakeFirst();
  return row !== undefined;
}

export function listNamespaceSummaries(db: Db, gameId: string) {
  return db
    .selectFrom('namespaces')
    .select(['namespace_id', 'version_id', 'name_id', 'display_name', 'create_ts'])
    .where('game_id', '=', gameId)
    .orderBy('create_ts', 'asc')
    .orderBy('namespace_id', 'asc')
    .execute();
}

/** A page of the game's namespaces, oldest first, after `after`: a range of namespaces_game_create. */
export function listNamespacesQuery(db: Db, gameId: string, after: PageKey | undefined, limit: number) {
  let query = db
    .selectFrom('namespaces')
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

/**
 * Updates the namespace row and reports whether it exists. Inside a transaction this also takes the row's
 * write lock, which serialises concurrent edits of the same namespace on PostgreSQL as on SQLite.
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
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The namespace and the names of its CDN users in one round-trip: one row per user (at most 32), or one row
 * with a null user_name when it has none; no rows when there is no such namespace in the game.
 */
export function findNamespaceWithUserNames(db: Db, gameId: string, namespaceId: string) {
  return db
    .selectFrom('namespaces')
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
