import type { GameBillingTable } from '../../db/database.js';
import { type Db, forUpdate, isPostgres } from '../../db/open-db.js';
import { lockGame } from '../../db/scope.js';

/**
 * The game and its billing row in one read: undefined when there is no such game; null billing columns
 * when the game never changed its plan (no row yet).
 */
export function findGameBilling(db: Db, gameId: string) {
  return db
    .selectFrom('games')
    .leftJoin('game_billing', 'game_billing.game_id', 'games.game_id')
    .select([
      'game_billing.plan',
      'game_billing.active_plan',
      'game_billing.period_start_ts',
      'game_billing.period_end_ts',
      'game_billing.version',
    ])
    .where('games.game_id', '=', gameId)
    .where('games.delete_ts', 'is', null)
    .executeTakeFirst();
}

/**
 * Inside a transaction: the game's billing row, made first (trial, version 0) if the game has none yet,
 * so the change that follows has one row to update. Undefined when there is no such living game. The game
 * row is locked first, so a change cannot slip in after the game's retirement ended its billing.
 * On PostgreSQL the row is read `FOR UPDATE`, so concurrent changes of one game (on any instance) queue up
 * and each decides on the row as the one before it left it; SQLite's single writer already serializes them.
 */
export async function lockBillingRow(trx: Db, gameId: string, now: number) {
  if (!(await lockGame(trx, gameId))) return undefined;
  await trx
    .insertInto('game_billing')
    .values({
      game_id: gameId,
      plan: 'trial',
      active_plan: 'trial',
      period_start_ts: null,
      period_end_ts: null,
      version: 0,
      update_ts: now,
    })
    .onConflict((oc) => oc.column('game_id').doNothing())
    .execute();
  return forUpdate(
    trx,
    trx.selectFrom('game_billing').selectAll().where('game_id', '=', gameId),
  ).executeTakeFirstOrThrow();
}

export type BillingChange = Pick<
  GameBillingTable,
  'plan' | 'active_plan' | 'period_start_ts' | 'period_end_ts' | 'update_ts'
>;

/** Writes a change and bumps the version (the watch index) in the same statement. */
export async function updateBilling(trx: Db, gameId: string, change: BillingChange): Promise<void> {
  await trx
    .updateTable('game_billing')
    .set((eb) => ({ ...change, version: eb('version', '+', 1) }))
    .where('game_id', '=', gameId)
    .execute();
}

/**
 * Rows whose period has ended by `now`, oldest end first, at most `limit`: a range scan of
 * game_billing_period_end (a test checks the plan). On PostgreSQL the rows are taken
 * `FOR UPDATE SKIP LOCKED`: passes running side by side (a lease hand-over, a manual run) each take different
 * rows, none waits on a game a plan change holds, and a row rolled over meanwhile is re-checked against
 * `period_end_ts` and left out, so no period rolls over twice.
 */
export function dueBillingQuery(db: Db, now: number, limit: number) {
  const query = db
    .selectFrom('game_billing')
    .selectAll()
    .where('period_end_ts', '<=', now)
    .orderBy('period_end_ts', 'asc')
    .limit(limit);
  return isPostgres(db) ? query.forUpdate().skipLocked() : query;
}

export async function deleteBilling(trx: Db, gameId: string): Promise<void> {
  await trx.deleteFrom('game_billing').where('game_id', '=', gameId).execute();
}
