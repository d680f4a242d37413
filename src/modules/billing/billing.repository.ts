import type { GameBillingTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';

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
    .executeTakeFirst();
}

/**
 * Inside a transaction: the game's billing row, made first (trial, version 0) if the game has none yet,
 * so the change that follows has one row to update. Undefined when there is no such game.
 * On PostgreSQL the select becomes `... FOR UPDATE` so concurrent changes of one game queue up (issue 6);
 * SQLite's single writer already serializes them.
 */
export async function lockBillingRow(trx: Db, gameId: string, now: number) {
  const game = await trx
    .selectFrom('games')
    .select('game_id')
    .where('game_id', '=', gameId)
    .executeTakeFirst();
  if (game === undefined) return undefined;
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
  return trx.selectFrom('game_billing').selectAll().where('game_id', '=', gameId).executeTakeFirstOrThrow();
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
 * game_billing_period_end (a test checks the plan). On PostgreSQL this becomes
 * `... FOR UPDATE SKIP LOCKED` (issue 6), so instances running the scheduler side by side each take
 * different rows and none waits on a game another instance is changing.
 */
export function dueBillingQuery(db: Db, now: number, limit: number) {
  return db
    .selectFrom('game_billing')
    .selectAll()
    .where('period_end_ts', '<=', now)
    .orderBy('period_end_ts', 'asc')
    .limit(limit);
}
