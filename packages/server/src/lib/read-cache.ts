import { performance } from 'node:perf_hooks';

/** Whether entries may be served right now; see CacheCoherence for the shared store's answer. */
export interface CacheTrust {
  trusted(): boolean;
}

/** The embedded store's answer: every write passes through this process, so its cache is always exact. */
export const ALWAYS_TRUSTED: CacheTrust = { trusted: () => true };

interface Entry<V> {
  value: V;
  /** performance.now() when the load that produced it began. */
  loadedAt: number;
}

/**
 * A bounded in-process cache of rows this process reads on every request (token rows, namespace views).
 *
 * Writers call `invalidate` after their write has committed. A load that began before an invalidation is
 * not kept (the generation check), so a read racing a write can never pin the old row in the cache.
 *
 * On the embedded store every write passes through this process, so that is the whole story. On a shared
 * store, other instances' writes arrive as invalidations over LISTEN/NOTIFY (lib/cache-coherence.ts), and
 * `trust` says whether they are known to have arrived: while it says no (the listener is down, or its own
 * heartbeat is late), entries are not served and every read goes to the database. `maxAgeMs` bounds how
 * long an entry lives whatever happens, a second line should a write ever forget its invalidation.
 */
export class ReadCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private generation = 0;
  private readonly trust: CacheTrust;
  private readonly maxAgeMs: number;

  constructor(
    private readonly options: {
      enabled: boolean;
      maxEntries: number;
      maxAgeMs?: number;
      trust?: CacheTrust;
    },
  ) {
    this.trust = options.trust ?? ALWAYS_TRUSTED;
    this.maxAgeMs = options.maxAgeMs ?? Number.POSITIVE_INFINITY;
  }

  async get(key: K, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (!this.options.enabled) return load();
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const startedAt = this.generation;
    const loadedAt = performance.now();
    const value = await load();
    if (value !== undefined && startedAt === this.generation) {
      this.entries.delete(key);
      if (this.entries.size >= this.options.maxEntries) {
        // Maps iterate in insertion order: dropping the first key evicts the oldest entry.
        const oldest = this.entries.keys().next();
        if (oldest.done !== true) this.entries.delete(oldest.value);
      }
      this.entries.set(key, { value, loadedAt });
    }
    return value;
  }

  /** The cached value without loading; undefined on a miss, when disabled, or while not trusted. */
  peek(key: K): V | undefined {
    if (!this.options.enabled || !this.trust.trusted()) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (performance.now() - entry.loadedAt > this.maxAgeMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  invalidate(key: K): void {
    this.generation++;
    this.entries.delete(key);
  }

  /** Drops every entry whose key matches (a write that changed many rows at once); scans the whole cache. */
  invalidateWhere(matches: (key: K) => boolean): void {
    this.generation++;
    for (const key of this.entries.keys()) if (matches(key)) this.entries.delete(key);
  }

  /** Drops everything: invalidations may have been missed (the listener reconnected). */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Entries held now; for tests that check invalidation really happened. */
  get size(): number {
    return this.entries.size;
  }
}
