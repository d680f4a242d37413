import { createHash, randomUUID } from 'node:crypto';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_TTL_MS, IDEMPOTENT_REPLAYED_HEADER } from '@gcm/contract';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onSendAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import type { Db } from '../db/open-db.js';
import { errors } from '../errors.js';
import type { Caller } from '../identity/callers.js';
import { deleteInBatches } from '../lib/batched-delete.js';
import type { Clock } from '../lib/clock.js';
import { callerOf } from './auth.js';
import * as repo from './idempotency.repository.js';
import { hooksOf } from './route-hooks.js';

/**
 * How long a request may run before another request with its key may take the key over and run again
 * (its instance died, or the database went away before the answer could be stored). Creating requests
 * answer in milliseconds; the slowest (a multipart build prepare) makes one call to the object store.
 */
export const IDEMPOTENCY_CLAIM_MS = 60_000;

/** The largest stored answer. Stored answers are ids and a few numbers: secrets and URLs are left out. */
export const MAX_STORED_ANSWER_BYTES = 16_384;

/** How often expired keys are deleted; an expired key is free at once either way, this only frees space. */
export const IDEMPOTENCY_CLEANUP_INTERVAL_MS = 10 * 60_000;

/**
 * For a route whose answer carries a secret (a token, presigned upload URLs): what of the answer is
 * stored, and how a replay makes the whole answer again from that. The secret itself is never stored;
 * `restore` makes it anew from the rows the kept part names (a token is signed again, URLs presigned again).
 */
export interface StoredAnswer<A = unknown, K = unknown, P = unknown> {
  keep(answer: A): K;
  restore(kept: K, params: P): Promise<A>;
}

/** What a route declares with `idempotent` in routeOptions. */
export interface IdempotencyOption {
  answer?: StoredAnswer;
}

interface Claim {
  scope: string;
  key: string;
  claimId: string;
  answer: StoredAnswer | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the operations that create something: they honour the Idempotency-Key header. */
    idempotency?: IdempotencyOption;
  }
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
}

/**
 * Keys are the caller's own: the operator's, a game's (any of its cloud tokens), one namespace's
 * reporter's, or one person's (whichever of their sessions). Another tenant's key of the same text is another key, so no answer crosses tenants.
 */
function scopeOf(caller: Caller): string {
  switch (caller.kind) {
    case 'operator':
      return 'operator';
    case 'game_cloud':
      return `game:${caller.gameId}`;
    case 'namespace_reporter':
      return `reporter:${caller.gameId}:${caller.namespaceId}`;
    case 'lobby':
      return `lobby:${caller.namespaceId}:${caller.lobbyId}`;
    // One token's own: a public token is shared by every copy of a game, so its keys are too.
    case 'game_client':
      return `client:${caller.namespaceId}:${caller.tokenId}`;
    case 'person':
      return `person:${caller.userId}`;
  }
}

/** Object keys sorted at every level: the same JSON in another key order is the same request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, canonical(record[k])]),
    );
  }
  return value;
}

function requestSha256(request: FastifyRequest): string {
  const text = JSON.stringify(canonical([request.params ?? {}, request.query ?? {}, request.body ?? null]));
  return createHash('sha256').update(text).digest('hex');
}

type Outcome =
  | { kind: 'claimed'; claimId: string }
  | { kind: 'replay'; statusCode: number; answer: string | null }
  | { kind: 'reused'; what: string }
  | { kind: 'in-use' };

/**
 * Claims the key for this request, or says what to answer instead. The insert decides between requests
 * racing for a new key; a conditional update between those taking over an expired key or a claim whose
 * request never answered. Each lost race reads the row again, so every path ends in a few statements.
 */
async function begin(db: Db, use: repo.KeyUse, now: number): Promise<Outcome> {
  const claim = {
    claimId: randomUUID(),
    claimExpireTs: now + IDEMPOTENCY_CLAIM_MS,
    createTs: now,
    expireTs: now + IDEMPOTENCY_KEY_TTL_MS,
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await repo.insertClaim(db, use, claim)) return { kind: 'claimed', claimId: claim.claimId };
    const row = await repo.findKey(db, use.scope, use.key);
    if (row === undefined) continue;
    if (row.expire_ts > now) {
      if (row.route !== use.route) return { kind: 'reused', what: `for another operation (${row.route})` };
      if (row.request_sha256 !== use.requestSha256) {
        return { kind: 'reused', what: 'with other path parameters or another body' };
      }
      if (row.claim_id === null) {
        return { kind: 'replay', statusCode: row.status_code ?? 200, answer: row.answer };
      }
      if ((row.claim_expire_ts ?? 0) > now) return { kind: 'in-use' };
    }
    if (await repo.takeOver(db, use, row, claim)) return { kind: 'claimed', claimId: claim.claimId };
  }
  return { kind: 'in-use' };
}

async function replay(
  request: FastifyRequest,
  reply: FastifyReply,
  stored: { statusCode: number; answer: string | null },
  answer: StoredAnswer | undefined,
): Promise<FastifyReply> {
  let body: unknown = stored.answer === null ? null : JSON.parse(stored.answer);
  if (answer !== undefined && body !== null) body = await answer.restore(body, request.params);
  return reply.code(stored.statusCode).header(IDEMPOTENT_REPLAYED_HEADER, 'true').send(body);
}

/** The answer as it is stored: JSON with the route's secrets left out, or undefined when it cannot be. */
function storable(payload: unknown, answer: StoredAnswer | undefined): string | null | undefined {
  if (payload === null || payload === undefined || payload === '') return null;
  if (typeof payload !== 'string') return undefined;
  const text = answer === undefined ? payload : JSON.stringify(answer.keep(JSON.parse(payload)));
  return Buffer.byteLength(text) <= MAX_STORED_ANSWER_BYTES ? text : undefined;
}

/**
 * The Idempotency-Key header on the routes that declare `idempotency` (routeOptions `idempotent`). After
 * validation and before the handler, the key is claimed in the database (or the stored answer replayed,
 * or the request refused); when the answer is sent, a 2xx is stored for 24 h and anything else frees the
 * key, so a request that failed can be retried with the same key. Routes that do not declare it ignore
 * the header.
 */
export function registerIdempotency(app: FastifyInstance, db: Db, clock: Clock): void {
  app.decorateRequest('idempotencyClaim', null);

  const claimKey =
    (option: IdempotencyOption): preHandlerAsyncHookHandler =>
    async (request, reply) => {
      const key = request.headers[IDEMPOTENCY_KEY_HEADER];
      if (key === undefined) return;
      // The route's header schema has checked it; an array would be two headers, which it refuses.
      if (typeof key !== 'string') throw errors.idempotencyKeyInvalid();
      const use: repo.KeyUse = {
        scope: scopeOf(callerOf(request)),
        key,
        route: `${request.method} ${request.routeOptions.url}`,
        requestSha256: requestSha256(request),
      };
      const outcome = await begin(db, use, clock.now());
      switch (outcome.kind) {
        case 'claimed':
          request.idempotencyClaim = {
            scope: use.scope,
            key,
            claimId: outcome.claimId,
            answer: option.answer,
          };
          return;
        case 'replay':
          return replay(request, reply, outcome, option.answer);
        case 'reused':
          throw errors.idempotencyKeyReused(outcome.what);
        case 'in-use':
          throw errors.idempotencyKeyInUse(1);
      }
    };

  const recordAnswer: onSendAsyncHookHandler<unknown> = async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (claim === null) return payload;
    request.idempotencyClaim = null;
    try {
      const success = reply.statusCode >= 200 && reply.statusCode < 300;
      const body = success ? storable(payload, claim.answer) : undefined;
      if (body === undefined) {
        if (success) request.log.error('answer not stored for Idempotency-Key: too large or not JSON');
        await repo.releaseClaim(db, claim.scope, claim.key, claim.claimId);
      } else if (
        !(await repo.storeAnswer(db, claim.scope, claim.key, claim.claimId, {
          statusCode: reply.statusCode,
          body,
        }))
      ) {
        request.log.warn('Idempotency-Key claim was taken over before the answer was stored');
      }
    } catch (err) {
      // What was created stays created and the client gets its answer; a retry with the key gets 409
      // until the claim runs out, then runs again.
      request.log.error({ err }, 'could not record the answer for Idempotency-Key');
    }
    return payload;
  };

  // Only the routes that declare it get the hooks: every other request pays nothing for the header.
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotency === undefined) return;
    if (route.config.auth === 'public') {
      throw new Error(`${route.method} ${route.url}: a public route has no caller to scope its keys to`);
    }
    route.preHandler = [...hooksOf(route.preHandler), claimKey(route.config.idempotency)];
    route.onSend = [recordAnswer, ...hooksOf(route.onSend)];
  });
}

/** Keys deleted per statement by the clean-up. */
export const IDEMPOTENCY_CLEANUP_BATCH = 10_000;

/**
 * The background job's pass: deletes keys past their 24 h, `batch` per statement until a statement finds
 * fewer, so requests claiming keys wait at most one batch for the write lock.
 */
export async function deleteExpiredIdempotencyKeys(
  db: Db,
  clock: Clock,
  batch = IDEMPOTENCY_CLEANUP_BATCH,
): Promise<number> {
  const now = clock.now();
  return deleteInBatches(batch, (limit) => repo.deleteExpiredKeys(db, now, limit));
}
