import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import type { DockerEngine } from '../../src/runtime/docker/engine.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import { freePort } from '../helpers/listening.js';
import { pushImage, registryAuthHeader, registrySkipReason, startRegistry } from '../helpers/registry.js';
import { startSwarm } from '../helpers/swarm.js';
import { buildTestImage } from '../helpers/test-image.js';
import { HANG_MS, until } from '../helpers/until.js';

/**
 * The swarm runtime's test harness itself (test/helpers/swarm.ts, registry.ts): what the swarm driver's
 * tests stand on, without the driver. A service here is made as the driver makes a lobby's: one replicated
 * task, restart policy none, host network, placed by `node.labels.gcm.region`, its image named by digest in
 * the test's registry.
 */
const skip =
  dockerSkipReason('swarm-harness.test.ts', { sqliteOnly: true }) ||
  registrySkipReason('swarm-harness.test.ts', { auth: true });

interface Task {
  NodeID?: string;
  Status: { State: string; Err?: string };
}

async function createService(
  manager: DockerEngine,
  options: { name: string; image: string; region: string; port: number; auth: string },
): Promise<string> {
  const created = await manager.json<{ ID: string }>({
    method: 'POST',
    path: '/services/create',
    headers: { 'X-Registry-Auth': options.auth },
    body: {
      Name: options.name,
      TaskTemplate: {
        ContainerSpec: { Image: options.image, Env: [`PORT_game=${options.port}`, 'TEST_NO_READY=1'] },
        Placement: { Constraints: [`node.labels.gcm.region==${options.region}`] },
        RestartPolicy: { Condition: 'none' },
        Networks: [{ Target: 'host' }],
      },
      Mode: { Replicated: { Replicas: 1 } },
    },
  });
  assert.ok(created?.ID);
  return created.ID;
}

async function runningTask(manager: DockerEngine, serviceId: string): Promise<Task> {
  let running: Task | undefined;
  let last: Task[] = [];
  await until(
    `service ${serviceId}'s task to run`,
    HANG_MS,
    async () => {
      last =
        (await manager.json<Task[]>({
          method: 'GET',
          path: '/tasks',
          query: { filters: JSON.stringify({ service: [serviceId] }) },
        })) ?? [];
      running = last.find((task) => task.Status.State === 'running');
      return running !== undefined;
    },
    50,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; tasks: ${JSON.stringify(last.map((task) => task.Status))}`);
  });
  return running as Task;
}

/** Sends a line to the test server's game port on 127.0.0.1 and answers the line it echoes. */
function echo(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${line}\n`));
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\n');
      if (end >= 0) {
        socket.end();
        resolve(received.slice(0, end));
      }
    });
    socket.on('error', reject);
  });
}

async function echoes(port: number): Promise<string> {
  let answer = '';
  // The task is running before nc listens: the script starts it after a few lines.
  await until(
    `the game port ${port} to answer`,
    HANG_MS,
    async () => {
      answer = await echo(port, 'hello swarm').catch(() => '');
      return answer !== '';
    },
    50,
  );
  return answer;
}

describe('the swarm test harness', { skip }, () => {
  test('a one-node swarm runs a service by digest from a registry with credentials', async () => {
    const auth = { username: 'gcm', password: 'not a secret, a test' };
    const swarm = await startSwarm({ nodes: 1, regions: ['eu'] });
    const registry = await startRegistry({ auth });
    try {
      const image = await buildTestImage(swarm.manager, { keep: true });
      // Dockerd quietly drops credentials it cannot decode: a push without them is refused.
      await assert.rejects(pushImage(swarm.manager, image.name, registry), /no basic auth credentials/);
      await assert.rejects(
        pushImage(swarm.manager, image.name, registry, { auth: { ...auth, password: 'wrong' } }),
        /unauthorized/,
      );
      const reference = await pushImage(swarm.manager, image.name, registry, { auth });
      assert.match(reference, new RegExp(`^${registry.address}/gcm-test@sha256:[0-9a-f]{64}$`));
      const port = await freePort();
      const serviceId = await createService(swarm.manager, {
        name: 'harness-one',
        image: reference,
        region: 'eu',
        port,
        auth: registryAuthHeader(registry, auth),
      });
      const task = await runningTask(swarm.manager, serviceId);
      assert.equal(task.NodeID, swarm.nodes[0]?.id);
      assert.equal(await echoes(port), 'hello swarm');
    } finally {
      await registry.stop();
      await swarm.stop();
    }
  });

  test('a two-node swarm places services by region, and a killed node goes down', async () => {
    const swarm = await startSwarm({ nodes: 2, regions: ['eu', 'us'], heartbeatMs: 1000 });
    const registry = await startRegistry();
    try {
      const [eu, us] = swarm.nodes;
      assert.ok(eu !== undefined && us !== undefined && eu.id !== us.id);
      const image = await buildTestImage(swarm.manager, { keep: true });
      const reference = await pushImage(swarm.manager, image.name, registry);
      const ports = { eu: await freePort(), us: await freePort() };
      for (const [region, node] of [
        ['eu', eu],
        ['us', us],
      ] as const) {
        const serviceId = await createService(swarm.manager, {
          name: `harness-${region}`,
          image: reference,
          region,
          port: ports[region],
          auth: registryAuthHeader(registry),
        });
        // The worker pulled the image from the registry: it was built on the manager only.
        assert.equal((await runningTask(swarm.manager, serviceId)).NodeID, node.id);
        assert.equal(await echoes(ports[region]), 'hello swarm');
      }
      await swarm.kill(1);
      // Down 3 heartbeats of 1 s after the last one: longer is a hang, not a slow machine.
      await until(
        'the manager to mark the killed node down',
        HANG_MS,
        async () => {
          const node = await swarm.manager.json<{ Status: { State: string } }>({
            method: 'GET',
            path: `/nodes/${us.id}`,
          });
          return node?.Status.State === 'down';
        },
        200,
      );
    } finally {
      await registry.stop();
      await swarm.stop();
    }
  });
});
