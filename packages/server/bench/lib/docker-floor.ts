import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { DockerDriver } from '../../src/runtime/docker/docker-driver.js';
import { LOBBY_LABELS, type LobbySpec } from '../../src/runtime/driver.js';
import { freePort } from '../../test/helpers/listening.js';

/** p50 and p99 of some milliseconds. */
export interface Spread {
  p50: number;
  p99: number;
  max: number;
}

export function spread(times: readonly number[]): Spread {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
}

export interface DockerRunFloor {
  runs: number;
  /** From the create call to the server's first output line. */
  toFirstLine: Spread;
  /** From the create call to a TCP connect to its game port succeeding. */
  toListening: Spread;
}

/** Connects to 127.0.0.1:port until it is accepted, every 2 ms. */
async function waitListening(port: number, deadlineMs: number): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    if (performance.now() > deadline) throw new Error(`nothing listened on ${port} within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * The engine's own floor for starting a lobby: `docker run` of the test image (create + start through the
 * driver, host networking, the lobby's limits) until its first output line and until its game port accepts a
 * connection, `runs` times one after another, each stopped and removed before the next. What the service
 * adds on top (its start-to-ready) is compared against this.
 */
export async function measureDockerRunFloor(
  driver: DockerDriver,
  options: { region: string; image: string; runs: number },
): Promise<DockerRunFloor> {
  const toFirstLine: number[] = [];
  const toListening: number[] = [];
  for (let run = 0; run < options.runs; run++) {
    const port = await freePort();
    const lobbyId = randomUUID();
    const spec: LobbySpec = {
      lobbyId,
      region: options.region,
      image: options.image,
      args: [],
      env: { TEST_NO_READY: '1', PORT_game: String(port) },
      networkMode: 'host',
      ports: [{ name: 'game', protocol: 'tcp', containerPort: port, hostPort: port }],
      limits: { nanoCpus: 1_000_000_000, memoryBytes: 256 * 1024 * 1024, pids: 256 },
      readOnlyRootFs: true,
      labels: { [LOBBY_LABELS.lobby]: lobbyId, [LOBBY_LABELS.owner]: 'bench-docker-run' },
    };
    const start = performance.now();
    const { handle } = await driver.start(spec);
    const firstLine = (async () => {
      const signal = AbortSignal.timeout(60_000);
      for await (const _ of driver.output(options.region, handle, { follow: true, signal })) {
        return performance.now() - start;
      }
      throw new Error('the test server printed nothing');
    })();
    await waitListening(port, 60_000);
    toListening.push(performance.now() - start);
    toFirstLine.push(await firstLine);
    await driver.stop(options.region, handle, 0);
  }
  return { runs: options.runs, toFirstLine: spread(toFirstLine), toListening: spread(toListening) };
}
