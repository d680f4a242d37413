import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Db } from '../db/open-db.js';
import { type CacheTrust, ReadCache } from './read-cache.js';

/** The channel cache invalidations and the listeners' heartbeats travel on (pg-change-relay.ts listens). */
export const INVALIDATION_CHANNEL = 'gcm_invalidations';

/**
 * How stale a shared-store cache may be: an entry is served only while this instance has heard its own
 * heartbeat, sent less than this long ago, come back over LISTEN. PostgreSQL delivers notifications in
 * commit order, so by then every invalidation committed before that heartbeat was sent has been applied.
 * A write committed on another instance is therefore honoured here at most this long after its commit,
 * whatever happens to the listener (lost, reconnecting, or this process paused).
 */
export const STALE_BOUND_MS = 3_000;
/** How often each instance sends its heartbeat; a few fit in STALE_BOUND_MS, so a late one is tolerated. */
export const HEARTBEAT_INTERVAL_MS = 500;
/**
 * The longest any cached row lives on a shared store, even with every invalidation heard: a bound on the
 * damage should a write ever forget to invalidate.
 */
export const SHARED_ENTRY_MAX_AGE_MS = 60_000;

/** What another instance's write changed; encoded in a NOTIFY payload. */
export type Invalidation =
  | { kind: 'tokens'; tokenIds: readonly string[] }
  | { kind: 'namespace'; gameId: string; namespaceId: string }
  | { kind: 'game-namespaces'; gameId: string }
  /** Webhook endpoints changed (or a game changed teams): every cached subscriber list goes. */
  | { kind: 'webhooks' }
  /** A rate limit's key used up its limit on the instance that says so: refused everywhere until resetTs. */
  | { kind: 'rate-over'; key: string; resetTs: number };

export interface InvalidationListener {
  apply(invalidation: Invalidation): void;
  /** Invalidations may have been lost: drop everything. */
  clear(): void;
}

/** A NOTIFY payload may hold 8,000 bytes; 100 token ids of 36 characters stay well inside it. */
const TOKEN_IDS_PER_PAYLOAD = 100;

function encode(invalidation: Invalidation): string[] {
  switch (invalidation.kind) {
    case 'tokens': {
      const payloads: string[] = [];
      for (let i = 0; i < invalidation.tokenIds.length; i += TOKEN_IDS_PER_PAYLOAD) {
        payloads.push(`tokens ${invalidation.tokenIds.slice(i, i + TOKEN_IDS_PER_PAYLOAD).join(' ')}`);
      }
      return payloads;
    }
    case 'namespace':
      return [`namespace ${invalidation.gameId} ${invalidation.namespaceId}`];
    case 'game-namespaces':
      return [`game-namespaces ${invalidation.gameId}`];
    case 'webhooks':
      return ['webhooks'];
    case 'rate-over':
      return [`rate-over ${invalidation.resetTs} ${invalidation.key}`];
  }
}

function decode(payload: string): Invalidation | undefined {
  const [kind, ...args] = payload.split(' ');
  if (kind === 'tokens' && args.length > 0) return { kind, tokenIds: args };
  if (kind === 'namespace' && args.length === 2) {
    return { kind, gameId: args[0] as string, namespaceId: args[1] as string };
  }
  if (kind === 'game-namespaces' && args.length === 1) return { kind, gameId: args[0] as string };
  if (kind === 'webhooks' && args.length === 0) return { kind };
  if (kind === 'rate-over' && args.length >= 2) {
    const resetTs = Number(args[0]);
    if (Number.isSafeInteger(resetTs)) return { kind, resetTs, key: args.slice(1).join(' ') };
  }
  return undefined;
}

/**
 * Keeps this instance's read caches true to a store other instances write too.
 *
 * A write that changes cached rows calls `publish` inside its transaction: the NOTIFY is delivered if and
 * only if the transaction commits, so no crash between commit and publish can lose it. Every instance
 * (the writer included, harmlessly) applies it to its caches when the relay hears it. The writer also
 * invalidates its own cache after the commit, so it never waits for its own notification.
 *
 * What cannot be made exact is time: a notification may be late (a paused process, a slow listener) or
 * lost (the listening connection dropped). So the relay sends a heartbeat through the same channel every
 * HEARTBEAT_INTERVAL_MS, and caches trust their entries only while the last heartbeat heard back was sent
 * less than STALE_BOUND_MS ago; on reconnect they are cleared, since whatever was sent meanwhile is gone.
 *
 * On the embedded store there is no other writer: `shared` is false, publish does nothing, caches always
 * trust their entries.
 */
export class CacheCoherence implements CacheTrust {
  private readonly listeners: InvalidationListener[] = [];
  private confirmedAt = Number.NEGATIVE_INFINITY;

  constructor(readonly shared: boolean) {}

  trusted(): boolean {
    return !this.shared || performance.now() - this.confirmedAt < STALE_BOUND_MS;
  }

  /** A read cache of at most `maxEntries` that serves only while trusted, and bounds entry age when shared. */
  newCache<K, V>(maxEntries: number): ReadCache<K, V> {
    return new ReadCache<K, V>({
      enabled: true,
      maxEntries,
      trust: this,
      ...(this.shared && { maxAgeMs: SHARED_ENTRY_MAX_AGE_MS }),
    });
  }

  listen(listener: InvalidationListener): void {
    this.listeners.push(listener);
  }

  /** Call inside the transaction of the write, so the notification goes out exactly when it commits. */
  async publish(trx: Db, invalidation: Invalidation): Promise<void> {
    if (!this.shared) return;
    for (const payload of encode(invalidation)) {
      await sql`select pg_notify(${INVALIDATION_CHANNEL}, ${payload})`.execute(trx);
    }
  }

  /** The relay heard a payload on INVALIDATION_CHANNEL. */
  received(payload: string): void {
    const invalidation = decode(payload);
    if (invalidation === undefined) return;
    for (const listener of this.listeners) listener.apply(invalidation);
  }

  /**
   * This instance's own write committed (or rolled back): its caches drop what it changed now, without
   * waiting for its notification (or, on the embedded store, where there is none).
   */
  wrote(invalidation: Invalidation): void {
    for (const listener of this.listeners) listener.apply(invalidation);
  }

  /** The relay heard back its own heartbeat, sent at `sentAt` (performance.now() of this process). */
  heartbeat(sentAt: number): void {
    if (sentAt > this.confirmedAt) this.confirmedAt = sentAt;
  }

  /**
   * The listener is (again) connected, after a time it was not: notifications sent meanwhile are lost, so
   * every cache starts empty. Trust comes back with the first heartbeat heard on the new connection.
   */
  reset(): void {
    this.confirmedAt = Number.NEGATIVE_INFINITY;
    for (const listener of this.listeners) listener.clear();
  }

  /** The listener is lost: stop trusting at once rather than at the bound. */
  lost(): void {
    this.confirmedAt = Number.NEGATIVE_INFINITY;
  }
}
