import { ERROR_CATALOGUE } from '@gcm/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createKeyedLock } from '../../db/keyed-lock.js';
import type { Deps } from '../../deps.js';
import { AppError, errors } from '../../errors.js';
import { refusedOrigin } from '../../http/auth.js';
import type { TypedApp } from '../../http/typed-app.js';
import { AUTH_BASE_PATH, CLIENT_IP_HEADER } from '../../identity/accounts.js';
import { revokeStrandedPersonTokens } from '../tokens/tokens.service.js';
import { checkAuthBody } from './auth-bodies.js';
import { guardPasswordCall } from './auth-call-guards.js';

/** Request headers better-auth may read; the rest (tokens of our own, proxies' claims) stay out. */
const FORWARDED_HEADERS = [
  'cookie',
  'origin',
  'referer',
  'user-agent',
  'content-type',
  'accept',
  'sec-fetch-site',
  'sec-fetch-mode',
  'sec-fetch-dest',
] as const;

/** Answer headers passed back to the client (set-cookie above all). */
const ANSWER_HEADERS = ['content-type', 'location', 'cache-control'] as const;

/**
 * better-auth's standard endpoints under /auth (sign-up, sign-in, sign-out, get-session, change and reset
 * password, and organization/* for teams), passed through with these changes: each POST body is checked
 * field by field first (auth-bodies.ts, which also lists the endpoints served), one team's member changes
 * take turns (so its last owner cannot leave however calls race), the client's address is the service's
 * request.ip, the per-address `accountCalls` limit counts every call (shared by instances on PostgreSQL),
 * and a refusal comes back as the service's error body, better-auth's own code in metadata.auth_code.
 */
export function accountsRoutes(app: TypedApp, deps: Deps): void {
  const origin = new URL(deps.config.publicUrl).origin;
  const teamLock = createKeyedLock(deps.config.databaseUrl, (err, what) => app.log.warn({ err }, what));
  app.addHook('onClose', () => teamLock.close());
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const fullPath = request.url.split('?', 1)[0] as string;
    const path = fullPath.slice(AUTH_BASE_PATH.length);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    const body = hasBody ? checkAuthBody(path, request.body) : undefined;
    if (hasBody && body === undefined) throw errors.routeNotFound(request.method, request.url);
    const settle = await guardPasswordCall(deps, fullPath, body);
    const headers = new Headers();
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    headers.set(CLIENT_IP_HEADER, request.ip);
    if (hasBody) headers.set('content-type', 'application/json');
    const call = async () => {
      const answer = await deps.accounts.handler(
        new Request(`${origin}${request.url}`, {
          method: request.method,
          headers,
          body: hasBody ? JSON.stringify(body) : undefined,
        }),
      );
      return { answer, text: await answer.text() };
    };
    // better-auth reads the team's owners and then writes, in separate statements: two owners leaving at
    // once would each still see the other. One change of a team's members at a time, on every instance.
    const teamId = MEMBERSHIP_CHANGES.has(path) ? body?.organizationId : undefined;
    const { answer, text } =
      typeof teamId === 'string' ? await teamLock.run(`team-members:${teamId}`, call) : await call();
    await settle(answer.status);
    for (const cookie of answer.headers.getSetCookie()) reply.header('set-cookie', cookie);
    if (answer.status >= 400) throw refusal(answer.status, text, request, deps);
    if (MEMBERSHIP_CHANGES.has(path)) {
      const teamId = teamOfMemberAnswer(text);
      // The change itself is made: a failure here must not answer it as failed. The minute sweep
      // (composition-root) revokes what this missed.
      if (teamId !== undefined) {
        await revokeStrandedPersonTokens(deps, { teamId }).catch((err: unknown) =>
          request.log.error({ err }, 'revoking the tokens of people who lost their role failed'),
        );
      }
    }
    for (const name of ANSWER_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) reply.header(name, value);
    }
    reply.code(answer.status);
    return reply.send(text === '' ? null : withoutSessionToken(text));
  };

  const config = { auth: 'public', limit: 'accountCalls', readsUndeclaredBody: true } as const;
  const summary = 'Accounts and teams: better-auth’s endpoints (README "People and teams")';
  // No body schema: one route serves every endpoint, each checked against its own table (auth-bodies.ts).
  app.route({
    method: ['GET', 'POST'],
    url: `${AUTH_BASE_PATH}/*`,
    config,
    schema: { hide: true, summary },
    handler,
  });
}

/**
 * better-auth calls after which someone may have lost the role a token minted for them needs, or the team
 * its last owner; each names its team (auth-bodies.ts).
 */
const MEMBERSHIP_CHANGES = new Set(
  ['leave', 'remove-member', 'update-member-role'].map((call) => `/organization/${call}`),
);

/** The team of the member these calls answer (`{member: {organizationId}}` or the member itself). */
function teamOfMemberAnswer(text: string): string | undefined {
  try {
    const answer = JSON.parse(text) as { organizationId?: unknown; member?: { organizationId?: unknown } };
    const teamId = answer.member?.organizationId ?? answer.organizationId;
    return typeof teamId === 'string' ? teamId : undefined;
  } catch {
    return undefined;
  }
}

/** better-auth's `{code, message}` refusal as the service's error; its 5xx as ours, logged. */
function refusal(status: number, text: string, request: FastifyRequest, deps: Deps): AppError {
  let body: { code?: unknown; message?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // A refusal without a JSON body keeps only its status.
  }
  const authCode = typeof body.code === 'string' ? body.code.slice(0, 100) : undefined;
  const message =
    typeof body.message === 'string' && body.message !== ''
      ? body.message.slice(0, 500)
      : `refused (${status})`;
  if (status >= 500) {
    request.log.error({ auth_status: status, auth_code: authCode }, 'better-auth failed');
    return errors.internal();
  }
  const metadata = authCode === undefined ? undefined : { auth_code: authCode };
  if (status === 401) return new AppError(401, 'API_UNAUTHORIZED', message, metadata);
  if (status === 403 && authCode === 'INVALID_ORIGIN') {
    // better-auth checks the Origin, or else the Referer; its "Invalid origin" says neither which nor why.
    const origin = request.headers.origin ?? refererOrigin(request.headers.referer);
    const what = path(request) === '/sign-in/email' ? 'signing in' : 'a call with a session';
    const err = refusedOrigin(deps.origins, request, origin, what);
    return new AppError(403, err.code, err.message, metadata);
  }
  if (status === 403) {
    // better-auth's own origin check answers the same refusal as ours for the service's routes.
    const code = authCode !== undefined && /ORIGIN/.test(authCode) ? 'AUTH_CROSS_ORIGIN' : 'API_FORBIDDEN';
    return new AppError(403, code, message, metadata);
  }
  if (status === 404) return new AppError(404, 'API_NOT_FOUND', message, metadata);
  return new AppError(
    status === 429 ? 429 : ERROR_CATALOGUE.AUTH_REFUSED.status,
    status === 429 ? 'RATE_LIMITED' : 'AUTH_REFUSED',
    message,
    metadata,
  );
}

function path(request: FastifyRequest): string {
  return (request.url.split('?', 1)[0] as string).slice(AUTH_BASE_PATH.length);
}

function refererOrigin(referer: string | undefined): string {
  try {
    return referer === undefined ? '(none)' : new URL(referer).origin;
  } catch {
    return '(none)';
  }
}

/**
 * The session token travels in the HttpOnly cookie only: better-auth also puts it in the JSON of sign-in,
 * sign-up and get-session, where a page's script (or an XSS) could read it. Left out here.
 */
function withoutSessionToken(text: string): string {
  if (!text.includes('"token"')) return text;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return text;
  const record = body as Record<string, unknown>;
  if ('token' in record) delete record.token;
  const session = record.session;
  if (typeof session === 'object' && session !== null && 'token' in session) {
    delete (session as Record<string, unknown>).token;
  }
  return JSON.stringify(record);
}
