import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { createService } from '../../src/composition-root.js';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { TestPauses } from '../../src/lib/test-seams.js';
import { OPERATOR_TOKEN_FILE } from '../../src/modules/tokens/operator-token.js';
import { dropTestDatabase, onPostgres, withTestDatabase } from './postgres.js';

export interface TestService {
  app: Awaited<ReturnType<typeof createService>>['app'];
  deps: Awaited<ReturnType<typeof createService>>['deps'];
  /** The LISTEN/NOTIFY relay on PostgreSQL; undefined on SQLite. */
  relay: Awaited<ReturnType<typeof createService>>['relay'];
  /** Rolls ended billing periods over; tests call runDue() after moving the clock. */
  billingScheduler: Awaited<ReturnType<typeof createService>>['billingScheduler'];
  /** The lobby reconciler with GCM_RUNTIME=docker; undefined otherwise. */
  reconciler: Awaited<ReturnType<typeof createService>>['reconciler'];
  clock: ManualClock;
  dataDir: string;
  operatorToken: string;
  /** The service's log lines (pino JSON, parsed), when started with `logLevel`; empty otherwise. */
  logs: LogLine[];
  /** Sends a request through the real HTTP stack (app.inject); `token` becomes a bearer header. */
  call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** One line of the service's log: pino's numeric level (30 info, 50 error), its message and fields. */
export interface LogLine {
  level: number;
  msg?: string;
  [field: string]: unknown;
}

/**
 * Every per-address limit off: the suite sends thousands of requests from one address. Tests of the limits
 * themselves pass DEFAULT_LIMITS (or their own small values) in `env`.
 */
export const RELAXED_LIMITS: Readonly<Record<string, string>> = {
  GCM_RATE_LIMIT_AUTH_FAILURES: '0',
  GCM_RATE_LIMIT_DEVICE_LINK_STARTS: '0',
  GCM_RATE_LIMIT_DEVICE_LINK_READS: '0',
  GCM_RATE_LIMIT_PUBLIC_READS: '0',
  GCM_RATE_LIMIT_UPLOAD_PUTS: '0',
  GCM_DEVICE_LINK_PENDING_MAX: '0',
  GCM_RATE_LIMIT_ACCOUNT_CALLS: '0',
  GCM_RATE_LIMIT_MATCHMAKER_PLAYER_CALLS: '0',
  GCM_RATE_LIMIT_MATCHMAKER_READS: '0',
  GCM_RATE_LIMIT_MATCHMAKER_TOKEN: '0',
};

/** The limits as a deployment has them by default (an empty variable is an unset one). */
export const DEFAULT_LIMITS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.keys(RELAXED_LIMITS).map((name) => [name, '']),
);

/**
 * The configuration of a test service on `dataDir`: silent, limits relaxed (RELAXED_LIMITS), and on the
 * data dir's own PostgreSQL database when the suite runs on PostgreSQL (unless `env` names a DATABASE_URL
 * itself).
 */
export async function testConfig(dataDir: string, env: Record<string, string> = {}) {
  return loadConfig(
    await withTestDatabase({ GCM_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...RELAXED_LIMITS, ...env }),
  );
}

/**
 * A service on a real SQLite file in a fresh temp dir (or, with GCM_TEST_DATABASE_URL, on a fresh
 * PostgreSQL database of its own), started through the same createService path as
 * production, with a manual clock. `env` adds or overrides environment variables.
 */
export async function startTestService(
  options: {
    env?: Record<string, string>;
    dataDir?: string;
    clock?: ManualClock;
    pauses?: TestPauses;
    /** Log through the service's own logger at this level into `logs`, for tests of what is logged. */
    logLevel?: 'debug' | 'info';
  } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'gcm-test-'));
  const ownsDir = options.dataDir === undefined;
  const clock = options.clock ?? new ManualClock(Date.parse('2026-01-01T00:00:00.000Z'));
  const config = await testConfig(dataDir, {
    ...options.env,
    ...(options.logLevel === undefined ? {} : { LOG_LEVEL: options.logLevel }),
  });
  const databaseUrl = onPostgres ? config.databaseUrl : undefined;
  const logs: LogLine[] = [];
  const { app, deps, relay, newOperatorToken, billingScheduler, reconciler } = await createService(config, {
    clock,
    ...(options.logLevel === undefined
      ? { logger: false }
      : { logStream: { write: (line: string) => logs.push(JSON.parse(line) as LogLine) } }),
    ...(options.pauses === undefined ? {} : { pauses: options.pauses }),
  });
  // On a restart over an existing data dir the token is not new: read it back from its file.
  const tokenFile = path.join(dataDir, OPERATOR_TOKEN_FILE);
  const operatorToken =
    config.operatorToken ??
    newOperatorToken ??
    (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined);
  if (operatorToken === undefined) throw new Error('test service has no operator token');
  return {
    app,
    deps,
    relay,
    billingScheduler,
    reconciler,
    clock,
    dataDir,
    operatorToken,
    logs,
    call(method, url, { token, body, headers } = {}) {
      const all: Record<string, string> = { ...headers };
      const bearer = token === undefined ? operatorToken : token;
      if (bearer !== null) all.authorization = `Bearer ${bearer}`;
      return app.inject({
        method,
        url,
        headers: all,
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
    },
    async close() {
      await app.close();
      if (ownsDir) {
        rmSync(dataDir, { recursive: true, force: true });
        if (databaseUrl !== undefined) await dropTestDatabase(dataDir);
      }
    },
  };
}

/**
 * A second instance on the first one's PostgreSQL database (and clock), as another process behind the
 * balancer; `env` adds to its environment.
 */
export function secondInstance(first: TestService, env: Record<string, string> = {}): Promise<TestService> {
  const databaseUrl = first.deps.config.databaseUrl;
  if (databaseUrl === undefined) throw new Error('a second instance needs the first one on PostgreSQL');
  return startTestService({
    clock: first.clock,
    env: { ...env, DATABASE_URL: databaseUrl, GCM_OPERATOR_TOKEN: first.operatorToken },
  });
}

/** A game with one version and one namespace, plus a cloud token of that game: the usual test fixture. */
export async function createGameFixture(svc: TestService, nameId = 'test-game') {
  const game = await svc.call('POST', '/cloud/games', {
    body: { name_id: nameId, display_name: 'Test Game' },
  });
  if (game.statusCode !== 200) throw new Error(`create game: ${game.statusCode} ${game.body}`);
  const gameId = game.json<{ game_id: string }>().game_id;
  const version = await svc.call('POST', `/cloud/games/${gameId}/versions`, {
    body: { display_name: 'v1', config: {} },
  });
  if (version.statusCode !== 200) throw new Error(`create version: ${version.statusCode} ${version.body}`);
  const versionId = version.json<{ version_id: string }>().version_id;
  const ns = await svc.call('POST', `/cloud/games/${gameId}/namespaces`, {
    body: { name_id: 'prod', display_name: 'Production', version_id: versionId },
  });
  if (ns.statusCode !== 200) throw new Error(`create namespace: ${ns.statusCode} ${ns.body}`);
  const namespaceId = ns.json<{ namespace_id: string }>().namespace_id;
  const tok = await svc.call('POST', `/cloud/games/${gameId}/tokens/cloud`);
  if (tok.statusCode !== 200) throw new Error(`create token: ${tok.statusCode} ${tok.body}`);
  const { token: cloudToken, token_id: cloudTokenId } = tok.json<{ token: string; token_id: string }>();
  return { gameId, versionId, namespaceId, cloudToken, cloudTokenId };
}
