import { hashPassword, verifyPassword } from 'better-auth/crypto';

/**
 * better-auth's own scrypt hashing (node:crypto's, which runs in libuv's thread pool), at most `concurrency`
 * at once; the rest wait their turn in order. Without a cap a burst of sign-ins filled the whole thread pool,
 * and every other request that needs it (WebCrypto token signatures, file reads, DNS) queued behind them:
 * 6.9 s for others under a sign-in flood. Counts kept here are this instance's (GET /metrics).
 */
export class PasswordHashing {
  private running = 0;
  private readonly waiters: (() => void)[] = [];
  /** The most hashes that ran at once since the start: what the cap bounds. */
  private highWater = 0;

  /** `concurrency` 0: no cap (every hash goes to the thread pool at once). */
  constructor(
    private readonly concurrency: number,
    private readonly queueMax: number,
  ) {}

  readonly hash = (password: string): Promise<string> => this.run(() => hashPassword(password));

  readonly verify = (data: { hash: string; password: string }): Promise<boolean> =>
    this.run(() => verifyPassword(data));

  /** Whether new work should be refused: as many hashes wait already as may. */
  get saturated(): boolean {
    return this.waiters.length >= this.queueMax;
  }

  get stats(): { running: number; waiting: number; peak: number; cap: number } {
    return {
      running: this.running,
      waiting: this.waiters.length,
      peak: this.highWater,
      cap: this.concurrency,
    };
  }

  private async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.concurrency > 0 && this.running >= this.concurrency) {
      // The slot is handed over by the hash that ends (running is not decremented for it), so a newcomer
      // cannot take it before a waiter.
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    } else {
      this.running += 1;
    }
    this.highWater = Math.max(this.highWater, this.running);
    try {
      return await work();
    } finally {
      const next = this.waiters.shift();
      if (next !== undefined) next();
      else this.running -= 1;
    }
  }
}
