import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { Metrics } from '../lib/metrics.js';
import { MemoryCounters, secondsUntil } from '../lib/rate-counters.js';
import { clientKey } from './rate-limits.js';
import { hooksOf } from './route-hooks.js';

type GameClientLimit = 'matchmakerPlayerCalls' | 'matchmakerReads' | 'matchmakerToken';

/**
 * Per-address and per-token limits on the game clients' routes (auth `matchmaker`: find, join, create, list,
 * regions, a lobby's state). They are counted in this instance's memory, never in the store: find's goal is
 * a thousand calls a second on two cores, and a shared counter would add a write to each. So with several
 * instances behind a balancer a client may get up to one limit per instance (docs/interface-notes.md).
 *
 * The per-address limit of a call is by its method: POSTs take a slot in a lobby (find, join, create) and
 * count against `matchmakerPlayerCalls`; the rest are reads (`matchmakerReads`). The per-token limit counts
 * every call of the token, as a ceiling on one namespace's players as a whole (its public token ships in
 * every copy of the game). Registered before the auth hook's onRoute, so the auth check still runs first
 * and the token is known when these count.
 */
export function registerGameClientLimits(
  app: FastifyInstance,
  clock: Clock,
  config: RateLimitConfig,
  metrics: Metrics,
): void {
  const counters = new MemoryCounters(clock);
  const refuse = (limit: GameClientLimit, resetTs: number, what: string) => {
    metrics.rateLimited(limit);
    return errors.rateLimited(secondsUntil(resetTs, clock.now()), `too many ${what}`);
  };
  const count = async (limit: GameClientLimit, key: string, what: string) => {
    const max = config[limit];
    if (max === 0) return;
    const window = await counters.hit(`${limit}:${key}`, config.windowMs);
    if (window.hits > max) throw refuse(limit, window.resetTs, what);
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.auth !== 'matchmaker') return;
    const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
    const byAddress: GameClientLimit = method === 'POST' ? 'matchmakerPlayerCalls' : 'matchmakerReads';
    const limitCalls: onRequestHookHandler = async (request) => {
      await count(byAddress, clientKey(request), 'matchmaker requests from this address');
      const caller = request.caller;
      if (caller?.kind === 'game_client') {
        await count('matchmakerToken', caller.tokenId, 'matchmaker requests with this token');
      }
    };
    route.onRequest = [...hooksOf(route.onRequest), limitCalls];
  });
}
