/**
 * Every failure the service reports is an AppError built by one of the factories below, so the catalogue
 * of codes lives in one place (and `test/errors.test.ts` checks that each one is documented in the README).
 */
export interface ValidationErrorItem {
  path: string[];
}

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly metadata?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const ERROR_CATALOGUE = {
  API_BAD_BODY: { status: 400, summary: 'The request body is not valid JSON or does not match the schema.' },
  API_BAD_QUERY: { status: 400, summary: 'A query parameter is missing or malformed.' },
  API_BAD_PARAMS: { status: 400, summary: 'A path parameter is malformed.' },
  API_UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: 'Request bodies must be application/json.' },
  API_BODY_TOO_LARGE: { status: 413, summary: 'The request body exceeds the configured limit.' },
  API_UNAUTHORIZED: { status: 401, summary: 'No bearer token, or one that is not valid.' },
  TOKEN_EXPIRED: { status: 401, summary: 'The bearer token has expired.' },
  TOKEN_REVOKED: { status: 401, summary: 'The bearer token has been revoked.' },
  API_FORBIDDEN: { status: 403, summary: 'The token may not act on this resource.' },
  API_NOT_FOUND: { status: 404, summary: 'No such route.' },
  GAME_NOT_FOUND: { status: 404, summary: 'No such game.' },
  NAMESPACE_NOT_FOUND: { status: 404, summary: 'No such namespace in this game.' },
  VERSION_NOT_FOUND: { status: 404, summary: 'No such version in this game.' },
  TOKEN_NOT_FOUND: { status: 404, summary: 'No such token.' },
  CDN_AUTH_USER_NOT_FOUND: { status: 404, summary: 'No CDN user of that name in this namespace.' },
  VALIDATION_ERROR: { status: 400, summary: 'The input broke a rule; metadata.errors lists every path.' },
  CDN_INVALID_AUTH_USER_PASSWORD: { status: 400, summary: 'The password is not a bcrypt hash.' },
  CDN_TOO_MANY_AUTH_USERS: { status: 400, summary: 'A namespace holds at most 32 CDN users.' },
  LOBBY_NOT_FOUND: { status: 404, summary: 'No such lobby in this namespace.' },
  LOBBY_ALREADY_EXISTS: { status: 409, summary: 'A lobby with this id was already reported differently.' },
  LOBBY_INVALID_TRANSITION: { status: 409, summary: 'The event does not follow from the lobby state.' },
  LOBBY_INVALID_TIMESTAMP: { status: 400, summary: 'The event is dated before an earlier event.' },
  ERROR: { status: 500, summary: 'An unexpected error; the ray_id identifies it in the logs.' },
} as const satisfies Record<string, { status: number; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

function make(code: ErrorCode, message: string, metadata?: Record<string, unknown>): AppError {
  return new AppError(ERROR_CATALOGUE[code].status, code, message, metadata);
}

export const errors = {
  badBody: (message: string, metadata?: Record<string, unknown>) => make('API_BAD_BODY', message, metadata),
  badQuery: (message: string, metadata?: Record<string, unknown>) => make('API_BAD_QUERY', message, metadata),
  badParams: (message: string, metadata?: Record<string, unknown>) =>
    make('API_BAD_PARAMS', message, metadata),
  unsupportedMediaType: (contentType: string) =>
    make(
      'API_UNSUPPORTED_MEDIA_TYPE',
      `content-type "${contentType}" is not supported; send application/json`,
    ),
  bodyTooLarge: (limit: number) =>
    make('API_BODY_TOO_LARGE', `request body is larger than the limit of ${limit} bytes`),
  unauthorized: (message = 'a valid bearer token is required (Authorization: Bearer <token>)') =>
    make('API_UNAUTHORIZED', message),
  tokenExpired: () => make('TOKEN_EXPIRED', 'the bearer token has expired'),
  tokenRevoked: () => make('TOKEN_REVOKED', 'the bearer token has been revoked'),
  forbidden: (message = 'this token may not act on this resource') => make('API_FORBIDDEN', message),
  routeNotFound: (method: string, url: string) => make('API_NOT_FOUND', `no route ${method} ${url}`),
  gameNotFound: () => make('GAME_NOT_FOUND', 'game not found'),
  namespaceNotFound: () => make('NAMESPACE_NOT_FOUND', 'namespace not found'),
  versionNotFound: () => make('VERSION_NOT_FOUND', 'version not found'),
  tokenNotFound: () => make('TOKEN_NOT_FOUND', 'token not found'),
  cdnAuthUserNotFound: (user: string) =>
    make('CDN_AUTH_USER_NOT_FOUND', `no CDN user named "${user}" in this namespace`),
  validation: (items: ValidationErrorItem[]) =>
    make('VALIDATION_ERROR', `validation failed: ${items.map((i) => i.path.join('.')).join(', ')}`, {
      errors: items,
    }),
  cdnInvalidPassword: () =>
    make(
      'CDN_INVALID_AUTH_USER_PASSWORD',
      'password must be a bcrypt hash ($2a$, $2b$ or $2y$, cost 04-31, then 53 characters of ./A-Za-z0-9)',
    ),
  cdnTooManyUsers: (max: number) =>
    make('CDN_TOO_MANY_AUTH_USERS', `a namespace may have at most ${max} CDN users`),
  lobbyNotFound: () => make('LOBBY_NOT_FOUND', 'lobby not found'),
  lobbyAlreadyExists: () =>
    make('LOBBY_ALREADY_EXISTS', 'a lobby with this lobby_id was already reported with other values'),
  lobbyInvalidTransition: (message: string) => make('LOBBY_INVALID_TRANSITION', message),
  lobbyInvalidTimestamp: (message: string) => make('LOBBY_INVALID_TIMESTAMP', message),
  internal: () => make('ERROR', 'internal error'),
};
