import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** A server process a test started (dockerd, a registry), its output in a file, stopped by its pid. */
export interface Daemon {
  pid: number;
  /** Its exit code once it exited (null: by a signal), undefined while it runs. */
  exitCode(): number | null | undefined;
  /** What it wrote so far, for a failure's message. */
  log(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. Nothing when it already had. */
  stop(graceMs: number): Promise<void>;
}

/**
 * util-linux's setpriv, which execs the daemon with a parent-death signal: a test process that dies without
 * its after hooks (killed on a timeout, by a mutation runner, by Ctrl-C) then takes its daemons with it
 * rather than leaving a dockerd per file running. Where it is missing, the daemon is started as it is.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

export function spawnDaemon(bin: string, args: string[], logFile: string): Daemon {
  const out = openSync(logFile, 'a');
  const [command, argv] =
    SETPRIV === undefined ? [bin, args] : [SETPRIV, ['--pdeathsig', 'TERM', '--', bin, ...args]];
  const child: ChildProcess = spawn(command, argv, { stdio: ['ignore', out, out], detached: false });
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${bin} did not start: ${log()}`);
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolve();
    }),
  );
  return {
    pid,
    exitCode: () => exitCode,
    log,
    async stop(graceMs) {
      if (exitCode !== undefined) return;
      process.kill(pid, 'SIGTERM');
      const killed = await Promise.race([exited.then(() => false), sleep(graceMs).then(() => true)]);
      if (killed) {
        process.kill(pid, 'SIGKILL');
        await exited;
      }
    },
  };
}
