/**
 * The error catalogue: every code the service answers with, its status and a one-line summary. The server
 * builds its errors from these codes; clients (the CLI, the dashboard) read them to explain failures. This
 * file imports nothing: a browser takes it in as `@gcm/contract/errors` without the schema library.
 */
export interface ValidationErrorItem {
  /** Where and what: kebab-case segments, the last one the rule broken (`too-long`). Stable; match on it. */
  path: string[];
  /** For people: the rule and its limit ("max_players is 300; at most 256"). Wording may change. */
  message: string;
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
  AUTH_CROSS_ORIGIN: {
    status: 403,
    summary: 'A write with a session cookie came from a page of an origin the service does not trust (CSRF).',
  },
  AUTH_REFUSED: {
    status: 400,
    summary: 'An /auth call was refused; metadata.auth_code says why (better-auth’s own code).',
  },
  SETUP_LINK_INVALID: {
    status: 403,
    summary: 'The first-run setup link’s secret is not this service’s: copy it again from the start log.',
  },
  SETUP_DONE: {
    status: 410,
    summary: 'The first-run setup link was used, or a team existed first: it is gone; sign in instead.',
  },
  PASSWORD_TOO_WEAK: {
    status: 400,
    summary: 'The new password is too easy to guess; metadata names the field and says why.',
  },
  SIGN_IN_PAUSED: {
    status: 429,
    summary: 'Too many failed sign-ins for this account; wait metadata.retry_after_seconds (Retry-After).',
  },
  PASSWORD_HASHING_BUSY: {
    status: 503,
    summary: 'Too many sign-ins are waiting for a password check on this instance; retry shortly.',
  },
  API_NOT_FOUND: { status: 404, summary: 'No such route.' },
  GAME_NOT_FOUND: { status: 404, summary: 'No such game.' },
  TEAM_NOT_FOUND: { status: 404, summary: 'No such team.' },
  NAMESPACE_NOT_FOUND: { status: 404, summary: 'No such namespace in this game.' },
  VERSION_NOT_FOUND: { status: 404, summary: 'No such version in this game.' },
  TOKEN_NOT_FOUND: { status: 404, summary: 'No such token.' },
  CDN_AUTH_USER_NOT_FOUND: { status: 404, summary: 'No CDN user of that name in this namespace.' },
  VALIDATION_ERROR: { status: 400, summary: 'The input broke a rule; metadata.errors lists every path.' },
  CDN_INVALID_AUTH_USER_PASSWORD: { status: 400, summary: 'The password is not a bcrypt hash.' },
  CDN_TOO_MANY_AUTH_USERS: { status: 400, summary: 'A namespace holds at most 32 CDN users.' },
  LOBBY_NOT_FOUND: { status: 404, summary: 'No such lobby in this namespace.' },
  LOBBY_ALREADY_EXISTS: {
    status: 409,
    summary: "A lobby with this id was already reported differently, or is another namespace's.",
  },
  LOBBY_INVALID_TRANSITION: { status: 409, summary: 'The event does not follow from the lobby state.' },
  LOBBY_INVALID_TIMESTAMP: { status: 400, summary: 'The event is dated before an earlier event.' },
  LOBBY_TOKEN_STOPPED: {
    status: 401,
    summary: 'The lobby token’s lobby has stopped: its token works no more.',
  },
  LOBBY_FULL: { status: 409, summary: 'The lobby already has max_players players connected.' },
  LOBBY_STOPPING: { status: 409, summary: 'The lobby is stopping: it takes no more players.' },
  MATCHMAKER_GAME_MODE_NOT_FOUND: {
    status: 400,
    summary:
      'No such game mode in the namespace’s current version (or it runs in none of the regions asked).',
  },
  MATCHMAKER_REGION_NOT_FOUND: {
    status: 400,
    summary: 'No such region (GET /matchmaker/regions lists them).',
  },
  MATCHMAKER_LOBBY_NOT_FOUND: { status: 404, summary: 'No such lobby taking players in this namespace.' },
  MATCHMAKER_ACTION_DISABLED: {
    status: 403,
    summary: 'The game mode does not enable this action (find, join or create, or this publicity).',
  },
  MATCHMAKER_NO_CAPACITY: {
    status: 503,
    summary:
      'No lobby has room and no new one fits (lobby_count_max or host capacity); retry after Retry-After.',
  },
  MATCHMAKER_VERIFICATION_FAILED: {
    status: 403,
    summary: 'The game mode’s verification hook did not admit the player (metadata.status: its answer).',
  },
  MATCHMAKER_CAPTCHA_REQUIRED: {
    status: 403,
    summary: 'The game mode asks for a captcha: answer it and send its response in captcha.',
  },
  MATCHMAKER_CAPTCHA_INVALID: { status: 403, summary: 'The captcha provider did not accept the response.' },
  MATCHMAKER_TOO_MANY_PLAYERS_FROM_CLIENT: {
    status: 429,
    summary: 'This client address already holds max_players_per_client players in the namespace.',
  },
  PLAYER_TOKEN_INVALID: {
    status: 403,
    summary: 'Not a player token of this lobby that is unused and unexpired: drop the player’s connection.',
  },
  LOBBY_NOT_RUNTIME: {
    status: 409,
    summary:
      'The lobby is reported by an external data plane: the service does not run it, so cannot stop it.',
  },
  UPLOAD_INVALID_FILE_TYPE: {
    status: 400,
    summary: 'The file name has an extension of a type not accepted.',
  },
  UPLOAD_INVALID_MIME: { status: 400, summary: 'The mime type is not accepted or disagrees with the path.' },
  UPLOAD_TOO_LARGE: { status: 400, summary: 'content_length is over the limit for this kind of upload.' },
  UPLOAD_NOT_FOUND: { status: 404, summary: 'No such upload (or one of another game).' },
  UPLOAD_URL_INVALID_SIGNATURE: { status: 403, summary: 'The upload URL was not signed by this service.' },
  UPLOAD_URL_EXPIRED: { status: 403, summary: 'The upload URL has expired; prepare the upload again.' },
  DOWNLOAD_URL_INVALID_SIGNATURE: {
    status: 403,
    summary: 'The download URL was not signed by this service.',
  },
  DOWNLOAD_URL_EXPIRED: { status: 403, summary: 'The download URL has expired; export again.' },
  DOWNLOAD_NOT_FOUND: { status: 404, summary: 'The file of this download URL is no longer kept.' },
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
  IDEMPOTENCY_KEY_INVALID: {
    status: 400,
    summary: 'The Idempotency-Key header is not 1-255 visible ASCII characters.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    summary: 'This Idempotency-Key was used for another request (another operation, path or body).',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    summary: 'A request with this Idempotency-Key is still in progress; retry after Retry-After.',
  },
  BACKUP_IN_PROGRESS: { status: 409, summary: 'A backup is being written; wait for it to finish.' },
  BACKUP_NOT_EMBEDDED: {
    status: 409,
    summary: 'The store is PostgreSQL: back it up with pg_dump or base backups and WAL archiving.',
  },
  WEBHOOK_NOT_FOUND: { status: 404, summary: 'No such webhook endpoint in this game or team.' },
  WEBHOOK_LIMIT_REACHED: {
    status: 409,
    summary: 'The game or team already has the most webhook endpoints allowed (10); delete one first.',
  },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, summary: 'No such delivery of this webhook endpoint.' },
  STORE_UNAVAILABLE: {
    status: 503,
    summary: 'The database cannot be reached right now (restarting, failing over); retry shortly.',
  },
  BLOB_STORE_UNAVAILABLE: {
    status: 503,
    summary:
      'The blob store (S3) cannot be reached right now (connection refused, timed out, or it answered 503); retry shortly.',
  },
  BLOB_STORE_ERROR: {
    status: 502,
    summary:
      "The blob store (S3) answered a call with an error; the ray_id finds the store's request id in the service's log.",
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    summary:
      'This instance is shutting down, or not ready (GET /readyz); metadata.reason says which. Retry: another instance may answer.',
  },
  VALIDATION_BUSY: {
    status: 429,
    summary:
      'This caller already has 8 large version configurations waiting for their turn; retry after Retry-After.',
  },
  VALIDATION_UNAVAILABLE: {
    status: 503,
    summary:
      'The version configuration could not be validated: its worker ran out of time or memory; retry, or send a smaller one.',
  },
  ERROR: { status: 500, summary: 'An unexpected error; the ray_id identifies it in the logs.' },
} as const satisfies Record<string, { status: number; summary: string; inputStatus?: number }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
