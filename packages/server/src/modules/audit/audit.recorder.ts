import type { AuditActorKind } from '@gcm/contract';
import { IDEMPOTENT_REPLAYED_HEADER, UUID_PATTERN } from '@gcm/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import type { Deps } from '../../deps.js';
import { hooksOf } from '../../http/route-hooks.js';
import { AUTH_BASE_PATH } from '../../identity/accounts.js';
import type { Caller, Person } from '../../identity/callers.js';
import { newId } from '../../lib/ids.js';
import * as repo from './audit.repository.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const UUID = new RegExp(UUID_PATTERN);
/** better-auth's team calls are recorded (in the team's list); its sign-ins and sessions are not writes to anything a team owns. */
const TEAM_CALLS = `${AUTH_BASE_PATH}/organization/`;
const MAX_RESOURCE_IDS = 12;
const MAX_TEXT = 300;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route's writes are not recorded (lobby-log reports, upload bytes: README "Audit log"). */
    audit?: boolean;
  }
}

interface Actor {
  kind: AuditActorKind;
  tokenId?: string;
  userId?: string;
  email?: string;
}

function actorOf(caller: Caller): Actor {
  switch (caller.kind) {
    case 'operator':
      return { kind: 'operator' };
    case 'game_cloud':
      return { kind: 'cloud_token', tokenId: caller.tokenId };
    case 'namespace_reporter':
      return { kind: 'reporter_token', tokenId: caller.tokenId };
    // A lobby token has no token row: its lobby is the call's (refused) resource.
    case 'lobby':
      return { kind: 'lobby_token' };
    case 'game_client':
      return {
        kind: caller.token === 'public' ? 'public_token' : 'development_token',
        tokenId: caller.tokenId,
      };
    case 'person':
      return { kind: 'person', userId: caller.userId, email: caller.email };
  }
}

/** The answer as an object, when it is a JSON object (a string payload at onSend). */
function answerObject(payload: unknown): Record<string, unknown> | undefined {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(payload) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function uuidAt(value: unknown): string | undefined {
  return typeof value === 'string' && UUID.test(value) ? value : undefined;
}

/** The ids a call named in its path, and the top-level `*_id`s of a successful answer (what it made). */
function resourceOf(
  request: FastifyRequest,
  answer: Record<string, unknown> | undefined,
): Record<string, string> {
  const resource: Record<string, string> = {};
  const add = (key: string, value: unknown) => {
    if (typeof value !== 'string' || Object.keys(resource).length >= MAX_RESOURCE_IDS) return;
    if (resource[key] === undefined) resource[key] = value.slice(0, MAX_TEXT);
  };
  for (const [key, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
    if (key !== '*') add(key, value);
  }
  if (answer !== undefined) {
    for (const [key, value] of Object.entries(answer)) if (key.endsWith('_id')) add(key, uuidAt(value));
  }
  return resource;
}

/** The game a /cloud call was about: its path's, its answer's, or the one its token or upload belongs to. */
async function gameOf(
  deps: Deps,
  resource: Record<string, string>,
  body: unknown,
): Promise<string | undefined> {
  const named = uuidAt(resource.game_id) ?? uuidAt((body as { game_id?: unknown } | null)?.game_id);
  if (named !== undefined) return named;
  const tokenId = uuidAt(resource.token_id);
  if (tokenId !== undefined) return repo.gameOfToken(deps.db, tokenId);
  const uploadId = uuidAt(resource.upload_id);
  if (uploadId !== undefined) return repo.gameOfUpload(deps.db, uploadId);
  return undefined;
}

/**
 * The team a call named in its path or body (`team_id`: a team's routes, and the team a new game is to go
 * to), when its caller belongs to that team: the operator; a person in it, whatever their role; a token of
 * one of its games. The event then shows in that team's list, so a member's refused createGame is in front
 * of the team's admins. A caller from outside is not recorded against the team it named: anyone could
 * otherwise write into any team's list (and put their name in front of its admins) just by naming its id;
 * their call is in the operator's list (`GET /cloud/audit`) with no team.
 */
async function teamNamedBy(
  deps: Deps,
  caller: Caller,
  resource: Record<string, string>,
  body: unknown,
): Promise<string | undefined> {
  const named = uuidAt(resource.team_id) ?? uuidAt((body as { team_id?: unknown } | null)?.team_id);
  if (named === undefined) return undefined;
  switch (caller.kind) {
    case 'operator':
      return named;
    case 'person':
      return caller.teams.has(named) ? named : undefined;
    case 'game_cloud':
    case 'namespace_reporter':
    case 'lobby':
    case 'game_client':
      return (await repo.teamOfAnyGame(deps.db, caller.gameId)) === named ? named : undefined;
  }
}

/** The team a better-auth team call was about, from its body or its answer. */
function teamOfAuthCall(
  body: unknown,
  answer: Record<string, unknown> | undefined,
  path: string,
): string | undefined {
  const nested = (value: unknown) => uuidAt((value as { organizationId?: unknown } | null)?.organizationId);
  return (
    nested(body) ??
    nested(answer) ??
    nested(answer?.invitation) ??
    nested(answer?.member) ??
    (path === `${TEAM_CALLS}create` ? uuidAt(answer?.id) : undefined)
  );
}

/**
 * The audit log: every write through the API by a known caller is appended (who, which operation, which
 * resource, when, its ray id and how it ended) before its answer leaves, so an answered write is recorded.
 * Calls refused before their caller was known (no token, a bad one) are not: nobody can be named, and the
 * failed-check limit and the log cover them.
 */
export function registerAudit(app: FastifyInstance, deps: Deps): void {
  const record = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    // A replay under an Idempotency-Key answers the recorded write again and changes nothing: not a write.
    if (!WRITES.has(request.method) || reply.getHeader(IDEMPOTENT_REPLAYED_HEADER) !== undefined) return;
    const path = request.url.split('?', 1)[0] as string;
    const authCall = request.routeOptions.url === `${AUTH_BASE_PATH}/*`;
    if (authCall && !path.startsWith(TEAM_CALLS)) return;
    let caller: Caller | null = request.caller;
    if (caller === null && authCall) caller = await personOrNull(deps, request);
    if (caller === null) return;
    const status = reply.statusCode;
    const answer = status < 400 ? answerObject(payload) : undefined;
    const resource = resourceOf(request, answer);
    let gameId: string | undefined;
    let teamId: string | undefined;
    if (authCall) {
      teamId = teamOfAuthCall(request.body, answer, path);
    } else {
      gameId = await gameOf(deps, resource, request.body);
      teamId =
        gameId === undefined
          ? await teamNamedBy(deps, caller, resource, request.body)
          : await repo.teamOfAnyGame(deps.db, gameId);
    }
    const actor = actorOf(caller);
    await repo.insertEvent(deps.db, {
      event_id: newId(),
      ts: deps.clock.now(),
      actor_kind: actor.kind,
      actor_token_id: actor.tokenId ?? null,
      actor_user_id: actor.userId ?? null,
      actor_email: actor.email ?? null,
      operation: authCall
        ? `auth.${path.slice(AUTH_BASE_PATH.length + 1).replaceAll('/', '.')}`.slice(0, MAX_TEXT)
        : (request.routeOptions.schema?.operationId ?? `${request.method} ${request.routeOptions.url}`),
      method: request.method,
      path: path.slice(0, 1000),
      game_id: gameId ?? null,
      team_id: teamId ?? null,
      resource: JSON.stringify(resource),
      status,
      ray_id: String(request.id),
    });
  };
  const onSend: onSendHookHandler = async (request, reply, payload) => {
    try {
      await record(request, reply, payload);
    } catch (err) {
      // The write itself is done: failing its answer now would only make the client retry it.
      request.log.error({ err }, 'the audit event of this write could not be recorded');
    }
    return payload;
  };
  app.addHook('onRoute', (route) => {
    const methods = ([] as string[]).concat(route.method);
    if (route.config?.audit === false || !methods.some((method) => WRITES.has(method))) return;
    route.onSend = [...hooksOf(route.onSend), onSend];
  });
}

async function personOrNull(deps: Deps, request: FastifyRequest): Promise<Person | null> {
  try {
    return await deps.people.fromCookies(request.headers);
  } catch {
    return null;
  }
}
