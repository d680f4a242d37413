import {
  CURSOR_PATTERN,
  IDEMPOTENCY_KEY_HEADER,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_PATTERN,
  SINGLE_LINE_PATTERN,
  UUID_PATTERN,
} from '@gcm/contract';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import { AppError, errors } from '../errors.js';
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

function fromValidation(err: FastifyError): AppError {
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
  const message =
    issue.keyword === 'required'
      ? `${location.what} "${field}" is required`
      : `${location.what} "${field}" ${issueMessage(issue)}`;
  return location.factory(message, { field });
}

/** Maps what Fastify itself throws (parsing, limits) onto the catalogue; anything else is a 500. */
function toAppError(err: FastifyError, bodyLimit: number, contentType: string): AppError | undefined {
  if (err instanceof AppError) return err;
  if (isStoreUnavailable(err)) return errors.storeUnavailable();
  if (err.validation !== undefined) return fromValidation(err);
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

export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const appError = toAppError(err, bodyLimit, request.headers['content-type'] ?? '');
    if (appError === undefined) {
      request.log.error({ err }, 'unhandled error');
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
function sendError(request: FastifyRequest, reply: FastifyReply, e: AppError): void {
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
 * too. Messages name the fault and never echo the path (it may be kilobytes long).
 */
export function frameworkErrorHandler(maxParamLength: number): FastifyServerOptions['frameworkErrors'] {
  return (error, request, reply) => {
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
