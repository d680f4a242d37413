import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DockerEngine } from '../../src/runtime/docker/engine.js';
import { spawnDaemon } from './daemon.js';

/**
 * A private Docker engine for one test file: its own data root, exec root, pid file and unix socket under a
 * fresh temp dir, no bridge and no iptables rules, so that it touches nothing of the machine's (never the
 * default socket or /var/lib/docker) and several test files (or engineers) may each run one. Stopped by its
 * pid, then its dir is removed.
 */
export const DOCKERD = '/usr/sbin/dockerd';
export const BUSYBOX = '/bin/busybox';

/**
 * Why a Docker test cannot run here, or false; printed once by each file that skips. `sqliteOnly`: a file
 * that touches no store (the driver's own), which the PostgreSQL run need not repeat.
 */
export function dockerSkipReason(file: string, options: { sqliteOnly?: boolean } = {}): string | false {
  const skip =
    options.sqliteOnly === true && process.env.GCM_TEST_DATABASE_URL !== undefined
      ? 'the driver touches no store: it runs on the SQLite run only'
      : !existsSync(DOCKERD)
        ? `${DOCKERD} not found: install Debian's docker.io (apt-get install docker.io) to run the Docker tests`
        : process.getuid?.() !== 0
          ? 'dockerd needs root: run the Docker tests as root'
          : !existsSync(BUSYBOX)
            ? `${BUSYBOX} not found: install Debian's busybox-static (apt-get install busybox-static) for the test image`
            : false;
  if (skip !== false) console.log(`# ${file} skipped: ${skip}`);
  return skip;
}

export interface PrivateDockerd {
  /** unix:///…/docker.sock, as DOCKER_HOST takes it. */
  dockerHost: string;
  dir: string;
  pid: number;
  /** A client of this engine, closed by `stop`. */
  engine: DockerEngine;
  /** What dockerd wrote so far, for a failure's message. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts dockerd and waits until it answers /_ping. The temp dir sits right under /tmp with a short name:
 * the exec root holds containerd's unix sockets, whose paths may not pass 108 bytes. `dir` starts it again
 * on the dir of an engine that died (a swarm node killed by a test): its data root keeps the node's swarm
 * identity, and the new engine stops the containers the dead one's containerd shims left running.
 */
export async function startDockerd(
  timeoutMs = 90_000,
  options: { dir?: string } = {},
): Promise<PrivateDockerd> {
  const dir = options.dir ?? mkdtempSync('/tmp/gcmd-');
  const socket = path.join(dir, 'docker.sock');
  const logFile = path.join(dir, 'dockerd.log');
  // An empty config file, so that the machine's /etc/docker/daemon.json changes nothing here.
  writeFileSync(path.join(dir, 'daemon.json'), '{}\n');
  const daemon = spawnDaemon(
    DOCKERD,
    [
      '--config-file',
      path.join(dir, 'daemon.json'),
      '--data-root',
      path.join(dir, 'data'),
      '--exec-root',
      path.join(dir, 'x'),
      '--host',
      `unix://${socket}`,
      '--pidfile',
      path.join(dir, 'docker.pid'),
      '--bridge=none',
      '--iptables=false',
      '--ip6tables=false',
      '--ip-forward=false',
      '--ip-masq=false',
    ],
    logFile,
  );
  const { pid, log } = daemon;
  const engine = new DockerEngine(`unix://${socket}`);
  const stop = async () => {
    engine.close();
    // dockerd stops its containers (10 s each at most, in parallel) and its containerd before it exits.
    await daemon.stop(60_000);
    removeDir(dir);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (daemon.exitCode() !== undefined) {
      const text = log();
      removeDir(dir);
      throw new Error(`dockerd exited with ${daemon.exitCode()} before answering: ${text.slice(-4000)}`);
    }
    try {
      await engine.ping();
      break;
    } catch {
      if (Date.now() > deadline) {
        const text = log();
        await stop();
        throw new Error(`dockerd did not answer /_ping within ${timeoutMs} ms: ${text.slice(-4000)}`);
      }
      await sleep(100);
    }
  }
  return { dockerHost: `unix://${socket}`, dir, pid, engine, log, stop };
}

/** Removes the engine's dir, unmounting what a killed engine left mounted under it first. */
function removeDir(dir: string): void {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((mountPoint) => mountPoint.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  // Each umount finishes before the removal starts: a mount still there makes rmSync fail with EBUSY.
  for (const mountPoint of mounts) {
    spawnSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
  }
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  } catch (err) {
    console.log(`# could not remove ${dir}: ${(err as Error).message}`);
  }
}
