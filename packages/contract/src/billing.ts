import { type Static, Type } from 'typebox';
import { Text, Timestamp } from './common.js';
import { PLANS } from './limits.js';
import { WatchQuery, WatchSchema } from './watch.js';

const PlanName = Type.Enum(PLANS, { description: `${PLANS.join(' < ')} (cheapest first); trial is free` });

export const BillingQuery = Type.Object(WatchQuery);

/** Interface 2.4. */
export const GameBilling = Type.Object({
  active_plan: PlanName,
  plan: PlanName,
  subscription: Type.Optional(
    Type.Object(
      { period_start_ts: Timestamp, period_end_ts: Timestamp },
      { description: 'present while a paid plan is in force: the current 30-day period' },
    ),
  ),
  watch: WatchSchema,
});

/**
 * Interface 4.11. `plan` is any string here so that an unknown plan is BILLING_INVALID_PLAN from the
 * service (listing the allowed ones), not a generic schema error; a non-string is still API_BAD_BODY.
 */
export const UpdatePlanBody = Type.Object({
  plan: Text(64, { description: `one of ${PLANS.join(', ')}` }),
});

export type BillingQuery = Static<typeof BillingQuery>;
export type GameBilling = Static<typeof GameBilling>;
export type UpdatePlanBody = Static<typeof UpdatePlanBody>;
