import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError, errors } from '../errors.js';
import type { Caller, TokenAuthority } from '../modules/tokens/token-authority.js';
import { malformedPathId } from './errors.js';
import type { AuthFailureGuard } from './rate-limits.js';
import { hooksOf } from './route-hooks.js';

/**
 * Who may call a route, declared in its `config.auth`:
 * - `public`: nobody needs a token;
 * - `self`: any valid token of any kind (only to ask who the caller is);
 * - `any`: the operator or any game cloud token (the service then limits what it sees);
 * - `game`: the operator, or a cloud token of the game named by the `game_id` path parameter;
 * - `reporter`: the operator, or a lobby reporter token of the `game_id` and `namespace_id` in the path;
 * - `operator`: the operator only.
 * A route that declares nothing is treated as `operator`, so a forgotten declaration fails closed.
 */
export type AuthRule = 'public' | 'self' | 'any' | 'game' | 'reporter' | 'operator';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
  }
  interface FastifyRequest {
    caller: Caller | null;
  }
}

export const AUTH_DESCRIPTIONS: Record<AuthRule, string> = {
  public: 'Who may call: anyone; no token.',
  self: 'Who may call: any valid token (operator, game cloud or lobby reporter token).',
  any: 'Who may call: the operator or any game cloud token.',
  game: 'Who may call: the operator, or a game cloud token of this game.',
  reporter: 'Who may call: the operator, or a lobby reporter token of this namespace.',
  operator: 'Who may call: the operator only.',
};

/**
 * Runs in onRequest: the token is checked before the body is even parsed, let alone any data read. An
 * address that failed too many token checks gets 429 before its token is looked at (`guard`).
 *
 * The check is each route's own hook, made when the route is added with its rule fixed: a request pays
 * for no rule lookup, public routes and unknown paths (404) for no hook at all, and a request whose token
 * and address are known in memory is checked without a promise (this is the hottest path of the service).
 */
export function registerAuth(app: FastifyInstance, authority: TokenAuthority, guard: AuthFailureGuard): void {
  app.decorateRequest('caller', null);
  app.addHook('onRoute', (route) => {
    const rule = route.config?.auth ?? 'operator';
    if (rule === 'public') return;
    const check: onRequestHookHandler = (request, _reply, done) => {
      let pending: Promise<void> | undefined;
      try {
        pending = authorize(authority, guard, rule, request);
      } catch (err) {
        done(err as Error);
        return;
      }
      if (pending === undefined) done();
      else
        pending.then(
          () => done(),
          (err: Error) => done(err),
        );
    };
    // First among the route's own hooks, as when it was global: no per-route limit counts a request before
    // its caller is known.
    route.onRequest = [check, ...hooksOf(route.onRequest)];
  });
}

/** Sets request.caller and checks it against `rule`: at once when memory holds all it needs, else later. */
function authorize(
  authority: TokenAuthority,
  guard: AuthFailureGuard,
  rule: Exclude<AuthRule, 'public'>,
  request: FastifyRequest,
): Promise<void> | undefined {
  const header = request.headers.authorization;
  const known = header !== undefined && guard.clearNow(request) ? authority.cachedCaller(header) : undefined;
  if (known === undefined) {
    return authenticate(authority, guard, request).then((caller) => permit(rule, caller, request));
  }
  permit(rule, known, request);
  return undefined;
}

/** Throws the 400 or 403 that says why `caller` may not call a route of `rule`. */
function permit(rule: Exclude<AuthRule, 'public'>, caller: Caller, request: FastifyRequest): void {
  request.caller = caller;
  if (caller.kind === 'operator' || rule === 'self') return;
  const params = request.params as Record<string, string | undefined>;
  if (rule === 'operator') throw errors.forbidden('this operation needs the operator token');
  // A name_id where an id goes is bad input, not another game's: say so before comparing.
  const malformed = malformedPathId(params, 'game_id') ?? malformedPathId(params, 'namespace_id');
  if (malformed !== undefined && (rule === 'game' || rule === 'reporter')) throw malformed;
  if (rule === 'reporter') {
    if (caller.kind !== 'namespace_reporter') {
      throw errors.forbidden('this operation needs the operator or a lobby reporter token');
    }
    if (caller.gameId !== params.game_id || caller.namespaceId !== params.namespace_id) {
      throw errors.forbidden('this token belongs to another namespace');
    }
    return;
  }
  // `any` and `game` are for game cloud tokens: a reporter token may only report lobbies.
  if (caller.kind !== 'game_cloud') throw errors.forbidden('a lobby reporter token may only report lobbies');
  if (rule === 'game' && caller.gameId !== params.game_id) {
    throw errors.forbidden('this token belongs to another game');
  }
}

/** Only requests that carry a token take part in the failure count: one without is no guess. */
async function authenticate(
  authority: TokenAuthority,
  guard: AuthFailureGuard,
  request: FastifyRequest,
): Promise<Caller> {
  const header = request.headers.authorization;
  if (header === undefined) return authority.authenticate(header);
  await guard.check(request);
  try {
    return await authority.authenticate(header);
  } catch (err) {
    if (err instanceof AppError && err.statusCode === 401) await guard.failed(request);
    throw err;
  }
}

/** The caller of a route whose rule is not `public`; the hook guarantees it is set. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw errors.unauthorized();
  return request.caller;
}
