/**
 * Wakes the requests waiting on a watchable resource when it changes. Nothing polls: a waiter is a
 * resolver in a map, woken by `notify` from the code that committed the change. In-process for now; a
 * PostgreSQL deployment adds LISTEN/NOTIFY behind the same `notify`/`subscribe` (issue 6).
 */
export interface Subscription {
  /** Resolves on the next change of the key, or when the notifier closes. */
  readonly changed: Promise<void>;
  /** Forgets the waiter (the client left, or the answer came from elsewhere). */
  cancel(): void;
}

export class ChangeNotifier {
  private readonly waiters = new Map<string, Set<() => void>>();
  private count = 0;
  private closed = false;

  subscribe(key: string): Subscription {
    let wake: () => void = () => {};
    const changed = new Promise<void>((resolve) => {
      wake = resolve;
    });
    if (this.closed) {
      wake();
      return { changed, cancel: () => {} };
    }
    let set = this.waiters.get(key);
    if (set === undefined) {
      set = new Set();
      this.waiters.set(key, set);
    }
    const waiter = () => wake();
    set.add(waiter);
    this.count++;
    const cancel = () => {
      const current = this.waiters.get(key);
      if (current?.delete(waiter) === true) {
        this.count--;
        if (current.size === 0) this.waiters.delete(key);
      }
    };
    return { changed, cancel };
  }

  /** Call after the change has committed, so a woken waiter reads the new data. */
  notify(key: string): void {
    const set = this.waiters.get(key);
    if (set === undefined) return;
    this.waiters.delete(key);
    this.count -= set.size;
    for (const wake of set) wake();
  }

  /** Requests waiting right now (exposed for tests and the benchmark). */
  get waiting(): number {
    return this.count;
  }

  /** Shutdown: every waiter answers now, and later subscriptions resolve at once. */
  close(): void {
    this.closed = true;
    for (const key of [...this.waiters.keys()]) this.notify(key);
  }
}
