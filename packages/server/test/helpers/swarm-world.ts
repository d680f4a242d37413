import { after, before } from 'node:test';
import { ownerOf } from '../../src/modules/runtime/runtime.service.js';
import { LOBBY_LABELS } from '../../src/runtime/driver.js';
import { SwarmDriver } from '../../src/runtime/swarm/swarm-driver.js';
import { dockerSkipReason } from './dockerd.js';
import { startListening } from './listening.js';
import { registrySkipReason, startRegistry, type TestRegistry } from './registry.js';
import type { TestService } from './service.js';
import { type SwarmNode, startSwarm, type TestSwarm } from './swarm.js';
import { buildTestImage, type TestImage } from './test-image.js';

/** Why the swarm tests of `file` cannot run here, or false. */
export function swarmSkipReason(file: string, options: { sqliteOnly?: boolean } = {}): string | false {
  return dockerSkipReason(file, options) || registrySkipReason(file);
}

export interface SwarmEngine {
  swarm: TestSwarm;
  nodeId: string;
  registry: TestRegistry;
  image: TestImage;
  /** A driver of the swarm of its own, to look at what runs. */
  driver: SwarmDriver;
  lobbiesOn(svc: TestService): ReturnType<SwarmDriver['list']>;
}

/**
 * A one-node (or two-node) swarm (test/helpers/swarm.ts) serving region `eu`, its node labelled gcm.public_host=127.0.0.1, a private
 * registry and the test image, for the describe block it is called in (before/after hooks).
 */
export function useSwarmEngine(options: { nodes?: 1 | 2 } = {}): SwarmEngine {
  const engine = {} as SwarmEngine;
  before(async () => {
    engine.swarm = await startSwarm({
      nodes: options.nodes ?? 1,
      // Every node serves eu; a 1 s heartbeat has a dead node marked down in ~4 s, not ~15.
      regions: ['eu', 'eu'],
      labels: { 'gcm.public_host': '127.0.0.1' },
      heartbeatMs: 1000,
    });
    engine.nodeId = (engine.swarm.nodes[0] as SwarmNode).id;
    engine.registry = await startRegistry();
    engine.image = await buildTestImage(engine.swarm.manager);
    engine.driver = new SwarmDriver({
      managerHost: engine.swarm.managerHost,
      regions: ['eu', 'us'],
      capacityPerNode: 10_000,
      registry: { address: engine.registry.address },
    });
    engine.lobbiesOn = (svc) => engine.driver.list({ [LOBBY_LABELS.owner]: ownerOf(svc.deps.config) });
  });
  after(async () => {
    await engine.driver?.close();
    await engine.registry?.stop();
    await engine.swarm?.stop();
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
      GCM_SWARM_MANAGER: options.engine.swarm.managerHost,
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
