import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { ownerOf } from '../../src/modules/runtime/runtime.service.js';
import { LOBBY_LABELS } from '../../src/runtime/driver.js';
import { SwarmDriver } from '../../src/runtime/swarm/swarm-driver.js';
import { dockerSkipReason, type PrivateDockerd, startDockerd } from './dockerd.js';
import { freePort, startListening } from './listening.js';
import type { TestService } from './service.js';
import { buildTestImage, type TestImage } from './test-image.js';
import { HANG_MS, until } from './until.js';

export const REGISTRY_BIN = '/usr/bin/docker-registry';

/** Why the swarm tests of `file` cannot run here, or false. */
export function swarmSkipReason(file: string, options: { sqliteOnly?: boolean } = {}): string | false {
  const docker = dockerSkipReason(file, options);
  if (docker !== false) return docker;
  if (existsSync(REGISTRY_BIN)) return false;
  const why = `${REGISTRY_BIN} not found: install Debian's docker-registry (apt-get install docker-registry)`;
  console.log(`# ${file} skipped: ${why}`);
  return why;
}

export interface PrivateRegistry {
  /** host:port, as an image name starts. */
  address: string;
  stop(): Promise<void>;
}

/** Debian's CNCF Distribution registry on 127.0.0.1, with its own config and storage; stopped by pid. */
export async function startRegistry(): Promise<PrivateRegistry> {
  const dir = mkdtempSync('/tmp/gcmr-');
  const port = await freePort();
  const config = path.join(dir, 'config.yml');
  writeFileSync(
    config,
    `version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/data\nhttp:\n  addr: 127.0.0.1:${port}\n`,
  );
  const child: ChildProcess = spawn(REGISTRY_BIN, ['serve', config], { stdio: 'ignore' });
  const address = `127.0.0.1:${port}`;
  await until('the registry to answer', HANG_MS, async () => {
    const res = await fetch(`http://${address}/v2/`).catch(() => undefined);
    return res?.status === 200;
  });
  return {
    address,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface SwarmNodeJson {
  ID: string;
  Version: { Index: number };
  Spec: { Labels?: Record<string, string>; Availability?: string } & Record<string, unknown>;
}

/** A private engine made a one-node swarm (its listen port free), and its node. */
export async function startOneNodeSwarm(): Promise<{ dockerd: PrivateDockerd; nodeId: string }> {
  const dockerd = await startDockerd();
  const listen = await freePort();
  await dockerd.engine.json({
    method: 'POST',
    path: '/swarm/init',
    body: { ListenAddr: `127.0.0.1:${listen}`, AdvertiseAddr: `127.0.0.1:${listen}` },
  });
  const [node] = (await dockerd.engine.json<SwarmNodeJson[]>({ method: 'GET', path: '/nodes' })) ?? [];
  if (node === undefined) throw new Error('the swarm has no node');
  return { dockerd, nodeId: node.ID };
}

/** Changes a node's spec (labels, availability) as `docker node update` does. */
export async function updateNode(
  dockerd: PrivateDockerd,
  nodeId: string,
  change: (spec: SwarmNodeJson['Spec']) => void,
): Promise<void> {
  const node = await dockerd.engine.json<SwarmNodeJson>({ method: 'GET', path: `/nodes/${nodeId}` });
  if (node === undefined) throw new Error(`no node ${nodeId}`);
  change(node.Spec);
  await dockerd.engine.json({
    method: 'POST',
    path: `/nodes/${nodeId}/update`,
    query: { version: node.Version.Index },
    body: node.Spec,
  });
}

export interface SwarmEngine {
  dockerd: PrivateDockerd;
  nodeId: string;
  registry: PrivateRegistry;
  image: TestImage;
  /** A driver of the swarm of its own, to look at what runs. */
  driver: SwarmDriver;
  lobbiesOn(svc: TestService): ReturnType<SwarmDriver['list']>;
}

/**
 * A one-node swarm serving region `eu` (node labels gcm.region=eu and gcm.public_host=127.0.0.1), a private
 * registry and the test image, for the describe block it is called in (before/after hooks).
 */
export function useSwarmEngine(): SwarmEngine {
  const engine = {} as SwarmEngine;
  before(async () => {
    const swarm = await startOneNodeSwarm();
    engine.dockerd = swarm.dockerd;
    engine.nodeId = swarm.nodeId;
    await updateNode(engine.dockerd, engine.nodeId, (spec) => {
      spec.Labels = { 'gcm.region': 'eu', 'gcm.public_host': '127.0.0.1' };
    });
    engine.registry = await startRegistry();
    engine.image = await buildTestImage(engine.dockerd.engine);
    engine.driver = new SwarmDriver({
      managerHost: engine.dockerd.dockerHost,
      regions: ['eu', 'us'],
      capacityPerNode: 10_000,
      registry: { address: engine.registry.address },
    });
    engine.lobbiesOn = (svc) => engine.driver.list({ [LOBBY_LABELS.owner]: ownerOf(svc.deps.config) });
  });
  after(async () => {
    await engine.driver?.close();
    await engine.registry?.stop();
    await engine.dockerd?.stop();
  });
  return engine;
}

/** A service running its lobbies on the swarm (as startRuntimeService does on one engine). */
export async function startSwarmService(options: {
  engine: SwarmEngine;
  portRange: string;
  env?: Record<string, string>;
  dataDir?: string;
  port?: number;
  logLevel?: 'debug' | 'info';
}) {
  return startListening({
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.port === undefined ? {} : { port: options.port }),
    env: {
      GCM_RUNTIME: 'swarm',
      GCM_SWARM_MANAGER: options.engine.dockerd.dockerHost,
      GCM_REGISTRY: options.engine.registry.address,
      GCM_REGIONS: 'eu,us',
      GCM_RUNTIME_PORT_RANGE: options.portRange,
      GCM_RUNTIME_RECONCILE_INTERVAL: '1',
      GCM_LOBBY_STOP_GRACE: '1',
      GCM_WEBHOOK_ALLOW_HTTP: 'true',
      GCM_WEBHOOK_ALLOW_INTERNAL: 'true',
      GCM_WEBHOOK_POLL_MS: '100',
      ...options.env,
    },
  });
}
