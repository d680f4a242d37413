import { errorResponses, IdempotencyHeaders } from '@gcm/contract';
import type { FastifySchema } from 'fastify';
import type { TeamRole } from '../identity/roles.js';
import { AUTH_DESCRIPTIONS, type AuthRule } from './auth.js';
import type { IdempotencyOption, StoredAnswer } from './idempotency.js';
import type { RouteLimit } from './rate-limits.js';

interface RouteMeta {
  operationId: string;
  auth: AuthRule;
  /**
   * The role a signed-in person needs in the team that owns the game (null: people may not call); unset:
   * viewer to read and member to write, none on an operator route (auth.ts, `defaultPersonRole`).
   */
  personRole?: TeamRole | null;
  /**
   * An `operator` route that a person's game cloud token (from a device link) may call as that person: the
   * token's game must be the path's, and the person's role now in its team must cover `personRole`.
   */
  personTokens?: true;
  /** The per-address limit of a route anyone may call (every `public` route names one, or `none`). */
  limit?: RouteLimit | 'none';
  summary: string;
  tag: string;
  /**
   * An operator's figure outside the interface: served, authorized and tested like any route, but left out
   * of the public OpenAPI document that studios build clients from.
   */
  internal?: boolean;
  /**
   * Every operation that creates something sets this: it honours the Idempotency-Key header (http/
   * idempotency.ts). `true` stores its answer as it is; an answer that carries a secret says how to store
   * it without the secret and make it again on a replay.
   */
  idempotent?: true | StoredAnswer;
  /**
   * false: the route's writes are left out of the audit log. Only for data the studio's own systems stream
   * in (lobby-log reports, upload bytes), which are records themselves and would drown the log.
   */
  audit?: false;
  /** The route's own body limit, in place of GCM_BODY_LIMIT_BYTES (the 413 names it). */
  bodyLimit?: number;
  /** The body may be left out (http/bodyless-routes.ts): the handler gets undefined. */
  bodyOptional?: true;
}

/**
 * Route options with the parts every route must carry: its interface operationId, who may call it (in the
 * auth hook's config and in the OpenAPI text), and the error responses next to its own. What the OpenAPI
 * document adds on its own (named schemas, examples, response descriptions) is in openapi.ts.
 */
export function routeOptions<S extends FastifySchema & { response: Record<string | number, unknown> }>(
  meta: RouteMeta,
  schema: S,
) {
  const idempotency: IdempotencyOption | undefined =
    meta.idempotent === undefined ? undefined : meta.idempotent === true ? {} : { answer: meta.idempotent };
  return {
    ...(meta.bodyLimit === undefined ? {} : { bodyLimit: meta.bodyLimit }),
    config: {
      auth: meta.auth,
      limit: meta.limit,
      ...(meta.personRole === undefined ? {} : { personRole: meta.personRole }),
      ...(meta.personTokens === undefined ? {} : { personTokens: meta.personTokens }),
      ...(meta.audit === undefined ? {} : { audit: meta.audit }),
      ...(meta.bodyOptional === undefined ? {} : { bodyOptional: meta.bodyOptional }),
      ...(idempotency === undefined ? {} : { idempotency }),
    },
    schema: {
      ...schema,
      ...(meta.internal === true ? { hide: true } : {}),
      ...(idempotency === undefined ? {} : { headers: IdempotencyHeaders }),
      operationId: meta.operationId,
      summary: meta.summary,
      description:
        meta.personTokens === true && meta.personRole
          ? `${AUTH_DESCRIPTIONS[meta.auth]} Or a game cloud token of this game minted for a person (gcm login) whose role in the game's team is ${meta.personRole} or stronger.`
          : AUTH_DESCRIPTIONS[meta.auth],
      tags: [meta.tag],
      // An empty list says "no token" outright, where no list at all would leave it unsaid.
      security: meta.auth === 'public' ? [] : [{ bearerAuth: [] }],
      response: { ...schema.response, ...errorResponses },
    },
  };
}
