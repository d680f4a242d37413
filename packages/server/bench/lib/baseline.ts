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
