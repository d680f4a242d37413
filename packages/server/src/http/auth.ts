import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { type AppError, errors } from '../errors.js';
import type { Caller, GameClientCaller, LobbyCaller, TokenCaller } from '../identity/callers.js';
import { carriesSession, type People } from '../identity/people.js';
import { roleCovers, type TeamRole } from '../identity/roles.js';
import type { TokenAuthority } from '../identity/token-authority.js';
import type { TrustedOrigins } from '../lib/trusted-origins.js';
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
 * - `lobby`: a running lobby's own token (GCM_LOBBY_TOKEN) only; the route acts on that lobby, which the
 *   path does not name, so neither the operator nor any other token may call it;
 * - `matchmaker`: a game client's token only, a namespace's public or development token; the route acts in
 *   that namespace, which the path does not name, so neither the operator nor any other token may call it;
 * - `reader`: a game client's token (as `matchmaker`) or a running lobby's own token (as `lobby`): both act
 *   in their namespace, which the path does not name; what a lobby may read of its namespace, players may too;
 * - `operator`: the operator only.
 * A route that declares nothing is treated as `operator`, so a forgotten declaration fails closed.
 */
export type AuthRule =
  | 'public'
  | 'self'
  | 'any'
  | 'game'
  | 'reporter'
  | 'lobby'
  | 'matchmaker'
  | 'reader'
  | 'operator';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRule;
    /**
     * The team role a signed-in person needs (in the team that owns the game the path names); null: no
     * person may call, only tokens. Unset: `viewer` to read and `member` to write, except on `operator`
     * routes, which people may not call unless the route names a role.
     */
    personRole?: TeamRole | null;
    /**
     * On an `operator` route with a `personRole`: a game cloud token minted for a person (gcm login's) may
     * call it too, as that person, on its own game only, when their role there now covers `personRole`.
     */
    personTokens?: true;
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
  lobby: 'Who may call: a running lobby, with its own lobby token (GCM_LOBBY_TOKEN); it acts on that lobby.',
  matchmaker:
    "Who may call: a game client, with a namespace's public or development token; it acts in that namespace.",
  reader:
    "Who may call: a game client, with a namespace's public or development token, or a running lobby, with its own lobby token; it acts in that namespace.",
  operator: 'Who may call: the operator only.',
};

/**
 * Runs in onRequest: the token is checked before the body is even parsed, let alone any data read. An
 * address that failed too many token checks gets 429 for each further failure, and its tokens are checked
 * one at a time (`guard`); a valid one still passes.
 *
 * The check is each route's own hook, made when the route is added with its rule fixed: a request pays
 * for no rule lookup, public routes and unknown paths (404) for no hook at all, and a request whose token
 * and address are known in memory is checked without a promise (this is the hottest path of the service).
 */
export interface AuthSources {
  tokens: TokenAuthority;
  guard: AuthFailureGuard;
  people: People;
  /** Origins whose pages may write with a session cookie: the public URL's and GCM_TRUSTED_ORIGINS. */
  trustedOrigins: TrustedOrigins;
}

/**
 * The role a person needs on a route that names none: reads for viewers, writes for members. On `any` and
 * `self` routes, whose paths name no game or team, it is only a yes: the person sees what their teams own.
 */
function defaultPersonRole(rule: Exclude<AuthRule, 'public'>, method: string): TeamRole | null {
  if (rule === 'operator' || rule === 'lobby' || rule === 'matchmaker' || rule === 'reader') return null;
  return method === 'GET' || method === 'HEAD' ? 'viewer' : 'member';
}

export function registerAuth(app: FastifyInstance, sources: AuthSources): void {
  app.decorateRequest('caller', null);
  app.addHook('onRoute', (route) => {
    const rule = route.config?.auth ?? 'operator';
    if (rule === 'public') return;
    const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method);
    const personRole =
      route.config?.personRole === undefined ? defaultPersonRole(rule, method) : route.config.personRole;
    route.config = { ...route.config, personRole };
    describePeople(route.schema as DocumentedSchema | undefined, rule, personRole);
    const asPerson = route.config.personTokens === true && personRole !== null ? personRole : null;
    const check: onRequestHookHandler = (request, _reply, done) => {
      let pending: Promise<void> | undefined;
      try {
        pending = authorize(sources, rule, personRole, asPerson, request);
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

interface DocumentedSchema {
  description?: string;
  security?: Record<string, string[]>[];
}

/**
 * The OpenAPI text and security of a route say whether, and as what, a signed-in person may call it. A
 * route without a schema (none of the API's: routeOptions makes one for each) is not in the document.
 */
function describePeople(schema: DocumentedSchema | undefined, rule: AuthRule, role: TeamRole | null): void {
  if (schema === undefined || role === null) return;
  // A GET's HEAD twin shares its schema object: describe it once.
  if (schema.security?.some((scheme) => 'sessionCookie' in scheme)) return;
  const people =
    rule === 'any' || rule === 'self'
      ? 'Or a signed-in person (session cookie), who sees what their teams own.'
      : `Or a signed-in person (session cookie) with the ${role} role or stronger in the team that owns the game.`;
  schema.description = schema.description === undefined ? people : `${schema.description} ${people}`;
  schema.security = [...(schema.security ?? []), { sessionCookie: [] }];
}

/**
 * Sets request.caller and checks it against `rule`: at once when memory holds all it needs, else later.
 * `personTokenRole`: the role a person's game cloud token must speak for on an operator route (null: none may).
 */
function authorize(
  sources: AuthSources,
  rule: Exclude<AuthRule, 'public'>,
  personRole: TeamRole | null,
  personTokenRole: TeamRole | null,
  request: FastifyRequest,
): Promise<void> | undefined {
  const { tokens: authority, guard } = sources;
  const header = request.headers.authorization;
  // A bearer token wins over a cookie: a script holding both means the token.
  if (header === undefined && carriesSession(request.headers.cookie)) {
    return authorizePerson(sources, personRole, request);
  }
  // A token memory vouches for passes whatever its address failed (AuthFailureGuard says why).
  const known = header === undefined ? undefined : authority.cachedCaller(header);
  if (known === undefined) {
    return authenticate(authority, guard, request).then((caller) =>
      permit(sources.people, rule, personTokenRole, caller, request),
    );
  }
  return permit(sources.people, rule, personTokenRole, known, request);
}

// No OPTIONS: no route answers it past CORS, whose preflights are answered before any auth hook (cors.ts).
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/**
 * A session cookie's person: the session is read from the store, a write must come from a trusted origin
 * (a cookie is sent by the browser whichever page asks), and the person's role in the team that owns the
 * game the path names must cover the route's.
 */
async function authorizePerson(
  sources: AuthSources,
  personRole: TeamRole | null,
  request: FastifyRequest,
): Promise<void> {
  const person = await sources.guard.verify(request, true, () => sources.people.fromCookies(request.headers));
  request.caller = person;
  if (!SAFE_METHODS.has(request.method)) assertSameOrigin(sources.trustedOrigins, request);
  if (personRole === null) {
    throw errors.forbidden('this operation needs the operator token; a signed-in person may not call it');
  }
  const params = request.params as Record<string, string | undefined>;
  const malformed = malformedPathId(params, 'game_id') ?? malformedPathId(params, 'team_id');
  if (malformed !== undefined) throw malformed;
  if (params.game_id !== undefined) await sources.people.assertGameRole(person, params.game_id, personRole);
  if (params.team_id !== undefined) sources.people.assertTeamRole(person, params.team_id, personRole);
}

/**
 * CSRF: a cookie-authenticated write is refused unless the browser says which page sent it and that page is
 * the service's own or a trusted origin. Browsers send Origin with every cross-origin write and with
 * same-origin POSTs; a client that sends neither Origin nor Sec-Fetch-Site should use a token.
 */
function assertSameOrigin(trusted: TrustedOrigins, request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (trusted.has(origin)) return;
    throw refusedOrigin(trusted, request, origin, 'a write with a session cookie');
  }
  if (request.headers['sec-fetch-site'] === 'same-origin') return;
  throw errors.crossOrigin(
    'a write with a session cookie must carry an Origin header of a trusted origin (or use a bearer token)',
  );
}

/**
 * The refusal of a session's use from a page of an untrusted origin, naming the origin and what decides;
 * the log says it once per origin (at warn: most often a deployment whose GCM_PUBLIC_URL is not the address
 * people open).
 */
export function refusedOrigin(
  trusted: TrustedOrigins,
  request: FastifyRequest,
  origin: string,
  what: string,
): AppError {
  const message = trusted.refusal(origin, what);
  if (trusted.firstRefusal(origin)) {
    request.log.warn({ origin: origin.slice(0, 200), trusted_origins: trusted.list() }, message);
  }
  return errors.crossOrigin(message);
}

/**
 * Throws the 400 or 403 that says why `caller` (a token's) may not call a route of `rule`; a person's token on
 * an operator route that takes one is decided later, by the person's role read from the store.
 */
function permit(
  people: People,
  rule: Exclude<AuthRule, 'public'>,
  personTokenRole: TeamRole | null,
  caller: TokenCaller,
  request: FastifyRequest,
): Promise<void> | undefined {
  request.caller = caller;
  if (rule === 'reader') {
    if (caller.kind !== 'game_client' && caller.kind !== 'lobby') {
      throw errors.forbidden(
        "this operation needs a namespace's public or development token, or a lobby token",
      );
    }
    return undefined;
  }
  // A lobby's token is for the lobby's own calls alone; those routes take nothing else (not even the operator's).
  if (rule === 'lobby') {
    if (caller.kind !== 'lobby')
      throw errors.forbidden('this operation needs a lobby token (GCM_LOBBY_TOKEN)');
    return undefined;
  }
  if (caller.kind === 'lobby') throw errors.forbidden('a lobby token may only make its lobby’s own calls');
  // A game client's token ships inside games, so anyone may hold one: it matchmakes in its namespace, no more.
  if (rule === 'matchmaker') {
    if (caller.kind !== 'game_client') {
      throw errors.forbidden("this operation needs a namespace's public or development token");
    }
    return undefined;
  }
  if (caller.kind === 'game_client') {
    throw errors.forbidden('a public or development token may only matchmake in its namespace');
  }
  if (caller.kind === 'operator' || rule === 'self') return undefined;
  const params = request.params as Record<string, string | undefined>;
  if (rule === 'operator' && (personTokenRole === null || caller.kind !== 'game_cloud')) {
    throw errors.forbidden('this operation needs the operator token');
  }
  // A name_id where an id goes is bad input, not another game's: say so before comparing.
  const malformed = malformedPathId(params, 'game_id') ?? malformedPathId(params, 'namespace_id');
  if (malformed !== undefined) throw malformed;
  if (rule === 'operator' && caller.kind === 'game_cloud' && personTokenRole !== null) {
    return permitPersonToken(people, personTokenRole, caller, params.game_id);
  }
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
  return undefined;
}

/**
 * A game cloud token on an operator route that people's tokens may call: only one minted for a person, on
 * its own game, whose person holds `needed` there now (a demoted or removed person's token loses it at once).
 */
async function permitPersonToken(
  people: People,
  needed: TeamRole,
  caller: Extract<TokenCaller, { kind: 'game_cloud' }>,
  gameId: string | undefined,
): Promise<void> {
  const must = `this operation needs the operator token, or the token of a person (gcm login) with the ${needed} role or stronger in the game's team`;
  if (caller.userId === null) throw errors.forbidden(`${must}; this token was minted for no person`);
  if (caller.gameId !== gameId) throw errors.forbidden('this token belongs to another game');
  const held = await people.gameRoleOf(caller.userId, gameId);
  if (held === undefined)
    throw errors.forbidden(`${must}; its person is not in the team that owns this game`);
  if (!roleCovers(held, needed)) throw errors.forbidden(`${must}; its person is ${held}`);
}

/** Only requests that carry a token take part in the failure count: one without is no guess. */
function authenticate(
  authority: TokenAuthority,
  guard: AuthFailureGuard,
  request: FastifyRequest,
): Promise<TokenCaller> {
  const header = request.headers.authorization;
  if (header === undefined) return authority.authenticate(header);
  return guard.verify(request, authority.plausible(header), () => authority.authenticate(header), header);
}

/** The lobby calling a route whose rule is `lobby`; the hook guarantees it is one. */
export function lobbyCallerOf(request: FastifyRequest): LobbyCaller {
  const caller = callerOf(request);
  if (caller.kind !== 'lobby') throw errors.forbidden('this operation needs a lobby token (GCM_LOBBY_TOKEN)');
  return caller;
}

/** The game client or lobby calling a route whose rule is `reader`; the hook guarantees it is one. */
export function namespaceReaderOf(request: FastifyRequest): GameClientCaller | LobbyCaller {
  const caller = callerOf(request);
  if (caller.kind !== 'game_client' && caller.kind !== 'lobby') {
    throw errors.forbidden(
      "this operation needs a namespace's public or development token, or a lobby token",
    );
  }
  return caller;
}

/** The game client calling a route whose rule is `matchmaker`; the hook guarantees it is one. */
export function gameClientOf(request: FastifyRequest): GameClientCaller {
  const caller = callerOf(request);
  if (caller.kind !== 'game_client') {
    throw errors.forbidden("this operation needs a namespace's public or development token");
  }
  return caller;
}

/** The caller of a route whose rule is not `public`; the hook guarantees it is set. */
export function callerOf(request: FastifyRequest): Caller {
  if (request.caller === null) throw errors.unauthorized();
  return request.caller;
}
