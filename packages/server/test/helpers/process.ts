import { type ChildProcess, spawn } from 'node:child_process';
import { REPO_ROOT, SERVER_ROOT as ROOT } from './paths.js';
import { withTestDatabase } from './postgres.js';

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Every stdout line so far (pino JSON), for assertions on what was logged. */
  lines: string[];
  stderr: () => string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built service (`dist/main.js`) as its own process, as `npm start` does, and waits for it to listen. */
export async function startServiceProcess(
  givenEnv: Record<string, string>,
  timeoutMs = 30_000,
  /** `npm-start`: exactly the README's `npm start` at the repository root, npm process and all. */
  how: 'node' | 'npm-start' = 'node',
): Promise<ServiceProcess> {
  const env = await withTestDatabase(givenEnv);
  const [command, args, cwd] =
    how === 'node' ? [process.execPath, ['dist/main.js'], ROOT] : ['npm', ['start', '--silent'], REPO_ROOT];
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  let buffered = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (match !== null) {
          clearTimeout(timer);
          resolve({
            child,
            baseUrl: match[1] as string,
            lines,
            stderr: () => stderr,
            stop(signal = 'SIGTERM') {
              child.kill(signal);
              return exited;
            },
          });
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
}

/** Runs the built `dist/main.js` to completion (for start-up failures) and returns its exit code and output. */
export async function runServiceToExit(
  givenEnv: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const env = await withTestDatabase(givenEnv);
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

/** One HTTP call to a service process; the body is sent as JSON, the answer parsed when there is one. */
export async function api(
  baseUrl: string,
  token: string | null,
  method: string,
  url: string,
  body?: unknown,
) {
  const res = await fetch(`${baseUrl}${url}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
  };
}

/** Collects a child's stdout and stderr until it closes. */
export function outputUntilClose(
  child: ChildProcess,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
