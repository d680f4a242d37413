/**
 * Wakes the requests waiting on a watchable resource when it changes. Nothing polls: a waiter is a
 * resolver in a map, woken by `notify` from the code that committed the change. In-process for now; a
 * PostgreSQL deployment adds LISTEN/NOTIFY behind the same `notify`/`subscribe` (issue 6).
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

  /** Call after subscribing again. `load` must read the same data for every waiter of the key. */
  share<T>(load: () => Promise<T>): Promise<T> {
    if (this.started) return load();
    this.read ??= new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        this.started = true;
        load().then(resolve, reject);
      });
    });
    return this.read as Promise<T>;
  }
}

export class ChangeNotifier {
  private readonly waiters = new Map<string, Set<(wake: Wake) => void>>();
  private count = 0;
  private isClosed = false;

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
    const set = this.waiters.get(key);
    if (set === undefined) return;
    this.waiters.delete(key);
    this.count -= set.size;
    const wake = new Wake();
    for (const waiter of set) waiter(wake);
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
    for (const key of [...this.waiters.keys()]) this.notify(key);
  }
}
