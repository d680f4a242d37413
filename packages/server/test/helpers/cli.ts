import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './paths.js';

/** The built `gcm` binary (npm run build makes it; the test command builds first). */
export const GCM_BIN = path.join(REPO_ROOT, 'packages/cli/dist/main.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment of a CLI run: the test's own, minus anything gcm reads that the test did not set. */
function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['GCM_URL', 'GCM_TOKEN', 'GCM_GAME', 'GCM_CONFIG_DIR', 'XDG_CONFIG_HOME'])
    delete base[name];
  return { ...base, ...env };
}

/** Starts `gcm args…` as its own process; the caller reads its streams. */
export function startCli(args: string[], env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [GCM_BIN, ...args], { env: cliEnv(env) });
}

/** Runs `gcm args…` to its end (at most `timeoutMs`) and returns its exit code and output. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<CliResult> {
  const child = startCli(args, env);
  return finished(child, timeoutMs);
}

export function finished(child: ChildProcessWithoutNullStreams, timeoutMs = 30_000): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gcm did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Reads `child`'s stdout a line at a time (lines printed before a read are kept for it). */
export function lineReader(child: ChildProcessWithoutNullStreams): (timeoutMs?: number) => Promise<string> {
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return async (timeoutMs = 10_000) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no line from gcm in ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const next = await Promise.race([lines.next(), timeout]);
      if (next.done === true) throw new Error('gcm ended its output');
      return next.value;
    } finally {
      clearTimeout(timer);
    }
  };
}
