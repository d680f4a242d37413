import { randomInt } from 'node:crypto';
import net from 'node:net';
import type { DockerEngine } from '../../src/runtime/docker/engine.js';
import { type PrivateDockerd, startDockerd } from './dockerd.js';
import { HANG_MS, until } from './until.js';

/**
 * A Docker Swarm of private engines (test/helpers/dockerd.ts; one or two for the tests, four for the bench's
 * 100 lobbies), each node labelled `gcm.region=<its region>`, for the swarm runtime's tests. Measured on
 * Debian's docker.io 20.10.24:
 *
 * - Each swarm gets its own loopback addresses 127.<a>.<b>.1 (manager), .2, .3 … (workers): the whole of
 *   127.0.0.0/8 answers on `lo` with no address to add. The swarm's gossip (memberlist) binds
 *   <listen address>:7946 on TCP and UDP, a port that cannot be chosen, so two swarms on 127.0.0.1 (two test
 *   files at once in CI, or two engineers) would clash; on addresses of their own they do not, and nor do
 *   two nodes of one swarm on one machine.
 * - Both engines share the machine's network namespace, so a game server on the host network of either node
 *   listens on the same 127.0.0.1: lobbies on two nodes need different ports, as on one.
 * - The `ingress` overlay's vxlan interface fails on every engine but the first on the machine ("error
 *   creating vxlan interface: file exists", in the log): the VNI and the data path port are the same for
 *   every swarm. Host-network services do not use it.
 */
export interface SwarmNode {
  /** The swarm's node id. */
  id: string;
  dockerd: PrivateDockerd;
  region: string;
  /** host:port this node listens and advertises on. */
  address: string;
}

export interface TestSwarm {
  /** DOCKER_HOST of the manager (node 0). */
  managerHost: string;
  /** A client of the manager's engine. */
  manager: DockerEngine;
  nodes: SwarmNode[];
  /** `docker node update --availability drain`: the manager shuts the node's tasks down. */
  drain(nodeId: string): Promise<void>;
  /** `--availability active` again. */
  activate(nodeId: string): Promise<void>;
  /**
   * SIGKILLs the node's dockerd (a worker: node 1 of a two-node swarm). Its containers go on running under
   * their containerd shims, as on a machine whose engine crashed; the manager marks the node down after
   * about 10 s. `stop` reaps them.
   */
  kill(nodeIndex: number): Promise<void>;
  /** Starts a killed node's engine again on its dir: it rejoins and stops the containers left running. */
  revive(nodeIndex: number): Promise<void>;
  /** Stops every engine (the worker first), then removes their dirs. */
  stop(): Promise<void>;
}

interface NodeInfo {
  ID: string;
  Version: { Index: number };
  Spec: { Labels?: Record<string, string>; Availability?: string; Role?: string };
  Status: { State: string };
}

/** Whether nothing listens on host:port (TCP): the address pair is this swarm's alone. */
function free(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * `count` loopback addresses of one /24 (at least two) no other swarm here uses: the swarm port and the
 * gossip port are free on each.
 */
async function loopbackAddresses(count: number): Promise<string[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const prefix = `127.${randomInt(100, 200)}.${randomInt(0, 256)}`;
    const hosts = Array.from({ length: Math.max(2, count) }, (_, i) => `${prefix}.${i + 1}`);
    const checks = await Promise.all(hosts.flatMap((host) => [free(host, 2377), free(host, 7946)]));
    if (checks.every(Boolean)) return hosts;
  }
  throw new Error(`no ${count} free loopback addresses for a swarm`);
}

async function nodeInfo(manager: DockerEngine, id: string): Promise<NodeInfo> {
  const node = await manager.json<NodeInfo>({ method: 'GET', path: `/nodes/${id}` });
  if (node === undefined) throw new Error(`the swarm has no node ${id}`);
  return node;
}

async function updateNode(
  manager: DockerEngine,
  id: string,
  change: (spec: NodeInfo['Spec']) => NodeInfo['Spec'],
): Promise<void> {
  const node = await nodeInfo(manager, id);
  await manager.json({
    method: 'POST',
    path: `/nodes/${id}/update`,
    query: { version: node.Version.Index },
    body: change(node.Spec),
  });
}

async function localNodeId(engine: DockerEngine): Promise<string> {
  const info = await engine.json<{ Swarm?: { NodeID?: string } }>({ method: 'GET', path: '/info' });
  const id = info?.Swarm?.NodeID;
  if (id === undefined || id === '') throw new Error('the engine is in no swarm');
  return id;
}

/**
 * Starts `nodes` private engines, makes the first a swarm's manager and the others workers, and labels node
 * i `gcm.region=<regions[i]>` (default `eu`, `us`; a node past the list takes its last region).
 */
export async function startSwarm(
  options: {
    nodes?: number;
    regions?: string[];
    /** More labels for every node. */
    labels?: Record<string, string>;
    /**
     * The dispatcher's heartbeat period (Swarm's default 5 s). A node is marked down 3 periods after its
     * last heartbeat: 10–18 s after its engine died with the default (load average up to 15), ~4 s with 1 s.
     */
    heartbeatMs?: number;
  } = {},
): Promise<TestSwarm> {
  const count = options.nodes ?? 1;
  const regions = options.regions ?? ['eu', 'us'];
  if (!Number.isInteger(count) || count < 1) throw new Error(`a swarm of ${count} nodes`);
  const hosts = await loopbackAddresses(count);
  const started: PrivateDockerd[] = [];
  const killed = new Set<number>();
  const nodes: SwarmNode[] = [];
  const stop = async () => {
    for (let index = started.length - 1; index >= 0; index--) {
      const dockerd = started[index] as PrivateDockerd;
      // A killed engine's containers still run: an engine started on its dir stops them, then goes itself.
      if (killed.has(index)) {
        killed.delete(index);
        const again = await startDockerd(90_000, { dir: dockerd.dir }).catch(() => undefined);
        await again?.stop();
      }
      await dockerd.stop();
    }
  };
  try {
    for (let index = 0; index < count; index++) started.push(await startDockerd());
    const manager = (started[0] as PrivateDockerd).engine;
    const managerAddress = `${hosts[0]}:2377`;
    await manager.json({
      method: 'POST',
      path: '/swarm/init',
      body: { ListenAddr: managerAddress, AdvertiseAddr: managerAddress },
    });
    if (options.heartbeatMs !== undefined) {
      const swarm = await manager.json<{ Version: { Index: number }; Spec: { Dispatcher?: object } }>({
        method: 'GET',
        path: '/swarm',
      });
      if (swarm === undefined) throw new Error('the manager answered no swarm');
      await manager.json({
        method: 'POST',
        path: '/swarm/update',
        query: { version: swarm.Version.Index },
        body: {
          ...swarm.Spec,
          Dispatcher: { ...swarm.Spec.Dispatcher, HeartbeatPeriod: options.heartbeatMs * 1_000_000 },
        },
      });
    }
    nodes.push({
      id: await localNodeId(manager),
      dockerd: started[0] as PrivateDockerd,
      region: regions[0] ?? 'eu',
      address: managerAddress,
    });
    const swarm =
      count > 1
        ? await manager.json<{ JoinTokens: { Worker: string } }>({ method: 'GET', path: '/swarm' })
        : undefined;
    for (let index = 1; index < count; index++) {
      const worker = started[index] as PrivateDockerd;
      const address = `${hosts[index]}:2377`;
      await worker.engine.json({
        method: 'POST',
        path: '/swarm/join',
        body: {
          ListenAddr: address,
          AdvertiseAddr: address,
          RemoteAddrs: [managerAddress],
          JoinToken: swarm?.JoinTokens.Worker,
        },
      });
      nodes.push({
        id: await localNodeId(worker.engine),
        dockerd: worker,
        region: regions[index] ?? regions.at(-1) ?? 'us',
        address,
      });
    }
    for (const node of nodes) {
      await until(
        `swarm node ${node.address} to be ready`,
        HANG_MS,
        async () => {
          return (await nodeInfo(manager, node.id)).Status.State === 'ready';
        },
        50,
      );
      await updateNode(manager, node.id, (spec) => ({
        ...spec,
        Labels: { ...spec.Labels, ...options.labels, 'gcm.region': node.region },
      }));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const manager = (started[0] as PrivateDockerd).engine;
  const availability = (value: string) => (nodeId: string) =>
    updateNode(manager, nodeId, (spec) => ({ ...spec, Availability: value }));
  return {
    managerHost: (started[0] as PrivateDockerd).dockerHost,
    manager,
    nodes,
    drain: availability('drain'),
    activate: availability('active'),
    async kill(nodeIndex) {
      if (nodeIndex === 0) throw new Error('kill the worker (node 1): the manager is the swarm');
      const node = nodes[nodeIndex];
      if (node === undefined) throw new Error(`the swarm has no node ${nodeIndex}`);
      node.dockerd.engine.close();
      process.kill(node.dockerd.pid, 'SIGKILL');
      killed.add(nodeIndex);
      await until(
        `the killed dockerd ${node.dockerd.pid} to exit`,
        HANG_MS,
        () => {
          try {
            process.kill(node.dockerd.pid, 0);
            return false;
          } catch {
            return true;
          }
        },
        20,
      );
    },
    async revive(nodeIndex) {
      const node = nodes[nodeIndex];
      if (node === undefined || !killed.has(nodeIndex)) throw new Error(`node ${nodeIndex} was not killed`);
      node.dockerd = await startDockerd(90_000, { dir: node.dockerd.dir });
      started[nodeIndex] = node.dockerd;
      killed.delete(nodeIndex);
    },
    stop,
  };
}
