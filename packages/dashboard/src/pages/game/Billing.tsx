import { roleCovers } from '@gcm/contract/roles';
import { useEffect, useId, useRef, useState } from 'react';
import {
  type GameBilling,
  PLANS,
  type Plan,
  useBilling,
  useBillingWatch,
  useUpdatePlan,
} from '../../api/live';
import { useInspect, useTeamRole } from '../../api/queries';
import { useGameContext } from '../../components/GameLayout';
import { useTitle } from '../../components/Layout';
import { ErrorMessage, Loading, When } from '../../components/status';
import './live.css';

const PLAN_NOTES: Record<Plan, string> = {
  trial: 'Trial (free)',
  indie: 'Indie',
  studio: 'Studio',
};

const rank = (plan: Plan) => PLANS.indexOf(plan);

/** `/teams/:teamId/games/:gameId/billing`: the plan in force, the plan chosen, the period; the owner changes it. */
export function BillingPage() {
  const { teamId, gameId, game } = useGameContext();
  useTitle(`${game.display_name}: billing`);
  const billing = useBilling(gameId);
  useBillingWatch(gameId, billing.data?.watch.index);
  const role = useTeamRole(teamId);
  const inspect = useInspect(true);

  let body: React.ReactNode;
  if (billing.isPending) body = <Loading what="billing" />;
  else if (billing.isError) body = <ErrorMessage error={billing.error} title="Could not load the billing" />;
  else
    body = (
      <>
        <Summary billing={billing.data} />
        <section aria-labelledby="change-plan">
          <h2 id="change-plan">Change the plan</h2>
          {inspect.isPending ? (
            <Loading what="your role" />
          ) : roleCovers(role, 'owner') ? (
            <PlanForm key={billing.data.plan} gameId={gameId} billing={billing.data} />
          ) : (
            <p className="fine">
              Only the team’s owner can change the plan{role === undefined ? '' : `; your role is ${role}`}.
            </p>
          )}
        </section>
      </>
    );

  return (
    <>
      <h1>Billing</h1>
      <p className="lead">
        The game’s plan and its current period. Changes made anywhere show here as they happen.
      </p>
      {body}
    </>
  );
}

function Summary({ billing }: { billing: GameBilling }) {
  const { active_plan, plan, subscription } = billing;
  const pending = plan !== active_plan;
  return (
    // Polite: a plan change made elsewhere is read out once it arrives through the watch.
    <section aria-labelledby="plan-now" aria-live="polite" className="live-card">
      <h2 id="plan-now" className="visually-hidden">
        Current plan
      </h2>
      <dl className="live-facts">
        <div>
          <dt>Plan in force</dt>
          <dd>{PLAN_NOTES[active_plan]}</dd>
        </div>
        <div>
          <dt>Chosen plan</dt>
          <dd>{PLAN_NOTES[plan]}</dd>
        </div>
        <div>
          <dt>Current period</dt>
          <dd>
            {subscription === undefined ? (
              'None: the trial has no period'
            ) : (
              <>
                <When ts={subscription.period_start_ts} /> – <When ts={subscription.period_end_ts} />
              </>
            )}
          </dd>
        </div>
        {subscription !== undefined && (
          <div>
            <dt>{pending ? 'Period ends' : 'Renews'}</dt>
            <dd>
              <When ts={subscription.period_end_ts} />
            </dd>
          </div>
        )}
      </dl>
      {pending && (
        <div className="live-pending">
          <p>
            <strong>Pending downgrade</strong> to {PLAN_NOTES[plan]}: {PLAN_NOTES[active_plan]} stays in force
            until the period ends
            {subscription === undefined ? (
              '.'
            ) : (
              <>
                {' '}
                on <When ts={subscription.period_end_ts} />.
              </>
            )}
          </p>
        </div>
      )}
    </section>
  );
}

/** What choosing `next` does, in the service's terms (README "Billing and watch"). */
function effectOf(billing: GameBilling, next: Plan): string {
  if (next === billing.active_plan)
    return 'This cancels the pending downgrade; the current period goes on unchanged.';
  if (rank(next) > rank(billing.active_plan))
    return `An upgrade: ${PLAN_NOTES[next]} is in force at once and a new 30-day period starts now.`;
  return `A downgrade: ${PLAN_NOTES[billing.active_plan]} stays in force until the end of the current period, then ${PLAN_NOTES[next]} takes over.`;
}

function PlanForm({ gameId, billing }: { gameId: string; billing: GameBilling }) {
  const [choice, setChoice] = useState<Plan>(billing.plan);
  const [confirming, setConfirming] = useState(false);
  const update = useUpdatePlan(gameId);
  const changed = choice !== billing.plan;
  const selectId = useId();
  const confirmRef = useRef<HTMLButtonElement>(null);
  // The button pressed is gone once the confirm step shows: keyboard focus moves to its confirm button.
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);

  return (
    <form
      className="live-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (changed) setConfirming(true);
      }}
    >
      <label htmlFor={selectId}>Plan</label>
      <select
        id={selectId}
        value={choice}
        onChange={(event) => {
          setChoice(event.target.value as Plan);
          setConfirming(false);
          update.reset();
        }}
        disabled={update.isPending}
      >
        {PLANS.map((plan) => (
          <option key={plan} value={plan}>
            {PLAN_NOTES[plan]}
            {plan === billing.plan ? ' (chosen now)' : ''}
          </option>
        ))}
      </select>
      {!confirming ? (
        <div className="live-actions">
          <button type="submit" disabled={!changed}>
            Change plan
          </button>
          {!changed && <span className="fine">Choose another plan to change it.</span>}
        </div>
      ) : (
        <div className="notice live-card">
          <p>
            Change the plan from {PLAN_NOTES[billing.plan]} to {PLAN_NOTES[choice]}?{' '}
            {effectOf(billing, choice)}
          </p>
          <div className="live-actions">
            <button
              ref={confirmRef}
              type="button"
              disabled={update.isPending}
              onClick={() => update.mutate(choice, { onSuccess: () => setConfirming(false) })}
            >
              {update.isPending ? 'Changing…' : 'Confirm change'}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {update.isError && <ErrorMessage error={update.error} title="Could not change the plan" />}
    </form>
  );
}
