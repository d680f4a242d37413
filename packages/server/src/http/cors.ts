import cors, { type FastifyCorsOptions } from '@fastify/cors';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '@gcm/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Every method a route of the API answers. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Every request header the API reads that is not CORS-safelisted. */
const ALLOWED_HEADERS = ['authorization', 'content-type', IDEMPOTENCY_KEY_HEADER];
/** Answer headers a page needs to read: the ray id for support, when to retry, replays, caching. */
const EXPOSED_HEADERS = ['x-ray-id', 'retry-after', IDEMPOTENT_REPLAYED_HEADER, 'etag', 'location'];
/** Browsers cap this (Chromium at 2 h); an hour spares most preflights without pinning a stale answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 3600;

export interface CorsSettings {
  /** GCM_CORS_ORIGINS: pages of these origins may call the API; none registers nothing at all. */
  readonly origins: readonly string[];
  /** Origins whose cookie-authenticated writes auth.ts accepts (the public URL's and GCM_TRUSTED_ORIGINS). */
  readonly cookieOrigins: { has(origin: string): boolean };
}

/**
 * Registers CORS for the configured origins, before the auth hooks so a preflight (which never carries
 * credentials) is answered rather than refused. A page of another origin gets no CORS headers and its
 * browser keeps the answer from it; the request itself is handled as without CORS.
 *
 * Credentials (cookies) are allowed only to origins that auth.ts also trusts with a session: allowing them
 * to any CORS origin would let its pages read answers with the person's session while their writes are
 * refused anyway, so a dashboard of another origin that is not trusted uses a bearer token.
 */
export async function registerCors(app: FastifyInstance, settings: CorsSettings): Promise<void> {
  if (settings.origins.length === 0) return;
  const allowed = new Set(settings.origins);
  const base: FastifyCorsOptions = {
    methods: METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  };
  await app.register(cors, {
    delegator: (request, callback) => {
      const origin = request.headers.origin;
      if (origin === undefined || !allowed.has(origin)) return callback(null, { ...base, origin: false });
      callback(null, { ...base, origin, credentials: settings.cookieOrigins.has(origin) });
    },
  });
}

/** The game clients' routes: a game in a browser calls them from its own page, of any origin. */
const GAME_CLIENT_PREFIX = '/matchmaker/';
const GAME_CLIENT_METHODS = 'GET, POST, PUT';
const GAME_CLIENT_HEADERS = 'authorization, content-type';
const GAME_CLIENT_EXPOSED_HEADERS = EXPOSED_HEADERS.join(', ');

/**
 * CORS for `/matchmaker/*`, whatever GCM_CORS_ORIGINS says: a browser game calls these with its namespace's
 * public token from the game's own page, on any origin a studio hosts it at (as the original's public API
 * allowed). Any origin is safe there because nothing is sent with cookies (no credentials are allowed) and
 * the token is a bearer token the page holds anyway. A preflight is answered here, before the auth hook and
 * before any route, and the other routes are left to registerCors. Called from the app's first onRequest
 * hook rather than being a hook of its own: every request would pay the hook runner's step for it.
 * Returns true when it answered (a preflight): the request goes no further.
 */
export function answerGameClientCors(request: FastifyRequest, reply: FastifyReply): boolean {
  if (!request.url.startsWith(GAME_CLIENT_PREFIX)) return false;
  reply.header('access-control-allow-origin', '*');
  if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
    reply
      .code(204)
      .header('access-control-allow-methods', GAME_CLIENT_METHODS)
      .header('access-control-allow-headers', GAME_CLIENT_HEADERS)
      .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
      .send();
    return true;
  }
  reply.header('access-control-expose-headers', GAME_CLIENT_EXPOSED_HEADERS);
  return false;
}
