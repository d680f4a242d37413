import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type ChildRegistry, freePort, type ManagedChild, waitUntilAnswering } from './children.js';
import { PROJECT_ROOT } from './service.js';

export interface RunningBaseline {
  readonly baseUrl: string;
  readonly child: ManagedChild;
}

/** Starts bench/baseline-server.ts in its own process, answering every request with `body`. */
export async function startBaseline(
  registry: ChildRegistry,
  workDir: string,
  name: string,
  body: string,
): Promise<RunningBaseline> {
  const bodyFile = path.join(workDir, `${name}.body.json`);
  writeFileSync(bodyFile, body);
  const port = await freePort();
  const child = registry.spawn(`baseline ${name}`, ['--import', 'tsx', 'bench/baseline-server.ts'], {
    cwd: PROJECT_ROOT,
    env: { BENCH_BODY_FILE: bodyFile, PORT: String(port) },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(child, `${baseUrl}/`);
  return { baseUrl, child };
}

/**
 * Starts bench/minimal-fastify-server.ts in its own process: the minimal Fastify app of the same routes and
 * kinds of hooks, admitting `token` as a bearer token and answering the canned bodies given (or, for the
 * find, the slot it took in `findStore`).
 */
export async function startMinimalFastify(
  registry: ChildRegistry,
  workDir: string,
  name: string,
  options: {
    token: string;
    namespaceBody?: string;
    findBody?: string;
    /** The find does its store work for real on this store (minimal-find-store.ts), in this namespace. */
    findStore?: { sqliteFile?: string; pgUrl?: string; namespaceId: string };
  },
): Promise<RunningBaseline> {
  const env: Record<string, string> = { BENCH_TOKEN: options.token };
  const store = options.findStore;
  if (store !== undefined) {
    env.BENCH_FIND_NAMESPACE = store.namespaceId;
    if (store.sqliteFile !== undefined) env.BENCH_FIND_SQLITE_FILE = store.sqliteFile;
    if (store.pgUrl !== undefined) env.BENCH_FIND_PG_URL = store.pgUrl;
  }
  if (options.namespaceBody !== undefined) {
    env.BENCH_NAMESPACE_BODY_FILE = path.join(workDir, `${name}.namespace.json`);
    writeFileSync(env.BENCH_NAMESPACE_BODY_FILE, options.namespaceBody);
  }
  if (options.findBody !== undefined) {
    env.BENCH_FIND_BODY_FILE = path.join(workDir, `${name}.find.json`);
    writeFileSync(env.BENCH_FIND_BODY_FILE, options.findBody);
  }
  const port = await freePort();
  const child = registry.spawn(
    `minimal fastify ${name}`,
    ['--import', 'tsx', 'bench/minimal-fastify-server.ts'],
    {
      cwd: PROJECT_ROOT,
      env: { ...env, PORT: String(port) },
    },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  // Any answer will do (a 404 for /): it is listening.
  await waitUntilAnswering(child, `${baseUrl}/`);
  return { baseUrl, child };
}
