import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism, networkInterfaces } from 'node:os';
import path from 'node:path';
import proxyAddr from '@fastify/proxy-addr';
import { type AddressClassifier, parseAddressClasses } from './lib/address-classes.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What a setting's reader gets: its variable's value (trimmed; undefined when unset or blank), the values
 * of the settings read before it, and where to report a bad value.
 */
export interface Reading {
  readonly name: string;
  readonly raw: string | undefined;
  problem(message: string): void;
  /** The value of a setting the schema declares before this one (its default if its own value was bad). */
  earlier<T>(setting: Setting<T>): T;
}

/** One environment variable: how it is read into its value and how check-config and the docs show it. */
export interface Setting<T> {
  readonly kind: 'setting';
  readonly env: string;
  /** Turns the variable into its value, reporting a bad one (and answering the default for it). */
  read(reading: Reading): T;
  /** The value as check-config prints it; undefined: `(unset)`. */
  show(value: T): string | undefined;
  /** Masked in the report: the whole value, or a URL's password and credential-like query values. */
  readonly secret?: 'whole' | 'url' | undefined;
  /**
   * How docs/configuration.md's Default column starts (`` `8080` `` or `(unset)`); undefined when the
   * default is worked out (from another setting, the cores, the open-file limit) and the docs say how.
   */
  readonly documentedDefault?: string | undefined;
}

/** A value worked out from settings, with no variable of its own. */
interface Derived<T> {
  readonly kind: 'derived';
  derive(reading: Pick<Reading, 'earlier'> & { given(setting: Setting<unknown>): boolean }): T;
}

/** Settings the Config holds as one nested object. */
interface Group<M extends Schema> {
  readonly kind: 'group';
  readonly members: M;
}

/**
 * A group that is there only when `gate` says so (S3 when its endpoint and bucket are set); otherwise the
 * Config holds undefined and its members are not read at all (so their bad values do not count).
 */
interface OptionalGroup<M extends Schema> {
  readonly kind: 'optional-group';
  readonly members: M;
  gate(raw: (setting: Setting<unknown>) => string | undefined, problem: (message: string) => void): boolean;
  /** Problems of the whole group against the settings read before it. */
  check?(reading: Pick<Reading, 'earlier' | 'problem'>): void;
}

type Entry = Setting<unknown> | Derived<unknown> | Group<Schema> | OptionalGroup<Schema>;

interface Schema {
  readonly [key: string]: Entry;
}

type ValueOf<E> =
  E extends Setting<infer T>
    ? T
    : E extends Derived<infer T>
      ? T
      : E extends Group<infer M>
        ? ConfigOf<M>
        : E extends OptionalGroup<infer M>
          ? ConfigOf<M> | undefined
          : never;

type ConfigOf<S extends Schema> = { readonly [K in keyof S]: ValueOf<S[K]> };

/** The usual way to show a value: lists joined by commas, and an empty list or no value as `(unset)`. */
function showValue(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(',');
  return String(value);
}

function setting<T>(
  env: string,
  read: (reading: Reading) => T,
  {
    documentedDefault,
    secret,
    show = showValue,
  }: {
    documentedDefault?: string | undefined;
    secret?: 'whole' | 'url' | undefined;
    show?: (value: T) => string | undefined;
  } = {},
): Setting<T> {
  return { kind: 'setting', env, read, show, documentedDefault, secret };
}

/** A default: a fixed value, or one worked out from the settings read before it. */
type Fallback<T> = T | ((reading: Reading) => T);

function fallbackOf<T extends string | number | boolean>(fallback: Fallback<T>, reading: Reading): T {
  return typeof fallback === 'function' ? fallback(reading) : fallback;
}

function documented(fallback: Fallback<string | number | boolean>): string | undefined {
  return typeof fallback === 'function' ? undefined : `\`${fallback}\``;
}

/** A whole number from `min` to `max`; a bad one is reported and the default used in its place. */
function whole(env: string, fallback: Fallback<number>, min: number, max: number): Setting<number> {
  return setting(
    env,
    (r) => {
      if (r.raw === undefined) return fallbackOf(fallback, r);
      if (!/^\d+$/.test(r.raw) || Number(r.raw) < min || Number(r.raw) > max) {
        r.problem(`${env} must be a whole number from ${min} to ${max} (got "${r.raw}")`);
        return fallbackOf(fallback, r);
      }
      return Number(r.raw);
    },
    { documentedDefault: documented(fallback) },
  );
}

/** Whole seconds in the variable, milliseconds in the Config. */
function seconds(env: string, fallback: number, min: number, max: number): Setting<number> {
  const inSeconds = whole(env, fallback, min, max);
  return { ...inSeconds, read: (r) => inSeconds.read(r) * 1000, show: (ms) => String(ms / 1000) };
}

function text(env: string, fallback: string): Setting<string> {
  return setting(env, (r) => r.raw ?? fallback, { documentedDefault: documented(fallback) });
}

/** An absolute http(s) URL the service calls. */
function httpUrl(env: string, fallback: string): Setting<string> {
  return setting(
    env,
    (r) => {
      if (r.raw === undefined) return fallback;
      if (!URL.canParse(r.raw) || !/^https?:$/.test(new URL(r.raw).protocol)) {
        r.problem(`${env} must be an absolute http(s) URL (got "${r.raw}")`);
        return fallback;
      }
      return r.raw;
    },
    { documentedDefault: documented(fallback) },
  );
}

/** Unset by default; `check` answers the problem of a bad value. */
function optional(
  env: string,
  check: (raw: string) => string | undefined = () => undefined,
  secret?: 'whole' | 'url',
): Setting<string | undefined> {
  return setting(
    env,
    (r) => {
      const problem = r.raw === undefined ? undefined : check(r.raw);
      if (problem !== undefined) r.problem(problem);
      return r.raw;
    },
    { documentedDefault: '(unset)', secret },
  );
}

/** A secret token: unset, or at least 32 characters with no white space. */
function token(env: string): Setting<string | undefined> {
  return optional(
    env,
    (raw) =>
      raw.length < 32 || /\s/.test(raw)
        ? `${env} must be at least 32 characters with no white space`
        : undefined,
    'whole',
  );
}

function oneOf<const V extends readonly string[]>(env: string, values: V, fallback: V[number]) {
  return setting(
    env,
    (r): V[number] => {
      if (r.raw === undefined) return fallback;
      const value = values.find((v) => v === r.raw);
      if (value !== undefined) return value;
      r.problem(`${env} must be one of ${values.join(', ')} (got "${r.raw}")`);
      return fallback;
    },
    { documentedDefault: documented(fallback) },
  );
}

function bool(env: string, fallback: boolean): Setting<boolean> {
  return setting(
    env,
    (r) => {
      if (r.raw === 'true' || r.raw === 'false') return r.raw === 'true';
      if (r.raw !== undefined) r.problem(`${env} must be true or false (got "${r.raw}")`);
      return fallback;
    },
    { documentedDefault: documented(fallback) },
  );
}

/** A directory, made absolute against the working directory. */
function directory(env: string, fallback: Fallback<string>): Setting<string> {
  return setting(env, (r) => path.resolve(r.raw ?? fallbackOf(fallback, r)), {
    documentedDefault: documented(fallback),
  });
}

function derived<T>(derive: Derived<T>['derive']): Derived<T> {
  return { kind: 'derived', derive };
}

function group<M extends Schema>(members: M): Group<M> {
  return { kind: 'group', members };
}

function optionalGroup<M extends Schema>(
  members: M,
  rules: Pick<OptionalGroup<M>, 'gate' | 'check'>,
): OptionalGroup<M> {
  return { kind: 'optional-group', members, ...rules };
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

export const SIGNUP_MODES = ['open', 'invite', 'off'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

/** S3 (and RGW, MinIO, R2) refuse to join parts under 5 MiB but the last: builds would fail at complete. */
const S3_PART_MIN_BYTES = 5 * 1024 * 1024;

// The settings other settings read (a default worked out from them, or a check against them).
const PORT = whole('PORT', 8080, 0, 65535);
const DATA_DIR = directory('GCM_DATA_DIR', './data');
const PUBLIC_URL = setting('GCM_PUBLIC_URL', (r) => {
  const publicUrl = r.raw ?? `http://localhost:${r.earlier(PORT)}`;
  try {
    const url = new URL(publicUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    return url.toString().replace(/\/+$/, '');
  } catch {
    r.problem(`GCM_PUBLIC_URL must be an absolute http(s) URL (got "${publicUrl}")`);
    return publicUrl;
  }
});
// Under 60 s: common proxies and load balancers cut idle requests at 60 s.
const WATCH_TIMEOUT_MS = whole('GCM_WATCH_TIMEOUT_MS', 40_000, 10, 59_000);
const BUILD_PART_SIZE_BYTES = whole(
  'GCM_BUILD_PART_SIZE_BYTES',
  100 * 1024 * 1024,
  1024 * 1024,
  5 * 1024 ** 3,
);
const MAX_CONNECTIONS = whole(
  'GCM_MAX_CONNECTIONS',
  () => defaultMaxConnections(openFileLimit()),
  1,
  1_000_000,
);
const S3_ENDPOINT = setting(
  'S3_ENDPOINT',
  (r) => {
    // The gate has seen it set.
    const endpoint = r.raw ?? '';
    try {
      const url = new URL(endpoint);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    } catch {
      r.problem(`S3_ENDPOINT must be an absolute http(s) URL (got "${endpoint}")`);
    }
    return endpoint;
  },
  { documentedDefault: '(unset)' },
);
const S3_BUCKET = setting(
  'S3_BUCKET',
  (r) => {
    // The gate has seen it set.
    const bucket = r.raw ?? '';
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      r.problem(`S3_BUCKET must be an S3 bucket name: 3-63 of a-z, 0-9, . and - (got "${bucket}")`);
    }
    return bucket;
  },
  { documentedDefault: '(unset)' },
);
const S3_ACCESS_KEY_ID = optional('S3_ACCESS_KEY_ID', undefined, 'whole');
const S3_SECRET_ACCESS_KEY = setting(
  'S3_SECRET_ACCESS_KEY',
  (r) => {
    if ((r.earlier(S3_ACCESS_KEY_ID) === undefined) !== (r.raw === undefined)) {
      r.problem('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
    }
    return r.raw;
  },
  { documentedDefault: '(unset)', secret: 'whole' },
);
const SIGN_IN_PAUSE_MS = seconds('GCM_SIGN_IN_PAUSE_SECONDS', 60, 1, 86_400);
const REGIONS = setting('GCM_REGIONS', readRegions, {
  documentedDefault: `\`${DEFAULT_REGIONS.join(',')}\``,
});
export const RUNTIME_KINDS = ['none', 'docker', 'swarm'] as const;
export type RuntimeKind = (typeof RUNTIME_KINDS)[number];
const RUNTIME_KIND = oneOf('GCM_RUNTIME', RUNTIME_KINDS, 'none');
/** host[:port][/path]: what a Docker image reference starts with (no scheme, no tag). */
const REGISTRY_ADDRESS =
  /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?::\d{1,5})?(?:\/[a-z0-9]+(?:[._/-][a-z0-9]+)*)?$/;
const REGISTRY = setting(
  'GCM_REGISTRY',
  (r) => {
    if (r.raw === undefined) {
      if (r.earlier(RUNTIME_KIND) === 'swarm') {
        r.problem(
          'GCM_RUNTIME=swarm needs GCM_REGISTRY, the registry its nodes pull builds from (host[:port][/path], e.g. registry.example.com/studio)',
        );
      }
      return undefined;
    }
    if (!REGISTRY_ADDRESS.test(r.raw) || r.raw.length > 200) {
      r.problem(
        `GCM_REGISTRY must be a registry address as an image name starts: host[:port][/path] in lower case, no scheme (got "${r.raw.slice(0, 200)}")`,
      );
    }
    return r.raw;
  },
  { documentedDefault: '(unset)' },
);
const REGISTRY_USERNAME = optional('GCM_REGISTRY_USERNAME', (raw) =>
  raw.length > 200 ? 'GCM_REGISTRY_USERNAME: at most 200 characters' : undefined,
);
const REGISTRY_PASSWORD = setting(
  'GCM_REGISTRY_PASSWORD',
  (r) => {
    if ((r.earlier(REGISTRY_USERNAME) === undefined) !== (r.raw === undefined)) {
      r.problem('GCM_REGISTRY_USERNAME and GCM_REGISTRY_PASSWORD must be set together');
    }
    if (r.raw !== undefined && r.raw.length > 4096)
      r.problem('GCM_REGISTRY_PASSWORD: at most 4096 characters');
    return r.raw;
  },
  { documentedDefault: '(unset)', secret: 'whole' },
);

/**
 * Every setting, once: its variable, how it is read (type, range, default, the message for a bad value) and
 * how it is shown. The Config type, loadConfig, check-config's report (config-report.ts, in this order) and
 * the check of docs/configuration.md's table all come from here.
 */
const SCHEMA = {
  port: PORT,
  host: text('HOST', '0.0.0.0'),
  dataDir: DATA_DIR,
  /** Where POST /cloud/admin/backups writes backups of the embedded store (GCM_BACKUP_DIR). */
  backupDir: directory('GCM_BACKUP_DIR', (r) => path.join(r.earlier(DATA_DIR), 'backups')),
  /** A postgres:// URL selects PostgreSQL (several instances may share it); undefined keeps SQLite in dataDir. */
  databaseUrl: optional(
    'DATABASE_URL',
    (raw) =>
      isPostgresUrl(raw)
        ? undefined
        : 'DATABASE_URL must be a postgres:// or postgresql:// URL (or unset, for SQLite in GCM_DATA_DIR)',
    'url',
  ),
  /** Connections each instance may hold open to PostgreSQL (the listening connection is extra). */
  pgPoolMax: whole('GCM_PG_POOL_MAX', 10, 1, 1000),
  publicUrl: PUBLIC_URL,
  /** GCM_PUBLIC_URL is unset: publicUrl is the default, and loopback pages of the port are trusted too. */
  publicUrlDefaulted: derived((r) => !r.given(PUBLIC_URL)),
  logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
  /** When set, this is the only operator token; none is generated or read from the data dir. */
  operatorToken: token('GCM_OPERATOR_TOKEN'),
  /** Bearer token a scraper must send for /metrics (GCM_METRICS_TOKEN); unset: no /metrics on the main port. */
  metricsToken: token('GCM_METRICS_TOKEN'),
  /** A second listener for /metrics, /healthz and /readyz only (GCM_METRICS_LISTEN, `host:port`). */
  metricsListen: setting('GCM_METRICS_LISTEN', readListenAddress, {
    documentedDefault: '(unset)',
    show: (listen) => (listen === undefined ? undefined : `${listen.host}:${listen.port}`),
  }),
  cloudTokenTtlDays: whole('GCM_CLOUD_TOKEN_TTL_DAYS', 365, 1, 3650),
  bodyLimitBytes: whole('GCM_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
  /** Version configurations: their body limit and where they are validated (modules/versions). */
  versionValidation: group({
    /**
     * The body limit of POST .../versions and .../versions/validate, in place of bodyLimitBytes. The largest
     * configuration every rule allows is about 115 KiB: twice that, with room for formatting.
     */
    bodyLimitBytes: whole('GCM_VERSION_BODY_LIMIT_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
    /** Bodies up to this size are validated on the event loop, where a worker would cost more than it saves. */
    inlineMaxBytes: whole('GCM_VALIDATE_INLINE_MAX_BYTES', 16 * 1024, 0, 64 * 1024 * 1024),
    /** Worker threads validating larger ones. */
    threads: whole('GCM_VALIDATE_THREADS', () => Math.max(1, availableParallelism() - 1), 1, 64),
    /** A validation running longer than this in a worker is stopped (the worker with it) and answered 503. */
    timeoutMs: whole('GCM_VALIDATE_TIMEOUT_MS', 10_000, 1, 120_000),
    /** The old-generation heap of each worker: a validation that needs more ends that worker, answered 503. */
    workerHeapMb: whole('GCM_VALIDATE_WORKER_HEAP_MB', 256, 16, 4096),
  }),
  shutdownTimeoutMs: whole('GCM_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 120_000),
  /** How long a request with watch_index waits for a change before answering with the current data. */
  watchTimeoutMs: WATCH_TIMEOUT_MS,
  /** How often billing periods that ended are rolled over; 0 turns the timer off. */
  billingTickMs: whole('GCM_BILLING_TICK_MS', 1_000, 0, 3_600_000),
  /** How often what deleted namespaces and retired games owned is purged; 0 turns the timer off. */
  purgeIntervalMs: whole('GCM_PURGE_INTERVAL_MS', 5_000, 0, 3_600_000),
  /** Audit events older than this are deleted (GCM_AUDIT_RETENTION_DAYS). */
  auditRetentionDays: whole('GCM_AUDIT_RETENTION_DAYS', 365, 1, 3650),
  /** Lobbies last reported longer ago than this are deleted; 0 keeps them (GCM_LOBBY_RETENTION_DAYS). */
  lobbyRetentionDays: whole('GCM_LOBBY_RETENTION_DAYS', 28, 0, 3650),
  /** Abandoned and replaced avatar uploads are deleted this long after (GCM_UPLOAD_ABANDON_HOURS). */
  uploadAbandonHours: whole('GCM_UPLOAD_ABANDON_HOURS', 24, 1, 8760),
  /** Part size of multipart build uploads (the last part takes the remainder). */
  buildPartSizeBytes: BUILD_PART_SIZE_BYTES,
  /** Region name ids the hosting data plane offers; game modes may only name these. */
  regions: REGIONS,
  /** Connection cap and timeouts of the HTTP server (src/http/connection-limits.ts). */
  connections: group({
    /** Open connections at most; further ones are closed on accept, so the process never runs out of fds. */
    maxConnections: MAX_CONNECTIONS,
    /**
     * Open connections one peer address (an IPv6 peer: its /64) may hold; further ones from it are closed on
     * accept, so a few addresses cannot take the whole cap. 0: no per-address cap. Trusted proxies are exempt.
     */
    maxConnectionsPerAddress: whole(
      'GCM_MAX_CONNECTIONS_PER_ADDRESS',
      (r) => defaultMaxConnectionsPerAddress(r.earlier(MAX_CONNECTIONS)),
      0,
      1_000_000,
    ),
    /** From a connection's (or a keep-alive request's) first byte until its headers are complete. */
    headersTimeoutMs: whole('GCM_HEADERS_TIMEOUT_MS', 20_000, 100, 300_000),
    /** From a request's headers until its body is complete; the signed upload PUT has none (it may be GiBs). */
    bodyTimeoutMs: whole('GCM_BODY_TIMEOUT_MS', 30_000, 100, 3_600_000),
    /** How long a keep-alive connection may wait for its next request. */
    keepAliveTimeoutMs: whole('GCM_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    /**
     * No byte in either direction for this long while a request is under way closes the connection. A watch
     * request sends nothing while it waits, so the idle timeout must outlast the watch timeout.
     */
    idleTimeoutMs: checked(
      whole('GCM_IDLE_TIMEOUT_MS', (r) => r.earlier(WATCH_TIMEOUT_MS) + 20_000, 100, 3_600_000),
      (idle, r) => {
        const watch = r.earlier(WATCH_TIMEOUT_MS);
        return idle > watch
          ? undefined
          : `GCM_IDLE_TIMEOUT_MS (${idle}) must be longer than GCM_WATCH_TIMEOUT_MS (${watch}): ` +
              'a watch request sends nothing while it waits';
      },
    ),
  }),
  /** How long a presigned upload URL stays valid: S3 caps it at 7 days; a minute is the least a client needs. */
  uploadUrlTtlSeconds: whole('GCM_UPLOAD_URL_TTL_SECONDS', 3600, 60, 604_800),
  /** An S3-compatible bucket for uploads; undefined keeps them as files under the data dir. */
  s3: optionalGroup(
    {
      endpoint: S3_ENDPOINT,
      bucket: S3_BUCKET,
      /** Both or neither; neither lets the AWS SDK find credentials itself (AWS_* variables, roles). */
      accessKeyId: S3_ACCESS_KEY_ID,
      secretAccessKey: S3_SECRET_ACCESS_KEY,
      region: text('S3_REGION', 'us-east-1'),
      forcePathStyle: bool('S3_FORCE_PATH_STYLE', true),
      /** S3_TIMEOUT_MS: how long connecting to the store, and each wait for its next bytes, may take. */
      timeoutMs: whole('S3_TIMEOUT_MS', 10_000, 100, 600_000),
    },
    {
      // S3 is chosen by S3_ENDPOINT and S3_BUCKET together; half a configuration is a mistake, not a fallback.
      gate(raw, problem) {
        const endpoint = raw(S3_ENDPOINT);
        const bucket = raw(S3_BUCKET);
        if (endpoint === undefined && bucket === undefined) {
          if (raw(S3_ACCESS_KEY_ID) !== undefined || raw(S3_SECRET_ACCESS_KEY) !== undefined) {
            problem('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY need S3_ENDPOINT and S3_BUCKET');
          }
          return false;
        }
        if (endpoint === undefined || bucket === undefined) {
          problem('S3_ENDPOINT and S3_BUCKET must be set together (or neither, for the embedded store)');
          return false;
        }
        return true;
      },
      check(r) {
        if (r.earlier(BUILD_PART_SIZE_BYTES) < S3_PART_MIN_BYTES) {
          r.problem(
            `GCM_BUILD_PART_SIZE_BYTES must be at least ${S3_PART_MIN_BYTES} (5 MiB) with S3: S3 refuses smaller parts`,
          );
        }
      },
    },
  ),
  /** Fastify's `trustProxy`: which proxies may say who the client is (X-Forwarded-For). */
  trustProxy: setting('GCM_TRUST_PROXY', readTrustProxy, { documentedDefault: '`false`' }),
  /**
   * Which client addresses are hosting, proxy, Tor or VPN ones, for the mm-config's caps of those: read
   * once at start from the file named (lib/address-classes.ts); unset, every address is ordinary.
   */
  addressClasses: setting('GCM_ADDRESS_CLASSES_FILE', readAddressClassesFile, {
    documentedDefault: '(unset)',
    show: (classes) => classes?.path,
  }),
  /** Per client address and window; 0 turns a limit off. */
  rateLimits: group({
    windowMs: seconds('GCM_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
    /** Failed credential checks from one address before its further failures are answered 429 unchecked. */
    authFailures: whole('GCM_RATE_LIMIT_AUTH_FAILURES', 20, 0, 1_000_000),
    /** Device link starts (POST /cloud/devices/links). */
    deviceLinkStarts: whole('GCM_RATE_LIMIT_DEVICE_LINK_STARTS', 10, 0, 1_000_000),
    /** Device link reads: get (each long poll counts once) and the page. */
    deviceLinkReads: whole('GCM_RATE_LIMIT_DEVICE_LINK_READS', 120, 0, 1_000_000),
    /** Avatars, the OpenAPI document and the docs page. */
    publicReads: whole('GCM_RATE_LIMIT_PUBLIC_READS', 600, 0, 1_000_000),
    /** PUTs to the embedded store's signed upload URLs. */
    uploadPuts: whole('GCM_RATE_LIMIT_UPLOAD_PUTS', 600, 0, 1_000_000),
    /** Calls to /auth/* (sign-in, sign-up, password reset, teams): what guesses passwords is limited here. */
    accountCalls: whole('GCM_RATE_LIMIT_ACCOUNT_CALLS', 60, 0, 1_000_000),
    /**
     * Game clients' lobby-taking calls (find, join, create: POSTs of `matchmaker` routes) per address, counted
     * in each instance's memory (docs/interface-notes.md).
     */
    matchmakerPlayerCalls: whole('GCM_RATE_LIMIT_MATCHMAKER_PLAYER_CALLS', 60, 0, 1_000_000),
    /** Game clients' reads (list, regions, a lobby's state: GETs of `matchmaker` routes) per address. */
    matchmakerReads: whole('GCM_RATE_LIMIT_MATCHMAKER_READS', 600, 0, 1_000_000),
    /** Every `matchmaker` route's calls per public or development token, whatever the address. */
    matchmakerToken: whole('GCM_RATE_LIMIT_MATCHMAKER_TOKEN', 120_000, 0, 100_000_000),
    /** Device links started from one address that are neither completed nor expired. */
    pendingDeviceLinks: whole('GCM_DEVICE_LINK_PENDING_MAX', 10, 0, 1_000_000),
  }),
  /** People, sessions and teams (src/modules/accounts). */
  accounts: group({
    /** open: anyone may sign up; invite: only an email with a pending team invitation; off: nobody. */
    signup: oneOf('GCM_SIGNUP', SIGNUP_MODES, 'invite'),
    /** Origins, besides GCM_PUBLIC_URL's, whose pages may use a session (a dashboard on another host). */
    trustedOrigins: origins('GCM_TRUSTED_ORIGINS'),
    sessionTtlSeconds: whole('GCM_SESSION_TTL_SECONDS', 7 * 86_400, 300, 365 * 86_400),
    invitationTtlSeconds: whole('GCM_INVITATION_TTL_SECONDS', 7 * 86_400, 1, 90 * 86_400),
    /** zxcvbn score (0-4) a new password needs (GCM_PASSWORD_MIN_SCORE); 0 turns the check off. */
    passwordMinScore: whole('GCM_PASSWORD_MIN_SCORE', 3, 0, 4),
    /** Failed sign-ins per account (email), whatever the addresses they come from (README "Rate limits"). */
    signInFailures: group({
      /** Failures in a window that pause the account's sign-ins; 0 turns the limit off. */
      max: whole('GCM_SIGN_IN_FAILURES_PER_ACCOUNT', 20, 0, 1_000_000),
      windowMs: seconds('GCM_SIGN_IN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
      /** The first pause; each further one within a day is twice as long, up to pauseMaxMs. */
      pauseMs: SIGN_IN_PAUSE_MS,
      pauseMaxMs: checked(seconds('GCM_SIGN_IN_PAUSE_MAX_SECONDS', 900, 1, 86_400), (max, r) =>
        max < r.earlier(SIGN_IN_PAUSE_MS)
          ? 'GCM_SIGN_IN_PAUSE_MAX_SECONDS must be at least GCM_SIGN_IN_PAUSE_SECONDS'
          : undefined,
      ),
    }),
    /** Password hashes (scrypt, in libuv's thread pool) this instance runs at once, and how many may wait. */
    passwordHashes: group({
      /** 0: no cap. */
      concurrency: whole(
        'GCM_PASSWORD_HASH_CONCURRENCY',
        () => defaultHashConcurrency(availableParallelism()),
        0,
        1024,
      ),
      /** Sign-ins, sign-ups and password changes refused (503) while this many hashes wait already. */
      queueMax: whole('GCM_PASSWORD_HASH_QUEUE_MAX', 256, 1, 1_000_000),
    }),
  }),
  /** smtp:// or smtps:// URL mail is sent through; undefined writes each message to the log instead. */
  smtpUrl: optional(
    'GCM_SMTP_URL',
    (raw) =>
      /^smtps?:\/\/[^\s]+$/.test(raw) ? undefined : 'GCM_SMTP_URL must be an smtp:// or smtps:// URL',
    'url',
  ),
  /** The From address of the mail the service sends. */
  mailFrom: text('GCM_MAIL_FROM', 'Game Cloud Manager <no-reply@localhost>'),
  /** Origins whose pages may call the API from a browser (CORS); empty sends no CORS headers at all. */
  corsOrigins: origins('GCM_CORS_ORIGINS'),
  /** Webhook endpoints and the delivery job (src/modules/webhooks). */
  webhooks: group({
    /** http:// endpoints too (GCM_WEBHOOK_ALLOW_HTTP): for a receiver on the operator's own network. */
    allowHttp: bool('GCM_WEBHOOK_ALLOW_HTTP', false),
    /** Endpoints on internal addresses too (GCM_WEBHOOK_ALLOW_INTERNAL): loopback, private, link-local. */
    allowInternal: bool('GCM_WEBHOOK_ALLOW_INTERNAL', false),
    /** Deliveries are kept this long as the delivery log (GCM_WEBHOOK_RETENTION_DAYS). */
    retentionDays: whole('GCM_WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
    /** How often the delivery job looks for due deliveries (GCM_WEBHOOK_POLL_MS); 0: this instance sends none. */
    pollMs: whole('GCM_WEBHOOK_POLL_MS', 1_000, 0, 60_000),
  }),
  /** The players' matchmaker (issue 37): where the version config's captcha providers check answers. */
  matchmaker: group({
    /**
     * A lobby's state writes (PUT /matchmaker/lobbies/state): a second, and the burst above that; more are
     * answered 429 with Retry-After. Each write is at most 64 KiB, so this bounds a lobby's state bytes too.
     */
    lobbyStateWritesPerSecond: whole('GCM_LOBBY_STATE_WRITES_PER_SECOND', 2, 1, 10_000),
    lobbyStateWriteBurst: whole('GCM_LOBBY_STATE_WRITE_BURST', 10, 1, 100_000),
    /** captcha_provider_a's (hCaptcha's) siteverify endpoint. */
    captchaAVerifyUrl: httpUrl('GCM_CAPTCHA_A_VERIFY_URL', 'https://api.hcaptcha.com/siteverify'),
    /** captcha_provider_b's (Cloudflare Turnstile's) siteverify endpoint. */
    captchaBVerifyUrl: httpUrl(
      'GCM_CAPTCHA_B_VERIFY_URL',
      'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    ),
  }),
  /** Lobbies the service runs itself (src/modules/runtime, docs/runtime.md). */
  runtime: group({
    /**
     * none: lobbies are reported by an external data plane (the reporter path), as before; docker: run them
     * on Docker engines, one per region; swarm: on a Docker Swarm, placed on nodes by their gcm.region label.
     */
    kind: RUNTIME_KIND,
    /** swarm: DOCKER_HOST of a manager of the swarm; unset, DOCKER_HOST (else Docker's socket). */
    swarmManager: optional('GCM_SWARM_MANAGER', (value) =>
      /^(unix|tcp|https?):\/\/\S{1,500}$/.test(value)
        ? undefined
        : 'GCM_SWARM_MANAGER must be a unix://, tcp:// or http(s):// address, as DOCKER_HOST is',
    ),
    /** swarm: the registry builds are pushed to and nodes pull from (host[:port][/path]). */
    registry: REGISTRY,
    /** swarm: the registry's user name, if it asks for one. */
    registryUsername: REGISTRY_USERNAME,
    /** swarm: the registry's password or token (never logged, never answered). */
    registryPassword: REGISTRY_PASSWORD,
    /** Region → DOCKER_HOST; a region not named runs on the default engine (DOCKER_HOST or its socket). */
    hosts: regionMap('GCM_RUNTIME_HOSTS', REGIONS, (value) =>
      /^(unix|tcp|https?):\/\/\S+$/.test(value) ? undefined : 'a unix://, tcp:// or http(s):// address',
    ),
    /** Region → the host name players reach its lobbies by; a region not named uses GCM_PUBLIC_URL's host. */
    publicHosts: regionMap('GCM_REGION_PUBLIC_HOSTS', REGIONS, (value) =>
      /^[A-Za-z0-9.:[\]-]{1,253}$/.test(value) ? undefined : 'a host name or address',
    ),
    /**
     * The most a build archive may unpack to on an engine (its gzip layers expanded), and never past 4 times the
     * archive's size: an archive past it is refused before the engine has it whole.
     */
    maxUnpackedBytes: whole('GCM_BUILD_MAX_UNPACKED_BYTES', 16 * 1024 ** 3, 1024 * 1024, 1024 ** 4),
    /** Live lobbies (starting, ready, stopping) one host runs at most, whatever their namespaces. */
    maxLobbiesPerHost: whole('GCM_RUNTIME_MAX_LOBBIES_PER_HOST', 100, 1, 100_000),
    /** Host ports lobbies are given (host network mode: where they listen; bridge: where they are published). */
    portRange: setting('GCM_RUNTIME_PORT_RANGE', readPortRange, {
      documentedDefault: '`26000-31999`',
      show: (range) => `${range.min}-${range.max}`,
    }),
    /** A lobby that has not called ready this long after it was created is stopped and recorded failed. */
    readyTimeoutMs: seconds('GCM_LOBBY_READY_TIMEOUT', 300, 1, 86_400),
    /** A player token not reported connected this long after find/join/create frees its slot. */
    playerConnectTimeoutMs: seconds('GCM_PLAYER_CONNECT_TIMEOUT', 90, 1, 3_600),
    /** How long find (auto-create) and create wait for the lobby they started to call ready. */
    readyWaitMs: seconds('GCM_MATCHMAKER_READY_WAIT_SECONDS', 30, 1, 600),
    /** After a rollout, lobbies of the old version with players run at most this long; 0 stops them at once. */
    drainTimeoutMs: seconds('GCM_DRAIN_TIMEOUT', 7_200, 0, 30 * 86_400),
    /** SIGTERM, then SIGKILL this long after, when the service stops a lobby. */
    stopGraceMs: seconds('GCM_LOBBY_STOP_GRACE', 10, 0, 3_600),
    /**
     * Bytes of output kept per lobby and stream (stdout, stderr): past it the oldest lines are dropped, and
     * the log says so. At least 1 MiB, so one chunk (256 KiB) never holds more than the cap allows.
     */
    lobbyLogMaxBytes: whole('GCM_LOBBY_LOG_MAX_BYTES', 16 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024),
    /**
     * What one lobby's output may take of the capture path: bytes a second (stdout and stderr together) and
     * the burst above that. Lines past it are dropped and the log says how many, so a lobby that floods its
     * output costs its neighbours no more than one printing at this rate.
     */
    lobbyOutputRateBytes: whole('GCM_LOBBY_OUTPUT_RATE_BYTES', 256 * 1024, 1024, 1024 * 1024 * 1024),
    lobbyOutputBurstBytes: whole(
      'GCM_LOBBY_OUTPUT_BURST_BYTES',
      4 * 1024 * 1024,
      16 * 1024,
      1024 * 1024 * 1024,
    ),
    /** The reconciler's periodic pass; events (a version switched, a lobby exited) wake it sooner. */
    reconcileIntervalMs: seconds('GCM_RUNTIME_RECONCILE_INTERVAL', 10, 1, 3_600),
    /** How often each running lobby's CPU, memory and network use is read from the engine. */
    statsIntervalMs: seconds('GCM_LOBBY_STATS_INTERVAL', 5, 1, 3_600),
    /** A lobby's history keeps one sample per this long (at most 1,440 of them: the newest). */
    statsHistoryIntervalMs: seconds('GCM_LOBBY_STATS_HISTORY_INTERVAL', 60, 1, 86_400),
    /** How often the image collector removes build images no live version needs; 0: never. */
    imageGcIntervalMs: seconds('GCM_RUNTIME_IMAGE_GC_INTERVAL', 600, 0, 86_400),
    /** An image a start asked for this recently stays, whatever the versions say (a start racing a switch). */
    imageGcGraceMs: seconds('GCM_RUNTIME_IMAGE_GC_GRACE', 600, 0, 86_400),
    /** Bytes of this service's build images one engine may hold before new loads are refused; 0: no budget. */
    imageDiskBudgetBytes: whole('GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES', 0, 0, Number.MAX_SAFE_INTEGER),
  }),
} satisfies Schema;

export type Config = ConfigOf<typeof SCHEMA>;
export type VersionValidationConfig = Config['versionValidation'];
export type WebhookConfig = Config['webhooks'];
export type AccountsConfig = Config['accounts'];
export type SignInFailureConfig = AccountsConfig['signInFailures'];
export type PasswordHashConfig = AccountsConfig['passwordHashes'];
export type RateLimitConfig = Config['rateLimits'];
export type ConnectionConfig = Config['connections'];
export type S3Config = NonNullable<Config['s3']>;
export type RuntimeConfig = Config['runtime'];
export type MatchmakerConfig = Config['matchmaker'];

/** Adds a check against the settings read before it to `base`, reported after base's own problem. */
function checked<T>(base: Setting<T>, check: (value: T, reading: Reading) => string | undefined): Setting<T> {
  return {
    ...base,
    read: (r) => {
      const value = base.read(r);
      const problem = check(value, r);
      if (problem !== undefined) r.problem(problem);
      return value;
    },
  };
}

/** Every setting in the schema's order: check-config's report and the docs check walk it. */
export const SETTINGS: readonly Setting<unknown>[] = settingsOf(SCHEMA);

function settingsOf(schema: Schema): Setting<unknown>[] {
  return Object.values(schema).flatMap((entry) => {
    if (entry.kind === 'setting') return [entry];
    if (entry.kind === 'derived') return [];
    return settingsOf(entry.members);
  });
}

/** Each setting with its value in `config` (undefined for the members of a group that is off). */
export function settingValues(config: Config): { setting: Setting<unknown>; value: unknown }[] {
  const walk = (schema: Schema, values: Readonly<Record<string, unknown>> | undefined) =>
    Object.entries(schema).flatMap(([key, entry]): { setting: Setting<unknown>; value: unknown }[] => {
      const value = values?.[key];
      if (entry.kind === 'setting') return [{ setting: entry, value }];
      if (entry.kind === 'derived') return [];
      return walk(entry.members, value as Readonly<Record<string, unknown>> | undefined);
    });
  return walk(SCHEMA, config);
}

/**
 * Reads every variable, collects every problem, and throws them all at once so an operator fixes a bad
 * deployment in one round instead of one variable per restart.
 */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const values = new Map<Setting<unknown>, unknown>();
  const given = new Set<Setting<unknown>>();
  const problem = (message: string) => {
    problems.push(message);
  };
  const raw = (s: Setting<unknown>): string | undefined => {
    const value = env[s.env];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const earlier = <T>(s: Setting<T>): T => {
    if (!values.has(s)) throw new Error(`${s.env} is read before the setting it depends on`);
    return values.get(s) as T;
  };
  const readSchema = (schema: Schema): Record<string, unknown> => {
    const result: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(schema)) {
      if (entry.kind === 'setting') {
        const value = raw(entry);
        if (value !== undefined) given.add(entry);
        result[key] = entry.read({ name: entry.env, raw: value, problem, earlier });
        values.set(entry, result[key]);
      } else if (entry.kind === 'derived') {
        result[key] = entry.derive({ earlier, given: (s) => given.has(s) });
      } else if (entry.kind === 'group') {
        result[key] = readSchema(entry.members);
      } else if (entry.gate(raw, problem)) {
        result[key] = readSchema(entry.members);
        entry.check?.({ earlier, problem });
      } else {
        result[key] = undefined;
      }
    }
    return Object.freeze(result);
  };
  const config = readSchema(SCHEMA);
  if (problems.length === 0) checkLobbyReach(config as Config, problem);
  if (problems.length > 0) throw new ConfigError(problems);
  // readSchema follows SCHEMA key by key, each value read by the entry Config's type is derived from.
  return config as Config;
}

function origins(env: string): Setting<readonly string[]> {
  return setting(env, readOrigins, { documentedDefault: '(unset)' });
}

/** Comma-separated region name ids, duplicates dropped. */
function readRegions(r: Reading): readonly string[] {
  const rawRegions = r.raw ?? DEFAULT_REGIONS.join(',');
  const regions = [...new Set(rawRegions.split(',').map((region) => region.trim()))].filter((x) => x !== '');
  const badRegions = regions.filter((region) => !REGION_NAME_ID.test(region));
  if (regions.length === 0 || badRegions.length > 0) {
    r.problem(
      `GCM_REGIONS must be a comma-separated list of region name ids (1-32 of a-z, 0-9 and -)` +
        (badRegions.length > 0 ? `; not valid: ${badRegions.map((x) => `"${x}"`).join(', ')}` : ''),
    );
  }
  return Object.freeze(regions);
}

/**
 * `region=value,region=value`: each region one of GCM_REGIONS, at most once. Unset: an empty map (every
 * region takes the default).
 */
function regionMap(
  env: string,
  regions: Setting<readonly string[]>,
  check: (value: string) => string | undefined,
): Setting<Readonly<Record<string, string>>> {
  return setting(
    env,
    (r) => {
      const map: Record<string, string> = {};
      if (r.raw === undefined) return Object.freeze(map);
      const known = r.earlier(regions);
      for (const entry of r.raw.split(',').map((e) => e.trim())) {
        if (entry === '') continue;
        const at = entry.indexOf('=');
        const region = entry.slice(0, at).trim();
        const value = entry.slice(at + 1).trim();
        const problem =
          at < 1
            ? 'region=value'
            : !known.includes(region)
              ? `a region of GCM_REGIONS (${known.join(', ')})`
              : Object.hasOwn(map, region)
                ? 'each region once'
                : check(value);
        if (problem !== undefined) {
          r.problem(`${env} must be a comma-separated list of region=value entries; "${entry}": ${problem}`);
          continue;
        }
        map[region] = value;
      }
      return Object.freeze(map);
    },
    {
      documentedDefault: '(unset)',
      show: (map) => {
        const entries = Object.entries(map);
        return entries.length === 0 ? undefined : entries.map(([k, v]) => `${k}=${v}`).join(',');
      },
    },
  );
}

/** `min-max`, both in 1024-65535. */
function readPortRange(r: Reading): { readonly min: number; readonly max: number } {
  const fallback = Object.freeze({ min: 26_000, max: 31_999 });
  if (r.raw === undefined) return fallback;
  const match = /^(\d{1,5})-(\d{1,5})$/.exec(r.raw);
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (match === null || min < 1024 || max > 65_535 || min > max) {
    r.problem(`${r.name} must be min-max with 1024 <= min <= max <= 65535 (got "${r.raw}")`);
    return fallback;
  }
  return Object.freeze({ min, max });
}

/** A comma-separated list of exact `scheme://host[:port]` origins, as browsers send them in `Origin`. */
function readOrigins(r: Reading): readonly string[] {
  const origins: string[] = [];
  for (const entry of (r.raw ?? '').split(',').map((o) => o.trim())) {
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
      r.problem(`${r.name} must be a comma-separated list of http(s) origins (got "${entry}")`);
    }
  }
  return Object.freeze([...new Set(origins)]);
}

/** `host:port` (an IPv6 address in brackets: `[::1]:9464`); port 0 picks a free one. */
function readListenAddress(r: Reading): { readonly host: string; readonly port: number } | undefined {
  if (r.raw === undefined) return undefined;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(r.raw);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || port > 65535 || (match?.[1] !== undefined && isIP(host) !== 6)) {
    r.problem(`${r.name} must be host:port, such as 127.0.0.1:9464 or [::1]:9464 (got "${r.raw}")`);
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
function readTrustProxy({ raw, problem }: Reading): false | readonly string[] {
  if (raw === undefined || raw === 'false') return false;
  const entries = raw.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => !isAddressOrCidr(e) || !compiles(e));
  if (bad.length > 0) {
    problem(
      'GCM_TRUST_PROXY must be false or a comma-separated list of proxy addresses, CIDRs (not /0: that is ' +
        `everyone), loopback, linklocal or uniquelocal (got "${raw}")`,
    );
    return false;
  }
  return Object.freeze(entries);
}

/** Whether Fastify's proxy-addr takes the entry (it refuses a /0 range, for one). */
function compiles(entry: string): boolean {
  try {
    proxyAddr.compile(entry);
    return true;
  } catch {
    return false;
  }
}

/**
 * The addresses a lobby on this host can send from and reach: in network_mode `host` a lobby shares the
 * host's network namespace, so loopback (all of 127.0.0.0/8) and every address of the host's interfaces
 * are its own.
 */
function lobbyHostAddresses(): string[] {
  const found = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) found.push(entry.address);
  }
  return found;
}

/** A GCM_TRUST_PROXY entry that names a loopback address (127.0.0.0/8, ::1) by itself. */
function namesLoopback(entry: string): boolean {
  const address = (entry.split('/')[0] ?? '').toLowerCase();
  return (
    address.startsWith('127.') ||
    address.startsWith('::ffff:127.') ||
    (isIP(address) === 6 && /^(0*:)*:?0*1$/.test(address))
  );
}

/**
 * What the service's own settings may not leave open to its lobbies. While GCM_RUNTIME runs lobbies (docker,
 * swarm), a game the operator lets use host networking has its lobbies share the network namespace of the
 * host they run on, which may be this one (the service cannot tell from an engine's address whether its
 * lobbies share this host: a unix socket, a tcp:// name of this host, a swarm manager that runs tasks):
 * - GCM_TRUST_PROXY may name no address such a lobby sends from (loopback, this host's addresses), or it
 *   could name any client in X-Forwarded-For and slip out of every per-address limit, or lock another out;
 * - GCM_METRICS_LISTEN needs GCM_METRICS_TOKEN: any address it binds on this host is reachable from such a
 *   lobby, and /metrics names every namespace and its usage.
 */
function checkLobbyReach(config: Config, problem: (message: string) => void): void {
  const runtime = config.runtime.kind;
  if (runtime === 'none') return;
  const because = `GCM_RUNTIME=${runtime} runs lobbies, and one in network_mode host on this host shares its loopback and addresses`;
  if (config.trustProxy !== false) {
    const trusts = proxyAddr.compile([...config.trustProxy]);
    const own = [
      ...config.trustProxy.filter((entry) => entry === 'loopback' || namesLoopback(entry)),
      ...lobbyHostAddresses().filter((address) => trusts(address, 0)),
    ];
    if (own.length > 0) {
      problem(
        `GCM_TRUST_PROXY trusts ${[...new Set(own)].join(', ')}, which a lobby can send from: ${because}, so it could name any client in X-Forwarded-For. Name the proxy by an address only it has (on another host, or in its own network namespace); see docs/operations.md`,
      );
    }
  }
  if (config.metricsListen !== undefined && config.metricsToken === undefined) {
    problem(
      `GCM_METRICS_LISTEN needs GCM_METRICS_TOKEN: ${because}, so it reaches the listener at any address of this host, and /metrics names every namespace and its usage`,
    );
  }
}

/** Bigger files are refused before they are read: a million entries fit well within this. */
const ADDRESS_CLASSES_FILE_BYTES_MAX = 64 * 1024 * 1024;

function readAddressClassesFile({
  raw,
  problem,
}: Reading): { path: string; classifier: AddressClassifier } | undefined {
  if (raw === undefined || raw === '') return undefined;
  let text: string;
  try {
    if (statSync(raw).size > ADDRESS_CLASSES_FILE_BYTES_MAX) {
      problem(`GCM_ADDRESS_CLASSES_FILE (${raw}) is larger than 64 MiB`);
      return undefined;
    }
    text = readFileSync(raw, 'utf8');
  } catch (err) {
    problem(`GCM_ADDRESS_CLASSES_FILE (${raw}) cannot be read: ${(err as Error).message}`);
    return undefined;
  }
  const parsed = parseAddressClasses(text);
  if ('problem' in parsed) {
    problem(`GCM_ADDRESS_CLASSES_FILE (${raw}) ${parsed.problem}`);
    return undefined;
  }
  return { path: raw, classifier: parsed };
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
