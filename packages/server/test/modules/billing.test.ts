import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/lib/clock.js';
import { dueBillingQuery } from '../../src/modules/billing/billing.repository.js';
import {
  type BillingBody,
  billingUrl,
  choosePlan,
  createBillingGame,
  readBilling,
  waitForWaiters,
} from '../helpers/billing.js';
import { assertError } from '../helpers/error-answer.js';
import { onPostgres } from '../helpers/postgres.js';
import { queryPlan } from '../helpers/query-plan.js';
import { startTestService, type TestService } from '../helpers/service.js';

const PERIOD = 30 * DAY_MS;
const iso = (ms: number) => new Date(ms).toISOString();

/** The billing minus its watch index, with the subscription as [start, end] in epoch ms. */
function shape(body: BillingBody) {
  const { subscription } = body;
  return {
    active_plan: body.active_plan,
    plan: body.plan,
    subscription:
      subscription === undefined
        ? undefined
        : [Date.parse(subscription.period_start_ts), Date.parse(subscription.period_end_ts)],
  };
}

describe('billing', () => {
  let svc: TestService;
  let games = 0;

  // The timer is off: these tests roll periods over themselves with runDue after moving the clock.
  before(async () => {
    svc = await startTestService({ env: { GCM_BILLING_TICK_MS: '0' } });
  });
  after(async () => {
    await svc.close();
  });

  async function newGame() {
    games += 1;
    return createBillingGame(svc, `billing-${games}`);
  }

  async function expectBilling(
    gameId: string,
    expected: { active_plan: string; plan: string; subscription?: [number, number] },
  ): Promise<BillingBody> {
    const body = await readBilling(svc, gameId);
    assert.deepEqual(shape(body), { subscription: undefined, ...expected });
    if (body.subscription !== undefined) {
      // RFC 3339 with milliseconds and Z, like every timestamp.
      assert.equal(body.subscription.period_start_ts, iso(expected.subscription?.[0] ?? 0));
    }
    return body;
  }

  /**
   * The watch index is opaque (interface 2.6): only that it changes with the data, and stays while the data
   * does, is promised, never what it looks like or that it grows.
   */
  const assertChanged = (now: BillingBody, was: BillingBody) =>
    assert.notEqual(now.watch.index, was.watch.index, 'the index changes with the data');

  /** Moves the clock on by `ms` and runs the roll-over as the timer would; how many games rolled over. */
  function rollOverAfter(ms: number): Promise<number> {
    svc.clock.advance(ms);
    return svc.billingScheduler.runDue();
  }

  it('starts a new game on trial, without a subscription, its index the same at every read', async () => {
    const { gameId } = await newGame();
    const body = await expectBilling(gameId, { active_plan: 'trial', plan: 'trial' });
    assert.equal(typeof body.watch.index, 'string');
    assert.equal((await readBilling(svc, gameId)).watch.index, body.watch.index);
  });

  it('upgrades trial → indie at once, starting a 30-day period now', async () => {
    const { gameId } = await newGame();
    const now = svc.clock.now();
    const trial = await readBilling(svc, gameId);
    await choosePlan(svc, gameId, 'indie');
    const body = await expectBilling(gameId, {
      active_plan: 'indie',
      plan: 'indie',
      subscription: [now, now + PERIOD],
    });
    assertChanged(body, trial);
  });

  it('upgrades indie → studio mid-period at once, with a new period from now', async () => {
    const { gameId } = await newGame();
    await choosePlan(svc, gameId, 'indie');
    svc.clock.advance(10 * DAY_MS);
    const now = svc.clock.now();
    await choosePlan(svc, gameId, 'studio');
    await expectBilling(gameId, { active_plan: 'studio', plan: 'studio', subscription: [now, now + PERIOD] });
  });

  it('downgrades studio → indie at the end of the period: pending first, then in force with a new period', async () => {
    const { gameId } = await newGame();
    const start = svc.clock.now();
    await choosePlan(svc, gameId, 'studio');
    svc.clock.advance(5 * DAY_MS);
    await choosePlan(svc, gameId, 'indie');
    const pending = await expectBilling(gameId, {
      active_plan: 'studio',
      plan: 'indie',
      subscription: [start, start + PERIOD],
    });

    await rollOverAfter(PERIOD - 5 * DAY_MS - 1);
    await expectBilling(gameId, {
      active_plan: 'studio',
      plan: 'indie',
      subscription: [start, start + PERIOD],
    });

    assert.ok((await rollOverAfter(1)) >= 1);
    const rolled = await expectBilling(gameId, {
      active_plan: 'indie',
      plan: 'indie',
      subscription: [start + PERIOD, start + 2 * PERIOD],
    });
    assertChanged(rolled, pending);
  });

  it('downgrades to trial at the end of the period, ending the subscription', async () => {
    const { gameId } = await newGame();
    const start = svc.clock.now();
    await choosePlan(svc, gameId, 'indie');
    await choosePlan(svc, gameId, 'trial');
    await expectBilling(gameId, {
      active_plan: 'indie',
      plan: 'trial',
      subscription: [start, start + PERIOD],
    });
    await rollOverAfter(PERIOD);
    await expectBilling(gameId, { active_plan: 'trial', plan: 'trial' });
  });

  it('cancels a pending downgrade when the active plan is chosen again; the plan then renews', async () => {
    const { gameId } = await newGame();
    const start = svc.clock.now();
    await choosePlan(svc, gameId, 'studio');
    await choosePlan(svc, gameId, 'trial');
    svc.clock.advance(DAY_MS);
    await choosePlan(svc, gameId, 'studio');
    await expectBilling(gameId, {
      active_plan: 'studio',
      plan: 'studio',
      subscription: [start, start + PERIOD],
    });
    await rollOverAfter(PERIOD - DAY_MS);
    await expectBilling(gameId, {
      active_plan: 'studio',
      plan: 'studio',
      subscription: [start + PERIOD, start + 2 * PERIOD],
    });
  });

  it('renews a paid plan with no pending change for the next period, bumping the index', async () => {
    const { gameId } = await newGame();
    const start = svc.clock.now();
    await choosePlan(svc, gameId, 'indie');
    const before = await readBilling(svc, gameId);
    await rollOverAfter(PERIOD);
    const after = await expectBilling(gameId, {
      active_plan: 'indie',
      plan: 'indie',
      subscription: [start + PERIOD, start + 2 * PERIOD],
    });
    assertChanged(after, before);
  });

  it('after a time when nothing ran, renews into the period that contains now, on the same cycle', async () => {
    const { gameId } = await newGame();
    const start = svc.clock.now();
    await choosePlan(svc, gameId, 'indie');
    await rollOverAfter(95 * DAY_MS);
    await expectBilling(gameId, {
      active_plan: 'indie',
      plan: 'indie',
      subscription: [start + 3 * PERIOD, start + 4 * PERIOD],
    });
  });

  it('judges a choice against the plan really in force when the scheduler has not run yet', async () => {
    const { gameId } = await newGame();
    await choosePlan(svc, gameId, 'studio');
    await choosePlan(svc, gameId, 'indie');
    svc.clock.advance(PERIOD + DAY_MS);
    // The downgrade is due: indie is in force, so studio is an upgrade with a period from now.
    const now = svc.clock.now();
    await choosePlan(svc, gameId, 'studio');
    await expectBilling(gameId, { active_plan: 'studio', plan: 'studio', subscription: [now, now + PERIOD] });
  });

  it('neither bumps the index nor wakes anyone for a choice that changes nothing', async () => {
    const { gameId } = await newGame();
    const fresh = await readBilling(svc, gameId);
    await choosePlan(svc, gameId, 'trial');
    assert.equal((await readBilling(svc, gameId)).watch.index, fresh.watch.index);
    await choosePlan(svc, gameId, 'indie');
    const first = await readBilling(svc, gameId);
    await choosePlan(svc, gameId, 'indie');
    await choosePlan(svc, gameId, 'studio');
    await choosePlan(svc, gameId, 'trial');
    const pending = await readBilling(svc, gameId);
    await choosePlan(svc, gameId, 'trial');
    assert.equal((await readBilling(svc, gameId)).watch.index, pending.watch.index);
    assertChanged(pending, first);
  });

  it('refuses an unknown plan with BILLING_INVALID_PLAN and a non-string with API_BAD_BODY', async () => {
    const { gameId } = await newGame();
    for (const plan of ['enterprise', '', 'Indie', 'trial ']) {
      const res = await svc.call('PUT', `${billingUrl(gameId)}/plan`, { body: { plan } });
      assertError(res, 400, 'BILLING_INVALID_PLAN');
      assert.deepEqual(res.json<{ metadata: unknown }>().metadata, {
        field: 'plan',
        plans: ['trial', 'indie', 'studio'],
      });
    }
    for (const body of [{ plan: 5 }, { plan: null }, {}]) {
      assertError(await svc.call('PUT', `${billingUrl(gameId)}/plan`, { body }), 400, 'API_BAD_BODY');
    }
    await expectBilling(gameId, { active_plan: 'trial', plan: 'trial' });
  });

  it('lets the game cloud token read and choose; refuses no token, another game and an unknown game', async () => {
    const own = await newGame();
    const other = await newGame();
    const put = (gameId: string, token: string | null) =>
      svc.call('PUT', `${billingUrl(gameId)}/plan`, { token, body: { plan: 'indie' } });

    assert.equal((await put(own.gameId, own.token)).statusCode, 204);
    const res = await svc.call('GET', billingUrl(own.gameId), { token: own.token });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json<BillingBody>().active_plan, 'indie');

    assertError(await svc.call('GET', billingUrl(own.gameId), { token: null }), 401, 'API_UNAUTHORIZED');
    assertError(await put(own.gameId, null), 401, 'API_UNAUTHORIZED');
    assertError(await svc.call('GET', billingUrl(own.gameId), { token: other.token }), 403, 'API_FORBIDDEN');
    assertError(await put(own.gameId, other.token), 403, 'API_FORBIDDEN');
    const unknown = '0190a0a0-0000-7000-8000-000000000000';
    assertError(await svc.call('GET', billingUrl(unknown)), 404, 'GAME_NOT_FOUND');
    assertError(await svc.call('GET', `${billingUrl(unknown)}?watch_index=0`), 404, 'GAME_NOT_FOUND');
    assertError(await put(unknown, svc.operatorToken), 404, 'GAME_NOT_FOUND');
  });

  it('wakes a watcher when a downgrade rolls over by the clock', async () => {
    const { gameId, token } = await newGame();
    await choosePlan(svc, gameId, 'studio');
    await choosePlan(svc, gameId, 'indie');
    const before = await readBilling(svc, gameId);
    const watching = svc.call('GET', `${billingUrl(gameId)}?watch_index=${before.watch.index}`, { token });
    await waitForWaiters(svc, 1);

    assert.ok((await rollOverAfter(PERIOD)) >= 1);
    const res = await watching;
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<BillingBody>();
    assert.equal(body.active_plan, 'indie');
    assert.equal(body.plan, 'indie');
    assertChanged(body, before);
    assert.equal(svc.deps.notifier.waiting, 0);
  });

  it('reads due rows with a range scan of the period-end index, in index order', async () => {
    const plan = await queryPlan(svc.deps.db, dueBillingQuery(svc.deps.db, svc.clock.now(), 100).compile());
    if (onPostgres) {
      assert.match(plan, /Index Scan using game_billing_period_end on game_billing/, plan);
      assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
    } else {
      assert.match(
        plan,
        /SEARCH game_billing USING INDEX game_billing_period_end \(period_end_ts<\?\)/,
        plan,
      );
      assert.doesNotMatch(plan, /SCAN|TEMP B-TREE/, plan);
    }
  });
});

describe('billing roll-over scheduler', () => {
  it('rolls over more games than one batch in a single runDue', async () => {
    const svc = await startTestService({ env: { GCM_BILLING_TICK_MS: '0' } });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 105; i++) {
        const { gameId } = await createBillingGame(svc, `batch-${i}`);
        await choosePlan(svc, gameId, i % 2 === 0 ? 'indie' : 'studio');
        ids.push(gameId);
      }
      svc.clock.advance(PERIOD);
      assert.equal(await svc.billingScheduler.runDue(), 105);
      assert.equal(await svc.billingScheduler.runDue(), 0);
      const last = await readBilling(svc, ids[104] ?? '');
      assert.equal(Date.parse(last.subscription?.period_end_ts ?? ''), svc.clock.now() + PERIOD);
    } finally {
      await svc.close();
    }
  });

  it('runs on its timer without any request, and the watcher wakes', async () => {
    const svc = await startTestService({ env: { GCM_BILLING_TICK_MS: '20' } });
    try {
      const { gameId } = await createBillingGame(svc, 'timer');
      await choosePlan(svc, gameId, 'indie');
      await choosePlan(svc, gameId, 'trial');
      const before = await readBilling(svc, gameId);
      const watching = svc.call('GET', `${billingUrl(gameId)}?watch_index=${before.watch.index}`);
      await waitForWaiters(svc, 1);
      svc.clock.advance(PERIOD);
      const res = await watching;
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<BillingBody>();
      assert.deepEqual(shape(body), { active_plan: 'trial', plan: 'trial', subscription: undefined });
    } finally {
      await svc.close();
    }
  });
});
