import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { type ChildRegistry, freePort, type ManagedChild, waitUntilAnswering } from './children.js';

/** The repository root, of the server package, where the build `dist/main.js` lives. */
export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Sixteen regions, so the version benchmark can give each game mode sixteen real ones. */
export const BENCH_REGIONS = Array.from({ length: 16 }, (_, i) => `bench-r${i + 1}`);

export interface RunningService {
  readonly baseUrl: string;
  readonly operatorToken: string;
  readonly dataDir: string;
  /** The PostgreSQL database it runs on (DATABASE_URL); undefined on the embedded SQLite store. */
  readonly databaseUrl: string | undefined;
  readonly child: ManagedChild;
}

/**
 * Starts the real service the way production does (`node dist/main.js`, the build `npm run bench` makes first) on a fresh data dir
 * under `workDir`, with an operator token chosen here so the benchmark can set up data over HTTP. With
 * `databaseUrl` it runs on that PostgreSQL database instead of SQLite in the data dir.
 */
export async function startService(
  registry: ChildRegistry,
  workDir: string,
  options: {
    dataDir?: string;
    name?: string;
    operatorToken?: string;
    databaseUrl?: string;
    /** The port to listen on (chosen beforehand when the environment must name it); default a free one. */
    port?: number;
    /** Options for node itself, before the script (`--inspect=…`). */
    nodeArgs?: string[];
    /** More variables; the ones set here (data dir, port, token, regions) are kept. */
    env?: Record<string, string>;
    /** Another build's server package to run (its `dist/main.js`), for a before/after comparison. */
    root?: string;
  } = {},
): Promise<RunningService> {
  const dataDir = options.dataDir ?? path.join(workDir, 'service-data');
  mkdirSync(dataDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const operatorToken = options.operatorToken ?? `bench_op_${randomBytes(32).toString('base64url')}`;
  const child = registry.spawn(options.name ?? 'service', [...(options.nodeArgs ?? []), 'dist/main.js'], {
    cwd: options.root ?? PROJECT_ROOT,
    env: {
      ...options.env,
      GCM_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      GCM_OPERATOR_TOKEN: operatorToken,
      GCM_REGIONS: BENCH_REGIONS.join(','),
      ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
      ...options.env,
    },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(child, `${baseUrl}/cloud/games`);
  return { baseUrl, operatorToken, dataDir, databaseUrl: options.databaseUrl, child };
}

/**
 * A further instance on the PostgreSQL database of `service`, with the same operator token and a data dir of
 * its own: the way several instances share one store. SQLite is owned by one process, so it has none.
 */
export async function startPeer(
  registry: ChildRegistry,
  workDir: string,
  service: RunningService,
  name: string,
): Promise<RunningService> {
  if (service.databaseUrl === undefined) {
    throw new Error(`${service.child.name} runs on SQLite, which one process owns: it can have no peer`);
  }
  return startService(registry, workDir, {
    dataDir: mkdtempSync(path.join(workDir, 'peer-data-')),
    name,
    operatorToken: service.operatorToken,
    databaseUrl: service.databaseUrl,
  });
}

/** "1 instance", "2 instances": how the --pg figures name their columns and rows. */
export function instances(count: number): string {
  return `${count} instance${count === 1 ? '' : 's'}`;
}

export interface ApiResponse {
  status: number;
  text: string;
}

/** One HTTP call to the service; `body` is sent as JSON. */
export async function api(
  service: RunningService,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  urlPath: string,
  options: { token?: string; body?: unknown } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.token ?? service.operatorToken}`,
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${service.baseUrl}${urlPath}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return { status: res.status, text: await res.text() };
}

/** Like `api`, but throws unless the status is 2xx, and parses the JSON answer. */
export async function apiOk<T>(
  service: RunningService,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  urlPath: string,
  options: { token?: string; body?: unknown } = {},
): Promise<T> {
  const res = await api(service, method, urlPath, options);
  if (res.status < 200 || res.status > 299) {
    throw new Error(`${method} ${urlPath} answered ${res.status}: ${res.text}`);
  }
  return (res.text === '' ? undefined : JSON.parse(res.text)) as T;
}

/** A game with one empty version and one namespace "prod" running it, made over HTTP as the operator. */
export async function createGameWithNamespace(service: RunningService, nameId: string, displayName: string) {
  const { game_id: gameId } = await apiOk<{ game_id: string }>(service, 'POST', '/cloud/games', {
    body: { name_id: nameId, display_name: displayName },
  });
  const { version_id: versionId } = await apiOk<{ version_id: string }>(
    service,
    'POST',
    `/cloud/games/${gameId}/versions`,
    { body: { display_name: 'v1', config: {} } },
  );
  const { namespace_id: namespaceId } = await apiOk<{ namespace_id: string }>(
    service,
    'POST',
    `/cloud/games/${gameId}/namespaces`,
    { body: { name_id: 'prod', display_name: 'Production', version_id: versionId } },
  );
  return { gameId, versionId, namespaceId };
}
