/**
 * Every failure the service reports is an AppError built by one of the factories below, so the catalogue
 * of codes lives in one place (the contract package; `test/errors-catalogue.test.ts` checks that each one is
 * documented in the README).
 */
import {
  ERROR_CATALOGUE,
  type ErrorCode,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  type ValidationErrorItem,
} from '@gcm/contract';

export type { ErrorCode, ValidationErrorItem } from '@gcm/contract';
export { ERROR_CATALOGUE } from '@gcm/contract';

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

function make(
  code: ErrorCode,
  message: string,
  metadata?: Record<string, unknown>,
  status: number = ERROR_CATALOGUE[code].status,
): AppError {
  return new AppError(status, code, message, metadata);
}

/** Items a VALIDATION_ERROR's message spells out. */
export const VALIDATION_MESSAGE_ITEMS = 20;

/**
 * Each item as `path: message`, so the one line a log or a terminal shows says what to fix. Only the first
 * few: a large configuration can break thousands of rules, and the answer should not carry them twice.
 * `total`: how many were found, when `items` are only the first of them.
 */
function validationMessage(items: ValidationErrorItem[], total: number): string {
  const shown = items.slice(0, VALIDATION_MESSAGE_ITEMS).map((i) => `${i.path.join('.')}: ${i.message}`);
  const more = total - shown.length;
  const where = total > items.length ? `the first ${items.length} in metadata.errors` : 'in metadata.errors';
  return `validation failed: ${shown.join('; ')}${more > 0 ? `; and ${more} more (${where})` : ''}`;
}

export type NotReadyReason = 'shutting_down' | 'store_unavailable' | 'migrations_pending';

const NOT_READY_MESSAGES: Record<NotReadyReason, string> = {
  shutting_down: 'this instance is shutting down; retry (another instance may answer)',
  store_unavailable: 'this instance cannot reach its database right now',
  migrations_pending: 'the database lacks migrations this instance needs',
};

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
  metricsUnauthorized: () =>
    make('API_UNAUTHORIZED', '/metrics needs the metrics token (Authorization: Bearer <GCM_METRICS_TOKEN>)'),
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
  crossOrigin: (message: string) => make('AUTH_CROSS_ORIGIN', message),
  routeNotFound: (method: string, url: string) => make('API_NOT_FOUND', `no route ${method} ${url}`),
  metricsNotServed: () =>
    make(
      'API_NOT_FOUND',
      '/metrics is not served on this port: set GCM_METRICS_TOKEN to serve it here to that bearer token, ' +
        'or GCM_METRICS_LISTEN for a listener of its own',
    ),
  // Not-found messages say where the right id is found, so a client that sent a stale or foreign id (or a
  // name where an id goes) knows the next call to make.
  gameNotFound: () =>
    make('GAME_NOT_FOUND', 'no game with this game_id; GET /cloud/games lists the games with their game_id'),
  teamNotFound: () =>
    make(
      'TEAM_NOT_FOUND',
      'no team with this team_id; GET /auth/organization/list lists your teams with their id',
    ),
  namespaceNotFound: () =>
    make(
      'NAMESPACE_NOT_FOUND',
      "no namespace with this namespace_id in this game; GET /cloud/games/{game_id}/namespaces lists the game's namespaces",
    ),
  versionNotFound: () =>
    make(
      'VERSION_NOT_FOUND',
      "no version with this version_id in this game; GET /cloud/games/{game_id}/versions lists the game's versions",
    ),
  /** A body's version_id (a namespace's version) that names nothing: says what to create first. */
  versionToRunNotFound: (gameHasVersions: boolean) =>
    make(
      'VERSION_NOT_FOUND',
      gameHasVersions
        ? "version_id names no version of this game; GET /cloud/games/{game_id}/versions lists the game's versions"
        : 'this game has no version yet, and a namespace runs one: create a version first ' +
            '(POST /cloud/games/{game_id}/versions), then send its version_id',
      { field: 'version_id' },
    ),
  webhookNotFound: () =>
    make(
      'WEBHOOK_NOT_FOUND',
      'no webhook endpoint with this webhook_id here; GET the webhooks list of this game or team for their ids',
    ),
  webhookLimitReached: (max: number) =>
    make('WEBHOOK_LIMIT_REACHED', `at most ${max} webhook endpoints per game or team; delete one first`, {
      max,
    }),
  webhookDeliveryNotFound: () =>
    make('WEBHOOK_DELIVERY_NOT_FOUND', 'no delivery with this delivery_id for this webhook endpoint'),
  tokenNotFound: () => make('TOKEN_NOT_FOUND', 'no token with this token_id (or it belongs to another game)'),
  cdnAuthUserNotFound: (user: string) =>
    make('CDN_AUTH_USER_NOT_FOUND', `no CDN user named "${user}" in this namespace`),
  /** `total`: how many errors were found, when `items` are only the first (a version's, at most 100). */
  validation: (items: ValidationErrorItem[], total = items.length) =>
    make('VALIDATION_ERROR', validationMessage(items, total), {
      errors: items,
      ...(total > items.length ? { error_count: total } : {}),
    }),
  validationBusy: (waiting: number) =>
    make(
      'VALIDATION_BUSY',
      `this caller already has ${waiting} large version configurations waiting for their turn ` +
        '(one is validated at a time per caller); wait for their answers, then retry',
      { retry_after_seconds: 1 },
    ),
  validationUnavailable: (reason: 'timeout' | 'failed', timeoutMs: number) =>
    make(
      'VALIDATION_UNAVAILABLE',
      reason === 'timeout'
        ? `the version configuration could not be validated within ${timeoutMs} ms ` +
            '(GCM_VALIDATE_TIMEOUT_MS); retry, or send a smaller configuration'
        : 'the version configuration could not be validated: its worker stopped (out of memory, ' +
            'GCM_VALIDATE_WORKER_HEAP_MB, or failing to start); retry, or send a smaller configuration',
      { reason },
    ),
  cdnInvalidPassword: () =>
    make(
      'CDN_INVALID_AUTH_USER_PASSWORD',
      'password must be a bcrypt hash ($2a$, $2b$ or $2y$, cost 04-31, then 53 characters of ./A-Za-z0-9)',
    ),
  cdnTooManyUsers: (max: number) =>
    make('CDN_TOO_MANY_AUTH_USERS', `a namespace may have at most ${max} CDN users`),
  lobbyNotFound: () =>
    make(
      'LOBBY_NOT_FOUND',
      'no lobby with this lobby_id in this namespace; a lobby is reported first ' +
        '(POST /cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies)',
    ),
  lobbyAlreadyExists: () =>
    make(
      'LOBBY_ALREADY_EXISTS',
      'a lobby with this lobby_id was already reported in this namespace with other values',
    ),
  lobbyIdTaken: (lobbyId: string) =>
    make(
      'LOBBY_ALREADY_EXISTS',
      `body field "lobby_id": ${lobbyId} is taken; lobby ids are unique across the service, so report ` +
        'without lobby_id to be given a fresh one',
      { field: 'lobby_id' },
    ),
  lobbyInvalidTransition: (message: string) => make('LOBBY_INVALID_TRANSITION', message),
  lobbyInvalidTimestamp: (message: string) => make('LOBBY_INVALID_TIMESTAMP', message),
  lobbyTokenStopped: () =>
    make('LOBBY_TOKEN_STOPPED', 'this lobby token’s lobby has stopped; a lobby’s token works while it runs'),
  lobbyFull: (maxPlayers: number) =>
    make('LOBBY_FULL', `the lobby already has its max_players (${maxPlayers}) players connected`, {
      max_players: maxPlayers,
    }),
  lobbyStopping: () => make('LOBBY_STOPPING', 'the lobby is stopping; it takes no more players'),
  matchmakerGameModeNotFound: (gameMode: string) =>
    make(
      'MATCHMAKER_GAME_MODE_NOT_FOUND',
      `game mode ${JSON.stringify(gameMode)} is not in the namespace's current version (or runs in none of the regions asked)`,
      { game_mode: gameMode },
    ),
  matchmakerRegionNotFound: (region: string) =>
    make(
      'MATCHMAKER_REGION_NOT_FOUND',
      `region ${JSON.stringify(region)} is not a region the service runs; GET /matchmaker/regions lists them`,
      { region },
    ),
  matchmakerLobbyNotFound: () =>
    make('MATCHMAKER_LOBBY_NOT_FOUND', 'no lobby with this lobby_id takes players in this namespace'),
  matchmakerActionDisabled: (action: string, message: string) =>
    make('MATCHMAKER_ACTION_DISABLED', message, { action }),
  matchmakerNoCapacity: (retryAfterSeconds: number, message: string, reason?: string) =>
    make('MATCHMAKER_NO_CAPACITY', `${message}; retry in ${retryAfterSeconds} s`, {
      retry_after_seconds: retryAfterSeconds,
      ...(reason === undefined ? {} : { reason }),
    }),
  matchmakerVerificationFailed: (status: number | null, message: string) =>
    make('MATCHMAKER_VERIFICATION_FAILED', message, { status }),
  matchmakerCaptchaRequired: (providers: Record<string, { site_key: string }>) =>
    make('MATCHMAKER_CAPTCHA_REQUIRED', 'this game mode asks for a captcha: send its response in captcha', {
      providers,
    }),
  matchmakerCaptchaInvalid: (message: string) => make('MATCHMAKER_CAPTCHA_INVALID', message),
  matchmakerTooManyPlayersFromClient: (max: number, addressClass?: string) =>
    make(
      'MATCHMAKER_TOO_MANY_PLAYERS_FROM_CLIENT',
      addressClass === undefined
        ? `this client address already holds max_players_per_client (${max}) players in this namespace`
        : `this client address is a ${addressClass} address and already holds max_players_per_client_${addressClass} (${max}) players in this namespace`,
      addressClass === undefined ? { max } : { max, address_class: addressClass },
    ),
  playerTokenInvalid: (reason: 'unknown' | 'used' | 'expired' | 'other_lobby', message: string) =>
    make('PLAYER_TOKEN_INVALID', message, { reason }),
  lobbyNotRuntime: () =>
    make(
      'LOBBY_NOT_RUNTIME',
      'this lobby is reported by an external data plane (its reporter token), not run by the service, ' +
        'so the service cannot stop it; stop it where it runs',
    ),
  uploadInvalidFileType: (message: string) => make('UPLOAD_INVALID_FILE_TYPE', message, { field: 'path' }),
  uploadInvalidMime: (message: string) => make('UPLOAD_INVALID_MIME', message, { field: 'mime' }),
  uploadTooLarge: (maxBytes: number) =>
    make('UPLOAD_TOO_LARGE', `content_length must be at most ${maxBytes} bytes`, {
      field: 'content_length',
      max: maxBytes,
    }),
  uploadNotFound: () =>
    make(
      'UPLOAD_NOT_FOUND',
      'no upload with this upload_id (or it belongs to another game); the prepare call answers upload_id',
    ),
  uploadUrlInvalidSignature: () =>
    make(
      'UPLOAD_URL_INVALID_SIGNATURE',
      'the upload URL is not valid: use it exactly as prepare returned it',
    ),
  uploadUrlExpired: () => make('UPLOAD_URL_EXPIRED', 'the upload URL has expired; prepare the upload again'),
  downloadUrlInvalidSignature: () =>
    make('DOWNLOAD_URL_INVALID_SIGNATURE', 'the download URL is not valid: use it exactly as it was given'),
  downloadUrlExpired: () => make('DOWNLOAD_URL_EXPIRED', 'the download URL has expired; export again'),
  downloadNotFound: () =>
    make(
      'DOWNLOAD_NOT_FOUND',
      'the file of this download URL is no longer kept (exports expire); export again',
    ),
  uploadLengthMismatch: (expected: number, received: string) =>
    make(
      'UPLOAD_LENGTH_MISMATCH',
      `the URL is signed for a body of ${expected} bytes; this one has ${received}`,
      { expected },
    ),
  backupInProgress: () =>
    make('BACKUP_IN_PROGRESS', 'a backup is being written; call again once it has finished'),
  backupNotEmbedded: () =>
    make(
      'BACKUP_NOT_EMBEDDED',
      'the store is PostgreSQL (DATABASE_URL): back it up with pg_dump or base backups and WAL archiving, ' +
        'and the blob storage beside it (README "Backups and restore")',
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
  environmentNotFound: () =>
    make(
      'ENVIRONMENT_NOT_FOUND',
      'no environment with this environment_id in this game: an environment is a namespace, so send a ' +
        "namespace_id (GET /cloud/games/{game_id}/namespaces lists the game's namespaces; " +
        'POST /cloud/games/{game_id}/namespaces creates one)',
    ),
  /**
   * `completed`: reads see builds only once their upload is completed; `any`: prepare and complete see every
   * build; `tagged`: a read filtered by tags_json.
   */
  buildNotFound: (kind: 'completed' | 'any' | 'tagged' = 'completed') =>
    make(
      'BUILD_NOT_FOUND',
      kind === 'any'
        ? 'no build with this build_id in this environment; POST .../builds/prepare makes one'
        : kind === 'tagged'
          ? 'no completed build with this build_id in this environment has every tag of tags_json'
          : 'no completed build with this build_id in this environment (a build is listed once ' +
            'POST .../builds/{build_id}/complete succeeded; GET .../builds lists them)',
    ),
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
  passwordTooWeak: (
    field: string,
    verdict: { score: number; warning?: string; suggestions: string[] },
    minScore: number,
  ) =>
    make(
      'PASSWORD_TOO_WEAK',
      `${field} is too easy to guess (strength ${verdict.score} of 4, at least ${minScore} needed)` +
        `${verdict.warning === undefined ? '' : `: ${verdict.warning}`}` +
        `${verdict.suggestions.length === 0 ? '' : ` ${verdict.suggestions.join(' ')}`}`,
      {
        field,
        score: verdict.score,
        min_score: minScore,
        ...(verdict.warning === undefined ? {} : { warning: verdict.warning }),
        suggestions: verdict.suggestions,
      },
    ),
  setupLinkInvalid: () =>
    make(
      'SETUP_LINK_INVALID',
      'this setup link is not this service’s: copy it again from the start log or the data dir’s ' +
        'first-run-setup file',
    ),
  setupDone: (why: string) =>
    make(
      'SETUP_DONE',
      `this first-run setup link is gone: ${why}; sign in instead (or ask the team’s owner for an invitation)`,
    ),
  signInPaused: (retryAfterSeconds: number) =>
    make(
      'SIGN_IN_PAUSED',
      `too many failed sign-ins for this account: its sign-ins are paused; retry in ${retryAfterSeconds} s`,
      { retry_after_seconds: retryAfterSeconds },
    ),
  passwordHashingBusy: () =>
    make(
      'PASSWORD_HASHING_BUSY',
      'too many sign-ins are waiting for a password check on this instance; retry in a few seconds',
      { retry_after_seconds: 2 },
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
  idempotencyKeyInvalid: () =>
    make(
      'IDEMPOTENCY_KEY_INVALID',
      `header Idempotency-Key must be 1-${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (! to ~), ` +
        'sent once',
      { field: 'Idempotency-Key', max_length: IDEMPOTENCY_KEY_MAX_LENGTH },
    ),
  idempotencyKeyReused: (what: string) =>
    make(
      'IDEMPOTENCY_KEY_REUSED',
      `this Idempotency-Key was first used ${what}; a key stands for one request: use a new key for a new ` +
        'request',
      { field: 'Idempotency-Key' },
    ),
  idempotencyKeyInUse: (retryAfterSeconds: number) =>
    make(
      'IDEMPOTENCY_KEY_IN_USE',
      `a request with this Idempotency-Key is still in progress; retry in ${retryAfterSeconds} s for its answer`,
      { field: 'Idempotency-Key', retry_after_seconds: retryAfterSeconds },
    ),
  storeUnavailable: () =>
    make('STORE_UNAVAILABLE', 'the database cannot be reached right now; retry shortly'),
  /** `detail` says what failed: "the blob store could not be reached for HeadObject (ECONNREFUSED)". */
  blobStoreUnavailable: (detail: string) => make('BLOB_STORE_UNAVAILABLE', `${detail}; retry shortly`),
  /** `detail`: "the blob store answered 405 (MethodNotAllowed) to ListParts". */
  blobStoreError: (detail: string) =>
    make('BLOB_STORE_ERROR', `${detail}; the ray_id finds the store's request id in the service's log`),
  /** `reason`: shutting_down, store_unavailable or migrations_pending (GET /readyz). */
  serviceUnavailable: (reason: NotReadyReason) =>
    make('SERVICE_UNAVAILABLE', NOT_READY_MESSAGES[reason], { reason }),
  internal: () => make('ERROR', 'internal error'),
};
