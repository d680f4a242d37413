import type { Selectable } from 'kysely';
import type { IdempotencyKeysTable } from '../db/database.js';
import type { Db } from '../db/open-db.js';

/** A request that uses a key: whose, which key, and what request it stands for. */
export interface KeyUse {
  scope: string;
  key: string;
  route: string;
  requestSha256: string;
}

/** What a request's check reads of a key's row: all but the key's own ids and its creation time. */
const STORED_COLUMNS = [
  'route',
  'request_sha256',
  'claim_id',
  'claim_expire_ts',
  'status_code',
  'answer',
  'expire_ts',
] as const;

/** A key's row as read: its columns' types come from the table's (db/database.ts), not a copy of them. */
export type StoredKey = Pick<Selectable<IdempotencyKeysTable>, (typeof STORED_COLUMNS)[number]>;

/** A new hold on a key: who holds it, until when, and when the key itself expires. */
export interface Claim {
  claimId: string;
  claimExpireTs: number;
  createTs: number;
  expireTs: number;
}

/** The row's columns for a claim of `use`: a fresh claim and a take-over write the same ones. */
function claimedColumns(use: KeyUse, claim: Claim) {
  return {
    route: use.route,
    request_sha256: use.requestSha256,
    claim_id: claim.claimId,
    claim_expire_ts: claim.claimExpireTs,
    status_code: null,
    answer: null,
    create_ts: claim.createTs,
    expire_ts: claim.expireTs,
  };
}

/** Inserts the claim of a key nobody holds; false when the row exists (the primary key decides races). */
export async function insertClaim(db: Db, use: KeyUse, claim: Claim): Promise<boolean> {
  const row = await db
    .insertInto('idempotency_keys')
    .values({ scope: use.scope, idem_key: use.key, ...claimedColumns(use, claim) })
    .onConflict((oc) => oc.columns(['scope', 'idem_key']).doNothing())
    .returning('claim_id')
    .executeTakeFirst();
  return row !== undefined;
}

export function findKey(db: Db, scope: string, key: string): Promise<StoredKey | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select(STORED_COLUMNS)
    .where('scope', '=', scope)
    .where('idem_key', '=', key)
    .executeTakeFirst();
}

/**
 * Takes over a row as it was read (`seen`): an expired key for a new request, or a claim whose request
 * never answered. Conditional on the row being unchanged since, so of two instances taking over the same
 * row at once only one succeeds.
 */
export async function takeOver(db: Db, use: KeyUse, seen: StoredKey, claim: Claim): Promise<boolean> {
  let query = db
    .updateTable('idempotency_keys')
    .set(claimedColumns(use, claim))
    .where('scope', '=', use.scope)
    .where('idem_key', '=', use.key)
    .where('expire_ts', '=', seen.expire_ts);
  query =
    seen.claim_id === null
      ? query.where('claim_id', 'is', null)
      : query.where('claim_id', '=', seen.claim_id);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Stores the answer of a claimed key; false when the claim was taken over meanwhile. */
export async function storeAnswer(
  db: Db,
  scope: string,
  key: string,
  claimId: string,
  answer: { statusCode: number; body: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ claim_id: null, claim_expire_ts: null, status_code: answer.statusCode, answer: answer.body })
    .where('scope', '=', scope)
    .where('idem_key', '=', key)
    .where('claim_id', '=', claimId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Frees a claimed key whose request did not succeed, so a retry with it runs anew. */
export async function releaseClaim(db: Db, scope: string, key: string, claimId: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', scope)
    .where('idem_key', '=', key)
    .where('claim_id', '=', claimId)
    .execute();
}

/**
 * Deletes up to `batch` of the keys that expired by `now` (along idempotency_keys_expire), one statement, so
 * instances running it at once do no harm; a bounded batch keeps each statement's locks (SQLite's write lock
 * above all) short after a burst of keys expires at once.
 */
export async function deleteExpiredKeys(db: Db, now: number, batch: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where((eb) =>
      eb(
        eb.refTuple('scope', 'idem_key'),
        'in',
        eb
          .selectFrom('idempotency_keys')
          .select(['scope', 'idem_key'])
          .where('expire_ts', '<=', now)
          .limit(batch)
          .$asTuple('scope', 'idem_key'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
