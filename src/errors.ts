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
  API_REQUEST_TIMEOUT: { status: 408, summary: 'The request body did not arrive in time.' },
  API_UNAUTHORIZED: { status: 401, summary: 'No bearer token, or one that is not valid.' },
  // 401 for the Authorization header's token (bad credentials); `inputStatus` 400 for a token sent as
  // input in the query or body (a device_link_token), where it is bad input like any other field.
  TOKEN_EXPIRED: { status: 401, summary: 'The token has expired.', inputStatus: 400 },
  TOKEN_INVALID: {
    status: 400,
    summary: 'A token sent as input (device_link_token) is malformed or forged.',
  },
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
  UPLOAD_INVALID_FILE_TYPE: {
    status: 400,
    summary: 'The file name has an extension of a type not accepted.',
  },
  UPLOAD_INVALID_MIME: { status: 400, summary: 'The mime type is not accepted or disagrees with the path.' },
  UPLOAD_TOO_LARGE: { status: 400, summary: 'content_length is over the limit for this kind of upload.' },
  UPLOAD_NOT_FOUND: { status: 404, summary: 'No such upload (or one of another game).' },
  UPLOAD_URL_INVALID_SIGNATURE: { status: 403, summary: 'The upload URL was not signed by this service.' },
  UPLOAD_URL_EXPIRED: { status: 403, summary: 'The upload URL has expired; prepare the upload again.' },
  UPLOAD_LENGTH_MISMATCH: {
    status: 400,
    summary: 'The PUT body is not of the length the URL was signed for.',
  },
  UPLOAD_ALREADY_COMPLETE: { status: 409, summary: 'The upload is complete; its file can no longer change.' },
  UPLOAD_INCOMPLETE: { status: 400, summary: 'Not every part of the upload has arrived with its length.' },
  UPLOAD_INVALID_CONTENT: { status: 400, summary: 'The uploaded bytes are not of the declared type.' },
  ENVIRONMENT_NOT_FOUND: { status: 404, summary: 'No such environment (namespace) in this game.' },
  BUILD_NOT_FOUND: { status: 404, summary: 'No such completed build in this environment.' },
  CLOUD_DEVICE_LINK_ALREADY_COMPLETE: {
    status: 400,
    summary: 'The device link has already been completed; it yields one cloud token only.',
  },
  BUILDS_TAGS_MISSING_EXCLUSIVE_KEY: {
    status: 400,
    summary: 'An exclusive tag key is not among the tags set.',
  },
  BILLING_INVALID_PLAN: { status: 400, summary: 'No such billing plan (trial, indie or studio).' },
  RATE_LIMITED: {
    status: 429,
    summary: 'Too many requests from this client address; wait metadata.retry_after_seconds (Retry-After).',
  },
  DEVICE_LINK_TOO_MANY_PENDING: {
    status: 429,
    summary: 'This client address has too many device links neither completed nor expired.',
  },
  STORE_UNAVAILABLE: {
    status: 503,
    summary: 'The database cannot be reached right now (restarting, failing over); retry shortly.',
  },
  ERROR: { status: 500, summary: 'An unexpected error; the ray_id identifies it in the logs.' },
} as const satisfies Record<string, { status: number; summary: string; inputStatus?: number }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

function make(
  code: ErrorCode,
  message: string,
  metadata?: Record<string, unknown>,
  status: number = ERROR_CATALOGUE[code].status,
): AppError {
  return new AppError(status, code, message, metadata);
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
  requestTimeout: (timeoutMs: number) =>
    make(
      'API_REQUEST_TIMEOUT',
      `the request body did not arrive in full within ${timeoutMs} ms of its headers; send it at once`,
      { timeout_ms: timeoutMs },
    ),
  unauthorized: (message = 'a valid bearer token is required (Authorization: Bearer <token>)') =>
    make('API_UNAUTHORIZED', message),
  tokenExpired: () => make('TOKEN_EXPIRED', 'the bearer token has expired'),
  deviceLinkTokenExpired: () =>
    make(
      'TOKEN_EXPIRED',
      'the device link has expired (links last one hour): start a new one',
      { field: 'device_link_token' },
      ERROR_CATALOGUE.TOKEN_EXPIRED.inputStatus,
    ),
  deviceLinkTokenInvalid: () =>
    make('TOKEN_INVALID', 'device_link_token is not a device link token issued by this service', {
      field: 'device_link_token',
    }),
  deviceLinkAlreadyComplete: () =>
    make(
      'CLOUD_DEVICE_LINK_ALREADY_COMPLETE',
      'this device link has already been completed; start a new one',
    ),
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
    make(
      'LOBBY_ALREADY_EXISTS',
      'a lobby with this lobby_id was already reported in this namespace with other values',
    ),
  lobbyInvalidTransition: (message: string) => make('LOBBY_INVALID_TRANSITION', message),
  lobbyInvalidTimestamp: (message: string) => make('LOBBY_INVALID_TIMESTAMP', message),
  uploadInvalidFileType: (message: string) => make('UPLOAD_INVALID_FILE_TYPE', message, { field: 'path' }),
  uploadInvalidMime: (message: string) => make('UPLOAD_INVALID_MIME', message, { field: 'mime' }),
  uploadTooLarge: (maxBytes: number) =>
    make('UPLOAD_TOO_LARGE', `content_length must be at most ${maxBytes} bytes`, {
      field: 'content_length',
      max: maxBytes,
    }),
  uploadNotFound: () => make('UPLOAD_NOT_FOUND', 'upload not found'),
  uploadUrlInvalidSignature: () =>
    make(
      'UPLOAD_URL_INVALID_SIGNATURE',
      'the upload URL is not valid: use it exactly as prepare returned it',
    ),
  uploadUrlExpired: () => make('UPLOAD_URL_EXPIRED', 'the upload URL has expired; prepare the upload again'),
  uploadLengthMismatch: (expected: number, received: string) =>
    make(
      'UPLOAD_LENGTH_MISMATCH',
      `the URL is signed for a body of ${expected} bytes; this one has ${received}`,
      { expected },
    ),
  uploadAlreadyComplete: () =>
    make('UPLOAD_ALREADY_COMPLETE', 'the upload is complete; prepare a new upload to change the file'),
  uploadIncomplete: (badParts: number[], multipart: boolean) =>
    make(
      'UPLOAD_INCOMPLETE',
      multipart
        ? `parts ${badParts.join(', ')} have not been uploaded in full yet`
        : 'the file has not been uploaded in full yet: PUT it to the presigned URL first',
      { parts: badParts },
    ),
  uploadInvalidContent: (expected: string, detected: string | undefined, problem?: string) =>
    make(
      'UPLOAD_INVALID_CONTENT',
      problem === undefined
        ? `the uploaded bytes are not ${expected} by their magic bytes` +
            (detected === undefined ? '' : ` but ${detected}`)
        : `the uploaded bytes are not a well-formed ${expected}: ${problem}`,
      { expected, detected: detected ?? null, ...(problem === undefined ? {} : { problem }) },
    ),
  environmentNotFound: () => make('ENVIRONMENT_NOT_FOUND', 'environment not found'),
  buildNotFound: () => make('BUILD_NOT_FOUND', 'build not found'),
  buildsTagsMissingExclusiveKey: (keys: string[]) =>
    make(
      'BUILDS_TAGS_MISSING_EXCLUSIVE_KEY',
      `exclusive_tags names keys that are not in tags: ${keys.map((k) => `"${k}"`).join(', ')}`,
      { field: 'exclusive_tags', keys },
    ),
  billingInvalidPlan: (plan: string, plans: readonly string[]) =>
    make(
      'BILLING_INVALID_PLAN',
      `${JSON.stringify(plan.slice(0, 32))} is not a plan; choose one of ${plans.join(', ')}`,
      {
        field: 'plan',
        plans,
      },
    ),
  rateLimited: (retryAfterSeconds: number, message: string) =>
    make('RATE_LIMITED', `${message}; retry in ${retryAfterSeconds} s`, {
      retry_after_seconds: retryAfterSeconds,
    }),
  deviceLinkTooManyPending: (max: number, retryAfterSeconds: number) =>
    make(
      'DEVICE_LINK_TOO_MANY_PENDING',
      `this address already has ${max} device links waiting to be completed; complete one, or retry in ` +
        `${retryAfterSeconds} s when the oldest expires`,
      { max, retry_after_seconds: retryAfterSeconds },
    ),
  storeUnavailable: () =>
    make('STORE_UNAVAILABLE', 'the database cannot be reached right now; retry shortly'),
  internal: () => make('ERROR', 'internal error'),
};
