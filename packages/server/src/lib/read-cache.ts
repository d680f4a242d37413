/**
 * A bounded in-process cache of rows this process reads on every request (token rows, namespace views).
 *
 * It is only coherent when every write to the cached rows goes through this process: true of the embedded
 * store, whose exclusive file lock keeps other processes out. A store shared by several instances passes
 * `enabled: false` until cross-instance invalidation exists, and every read then goes to the database.
 *
 * Writers call `invalidate` after their write has committed. A load that began before an invalidation is
 * not kept (the generation check), so a read racing a write can never pin the old row in the cache.
 */
export class ReadCache<K, V> {
  private readonly entries = new Map<K, V>();
  private generation = 0;

  constructor(private readonly options: { enabled: boolean; maxEntries: number }) {}

  async get(key: K, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (!this.options.enabled) return load();
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const startedAt = this.generation;
    const value = await load();
    if (value !== undefined && startedAt === this.generation) {
      if (this.entries.size >= this.options.maxEntries) {
        // Maps iterate in insertion order: dropping the first key evicts the oldest entry.
        const oldest = this.entries.keys().next();
        if (oldest.done !== true) this.entries.delete(oldest.value);
      }
      this.entries.set(key, value);
    }
    return value;
  }

  /** The cached value without loading; undefined on a miss or when disabled. */
  peek(key: K): V | undefined {
    return this.options.enabled ? this.entries.get(key) : undefined;
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

  /** Entries held now; for tests that check invalidation really happened. */
  get size(): number {
    return this.entries.size;
  }
}
