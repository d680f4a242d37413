import path from 'node:path';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly publicUrl: string;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** When set, this is the only operator token; none is generated or read from the data dir. */
  readonly operatorToken: string | undefined;
  readonly cloudTokenTtlDays: number;
  readonly bodyLimitBytes: number;
  readonly shutdownTimeoutMs: number;
  /** Region name ids the hosting data plane offers; game modes may only name these. */
  readonly regions: readonly string[];
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

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    host,
    port,
    dataDir,
    publicUrl,
    logLevel,
    operatorToken,
    cloudTokenTtlDays,
    bodyLimitBytes,
    shutdownTimeoutMs,
    regions: Object.freeze(regions),
  });
}
