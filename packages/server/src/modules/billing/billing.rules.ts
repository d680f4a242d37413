import { PLANS, type Plan } from '@gcm/contract';
import { DAY_MS } from '../../lib/clock.js';

/**
 * The plan rules as pure functions (state and time in, new state or "no change" out), so every
 * transition is decided in one place and the PUT and the roll-over scheduler cannot disagree.
 */

/** `trial` is free and has no subscription; every other plan is paid by the period. */
export const FREE_PLAN: Plan = 'trial';
export const PERIOD_MS = 30 * DAY_MS;

export interface BillingState {
  /** Chosen going forward. */
  plan: Plan;
  /** In force now. */
  active_plan: Plan;
  /** Both set exactly while a paid plan is in force. */
  period_start_ts: number | null;
  period_end_ts: number | null;
}

/** A game that never chose a plan (new, or older than billing): trial, no subscription. */
export const INITIAL_STATE: BillingState = {
  plan: FREE_PLAN,
  active_plan: FREE_PLAN,
  period_start_ts: null,
  period_end_ts: null,
};

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

const rank = (plan: Plan) => PLANS.indexOf(plan);

/**
 * The state after the game chooses `plan` at `now`, or undefined when nothing changes. Call it on a state
 * already rolled over to `now` (see rollOver).
 * - Upgrade (above the active plan): in force at once, and a new period starts now.
 * - The active plan again: any pending downgrade is cancelled.
 * - Downgrade (below the active plan): becomes `plan` now and the active plan at the period's end.
 */
export function choosePlan(state: BillingState, plan: Plan, now: number): BillingState | undefined {
  if (rank(plan) > rank(state.active_plan)) {
    return { plan, active_plan: plan, period_start_ts: now, period_end_ts: now + PERIOD_MS };
  }
  // Otherwise only the chosen plan can change: choosing it again changes nothing.
  return plan === state.plan ? undefined : { ...state, plan };
}

/**
 * The state once the current period has ended at `now`, or undefined when it has not (or there is none).
 * The chosen plan takes effect: trial ends the subscription; a paid plan (a pending downgrade, or the same
 * plan renewing) gets the next period. Periods follow each other without gaps; after a time when nothing
 * ran (the service was down), the period that contains `now` is the one that starts.
 */
export function rollOver(state: BillingState, now: number): BillingState | undefined {
  if (state.period_end_ts === null || state.period_end_ts > now) return undefined;
  if (state.plan === FREE_PLAN) return INITIAL_STATE;
  const missed = Math.floor((now - state.period_end_ts) / PERIOD_MS);
  const start = state.period_end_ts + missed * PERIOD_MS;
  return {
    plan: state.plan,
    active_plan: state.plan,
    period_start_ts: start,
    period_end_ts: start + PERIOD_MS,
  };
}
