import {
  CURSOR_PATTERN,
  IDEMPOTENCY_KEY_HEADER,
  NAME_ID,
  oneOfMessage,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_PATTERN,
  SINGLE_LINE_PATTERN,
  UUID_PATTERN,
  valueAtPointer,
} from '@gcm/contract';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import { AppError, errors } from '../errors.js';
import { BlobStoreError } from '../lib/blob/blob-storage.js';
import { isStoreUnavailable } from '../lib/db-errors.js';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const LOCATION: Record<
  string,
  { factory: (m: string, md: Record<string, unknown>) => AppError; what: string }
> = {
  body: { factory: errors.badBody, what: 'body field' },
  querystring: { factory: errors.badQuery, what: 'query parameter' },
  params: { factory: errors.badParams, what: 'path parameter' },
  headers: { factory: errors.badBody, what: 'header' },
};

/** `/config/cdn/routes/0` + missing `glob` → `config.cdn.routes.0.glob`: the name a user looks for. */
function fieldOf(issue: AjvIssue): string {
  const segments = issue.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const extra = issue.params.missingProperty ?? issue.params.additionalProperty;
  if (typeof extra === 'string') segments.push(extra);
  return segments.join('.');
}

/**
 * Fields that take an id, what the id is and where a client finds it. A client that sends a name_id (or a
 * display name) where an id goes learns that the field takes an id and which call lists them. A Map: the
 * last segment of a failing field can be a user's map key such as "constructor".
 */
const ID_GUIDES = new Map<string, { what: string; find: string }>(
  Object.entries({
    game_id: { what: "the game's id", find: 'GET /cloud/games lists each game_id beside its name_id' },
    namespace_id: {
      what: "the namespace's id",
      find: "GET /cloud/games/{game_id}/namespaces lists the game's namespaces with their namespace_id",
    },
    team_id: {
      what: "the team's id",
      find: 'GET /cloud/auth/inspect lists the team_id of each team a signed-in person is in',
    },
    environment_id: {
      what: 'the id of a namespace (an environment is a namespace)',
      find: "GET /cloud/games/{game_id}/namespaces lists the game's namespaces with their namespace_id",
    },
    version_id: {
      what: "the version's id",
      find:
        "GET /cloud/games/{game_id}/versions lists the game's versions with their version_id " +
        '(none yet? POST /cloud/games/{game_id}/versions creates one)',
    },
    build_id: {
      what: "the build's id",
      find: 'prepare answers it; GET /games/{game_id}/environments/{environment_id}/builds lists the builds',
    },
    lobby_id: {
      what: "the lobby's id",
      find: 'GET /cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies lists the lobbies',
    },
    before_lobby_id: {
      what: 'the lobby_id of the last lobby of the previous page',
      find: 'take it from the page GET .../logs/lobbies answered',
    },
    upload_id: { what: "the upload's id", find: 'the prepare call answers it as upload_id' },
    token_id: { what: "the token's id", find: 'the call that made the token answers it as token_id' },
  }),
);
/**
 * Outside the path, only fields naming something that must exist already are guided; an id a client
 * chooses (a lobby_id it reports) is not found anywhere, so the plain message fits it better.
 */
const GUIDED_OUTSIDE_PATH = new Set(['game_id', 'version_id', 'before_lobby_id']);

const EXAMPLE_UUID = '0190a0a0-1234-7000-8000-00000000abcd';
const UUID_ANY_CASE = new RegExp(UUID_PATTERN, 'i');
/** Keywords that mean "a string, but not shaped like an id"; a number or a missing field is said plainly. */
const SHAPE_KEYWORDS = new Set(['pattern', 'format', 'maxLength', 'minLength']);

function idGuide(
  issue: AjvIssue,
  context: string,
  field: string,
  what: string,
  value: unknown,
): string | undefined {
  if (context !== 'params' && !GUIDED_OUTSIDE_PATH.has(field)) return undefined;
  const guide = ID_GUIDES.get(field);
  if (guide === undefined || (issue.keyword !== 'required' && !SHAPE_KEYWORDS.has(issue.keyword))) {
    return undefined;
  }
  if (issue.keyword === 'required') return `${what} "${field}" is required: ${guide.what}; ${guide.find}`;
  return notAnIdMessage(what, field, value, guide);
}

function notAnIdMessage(what: string, field: string, value: unknown, guide: { what: string; find: string }) {
  const shown =
    typeof value === 'string' ? JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value) : '';
  const takes = `${what} "${field}" takes ${guide.what}, a UUID like ${EXAMPLE_UUID}`;
  if (typeof value === 'string' && UUID_ANY_CASE.test(value)) {
    return `${takes}, in lower case; ${shown} has upper-case letters`;
  }
  const looksLikeName = typeof value === 'string' && NAME_ID.test(value);
  return `${takes}; ${shown} ${looksLikeName ? 'looks like a name_id, not an id' : 'is not one'}: ${guide.find}`;
}

const UUID = new RegExp(UUID_PATTERN);

/**
 * The 400 for a path id that is no UUID, for checks that run before the schema: the token check compares
 * a cloud token's game with `game_id`, and without this a studio sending its name_id would be told the
 * token belongs to another game. A non-UUID names no game, so answering 400 reveals nothing.
 */
export function malformedPathId(
  params: Record<string, string | undefined>,
  field: string,
): AppError | undefined {
  const value = params[field];
  const guide = ID_GUIDES.get(field);
  if (value === undefined || guide === undefined || UUID.test(value)) return undefined;
  return errors.badParams(notAnIdMessage('path parameter', field, value, guide), { field });
}

/** Ajv's wording for the patterns every route shares says nothing to a person; these do. */
const PATTERN_MESSAGES: Record<string, string> = {
  [UUID_PATTERN]: 'must be a UUID (lower-case hex, 8-4-4-4-12)',
  [SINGLE_LINE_PATTERN]: 'must not contain control characters',
  [PAGE_LIMIT_PATTERN]: `must be a whole number from 1 to ${PAGE_LIMIT_MAX}`,
  [CURSOR_PATTERN]: 'is not a cursor this list answered; start without one',
};

function issueMessage(issue: AjvIssue): string {
  if (issue.keyword === 'pattern' && typeof issue.params.pattern === 'string') {
    const known = PATTERN_MESSAGES[issue.params.pattern];
    if (known !== undefined) return known;
  }
  if (typeof issue.params.propertyName === 'string') {
    return `has a key that ${issue.message ?? 'is invalid'}: ${JSON.stringify(issue.params.propertyName.slice(0, 64))}`;
  }
  return issue.message ?? 'is invalid';
}

const INPUTS: Record<string, (request: FastifyRequest) => unknown> = {
  body: (request) => request.body,
  querystring: (request) => request.query,
  params: (request) => request.params,
};

function fromValidation(err: FastifyError, request: FastifyRequest): AppError {
  const context = (err as FastifyError & { validationContext?: string }).validationContext ?? 'body';
  const location = LOCATION[context] ?? (LOCATION.body as NonNullable<(typeof LOCATION)['body']>);
  const issue = (err.validation?.[0] ?? { instancePath: '', keyword: '', params: {} }) as AjvIssue;
  const field = fieldOf(issue);
  // The one header a schema checks has a code of its own: a client retrying on it needs to tell it apart.
  if (context === 'headers' && field === IDEMPOTENCY_KEY_HEADER) return errors.idempotencyKeyInvalid();
  if (field === '') {
    return location.factory(`${context === 'body' ? 'request body' : context} ${issueMessage(issue)}`, {
      field: null,
    });
  }
  const input = INPUTS[context]?.(request);
  // The value the failed rule looked at, for the message.
  const value = valueAtPointer(input, issue.instancePath);
  const message =
    idGuide(issue, context, field, location.what, value) ??
    (issue.keyword === 'required'
      ? `${location.what} "${field}" is required`
      : `${location.what} "${field}" ${
          oneOfMessage((err.validation ?? []) as AjvIssue[], issue.instancePath, value) ?? issueMessage(issue)
        }`);
  return location.factory(message, { field });
}

/**
 * The error is the request stream's own: the client closed its connection before its body arrived in full
 * (Node destroys the request with ECONNRESET "aborted"). A store's ECONNRESET comes from another socket,
 * so telling them apart by code alone would log every client that gives up as a database outage.
 */
function isClientAbort(err: unknown, request: FastifyRequest): boolean {
  return err !== null && request.raw.errored === err;
}

/** Maps what Fastify itself throws (parsing, limits) onto the catalogue; anything else is a 500. */
function toAppError(err: FastifyError, globalLimit: number, request: FastifyRequest): AppError | undefined {
  // A route may have a limit of its own (a version's configuration); a request that matched none has none.
  const bodyLimit = request.routeOptions.bodyLimit ?? globalLimit;
  const contentType = request.headers['content-type'] ?? '';
  if (err instanceof AppError) return err;
  // Before the database's check: a store's socket errors (ECONNREFUSED) look the same.
  if (err instanceof BlobStoreError) {
    return err.kind === 'unavailable'
      ? errors.blobStoreUnavailable(err.message)
      : errors.blobStoreError(err.message);
  }
  if (isStoreUnavailable(err)) return errors.storeUnavailable();
  if (err.validation !== undefined) return fromValidation(err, request);
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.bodyTooLarge(bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(contentType);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.badBody('request body is empty but content-type is application/json');
    default:
      break;
  }
  // Body parser failures (malformed JSON, __proto__ keys, bad content-length) arrive as plain 400s.
  if (err.statusCode === 400) return errors.badBody(`request body could not be parsed: ${err.message}`);
  if (err.statusCode === 413) return errors.bodyTooLarge(bodyLimit);
  if (err.statusCode === 415) return errors.unsupportedMediaType(contentType);
  return undefined;
}

/** 5xx answers that refuse a player for the game's capacity: logged at info, not error. */
const PLAYER_REFUSALS: ReadonlySet<string> = new Set(['MATCHMAKER_NO_CAPACITY']);

export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (isClientAbort(err, request)) {
      // The client's doing, and anyone can do it at will: not worth more than a debug line. The answer
      // goes nowhere (the connection is gone) but keeps the one path every failure takes.
      request.log.debug({ err }, 'the client closed the connection before its request body arrived');
      return sendError(request, reply, errors.badBody('the request body was cut off: the connection closed'));
    }
    const appError = toAppError(err, bodyLimit, request);
    if (appError === undefined) {
      request.log.error({ err }, 'unhandled error');
    } else if (PLAYER_REFUSALS.has(appError.code)) {
      // A player told to come back (no lobby has room): the game's load, not the operator's fault; a storm of
      // them at error level buried the errors that are. Info, with the reason, for capacity planning.
      request.log.info({ code: appError.code, reason: appError.metadata?.reason }, appError.message);
    } else if (appError.statusCode >= 500) {
      request.log.error({ err }, appError.message);
    }
    sendError(request, reply, appError ?? errors.internal());
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(request, reply, errors.routeNotFound(request.method, request.url.split('?')[0] ?? ''));
  });
}

/** Every error body the service sends, from whichever handler: `{code, message, ray_id, metadata?}`. */
export function sendError(request: FastifyRequest, reply: FastifyReply, e: AppError): void {
  const retryAfter = e.metadata?.retry_after_seconds;
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
  // Set here too: framework errors are answered before the onRequest hook that sets it for the rest.
  reply.header('x-ray-id', request.id);
  reply.code(e.statusCode).send({
    code: e.code,
    message: e.message,
    ray_id: request.id,
    ...(e.metadata === undefined ? {} : { metadata: e.metadata }),
  });
}

/**
 * Fastify's `frameworkErrors`: a path the router cannot even decode (`%c0%af`, bad percent-escapes) or
 * with a segment over `maxParamLength` fails before any route or hook; it gets the service's error body
 * too, and the `headers` every answer carries (security-headers.ts). Messages name the fault and never echo
 * the path (it may be kilobytes long).
 */
export function frameworkErrorHandler(
  maxParamLength: number,
  headers: Readonly<Record<string, string>>,
): FastifyServerOptions['frameworkErrors'] {
  return (error, request, reply) => {
    reply.headers(headers);
    const e = errors.badParams(
      error.code === 'FST_ERR_BAD_URL'
        ? 'the path is not valid percent-encoded UTF-8'
        : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `a path parameter is longer than ${maxParamLength} characters`
          : 'the path could not be routed',
      { field: null },
    );
    // The option's generics name no route, so its reply cannot type a status; a plain reply can.
    sendError(request, reply as unknown as FastifyReply, e);
  };
}
