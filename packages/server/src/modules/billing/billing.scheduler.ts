import type { Deps } from '../../deps.js';
import * as repo from './billing.repository.js';
import { rollOver } from './billing.rules.js';
import { billingWatchKey, tellPlanChanged, toBillingState } from './billing.service.js';

/** Rows rolled over per transaction: short transactions, so plan changes never wait long behind a tick. */
const BATCH = 100;

/**
 * Rolls billing periods over when they end, with no request needed: a pending downgrade takes effect and
 * a paid plan renews (see rollOver). `runDue` does one pass over every due game (tests call it after
 * moving the clock); in production BackgroundJobs runs it on a timer. Time comes from `deps.clock`.
 */
export class BillingScheduler {
  /** Runs are chained, never overlapping: a runDue call sees the state as of its call. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: Pick<Deps, 'db' | 'clock' | 'notifier' | 'webhooks'>) {}

  /** Rolls over every game whose period has ended by now; resolves with how many changed. */
  runDue(): Promise<number> {
    const run = this.tail.then(() => this.rollOverDue());
    this.tail = run.catch(() => {});
    return run;
  }

  /** Waits for a pass in progress, so the store can close after it. */
  async stop(): Promise<void> {
    await this.tail;
  }

  private async rollOverDue(): Promise<number> {
    const { db, clock, notifier } = this.deps;
    let total = 0;
    for (;;) {
      const now = clock.now();
      const changed = await db.transaction().execute(async (trx) => {
        const rows = await repo.dueBillingQuery(trx, now, BATCH).execute();
        for (const row of rows) {
          // Every due row rolls over: its period ends at or before now.
          const current = toBillingState(row);
          const next = rollOver(current, now);
          if (next !== undefined) {
            await repo.updateBilling(trx, row.game_id, { ...next, update_ts: now });
            await tellPlanChanged(this.deps, trx, row.game_id, current, next);
          }
        }
        return rows.map((row) => row.game_id);
      });
      for (const gameId of changed) notifier.notify(billingWatchKey(gameId));
      total += changed.length;
      // After its roll-over a row's period ends after now (or it has none), so each pass shrinks the set.
      if (changed.length < BATCH) return total;
    }
  }
}
