import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import { AppError, errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import { type RateCounters, RateLimit, type RefusalPeers, secondsUntil } from '../lib/rate-counters.js';

/** The per-address limits a route without a token may declare; each is a RateLimitConfig field. */
export type RouteLimit =
  | 'deviceLinkStarts'
  | 'deviceLinkReads'
  | 'publicReads'
  | 'uploadPuts'
  | 'accountCalls';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Which per-address limit counts this route's requests; every `public` route must name one. `none`: no
     * limit, for the health probes and /metrics, which monitoring must always reach and which cost nothing.
     */
    limit?: RouteLimit | 'none';
  }
}

/** Addresses seen lately and their keys; bounded, and forgetting costs one more normalization. */
const clientKeys = new Map<string, string>();
const CLIENT_KEYS_MAX = 10_000;

/** What counts as one client: the address (after GCM_TRUST_PROXY), an IPv6 client by its /64. */
export function clientKey(request: FastifyRequest): string {
  return clientKeyOf(request.ip);
}

/**
 * The key of an address, remembered: normalizing runs a regex (and parses an IPv6 address) on every
 * request otherwise, and a keep-alive connection asks for the same address each time.
 */
function clientKeyOf(ip: string): string {
  return remembered(clientKeys, ip, rateLimit.normalizeIP);
}

/** `make(input)`, from `memo` when it was made lately; the memo starts over at CLIENT_KEYS_MAX entries. */
function remembered(memo: Map<string, string>, input: string, make: (input: string) => string): string {
  let made = memo.get(input);
  if (made === undefined) {
    if (memo.size >= CLIENT_KEYS_MAX) memo.clear();
    made = make(input);
    memo.set(input, made);
  }
  return made;
}

/** The auth-failure counter's keys by client key, so a request builds no new string to look one up. */
const failureKeys = new Map<string, string>();
const failureKeyOf = (client: string) => `auth-failures:${client}`;

/** How many credentials that checked out the failed-token guard remembers, and for how long. */
const RECENTLY_VALID_MAX = 10_000;
const RECENTLY_VALID_MS = 10 * 60_000;

/** A credential check's failure: 401 (unknown, forged, expired, revoked, a stopped lobby's). */
function isFailure(err: unknown): boolean {
  return err instanceof AppError && err.statusCode === 401;
}

/**
 * Counts failed credential checks (bearer tokens, session cookies) per client address, and answers an
 * address that failed `max` times in a window 429 for each further failure until the window ends.
 *
 * It does not refuse a credential that checks out. Every credential the service issues is unguessable (256
 * random bits, or Ed25519-signed), so guessing is not what the count fights; and one address is often
 * many callers (every lobby of a host in host networking shares 127.0.0.1, players share a NAT), so
 * refusing a valid token because others failed would let one tenant lock every other out. What it bounds is
 * the cost of a flood of bad credentials: over the limit, a credential of a shape the service never issues
 * is refused with no work at all, and the others are checked one at a time per address, so that address's
 * flood takes at most one check's worth of the service at once. A credential that checked out lately (this
 * process remembers the last RECENTLY_VALID_MAX, for RECENTLY_VALID_MS) is checked at once, beside the queue:
 * a lobby that has called before never waits behind its neighbour's flood, and only a first call does (behind
 * the flood's requests in flight, which the per-address connection share bounds). The memory costs the
 * flood nothing: only a credential that passed its check is remembered, and it is still checked every time.
 */
export class AuthFailureGuard {
  private readonly limit: RateLimit | undefined;
  /** Per over-limit address, the end of its queue of checks. */
  private readonly queues = new Map<string, Promise<void>>();
  /** Credentials that checked out lately, oldest first, with when they last did. */
  private readonly recentlyValid = new Map<string, number>();

  constructor(
    counters: RateCounters,
    private readonly clock: Clock,
    config: RateLimitConfig,
    private readonly metrics: Metrics,
    peers?: RefusalPeers,
  ) {
    this.limit =
      config.authFailures > 0
        ? new RateLimit(counters, clock, config.authFailures, config.windowMs, peers)
        : undefined;
  }

  /** Another instance refused `key` (a key of this guard's, as told): refused here too. */
  told(key: string, resetTs: number): void {
    this.limit?.told(key, resetTs);
  }

  /**
   * Runs `check` (a credential's verification, which throws 401 when it fails) for `request`, counting its
   * failure against the address. `plausible`: the credential has a shape the service issues, decided from
   * memory; an address over the limit has only those checked. `credential` (the header it came in), when
   * given, is remembered once it checks out, so that over the limit it is checked without queueing.
   */
  async verify<T>(
    request: FastifyRequest,
    plausible: boolean,
    check: () => Promise<T>,
    credential?: string,
  ): Promise<T> {
    const key = this.key(request);
    const resetTs = await this.limit?.exhausted(key);
    if (resetTs === undefined) {
      try {
        return this.passed(credential, await check());
      } catch (err) {
        if (isFailure(err)) await this.failed(key);
        throw err;
      }
    }
    if (!plausible) throw this.refusal(resetTs);
    try {
      const known = credential !== undefined && this.isRecentlyValid(credential);
      return this.passed(credential, await (known ? check() : this.oneAtATime(key, check)));
    } catch (err) {
      if (!isFailure(err)) throw err;
      await this.limit?.hit(key);
      throw this.refusal(resetTs);
    }
  }

  /** Remembers `credential` as checked out now (the newest, so the last to be forgotten); answers `caller`. */
  private passed<T>(credential: string | undefined, caller: T): T {
    if (credential === undefined || this.limit === undefined) return caller;
    this.recentlyValid.delete(credential);
    this.recentlyValid.set(credential, this.clock.now());
    if (this.recentlyValid.size > RECENTLY_VALID_MAX) {
      const oldest = this.recentlyValid.keys().next().value as string;
      this.recentlyValid.delete(oldest);
    }
    return caller;
  }

  private isRecentlyValid(credential: string): boolean {
    const at = this.recentlyValid.get(credential);
    return at !== undefined && this.clock.now() - at < RECENTLY_VALID_MS;
  }

  /** Counts the failure; throws 429 instead when the limit was used up already (by another instance). */
  private async failed(key: string): Promise<void> {
    const window = await this.limit?.hit(key);
    if (window?.over === true) throw this.refusal(window.resetTs);
  }

  /** Runs `check` after the checks of `key` already queued have ended. */
  private oneAtATime<T>(key: string, check: () => Promise<T>): Promise<T> {
    const queued = this.queues.get(key);
    const run = queued === undefined ? check() : queued.then(check);
    const ended = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(key, ended);
    void ended.then(() => {
      if (this.queues.get(key) === ended) this.queues.delete(key);
    });
    return run;
  }

  private key(request: FastifyRequest): string {
    return remembered(failureKeys, clientKey(request), failureKeyOf);
  }

  private refusal(resetTs: number) {
    this.metrics.rateLimited('authFailures');
    return errors.rateLimited(
      secondsUntil(resetTs, this.clock.now()),
      'too many failed token checks from this address',
    );
  }
}

/**
 * The plugin's store contract over our counters: `child` is called once per limited route with its
 * merged options, and gets a RateLimit of that route's max and window (keys already name the limit).
 */
function storeOver(counters: RateCounters, clock: Clock) {
  return class CountersStore {
    private readonly limit: RateLimit | undefined;

    // The plugin passes its merged limit options (max, timeWindow); its types call them route options.
    constructor(options: object) {
      const { max, timeWindow } = options as { max?: unknown; timeWindow?: unknown };
      this.limit =
        typeof max === 'number' && typeof timeWindow === 'number'
          ? new RateLimit(counters, clock, max, timeWindow)
          : undefined;
    }

    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    ): void {
      if (this.limit === undefined) {
        callback(new Error('rate limit store used without a route limit'));
        return;
      }
      this.limit.hit(key).then(
        (window) => callback(null, { current: window.hits, ttl: window.resetTs - clock.now() }),
        (err: Error) => callback(err),
      );
    }

    child(options: object): CountersStore {
      return new CountersStore(options);
    }
  };
}

/**
 * Per-address limits on the routes anyone may call, by @fastify/rate-limit over `counters` (shared
 * through PostgreSQL, or this process's memory on SQLite). Must be registered before any route, so its
 * onRoute hook sees them all; a public route that names no limit fails the start.
 */
export async function registerRouteLimits(
  app: FastifyInstance,
  counters: RateCounters,
  clock: Clock,
  config: RateLimitConfig,
  metrics: Metrics,
): Promise<void> {
  app.addHook('onRoute', (route) => {
    const limit = route.config?.limit;
    if (limit === undefined) {
      if (route.config?.auth === 'public') {
        throw new Error(`public route ${route.method} ${route.url} names no rate limit`);
      }
      return;
    }
    if (limit === 'none') return;
    const max = config[limit];
    if (max === 0) return;
    route.config = {
      ...route.config,
      rateLimit: { max, timeWindow: config.windowMs, keyGenerator: (req) => `${limit}:${clientKey(req)}` },
    };
  });
  await app.register(rateLimit, {
    global: false,
    store: storeOver(counters, clock),
    // The error handler sends Retry-After with every error that says how long to wait.
    addHeaders: { 'retry-after': false },
    errorResponseBuilder: (request, context) => {
      const limit = request.routeOptions.config.limit;
      if (limit !== undefined && limit !== 'none') metrics.rateLimited(limit);
      return errors.rateLimited(
        secondsUntil(clock.now() + context.ttl, clock.now()),
        'too many requests from this address to this operation',
      );
    },
  });
}
