import { sql } from 'kysely';
import type { DeviceLinksTable } from '../../db/database.js';
import { type Db, isPostgres } from '../../db/open-db.js';

export function insertLink(db: Db, row: DeviceLinksTable) {
  return db.insertInto('device_links').values(row).execute();
}

export function findLink(db: Db, linkId: string) {
  return db.selectFrom('device_links').selectAll().where('link_id', '=', linkId).executeTakeFirst();
}

/**
 * Serialises link starts of one client address across instances for the rest of the transaction, so the
 * pending-links count it reads cannot be overtaken by another start. SQLite has one writer anyway.
 */
export async function lockClientAddress(db: Db, clientAddress: string): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`device-link-start:${clientAddress}`}, 0))`.execute(
    db,
  );
}

/** The address's links neither completed nor expired at `now`: how many, and when the first of them ends. */
export async function pendingLinksOf(db: Db, clientAddress: string, now: number) {
  const row = await db
    .selectFrom('device_links')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.min('expire_ts').as('first_expire_ts'),
    ])
    .where('client_address', '=', clientAddress)
    .where('expire_ts', '>', now)
    .where('token_id', 'is', null)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), firstExpireTs: row.first_expire_ts ?? now };
}

export type DeviceLinkRow = NonNullable<Awaited<ReturnType<typeof findLink>>>;

/**
 * Attaches the minted token to a link that has none yet; false when another completion got there first
 * (the `token_id is null` condition is what makes a second token impossible, whatever the interleaving).
 */
export async function attachToken(
  db: Db,
  linkId: string,
  values: { gameId: string; tokenId: string; completeTs: number },
): Promise<boolean> {
  const result = await db
    .updateTable('device_links')
    .set((eb) => ({
      game_id: values.gameId,
      token_id: values.tokenId,
      complete_ts: values.completeTs,
      version: eb('version', '+', 1),
    }))
    .where('link_id', '=', linkId)
    .where('token_id', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** True when there was such a link. */
export async function deleteLink(db: Db, linkId: string): Promise<boolean> {
  const result = await db.deleteFrom('device_links').where('link_id', '=', linkId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Deletes every link expired by `now`; returns their ids (their watchers are woken). */
export async function deleteExpiredLinks(db: Db, now: number): Promise<string[]> {
  const rows = await db
    .deleteFrom('device_links')
    .where('expire_ts', '<=', now)
    .returning('link_id')
    .execute();
  return rows.map((row) => row.link_id);
}
