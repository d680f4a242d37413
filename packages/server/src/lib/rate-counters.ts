import type { Db } from '../db/open-db.js';
import type { Clock } from './clock.js';

/** One key's fixed window: the hits counted in it and when it ends. */
export interface WindowCount {
  hits: number;
  resetTs: number;
}

/**
 * Fixed-window hit counters by key (`<limit>:<client address>`). A window starts with the first hit after
 * the previous one ended and lasts `windowMs`; hits within it only ever add up, so "over the limit until
 * resetTs" never becomes false early, which is what lets callers cache a refusal until then.
 */
export interface RateCounters {
  /** Counts one hit and answers the window with it. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** The running window, if any, without counting. */
  peek(key: string): Promise<WindowCount | undefined>;
  /** Starts a new window of no hits now, whatever ran before (a captcha passed: its allowance starts over). */
  restart(key: string, windowMs: number): Promise<void>;
  /** Forgets windows that have ended; answers how many. */
  prune(): Promise<number>;
}

/**
 * The embedded store's counters: in this process's memory, which is exact because one process owns the
 * store. Bounded: when full, ended windows go first, then the oldest, so a flood of fresh addresses costs
 * memory up to the bound only (an evicted address starts over, a price paid only under that flood).
 */
export class MemoryCounters implements RateCounters {
  private readonly windows = new Map<string, WindowCount>();

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries = 100_000,
  ) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.clock.now();
    const running = this.windows.get(key);
    if (running !== undefined && running.resetTs > now) {
      running.hits += 1;
      return { ...running };
    }
    if (running === undefined && this.windows.size >= this.maxEntries) this.makeRoom(now);
    const fresh = { hits: 1, resetTs: now + windowMs };
    this.windows.set(key, fresh);
    return { ...fresh };
  }

  async peek(key: string): Promise<WindowCount | undefined> {
    const running = this.windows.get(key);
    return running !== undefined && running.resetTs > this.clock.now() ? { ...running } : undefined;
  }

  async restart(key: string, windowMs: number): Promise<void> {
    const now = this.clock.now();
    if (!this.windows.has(key) && this.windows.size >= this.maxEntries) this.makeRoom(now);
    // Deleted first, so the key moves to the end of the insertion order: the newest window, evicted last.
    this.windows.delete(key);
    this.windows.set(key, { hits: 0, resetTs: now + windowMs });
  }

  async prune(): Promise<number> {
    return this.dropEnded(this.clock.now());
  }

  private dropEnded(now: number): number {
    let dropped = 0;
    for (const [key, window] of this.windows) {
      if (window.resetTs <= now) {
        this.windows.delete(key);
        dropped += 1;
      }
    }
    return dropped;
  }

  private makeRoom(now: number): void {
    this.dropEnded(now);
    // Maps iterate in insertion order: the first key is the oldest window.
    while (this.windows.size >= this.maxEntries) {
      const oldest = this.windows.keys().next().value;
      if (oldest === undefined) break;
      this.windows.delete(oldest);
    }
  }
}

/**
 * Counters in the `rate_limit_windows` table, shared by every instance on one PostgreSQL. A hit is one
 * upsert: the row is locked by the conflict, so concurrent hits from several instances add up exactly and
 * one of them, never two, starts a new window once the old one ended.
 */
export class TableCounters implements RateCounters {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.clock.now();
    const row = await this.db
      .insertInto('rate_limit_windows')
      .values({ bucket_key: key, hits: 1, reset_ts: now + windowMs })
      .onConflict((oc) =>
        oc.column('bucket_key').doUpdateSet((eb) => {
          const ended = eb('rate_limit_windows.reset_ts', '<=', now);
          return {
            hits: eb
              .case()
              .when(ended)
              .then(1)
              .else(eb('rate_limit_windows.hits', '+', 1))
              .end(),
            reset_ts: eb
              .case()
              .when(ended)
              .then(eb.ref('excluded.reset_ts'))
              .else(eb.ref('rate_limit_windows.reset_ts'))
              .end(),
          };
        }),
      )
      .returning(['hits', 'reset_ts'])
      .executeTakeFirstOrThrow();
    return { hits: row.hits, resetTs: row.reset_ts };
  }

  async peek(key: string): Promise<WindowCount | undefined> {
    const row = await this.db
      .selectFrom('rate_limit_windows')
      .select(['hits', 'reset_ts'])
      .where('bucket_key', '=', key)
      .where('reset_ts', '>', this.clock.now())
      .executeTakeFirst();
    return row === undefined ? undefined : { hits: row.hits, resetTs: row.reset_ts };
  }

  async restart(key: string, windowMs: number): Promise<void> {
    await this.db
      .insertInto('rate_limit_windows')
      .values({ bucket_key: key, hits: 0, reset_ts: this.clock.now() + windowMs })
      .onConflict((oc) =>
        oc.column('bucket_key').doUpdateSet((eb) => ({ hits: 0, reset_ts: eb.ref('excluded.reset_ts') })),
      )
      .execute();
  }

  async prune(): Promise<number> {
    const result = await this.db
      .deleteFrom('rate_limit_windows')
      .where('reset_ts', '<=', this.clock.now())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/**
 * The other instances counting the same keys (on a shared store): the instance whose hit uses up a key's
 * limit tells them, and each remembers the refusal as it remembers its own.
 */
export interface RefusalPeers {
  /**
   * Whether every refusal other instances told before a moment shortly past has been heard here (the
   * notification channel is up and its heartbeat recent): then a key this instance knows nothing of is
   * under its limit, and no look at the counters is needed.
   */
  trusted(): boolean;
  /** Tells the others that `key` is over its limit until `resetTs`. */
  tell(key: string, resetTs: number): Promise<void>;
}

/**
 * How long a look at the counters that found a key under its limit is taken as still true, unless this
 * instance counts a hit of the key meanwhile. It spares every request with a valid token a read of the
 * shared counters; the price is that failures counted by other instances may take this long to refuse an
 * address here (every failure itself is still counted, and refused once over, exactly).
 */
export const UNDER_LIMIT_MEMO_MS = 1_000;

/**
 * A limit of `max` hits per window and key over some counters, with this instance's memory of keys known to
 * be over it: a window's hits only grow, so a key over the limit stays over until the window's end, and
 * further requests are refused here without asking the (shared) counters again. Keys found under the limit
 * are remembered for UNDER_LIMIT_MEMO_MS.
 */
export class RateLimit {
  private readonly refusedUntil = new Map<string, number>();
  private readonly underUntil = new Map<string, number>();

  constructor(
    private readonly counters: RateCounters,
    private readonly clock: Clock,
    readonly max: number,
    readonly windowMs: number,
    private readonly peers?: RefusalPeers,
  ) {}

  /** Counts a hit; the window with it, `over` once it is past `max`. */
  async hit(key: string): Promise<WindowCount & { over: boolean }> {
    this.underUntil.delete(key);
    const known = this.knownOver(key);
    if (known !== undefined) return { hits: this.max + 1, resetTs: known, over: true };
    const window = await this.counters.hit(key, this.windowMs);
    if (window.hits >= this.max) this.remember(key, window.resetTs);
    // The counters are shared and atomic: exactly one hit of the window, on one instance, is the max-th.
    if (window.hits === this.max) await this.peers?.tell(key, window.resetTs);
    return { ...window, over: window.hits > this.max };
  }

  /** Another instance used up the key's limit: refused here too until `resetTs`. */
  told(key: string, resetTs: number): void {
    if (resetTs > this.clock.now()) this.remember(key, resetTs);
  }

  /**
   * The end of the key's window when it has used the whole limit already, else undefined. With peers that
   * are heard, memory answers alone: a key over its limit anywhere was told (a find from a new address on
   * PostgreSQL looked at the shared counters, a round trip of every such request, to find it under).
   */
  async exhausted(key: string): Promise<number | undefined> {
    const known = this.knownOver(key);
    if (known !== undefined) return known;
    if (this.peers?.trusted() === true) return undefined;
    const now = this.clock.now();
    const under = this.underUntil.get(key);
    if (under !== undefined && under > now) return undefined;
    const window = await this.counters.peek(key);
    if (window === undefined || window.hits < this.max) {
      if (this.underUntil.size >= 10_000) this.underUntil.clear();
      this.underUntil.set(key, now + UNDER_LIMIT_MEMO_MS);
      return undefined;
    }
    this.remember(key, window.resetTs);
    return window.resetTs;
  }

  /**
   * Whether this instance knows the key is under the limit without a look at the counters (a look found it
   * so within UNDER_LIMIT_MEMO_MS, and no hit was counted since): what `exhausted` would answer at once.
   */
  knownUnder(key: string): boolean {
    if (this.knownOver(key) !== undefined) return false;
    if (this.peers?.trusted() === true) return true;
    const under = this.underUntil.get(key);
    return under !== undefined && under > this.clock.now();
  }

  private knownOver(key: string): number | undefined {
    const until = this.refusedUntil.get(key);
    if (until === undefined) return undefined;
    if (until > this.clock.now()) return until;
    this.refusedUntil.delete(key);
    return undefined;
  }

  private remember(key: string, resetTs: number): void {
    // Bounded; forgetting costs one more look at the counters, nothing else.
    if (this.refusedUntil.size >= 10_000) this.refusedUntil.clear();
    this.refusedUntil.set(key, resetTs);
  }
}

/** Whole seconds from `now` until `resetTs`, at least 1: what Retry-After says. */
export function secondsUntil(resetTs: number, now: number): number {
  return Math.max(1, Math.ceil((resetTs - now) / 1000));
}
