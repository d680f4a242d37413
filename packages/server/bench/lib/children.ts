import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';

const OUTPUT_TAIL_BYTES = 16 * 1024;

/** A child process started by the benchmark, with the tail of its output kept for error reports. */
export interface ManagedChild {
  readonly name: string;
  readonly process: ChildProcess;
  /** The last bytes the child wrote to stdout and stderr, for an error message. */
  output(): string;
  /** Resolves with the exit code (or signal) once the child has exited. */
  readonly exited: Promise<string>;
}

/**
 * Starts every child of a run and stops them all at the end, whatever happened: run.ts calls stopAll in a
 * finally block and on SIGINT/SIGTERM, so no service or server outlives the benchmark.
 */
export class ChildRegistry {
  private readonly children = new Set<ManagedChild>();

  spawn(
    name: string,
    args: readonly string[],
    options: { cwd: string; env: Record<string, string> },
  ): ManagedChild {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      // PATH and HOME only from the parent: the child's configuration is exactly what the caller passes.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_BYTES);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const exited = new Promise<string>((resolve) => {
      child.once('exit', (code, signal) => resolve(signal === null ? `code ${code}` : `signal ${signal}`));
      child.once('error', (err) => resolve(`spawn error: ${err.message}`));
    });
    const managed: ManagedChild = { name, process: child, output: () => tail, exited };
    this.children.add(managed);
    void exited.then(() => this.children.delete(managed));
    return managed;
  }

  /** SIGTERM to every running child, then SIGKILL to those still alive after `graceMs`. */
  async stopAll(graceMs = 5_000): Promise<void> {
    await Promise.all([...this.children].map((child) => stopChild(child, graceMs)));
  }
}

/** The child's process id, which a spawned child always has. */
export function pidOf(child: ManagedChild): number {
  if (child.process.pid === undefined) throw new Error(`${child.name} has no process id`);
  return child.process.pid;
}

export async function stopChild(child: ManagedChild, graceMs = 5_000): Promise<void> {
  const proc = child.process;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  try {
    await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('could not read the free port');
  return address.port;
}

/**
 * Polls `url` until the child answers any HTTP status, failing early if it exits and with its output if it
 * does not answer within `timeoutMs`.
 */
export async function waitUntilAnswering(child: ManagedChild, url: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let exitedWith: string | undefined;
  void child.exited.then((how) => {
    exitedWith = how;
  });
  for (;;) {
    if (exitedWith !== undefined) {
      throw new Error(`${child.name} exited (${exitedWith}) before answering:\n${child.output()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`${child.name} did not answer ${url} within ${timeoutMs} ms:\n${child.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
