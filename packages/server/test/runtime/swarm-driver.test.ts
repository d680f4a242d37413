import { after } from 'node:test';
import { SwarmDriver } from '../../src/runtime/swarm/swarm-driver.js';
import { startRegistry, type TestRegistry } from '../helpers/registry.js';
import { startSwarm, type TestSwarm } from '../helpers/swarm.js';
import { swarmSkipReason } from '../helpers/swarm-world.js';
import { buildTestImage, type TestImage } from '../helpers/test-image.js';
import { runDriverContract } from './driver-contract.js';

const skip = swarmSkipReason('swarm-driver.test.ts', { sqliteOnly: true });

let swarm: TestSwarm | undefined;
let registry: TestRegistry | undefined;
let testImage: TestImage | undefined;
after(async () => {
  await registry?.stop();
  await swarm?.stop();
});

runDriverContract(
  'swarm',
  async () => {
    // A one-node swarm of a private engine, the node serving region `eu`, and a private registry.
    swarm ??= await startSwarm({ nodes: 1, regions: ['eu'] });
    registry ??= await startRegistry();
    testImage ??= await buildTestImage(swarm.manager);
    const driver = new SwarmDriver({
      managerHost: swarm.managerHost,
      regions: ['eu', 'us'],
      capacityPerNode: 10,
      registry: { address: registry.address },
      pollMs: 200,
    });
    return {
      driver,
      region: 'eu',
      image: testImage.archive,
      imagePattern: new RegExp(`^${registry.address}/gcm-builds@sha256:[0-9a-f]{64}$`),
      close: async () => {},
    };
  },
  { skip },
);
