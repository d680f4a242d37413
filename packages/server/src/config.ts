import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** Where POST /cloud/admin/backups writes backups of the embedded store (GCM_BACKUP_DIR). */
  readonly backupDir: string;
  /** A postgres:// URL selects PostgreSQL (several instances may share it); undefined keeps SQLite in dataDir. */
  readonly databaseUrl: string | undefined;
  /** Connections each instance may hold open to PostgreSQL (the listening connection is extra). */
  readonly pgPoolMax: number;
  readonly publicUrl: string;
  /** GCM_PUBLIC_URL is unset: publicUrl is the default, and loopback pages of the port are trusted too. */
  readonly publicUrlDefaulted: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** When set, this is the only operator token; none is generated or read from the data dir. */
  readonly operatorToken: string | undefined;
  readonly cloudTokenTtlDays: number;
  readonly bodyLimitBytes: number;
  /** Version configurations: their body limit and where they are validated (modules/versions). */
  readonly versionValidation: VersionValidationConfig;
  readonly shutdownTimeoutMs: number;
  /** How long a request with watch_index waits for a change before answering with the current data. */
  readonly watchTimeoutMs: number;
  /** How often billing periods that ended are rolled over; 0 turns the timer off. */
  readonly billingTickMs: number;
  /** How often what deleted namespaces and retired games owned is purged; 0 turns the timer off. */
  readonly purgeIntervalMs: number;
  /** Audit events older than this are deleted (GCM_AUDIT_RETENTION_DAYS). */
  readonly auditRetentionDays: number;
  /** Lobbies last reported longer ago than this are deleted; 0 keeps them (GCM_LOBBY_RETENTION_DAYS). */
  readonly lobbyRetentionDays: number;
  /** Abandoned and replaced avatar uploads are deleted this long after (GCM_UPLOAD_ABANDON_HOURS). */
  readonly uploadAbandonHours: number;
  /** Part size of multipart build uploads (the last part takes the remainder). */
  readonly buildPartSizeBytes: number;
  /** Region name ids the hosting data plane offers; game modes may only name these. */
  readonly regions: readonly string[];
  /** How long a presigned upload URL stays valid. */
  readonly uploadUrlTtlSeconds: number;
  /** An S3-compatible bucket for uploads; undefined keeps them as files under the data dir. */
  readonly s3: S3Config | undefined;
  /** Fastify's `trustProxy`: which proxies may say who the client is (X-Forwarded-For). */
  readonly trustProxy: false | readonly string[];
  readonly rateLimits: RateLimitConfig;
  /** Connection cap and timeouts of the HTTP server (src/http/connection-limits.ts). */
  readonly connections: ConnectionConfig;
  /** People, sessions and teams (src/modules/accounts). */
  readonly accounts: AccountsConfig;
  /** smtp:// or smtps:// URL mail is sent through; undefined writes each message to the log instead. */
  readonly smtpUrl: string | undefined;
  /** The From address of the mail the service sends. */
  readonly mailFrom: string;
  /** Origins whose pages may call the API from a browser (CORS); empty sends no CORS headers at all. */
  readonly corsOrigins: readonly string[];
  /** Bearer token a scraper must send for /metrics (GCM_METRICS_TOKEN); unset: no /metrics on the main port. */
  readonly metricsToken: string | undefined;
  /** A second listener for /metrics, /healthz and /readyz only (GCM_METRICS_LISTEN, `host:port`). */
  readonly metricsListen: { readonly host: string; readonly port: number } | undefined;
  /** Webhook endpoints and the delivery job (src/modules/webhooks). */
  readonly webhooks: WebhookConfig;
}

export interface VersionValidationConfig {
  /** The body limit of POST .../versions and .../versions/validate, in place of bodyLimitBytes. */
  readonly bodyLimitBytes: number;
  /** Bodies up to this size are validated on the event loop, where a worker would cost more than it saves. */
  readonly inlineMaxBytes: number;
  /** Worker threads validating larger ones. */
  readonly threads: number;
  /** A validation running longer than this in a worker is stopped (the worker with it) and answered 503. */
  readonly timeoutMs: number;
  /** The old-generation heap of each worker: a validation that needs more ends that worker, answered 503. */
  readonly workerHeapMb: number;
}

export interface WebhookConfig {
  /** http:// endpoints too (GCM_WEBHOOK_ALLOW_HTTP): for a receiver on the operator's own network. */
  readonly allowHttp: boolean;
  /** Endpoints on internal addresses too (GCM_WEBHOOK_ALLOW_INTERNAL): loopback, private, link-local. */
  readonly allowInternal: boolean;
  /** Deliveries are kept this long as the delivery log (GCM_WEBHOOK_RETENTION_DAYS). */
  readonly retentionDays: number;
  /** How often the delivery job looks for due deliveries (GCM_WEBHOOK_POLL_MS); 0: this instance sends none. */
  readonly pollMs: number;
}

export const SIGNUP_MODES = ['open', 'invite', 'off'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

export interface AccountsConfig {
  /** open: anyone may sign up; invite: only an email with a pending team invitation; off: nobody. */
  readonly signup: SignupMode;
  /** Origins, besides GCM_PUBLIC_URL's, whose pages may use a session (a dashboard on another host). */
  readonly trustedOrigins: readonly string[];
  readonly sessionTtlSeconds: number;
  readonly invitationTtlSeconds: number;
  /** zxcvbn score (0-4) a new password needs (GCM_PASSWORD_MIN_SCORE); 0 turns the check off. */
  readonly passwordMinScore: number;
  readonly signInFailures: SignInFailureConfig;
  readonly passwordHashes: PasswordHashConfig;
}

/** Failed sign-ins per account (email), whatever the addresses they come from (README "Rate limits"). */
export interface SignInFailureConfig {
  /** Failures in a window that pause the account's sign-ins; 0 turns the limit off. */
  readonly max: number;
  readonly windowMs: number;
  /** The first pause; each further one within a day is twice as long, up to pauseMaxMs. */
  readonly pauseMs: number;
  readonly pauseMaxMs: number;
}

/** Password hashes (scrypt, in libuv's thread pool) this instance runs at once, and how many may wait. */
export interface PasswordHashConfig {
  /** 0: no cap. */
  readonly concurrency: number;
  /** Sign-ins, sign-ups and password changes refused (503) while this many hashes wait already. */
  readonly queueMax: number;
}

/** Per client address and window; 0 turns a limit off. */
export interface RateLimitConfig {
  readonly windowMs: number;
  /** Failed bearer-token checks before requests with a token are refused unchecked. */
  readonly authFailures: number;
  /** Device link starts (POST /cloud/devices/links). */
  readonly deviceLinkStarts: number;
  /** Device link reads: get (each long poll counts once) and the page. */
  readonly deviceLinkReads: number;
  /** Avatars, the OpenAPI document and the docs page. */
  readonly publicReads: number;
  /** PUTs to the embedded store's signed upload URLs. */
  readonly uploadPuts: number;
  /** Device links started from one address that are neither completed nor expired. */
  readonly pendingDeviceLinks: number;
  /** Calls to /auth/* (sign-in, sign-up, password reset, teams): what guesses passwords is limited here. */
  readonly accountCalls: number;
}

export interface ConnectionConfig {
  /** Open connections at most; further ones are closed on accept, so the process never runs out of fds. */
  readonly maxConnections: number;
  /**
   * Open connections one peer address (an IPv6 peer: its /64) may hold; further ones from it are closed on
   * accept, so a few addresses cannot take the whole cap. 0: no per-address cap. Trusted proxies are exempt.
   */
  readonly maxConnectionsPerAddress: number;
  /** From a connection's (or a keep-alive request's) first byte until its headers are complete. */
  readonly headersTimeoutMs: number;
  /** From a request's headers until its body is complete; the signed upload PUT has none (it may be GiBs). */
  readonly bodyTimeoutMs: number;
  /** How long a keep-alive connection may wait for its next request. */
  readonly keepAliveTimeoutMs: number;
  /** No byte in either direction for this long while a request is under way closes the connection. */
  readonly idleTimeoutMs: number;
}

export interface S3Config {
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
  /** Both or neither; neither lets the AWS SDK find credentials itself (AWS_* variables, roles). */
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  readonly forcePathStyle: boolean;
  /** S3_TIMEOUT_MS: how long connecting to the store, and each wait for its next bytes, may take. */
  readonly timeoutMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_REGIONS = ['lnd-atl', 'lnd-fra', 'lnd-sfo', 'lnd-sin'] as const;
const REGION_NAME_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads every variable, collects every problem, and throws them all at once so an operator fixes a bad
 * deployment in one round instead of one variable per restart.
 */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };

  const port = int('PORT', 8080, 0, 65535);
  const host = read('HOST') ?? '0.0.0.0';
  const dataDir = path.resolve(read('GCM_DATA_DIR') ?? './data');
  const backupDir = path.resolve(read('GCM_BACKUP_DIR') ?? path.join(dataDir, 'backups'));
  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl !== undefined && !isPostgresUrl(databaseUrl)) {
    problems.push(
      'DATABASE_URL must be a postgres:// or postgresql:// URL (or unset, for SQLite in GCM_DATA_DIR)',
    );
  }
  const pgPoolMax = int('GCM_PG_POOL_MAX', 10, 1, 1000);

  const publicUrlDefaulted = read('GCM_PUBLIC_URL') === undefined;
  let publicUrl = read('GCM_PUBLIC_URL') ?? `http://localhost:${port}`;
  try {
    const url = new URL(publicUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    publicUrl = url.toString().replace(/\/+$/, '');
  } catch {
    problems.push(`GCM_PUBLIC_URL must be an absolute http(s) URL (got "${publicUrl}")`);
  }

  const rawLevel = read('LOG_LEVEL') ?? 'info';
  let logLevel: Config['logLevel'] = 'info';
  if ((LOG_LEVELS as readonly string[]).includes(rawLevel)) logLevel = rawLevel as Config['logLevel'];
  else problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${rawLevel}")`);

  const operatorToken = read('GCM_OPERATOR_TOKEN');
  if (operatorToken !== undefined && (operatorToken.length < 32 || /\s/.test(operatorToken))) {
    problems.push('GCM_OPERATOR_TOKEN must be at least 32 characters with no white space');
  }

  const cloudTokenTtlDays = int('GCM_CLOUD_TOKEN_TTL_DAYS', 365, 1, 3650);
  const bodyLimitBytes = int('GCM_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024);
  const versionValidation: VersionValidationConfig = Object.freeze({
    // The largest configuration every rule allows is about 115 KiB: twice that, with room for formatting.
    bodyLimitBytes: int('GCM_VERSION_BODY_LIMIT_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
    inlineMaxBytes: int('GCM_VALIDATE_INLINE_MAX_BYTES', 16 * 1024, 0, 64 * 1024 * 1024),
    threads: int('GCM_VALIDATE_THREADS', Math.max(1, availableParallelism() - 1), 1, 64),
    timeoutMs: int('GCM_VALIDATE_TIMEOUT_MS', 10_000, 1, 120_000),
    workerHeapMb: int('GCM_VALIDATE_WORKER_HEAP_MB', 256, 16, 4096),
  });
  const shutdownTimeoutMs = int('GCM_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 120_000);

  const rawRegions = read('GCM_REGIONS') ?? DEFAULT_REGIONS.join(',');
  const regions = [...new Set(rawRegions.split(',').map((r) => r.trim()))].filter((r) => r !== '');
  const badRegions = regions.filter((r) => !REGION_NAME_ID.test(r));
  if (regions.length === 0 || badRegions.length > 0) {
    problems.push(
      `GCM_REGIONS must be a comma-separated list of region name ids (1-32 of a-z, 0-9 and -)` +
        (badRegions.length > 0 ? `; not valid: ${badRegions.map((r) => `"${r}"`).join(', ')}` : ''),
    );
  }

  // S3 caps presigned URLs at 7 days; a minute is the least a client needs to start an upload.
  const uploadUrlTtlSeconds = int('GCM_UPLOAD_URL_TTL_SECONDS', 3600, 60, 604_800);
  const s3 = readS3Config(read, int, problems);

  // Under 60 s: common proxies and load balancers cut idle requests at 60 s.
  const watchTimeoutMs = int('GCM_WATCH_TIMEOUT_MS', 40_000, 10, 59_000);
  const billingTickMs = int('GCM_BILLING_TICK_MS', 1_000, 0, 3_600_000);
  const purgeIntervalMs = int('GCM_PURGE_INTERVAL_MS', 5_000, 0, 3_600_000);
  const auditRetentionDays = int('GCM_AUDIT_RETENTION_DAYS', 365, 1, 3650);
  const lobbyRetentionDays = int('GCM_LOBBY_RETENTION_DAYS', 28, 0, 3650);
  const uploadAbandonHours = int('GCM_UPLOAD_ABANDON_HOURS', 24, 1, 8760);
  const buildPartSizeBytes = int('GCM_BUILD_PART_SIZE_BYTES', 100 * 1024 * 1024, 1024 * 1024, 5 * 1024 ** 3);
  // S3 (and RGW, MinIO, R2) refuse to join parts under 5 MiB but the last: builds would fail at complete.
  if (s3 !== undefined && buildPartSizeBytes < 5 * 1024 * 1024) {
    problems.push(
      'GCM_BUILD_PART_SIZE_BYTES must be at least 5242880 (5 MiB) with S3: S3 refuses smaller parts',
    );
  }

  const trustProxy = readTrustProxy(read('GCM_TRUST_PROXY'), problems);
  const rateLimits: RateLimitConfig = Object.freeze({
    windowMs: int('GCM_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400) * 1000,
    authFailures: int('GCM_RATE_LIMIT_AUTH_FAILURES', 20, 0, 1_000_000),
    deviceLinkStarts: int('GCM_RATE_LIMIT_DEVICE_LINK_STARTS', 10, 0, 1_000_000),
    deviceLinkReads: int('GCM_RATE_LIMIT_DEVICE_LINK_READS', 120, 0, 1_000_000),
    publicReads: int('GCM_RATE_LIMIT_PUBLIC_READS', 600, 0, 1_000_000),
    uploadPuts: int('GCM_RATE_LIMIT_UPLOAD_PUTS', 600, 0, 1_000_000),
    pendingDeviceLinks: int('GCM_DEVICE_LINK_PENDING_MAX', 10, 0, 1_000_000),
    accountCalls: int('GCM_RATE_LIMIT_ACCOUNT_CALLS', 60, 0, 1_000_000),
  });
  const signup = (read('GCM_SIGNUP') ?? 'invite') as SignupMode;
  if (!SIGNUP_MODES.includes(signup)) {
    problems.push(`GCM_SIGNUP must be one of ${SIGNUP_MODES.join(', ')} (got "${signup}")`);
  }
  const trustedOrigins = readOrigins('GCM_TRUSTED_ORIGINS', read('GCM_TRUSTED_ORIGINS'), problems);
  const accounts: AccountsConfig = Object.freeze({
    signup,
    trustedOrigins,
    sessionTtlSeconds: int('GCM_SESSION_TTL_SECONDS', 7 * 86_400, 300, 365 * 86_400),
    invitationTtlSeconds: int('GCM_INVITATION_TTL_SECONDS', 7 * 86_400, 1, 90 * 86_400),
    passwordMinScore: int('GCM_PASSWORD_MIN_SCORE', 3, 0, 4),
    signInFailures: Object.freeze({
      max: int('GCM_SIGN_IN_FAILURES_PER_ACCOUNT', 20, 0, 1_000_000),
      windowMs: int('GCM_SIGN_IN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400) * 1000,
      pauseMs: int('GCM_SIGN_IN_PAUSE_SECONDS', 60, 1, 86_400) * 1000,
      pauseMaxMs: int('GCM_SIGN_IN_PAUSE_MAX_SECONDS', 900, 1, 86_400) * 1000,
    }),
    passwordHashes: Object.freeze({
      concurrency: int(
        'GCM_PASSWORD_HASH_CONCURRENCY',
        defaultHashConcurrency(availableParallelism()),
        0,
        1024,
      ),
      queueMax: int('GCM_PASSWORD_HASH_QUEUE_MAX', 256, 1, 1_000_000),
    }),
  });
  if (accounts.signInFailures.pauseMaxMs < accounts.signInFailures.pauseMs) {
    problems.push('GCM_SIGN_IN_PAUSE_MAX_SECONDS must be at least GCM_SIGN_IN_PAUSE_SECONDS');
  }
  const smtpUrl = read('GCM_SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) {
    problems.push('GCM_SMTP_URL must be an smtp:// or smtps:// URL');
  }
  const mailFrom = read('GCM_MAIL_FROM') ?? 'Game Cloud Manager <no-reply@localhost>';
  const maxConnections = int('GCM_MAX_CONNECTIONS', defaultMaxConnections(openFileLimit()), 1, 1_000_000);
  const connections = {
    maxConnections,
    maxConnectionsPerAddress: int(
      'GCM_MAX_CONNECTIONS_PER_ADDRESS',
      defaultMaxConnectionsPerAddress(maxConnections),
      0,
      1_000_000,
    ),
    headersTimeoutMs: int('GCM_HEADERS_TIMEOUT_MS', 20_000, 100, 300_000),
    bodyTimeoutMs: int('GCM_BODY_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: int('GCM_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    // A watch request sends nothing while it waits, so the idle timeout must outlast the watch timeout.
    idleTimeoutMs: int('GCM_IDLE_TIMEOUT_MS', watchTimeoutMs + 20_000, 100, 3_600_000),
  };
  if (connections.idleTimeoutMs <= watchTimeoutMs) {
    problems.push(
      `GCM_IDLE_TIMEOUT_MS (${connections.idleTimeoutMs}) must be longer than GCM_WATCH_TIMEOUT_MS ` +
        `(${watchTimeoutMs}): a watch request sends nothing while it waits`,
    );
  }

  const corsOrigins = readOrigins('GCM_CORS_ORIGINS', read('GCM_CORS_ORIGINS'), problems);
  const metricsToken = read('GCM_METRICS_TOKEN');
  if (metricsToken !== undefined && (metricsToken.length < 32 || /\s/.test(metricsToken))) {
    problems.push('GCM_METRICS_TOKEN must be at least 32 characters with no white space');
  }
  const metricsListen = readListenAddress('GCM_METRICS_LISTEN', read('GCM_METRICS_LISTEN'), problems);

  const bool = (name: string): boolean => {
    const raw = read(name) ?? 'false';
    if (raw !== 'true' && raw !== 'false') problems.push(`${name} must be true or false (got "${raw}")`);
    return raw === 'true';
  };
  const webhooks: WebhookConfig = Object.freeze({
    allowHttp: bool('GCM_WEBHOOK_ALLOW_HTTP'),
    allowInternal: bool('GCM_WEBHOOK_ALLOW_INTERNAL'),
    retentionDays: int('GCM_WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
    pollMs: int('GCM_WEBHOOK_POLL_MS', 1_000, 0, 60_000),
  });

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    host,
    port,
    dataDir,
    backupDir,
    databaseUrl,
    pgPoolMax,
    publicUrl,
    publicUrlDefaulted,
    logLevel,
    operatorToken,
    cloudTokenTtlDays,
    bodyLimitBytes,
    versionValidation,
    shutdownTimeoutMs,
    regions: Object.freeze(regions),
    buildPartSizeBytes,
    watchTimeoutMs,
    billingTickMs,
    purgeIntervalMs,
    auditRetentionDays,
    lobbyRetentionDays,
    uploadAbandonHours,
    uploadUrlTtlSeconds,
    s3,
    trustProxy,
    rateLimits,
    connections: Object.freeze(connections),
    accounts,
    smtpUrl,
    mailFrom,
    corsOrigins,
    metricsToken,
    metricsListen,
    webhooks,
  });
}

/** A comma-separated list of exact `scheme://host[:port]` origins, as browsers send them in `Origin`. */
function readOrigins(name: string, raw: string | undefined, problems: string[]): readonly string[] {
  const origins: string[] = [];
  for (const entry of (raw ?? '').split(',').map((o) => o.trim())) {
    if (entry === '') continue;
    try {
      const url = new URL(entry);
      if (
        (url.protocol !== 'http:' && url.protocol !== 'https:') ||
        url.origin !== entry.replace(/\/+$/, '')
      ) {
        throw new Error('not an origin');
      }
      origins.push(url.origin);
    } catch {
      problems.push(`${name} must be a comma-separated list of http(s) origins (got "${entry}")`);
    }
  }
  return Object.freeze([...new Set(origins)]);
}

/** `host:port` (an IPv6 address in brackets: `[::1]:9464`); port 0 picks a free one. */
function readListenAddress(
  name: string,
  raw: string | undefined,
  problems: string[],
): Config['metricsListen'] {
  if (raw === undefined) return undefined;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(raw);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || port > 65535 || (match?.[1] !== undefined && isIP(host) !== 6)) {
    problems.push(`${name} must be host:port, such as 127.0.0.1:9464 or [::1]:9464 (got "${raw}")`);
    return undefined;
  }
  return Object.freeze({ host, port });
}

/**
 * `false` (unset): the client is the connection's peer. A list of proxy addresses/CIDRs lets those proxies
 * name the client in X-Forwarded-For. Neither `true` (believe any X-Forwarded-For) nor a hop count is
 * accepted: with either, a client connecting directly could pick its own address and slip out of every
 * per-address limit (Fastify 5 turns a hop count into trusting nobody for that reason).
 */
function readTrustProxy(raw: string | undefined, problems: string[]): Config['trustProxy'] {
  if (raw === undefined || raw === 'false') return false;
  const entries = raw.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isAddressOrCidr(e));
  if (bad.length > 0) {
    problems.push(
      'GCM_TRUST_PROXY must be false or a comma-separated list of proxy addresses, CIDRs, loopback, ' +
        `linklocal or uniquelocal (got "${raw}")`,
    );
    return false;
  }
  return Object.freeze(entries);
}

/** proxy-addr's names for whole ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressOrCidr(value: string): boolean {
  if (PROXY_RANGE_NAMES.includes(value)) return true;
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * A tenth of the connection cap: it takes ten addresses to fill the cap (five, the probe's attack, hold half
 * of it), and a busy office or lobby host behind one NAT address still gets 1,638 at the default cap.
 */
export function defaultMaxConnectionsPerAddress(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 10));
}

/**
 * One hash per core, but at most 2: scrypt runs in libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE
 * says otherwise), where WebCrypto (token signatures), file reads and DNS look-ups run too; they would wait
 * behind a queue of sign-ins if hashes took every thread. A larger pool allows a larger cap.
 */
export function defaultHashConcurrency(cores: number): number {
  return Math.max(1, Math.min(cores, 2));
}

/** Open files this process may hold (the soft limit, which Node raises to the hard one at start). */
export function openFileLimit(): number | undefined {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
    return soft === undefined ? undefined : Number(soft);
  } catch {
    // Not Linux: no /proc to read.
    return undefined;
  }
}

/**
 * 16,384 connections (10,000 watchers waiting take about 250 MB), but at most 80% of the open-file limit:
 * the rest is for the database, blob files streamed to and from uploads, and logs, so accept() never meets
 * EMFILE, which would reset every new connection until some close.
 */
export function defaultMaxConnections(fdLimit: number | undefined): number {
  const cap = 16_384;
  return fdLimit === undefined ? cap : Math.max(1, Math.min(cap, Math.floor(fdLimit * 0.8)));
}

function isPostgresUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'postgres:' || url.protocol === 'postgresql:';
  } catch {
    return false;
  }
}

/** S3 is chosen by S3_ENDPOINT and S3_BUCKET together; half a configuration is a mistake, not a fallback. */
function readS3Config(
  read: (name: string) => string | undefined,
  int: (name: string, fallback: number, min: number, max: number) => number,
  problems: string[],
): S3Config | undefined {
  const endpoint = read('S3_ENDPOINT');
  const bucket = read('S3_BUCKET');
  const accessKeyId = read('S3_ACCESS_KEY_ID');
  const secretAccessKey = read('S3_SECRET_ACCESS_KEY');
  if (endpoint === undefined && bucket === undefined) {
    if (accessKeyId !== undefined || secretAccessKey !== undefined) {
      problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY need S3_ENDPOINT and S3_BUCKET');
    }
    return undefined;
  }
  if (endpoint === undefined || bucket === undefined) {
    problems.push('S3_ENDPOINT and S3_BUCKET must be set together (or neither, for the embedded store)');
    return undefined;
  }
  try {
    const url = new URL(endpoint);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    problems.push(`S3_ENDPOINT must be an absolute http(s) URL (got "${endpoint}")`);
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    problems.push(`S3_BUCKET must be an S3 bucket name: 3-63 of a-z, 0-9, . and - (got "${bucket}")`);
  }
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  }
  const rawPathStyle = read('S3_FORCE_PATH_STYLE') ?? 'true';
  if (rawPathStyle !== 'true' && rawPathStyle !== 'false') {
    problems.push(`S3_FORCE_PATH_STYLE must be true or false (got "${rawPathStyle}")`);
  }
  return Object.freeze({
    endpoint,
    bucket,
    region: read('S3_REGION') ?? 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: rawPathStyle !== 'false',
    timeoutMs: int('S3_TIMEOUT_MS', 10_000, 100, 600_000),
  });
}
