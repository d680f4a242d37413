import type { Config } from './config.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface SettingReport {
  readonly name: string;
  /** The effective value as text, secrets masked; `(unset)` when the setting is off or left to a default chain. */
  readonly value: string;
  readonly source: 'environment' | 'default';
}

export const MASK = '***';
const UNSET = '(unset)';

type Shown = string | number | boolean | readonly string[] | undefined | false;

/** Every variable loadConfig reads, with the effective value it produced (test/config-report.test.ts checks). */
const SETTINGS: ReadonlyArray<
  readonly [name: string, value: (c: Config) => Shown, mask?: (v: string) => string]
> = [
  ['PORT', (c) => c.port],
  ['HOST', (c) => c.host],
  ['GCM_DATA_DIR', (c) => c.dataDir],
  ['GCM_BACKUP_DIR', (c) => c.backupDir],
  ['DATABASE_URL', (c) => c.databaseUrl, maskUrl],
  ['GCM_PG_POOL_MAX', (c) => c.pgPoolMax],
  ['GCM_PUBLIC_URL', (c) => c.publicUrl],
  ['LOG_LEVEL', (c) => c.logLevel],
  ['GCM_OPERATOR_TOKEN', (c) => c.operatorToken, maskAll],
  ['GCM_METRICS_TOKEN', (c) => c.metricsToken, maskAll],
  [
    'GCM_METRICS_LISTEN',
    (c) => (c.metricsListen === undefined ? undefined : `${c.metricsListen.host}:${c.metricsListen.port}`),
  ],
  ['GCM_CLOUD_TOKEN_TTL_DAYS', (c) => c.cloudTokenTtlDays],
  ['GCM_BODY_LIMIT_BYTES', (c) => c.bodyLimitBytes],
  ['GCM_VERSION_BODY_LIMIT_BYTES', (c) => c.versionValidation.bodyLimitBytes],
  ['GCM_VALIDATE_INLINE_MAX_BYTES', (c) => c.versionValidation.inlineMaxBytes],
  ['GCM_VALIDATE_THREADS', (c) => c.versionValidation.threads],
  ['GCM_VALIDATE_TIMEOUT_MS', (c) => c.versionValidation.timeoutMs],
  ['GCM_VALIDATE_WORKER_HEAP_MB', (c) => c.versionValidation.workerHeapMb],
  ['GCM_SHUTDOWN_TIMEOUT_MS', (c) => c.shutdownTimeoutMs],
  ['GCM_WATCH_TIMEOUT_MS', (c) => c.watchTimeoutMs],
  ['GCM_BILLING_TICK_MS', (c) => c.billingTickMs],
  ['GCM_PURGE_INTERVAL_MS', (c) => c.purgeIntervalMs],
  ['GCM_AUDIT_RETENTION_DAYS', (c) => c.auditRetentionDays],
  ['GCM_LOBBY_RETENTION_DAYS', (c) => c.lobbyRetentionDays],
  ['GCM_UPLOAD_ABANDON_HOURS', (c) => c.uploadAbandonHours],
  ['GCM_BUILD_PART_SIZE_BYTES', (c) => c.buildPartSizeBytes],
  ['GCM_REGIONS', (c) => c.regions],
  ['GCM_MAX_CONNECTIONS', (c) => c.connections.maxConnections],
  ['GCM_MAX_CONNECTIONS_PER_ADDRESS', (c) => c.connections.maxConnectionsPerAddress],
  ['GCM_HEADERS_TIMEOUT_MS', (c) => c.connections.headersTimeoutMs],
  ['GCM_BODY_TIMEOUT_MS', (c) => c.connections.bodyTimeoutMs],
  ['GCM_KEEP_ALIVE_TIMEOUT_MS', (c) => c.connections.keepAliveTimeoutMs],
  ['GCM_IDLE_TIMEOUT_MS', (c) => c.connections.idleTimeoutMs],
  ['GCM_UPLOAD_URL_TTL_SECONDS', (c) => c.uploadUrlTtlSeconds],
  ['S3_ENDPOINT', (c) => c.s3?.endpoint],
  ['S3_BUCKET', (c) => c.s3?.bucket],
  ['S3_ACCESS_KEY_ID', (c) => c.s3?.accessKeyId, maskAll],
  ['S3_SECRET_ACCESS_KEY', (c) => c.s3?.secretAccessKey, maskAll],
  ['S3_REGION', (c) => c.s3?.region],
  ['S3_FORCE_PATH_STYLE', (c) => c.s3?.forcePathStyle],
  ['S3_TIMEOUT_MS', (c) => c.s3?.timeoutMs],
  ['GCM_TRUST_PROXY', (c) => c.trustProxy],
  ['GCM_RATE_LIMIT_WINDOW_SECONDS', (c) => c.rateLimits.windowMs / 1000],
  ['GCM_RATE_LIMIT_AUTH_FAILURES', (c) => c.rateLimits.authFailures],
  ['GCM_RATE_LIMIT_DEVICE_LINK_STARTS', (c) => c.rateLimits.deviceLinkStarts],
  ['GCM_RATE_LIMIT_DEVICE_LINK_READS', (c) => c.rateLimits.deviceLinkReads],
  ['GCM_RATE_LIMIT_PUBLIC_READS', (c) => c.rateLimits.publicReads],
  ['GCM_RATE_LIMIT_UPLOAD_PUTS', (c) => c.rateLimits.uploadPuts],
  ['GCM_RATE_LIMIT_ACCOUNT_CALLS', (c) => c.rateLimits.accountCalls],
  ['GCM_DEVICE_LINK_PENDING_MAX', (c) => c.rateLimits.pendingDeviceLinks],
  ['GCM_SIGNUP', (c) => c.accounts.signup],
  ['GCM_TRUSTED_ORIGINS', (c) => c.accounts.trustedOrigins],
  ['GCM_SESSION_TTL_SECONDS', (c) => c.accounts.sessionTtlSeconds],
  ['GCM_INVITATION_TTL_SECONDS', (c) => c.accounts.invitationTtlSeconds],
  ['GCM_PASSWORD_MIN_SCORE', (c) => c.accounts.passwordMinScore],
  ['GCM_SIGN_IN_FAILURES_PER_ACCOUNT', (c) => c.accounts.signInFailures.max],
  ['GCM_SIGN_IN_FAILURE_WINDOW_SECONDS', (c) => c.accounts.signInFailures.windowMs / 1000],
  ['GCM_SIGN_IN_PAUSE_SECONDS', (c) => c.accounts.signInFailures.pauseMs / 1000],
  ['GCM_SIGN_IN_PAUSE_MAX_SECONDS', (c) => c.accounts.signInFailures.pauseMaxMs / 1000],
  ['GCM_PASSWORD_HASH_CONCURRENCY', (c) => c.accounts.passwordHashes.concurrency],
  ['GCM_PASSWORD_HASH_QUEUE_MAX', (c) => c.accounts.passwordHashes.queueMax],
  ['GCM_SMTP_URL', (c) => c.smtpUrl, maskUrl],
  ['GCM_MAIL_FROM', (c) => c.mailFrom],
  ['GCM_CORS_ORIGINS', (c) => c.corsOrigins],
  ['GCM_WEBHOOK_ALLOW_HTTP', (c) => c.webhooks.allowHttp],
  ['GCM_WEBHOOK_ALLOW_INTERNAL', (c) => c.webhooks.allowInternal],
  ['GCM_WEBHOOK_RETENTION_DAYS', (c) => c.webhooks.retentionDays],
  ['GCM_WEBHOOK_POLL_MS', (c) => c.webhooks.pollMs],
];

/** The names of every variable the report covers, in its order. */
export const REPORTED_VARIABLES: readonly string[] = SETTINGS.map(([name]) => name);

/** Each setting of `config` with its value (secrets masked) and whether `env` set it. */
export function describeConfig(config: Config, env: Env): SettingReport[] {
  return SETTINGS.map(([name, get, mask]) => {
    const value = show(get(config));
    const raw = env[name];
    return {
      name,
      value: mask === undefined || value === UNSET ? value : mask(value),
      source: raw === undefined || raw.trim() === '' ? 'default' : 'environment',
    };
  });
}

function show(value: Shown): string {
  if (value === undefined) return UNSET;
  if (Array.isArray(value)) return value.length === 0 ? UNSET : value.join(',');
  return String(value);
}

function maskAll(): string {
  return MASK;
}

/** The URL with its password, and query values that look like credentials, replaced; unparsable: all of it. */
export function maskUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password !== '') url.password = MASK;
    for (const key of [...url.searchParams.keys()]) {
      if (/pass|secret|token|key/i.test(key)) url.searchParams.set(key, MASK);
    }
    // URLSearchParams percent-encodes the mask; the operator should read it as written.
    return url.toString().replaceAll('%2A%2A%2A', MASK);
  } catch {
    return MASK;
  }
}
