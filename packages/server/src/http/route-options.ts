import { errorResponses } from '@gcm/contract';
import type { FastifySchema } from 'fastify';
import { AUTH_DESCRIPTIONS, type AuthRule } from './auth.js';
import type { RouteLimit } from './rate-limits.js';

interface RouteMeta {
  operationId: string;
  auth: AuthRule;
  /** The per-address limit of a route anyone may call (every `public` route names one). */
  limit?: RouteLimit;
  summary: string;
  tag: string;
  /**
   * An operator's figure outside the interface: served, authorized and tested like any route, but left out
   * of the public OpenAPI document that studios build clients from.
   */
  internal?: boolean;
}

/**
 * Route options with the parts every route must carry: its interface operationId, who may call it (in the
 * auth hook's config and in the OpenAPI text), and the error responses next to its own.
 */
export function routeOptions<S extends FastifySchema & { response: Record<string | number, unknown> }>(
  meta: RouteMeta,
  schema: S,
) {
  return {
    config: { auth: meta.auth, limit: meta.limit },
    schema: {
      ...schema,
      ...(meta.internal === true ? { hide: true } : {}),
      operationId: meta.operationId,
      summary: meta.summary,
      description: AUTH_DESCRIPTIONS[meta.auth],
      tags: [meta.tag],
      ...(meta.auth === 'public' ? {} : { security: [{ bearerAuth: [] }] }),
      response: { ...schema.response, ...errorResponses },
    },
  };
}
