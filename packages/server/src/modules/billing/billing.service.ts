import { PLANS, type Plan } from '@gcm/contract';
import type { Db } from '../../db/open-db.js';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { toTimestamp } from '../../lib/clock.js';
import * as repo from './billing.repository.js';
import { type BillingState, choosePlan, INITIAL_STATE, isPlan, rollOver } from './billing.rules.js';

/** The change-notifier key of a game's billing: what GET .../billing waits on and every change notifies. */
export function billingWatchKey(gameId: string): string {
  return `billing:${gameId}`;
}

function storedPlan(value: string): Plan {
  if (!isPlan(value)) throw new Error(`game_billing holds an unknown plan "${value}"`);
  return value;
}

export function toBillingState(row: {
  plan: string;
  active_plan: string;
  period_start_ts: number | null;
  period_end_ts: number | null;
}): BillingState {
  return {
    plan: storedPlan(row.plan),
    active_plan: storedPlan(row.active_plan),
    period_start_ts: row.period_start_ts,
    period_end_ts: row.period_end_ts,
  };
}

/** Interface 2.4 without `watch`: `subscription` only while a paid plan is in force. */
export function toBillingView(state: BillingState) {
  const { period_start_ts: start, period_end_ts: end } = state;
  return {
    active_plan: state.active_plan,
    plan: state.plan,
    ...(start === null || end === null
      ? {}
      : { subscription: { period_start_ts: toTimestamp(start), period_end_ts: toTimestamp(end) } }),
  };
}

/** The game's billing and its version (the watch index); a game that never chose a plan is on trial, 0. */
export async function getBilling(deps: Deps, gameId: string) {
  const row = await repo.findGameBilling(deps.db, gameId);
  if (row === undefined) throw errors.gameNotFound();
  if (row.plan === null || row.active_plan === null || row.version === null) {
    return { data: toBillingView(INITIAL_STATE), version: 0n };
  }
  const state = toBillingState({ ...row, plan: row.plan, active_plan: row.active_plan });
  return { data: toBillingView(state), version: BigInt(row.version) };
}

/**
 * games.billing.updatePlan (4.11). A period that has already ended is rolled over first (the scheduler may
 * not have run yet), so the choice is judged against the plan really in force. Waiters are woken after
 * the commit; a choice that changes nothing neither bumps the version nor wakes anyone.
 */
export async function updatePlan(deps: Deps, gameId: string, plan: string): Promise<void> {
  if (!isPlan(plan)) throw errors.billingInvalidPlan(plan, PLANS);
  const now = deps.clock.now();
  const changed = await deps.db.transaction().execute(async (trx) => {
    const row = await repo.lockBillingRow(trx, gameId, now);
    if (row === undefined) throw errors.gameNotFound();
    const current = toBillingState(row);
    const rolled = rollOver(current, now);
    const next = choosePlan(rolled ?? current, plan, now) ?? rolled;
    if (next === undefined) return false;
    await repo.updateBilling(trx, gameId, { ...next, update_ts: now });
    await tellPlanChanged(deps, trx, gameId, current, next);
    return true;
  });
  if (changed) deps.notifier.notify(billingWatchKey(gameId));
}

/**
 * `plan.changed` for the webhooks, in the transaction of the change: a choice, or a roll-over that put a
 * chosen downgrade in force. A renewal alone (same plans, a new period) is not a change of plan.
 */
export async function tellPlanChanged(
  deps: Pick<Deps, 'webhooks'>,
  trx: Db,
  gameId: string,
  before: BillingState,
  after: BillingState,
): Promise<void> {
  if (before.plan === after.plan && before.active_plan === after.active_plan) return;
  await deps.webhooks.gameEvent(trx, gameId, {
    type: 'plan.changed',
    resourceKey: `billing:${gameId}`,
    data: { ...toBillingView(after), previous: toBillingView(before) },
  });
}

/**
 * Retiring a game, inside its transaction (which holds the game's lock, as plan changes do): the billing
 * row goes, so the subscription ends now, nothing rolls over again and nothing more is owed.
 */
export async function endBilling(trx: Db, gameId: string): Promise<void> {
  await repo.deleteBilling(trx, gameId);
}
