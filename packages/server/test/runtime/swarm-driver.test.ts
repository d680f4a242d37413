import { after } from 'node:test';
import { SwarmDriver } from '../../src/runtime/swarm/swarm-driver.js';
import type { PrivateDockerd } from '../helpers/dockerd.js';
import {
  type PrivateRegistry,
  startOneNodeSwarm,
  startRegistry,
  swarmSkipReason,
  updateNode,
} from '../helpers/swarm-world.js';
import { buildTestImage, type TestImage } from '../helpers/test-image.js';
import { runDriverContract } from './driver-contract.js';

const skip = swarmSkipReason('swarm-driver.test.ts', { sqliteOnly: true });

let dockerd: PrivateDockerd | undefined;
let registry: PrivateRegistry | undefined;
let testImage: TestImage | undefined;
after(async () => {
  await registry?.stop();
  await dockerd?.stop();
});

/** A one-node swarm on a private engine, the node serving region `eu`, and a private registry. */
async function swarm(): Promise<{ dockerd: PrivateDockerd; registry: PrivateRegistry; image: TestImage }> {
  if (dockerd === undefined) {
    const started = await startOneNodeSwarm();
    dockerd = started.dockerd;
    await updateNode(dockerd, started.nodeId, (spec) => {
      spec.Labels = { 'gcm.region': 'eu' };
    });
    testImage = await buildTestImage(dockerd.engine);
  }
  registry ??= await startRegistry();
  return { dockerd, registry, image: testImage as TestImage };
}

runDriverContract(
  'swarm',
  async () => {
    const { dockerd, registry, image } = await swarm();
    const driver = new SwarmDriver({
      managerHost: dockerd.dockerHost,
      regions: ['eu', 'us'],
      capacityPerNode: 10,
      registry: { address: registry.address },
      pollMs: 200,
    });
    return {
      driver,
      region: 'eu',
      image: image.archive,
      imagePattern: new RegExp(`^${registry.address}/gcm-builds@sha256:[0-9a-f]{64}$`),
      close: async () => {},
    };
  },
  { skip },
);
