/**
 * Wakes the requests waiting on a watchable resource when it changes. Nothing polls: a waiter is a
 * resolver in a map, woken by `notify` from the code that committed the change. On PostgreSQL a relay
 * (pg-change-relay.ts) also publishes each key to the other instances and wakes this one's waiters with
 * `wakeLocal` for theirs.
 */
export interface Subscription {
  /** Resolves on the next change of the key, or when the notifier closes. */
  readonly changed: Promise<Wake>;
  /** Forgets the waiter (the client left, or the answer came from elsewhere). */
  cancel(): void;
}

/**
 * One notification, handed to every waiter it wakes. They all want the data as it is after the change, so
 * they share one read: thousands of waiters on one key cost one query, not thousands.
 *
 * Sharing is sound only for a waiter that subscribed again before the shared read began: a change
 * committed after that read then still wakes it. So the read starts on the next turn of the event loop
 * (setImmediate), after every waiter woken here has run its microtasks, subscribed and joined; a waiter that
 * comes later (the read has begun) reads for itself.
 */
export class Wake {
  private read: Promise<unknown> | undefined;
  private started = false;

  /** Final: answer with what is current even if it did not change (shutdown, lost change feed). */
  constructor(readonly final = false) {}

  /** Call after subscribing again. `load` must read the same data for every waiter of the key. */
  share<T>(load: () => Promise<T>): Promise<T> {
    if (this.started) return load();
    this.read ??= new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        this.started = true;
        // Inside a timer callback a synchronous throw would be an uncaught exception: the process would
        // die instead of the waiters being answered with the error.
        try {
          load().then(resolve, reject);
        } catch (err) {
          reject(err);
        }
      });
    });
    return this.read as Promise<T>;
  }
}

export class ChangeNotifier {
  private readonly waiters = new Map<string, Set<(wake: Wake) => void>>();
  private count = 0;
  private isClosed = false;
  private publisher: ((key: string) => void) | undefined;
  /**
   * The longest a waiter may wait before answering, or undefined for the whole watch timeout. Set while
   * changes of other instances cannot be heard, so watchers answer about once a second instead of hanging.
   */
  waitCapMs: number | undefined;

  subscribe(key: string): Subscription {
    let resolveChanged: (wake: Wake) => void = () => {};
    const changed = new Promise<Wake>((resolve) => {
      resolveChanged = resolve;
    });
    if (this.isClosed) {
      resolveChanged(new Wake());
      return { changed, cancel: () => {} };
    }
    let set = this.waiters.get(key);
    if (set === undefined) {
      set = new Set();
      this.waiters.set(key, set);
    }
    const waiter = (wake: Wake) => resolveChanged(wake);
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
    this.wakeLocal(key);
    this.publisher?.(key);
  }

  /** Wakes this process's waiters of `key` only: for changes other instances committed. */
  wakeLocal(key: string, wake = new Wake()): void {
    const set = this.waiters.get(key);
    if (set === undefined) return;
    this.waiters.delete(key);
    this.count -= set.size;
    for (const waiter of set) waiter(wake);
  }

  /** Every change notified here is also handed to `publish` (the relay to other instances). */
  publishTo(publish: (key: string) => void): void {
    this.publisher = publish;
  }

  /**
   * Wakes every waiter of every key. `final`: they answer with what is current even if unchanged (the
   * change feed was lost, so waiting on could miss a change); otherwise they re-read and wait on if
   * nothing changed (the feed came back and may have missed changes while it was down).
   */
  wakeAll(final: boolean): void {
    // A Wake per key: waiters sharing one read must all want the same data (see Wake).
    for (const key of [...this.waiters.keys()]) this.wakeLocal(key, new Wake(final));
  }

  /** Requests waiting right now (exposed for tests and the benchmark). */
  get waiting(): number {
    return this.count;
  }

  /** True once shutdown began: a woken waiter must answer rather than wait again. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Shutdown: every waiter answers now, and later subscriptions resolve at once. */
  close(): void {
    this.isClosed = true;
    this.wakeAll(true);
  }
}
