import { performance } from 'node:perf_hooks';

/** Monotonic milliseconds: a rate is about real time, whatever the service's (injectable) clock says. */
export const monotonicMs = (): number => performance.now();

/**
 * One token bucket: `rate` tokens a second, holding at most `burst`; it starts full. Costs larger than the
 * burst are never taken.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number = monotonicMs,
  ) {
    this.tokens = burst;
    this.at = now();
  }

  /** Takes `cost` tokens: 0 when it did, else the milliseconds until they would be there (nothing taken). */
  take(cost: number): number {
    this.refill();
    if (this.tokens >= cost) {
      this.tokens -= cost;
      return 0;
    }
    return Math.ceil(((cost - this.tokens) / this.rate) * 1000);
  }

  /** Full again: nothing is owed, so the bucket can be forgotten. */
  get full(): boolean {
    this.refill();
    return this.tokens >= this.burst;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
  }
}

/**
 * Token buckets by key, in this process's memory. Bounded: past `maxEntries`, full buckets (which owe
 * nothing) are forgotten first, then the oldest, so a flood of fresh keys costs memory up to the bound only.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number = monotonicMs,
    private readonly maxEntries = 100_000,
  ) {}

  /** Takes `cost` tokens of `key`'s bucket: 0 when it did, else the milliseconds until they would be there. */
  take(key: string, cost: number): number {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxEntries) this.prune();
      bucket = new TokenBucket(this.rate, this.burst, this.now);
      this.buckets.set(key, bucket);
    }
    return bucket.take(cost);
  }

  get size(): number {
    return this.buckets.size;
  }

  private prune(): void {
    for (const [key, bucket] of this.buckets) if (bucket.full) this.buckets.delete(key);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < this.maxEntries) break;
      this.buckets.delete(key);
    }
  }
}
