import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { readBody } from '../../src/runtime/docker/engine.js';
import { ImageLoadError, LOBBY_LABELS, type LobbySpec, type RuntimeEvent } from '../../src/runtime/driver.js';
import { SwarmDriver } from '../../src/runtime/swarm/swarm-driver.js';
import { withRepoTags } from '../helpers/image-archives.js';
import { registrySkipReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { startSwarm, type TestSwarm } from '../helpers/swarm.js';
import { swarmSkipReason } from '../helpers/swarm-world.js';
import { buildTestImage, imageArchive, type TestImage } from '../helpers/test-image.js';
import { HANG_MS, until } from '../helpers/until.js';
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
      engine: swarm.manager,
      close: async () => {},
    };
  },
  { skip },
);

describe('swarm driver: what it pushes is the image read in the archive', { skip, timeout: 600_000 }, () => {
  test('an archive naming another build’s gcm-archive tag is refused, and that build pushes its own image', async () => {
    swarm ??= await startSwarm({ nodes: 1, regions: ['eu'] });
    registry ??= await startRegistry();
    const manager = swarm.manager;
    const driver = new SwarmDriver({
      managerHost: swarm.managerHost,
      regions: ['eu'],
      capacityPerNode: 10,
      registry: { address: registry.address },
      pollMs: 200,
    });
    try {
      const victim = await buildTestImage(manager, { name: `gcm-test-server:${randomUUID()}` });
      const attacker = await buildTestImage(manager, { name: `gcm-test-server:${randomUUID()}` });
      // The attacker's build is loaded first, naming the tag the victim's build is found by on the manager.
      const forged = await withRepoTags(attacker.archive, [`gcm-archive:${victim.sha256}`]);
      const forgedLoad = await driver
        .ensureImage('eu', imageArchive(forged, { buildId: 'build-forged' }))
        .then(
          () => undefined,
          (err: Error) => err,
        );
      const { image } = await driver.ensureImage(
        'eu',
        imageArchive(victim.archive, { buildId: 'build-victim' }),
      );
      const pushed = await manager.json<{ RepoDigests?: string[] }>({
        method: 'GET',
        path: `/images/${victim.id}/json`,
      });
      assert.ok(
        pushed?.RepoDigests?.includes(image),
        `${image} is not the victim's: ${JSON.stringify(pushed)}`,
      );
      assert.ok(
        forgedLoad instanceof ImageLoadError &&
          /build-forged.*a name only the service gives/.test(forgedLoad.message),
        `the forged archive was not refused: ${forgedLoad?.message}`,
      );
    } finally {
      await driver.close();
    }
  });
});

const authSkip = skip || registrySkipReason('swarm-driver.test.ts', { auth: true });

describe('swarm driver: builds through a registry that asks for credentials', {
  skip: authSkip,
  timeout: 600_000,
}, () => {
  const credentials = { username: 'gcm-pusher', password: 'registry-secret-6f1e9a' };
  let locked: TestRegistry;
  let lockedSwarm: TestSwarm;
  let image: TestImage;

  before(async () => {
    lockedSwarm = await startSwarm({ nodes: 1, regions: ['eu'] });
    locked = await startRegistry({ auth: credentials });
    image = await buildTestImage(lockedSwarm.manager);
  });
  after(async () => {
    await locked?.stop();
    await lockedSwarm?.stop();
  });

  const driverWith = (auth: { username: string; password: string }) =>
    new SwarmDriver({
      managerHost: lockedSwarm.managerHost,
      regions: ['eu'],
      capacityPerNode: 10,
      registry: { address: locked.address, ...auth },
      pollMs: 200,
    });

  test('a wrong password fails the build with the registry named, and the password nowhere', async () => {
    const driver = driverWith({ ...credentials, password: 'not-the-password' });
    try {
      await assert.rejects(
        driver.ensureImage('eu', imageArchive(image.archive, { buildId: 'build-denied' })),
        (err: Error) => {
          assert.match(
            err.message,
            new RegExp(`build-denied: pushing it to the registry ${locked.address} failed`),
          );
          assert.ok(!err.message.includes('not-the-password'), err.message);
          return !(err instanceof ImageLoadError);
        },
      );
    } finally {
      await driver.close();
    }
  });

  test('the right credentials push it, and a lobby of it runs from the registry by digest', async () => {
    const driver = driverWith(credentials);
    try {
      const { image: ref } = await driver.ensureImage('eu', imageArchive(image.archive));
      assert.match(ref, new RegExp(`^${locked.address}/gcm-builds@sha256:[0-9a-f]{64}$`));
      // The registry has it under the archive's digest, which another instance (or a restart) finds: it reads
      // the archive again to know which image it is (a registry tag alone is not trusted), but neither loads nor
      // pushes it again.
      const since = Date.now();
      let reads = 0;
      const again = driverWith(credentials);
      try {
        assert.deepEqual(
          await again.ensureImage('eu', {
            ...imageArchive(image.archive),
            open: () => {
              reads++;
              return imageArchive(image.archive).open();
            },
          }),
          { image: ref },
        );
        assert.equal(reads, 1);
        const events = await lockedSwarm.manager.open({
          method: 'GET',
          path: '/events',
          query: {
            since: (since / 1000).toFixed(3),
            until: (Date.now() / 1000 + 1).toFixed(3),
            filters: JSON.stringify({ type: ['image'], event: ['load', 'push'] }),
          },
        });
        assert.equal((await readBody(events, 1024 * 1024)).trim(), '');
      } finally {
        await again.close();
      }
    } finally {
      await driver.close();
    }
  });
});

describe('swarm driver: two nodes, two regions', { skip, timeout: 600_000 }, () => {
  let pair: TestSwarm;
  let open: TestRegistry;
  let driver: SwarmDriver;
  let image: string;
  const owner = `two-nodes-${randomUUID()}`;

  before(async () => {
    // A 1 s heartbeat: the manager marks a dead node down in ~4 s, not ~15.
    pair = await startSwarm({ nodes: 2, regions: ['eu', 'us'], heartbeatMs: 1000 });
    open = await startRegistry();
    const archive = await buildTestImage(pair.manager);
    driver = new SwarmDriver({
      managerHost: pair.managerHost,
      regions: ['eu', 'us'],
      capacityPerNode: 10,
      registry: { address: open.address },
      pollMs: 200,
    });
    ({ image } = await driver.ensureImage('eu', imageArchive(archive.archive)));
  });
  after(async () => {
    await driver?.close();
    await open?.stop();
    await pair?.stop();
  });

  const lobby = (region: string): LobbySpec => {
    const lobbyId = randomUUID();
    return {
      lobbyId,
      region,
      image,
      args: [],
      env: { TEST_NO_READY: '1' },
      networkMode: 'host',
      ports: [],
      limits: { nanoCpus: 100_000_000, memoryBytes: 64 * 1024 * 1024, pids: 64 },
      readOnlyRootFs: true,
      stopGraceSeconds: 1,
      labels: { [LOBBY_LABELS.owner]: owner, [LOBBY_LABELS.lobby]: lobbyId, [LOBBY_LABELS.region]: region },
    };
  };

  test('places each lobby on its region’s node, and says a killed node’s lobbies are lost', async () => {
    const events: RuntimeEvent[] = [];
    const subscription = driver.events({ [LOBBY_LABELS.owner]: owner }, (e) => events.push(e));
    try {
      const inEu = await driver.start(lobby('eu'));
      const inUs = await driver.start(lobby('us'));
      await until('both running', HANG_MS, async () => {
        const listed = await driver.list({ [LOBBY_LABELS.owner]: owner });
        return listed.length === 2 && listed.every((l) => l.address !== undefined);
      });
      // Each on its region's node: the nodes say how many of ours each runs.
      const nodes = await driver.nodes({ [LOBBY_LABELS.owner]: owner });
      assert.deepEqual(nodes.map((n) => [n.regions.join(), n.state, n.lobbies]).sort(), [
        ['eu', 'ready', 1],
        ['us', 'ready', 1],
      ]);
      assert.deepEqual(
        driver.hosts().map((h) => [h.regions.join(), h.capacity]),
        [
          ['eu', 10],
          ['us', 10],
        ],
      );

      await pair.kill(1);
      await until('the us lobby lost with its node', HANG_MS, async () =>
        events.some((e) => e.type === 'gone' && e.handle === inUs.handle && e.reason === 'node-lost'),
      );
      const after = new Map((await driver.list({ [LOBBY_LABELS.owner]: owner })).map((l) => [l.handle, l]));
      assert.deepEqual(
        { state: after.get(inUs.handle)?.state, reason: after.get(inUs.handle)?.reason },
        { state: 'exited', reason: 'node-lost' },
      );
      assert.equal(after.get(inEu.handle)?.state, 'running', 'the other region runs on');
      // No ready node serves us: its capacity is none.
      assert.deepEqual(
        driver.hosts().map((h) => [h.regions.join(), h.capacity]),
        [
          ['eu', 10],
          ['us', 0],
        ],
      );
      // Removing a lost lobby does not wait for a node that does not answer.
      await driver.stop('us', inUs.handle, 1);
      await driver.stop('eu', inEu.handle, 1);
      assert.deepEqual(await driver.list({ [LOBBY_LABELS.owner]: owner }), []);
    } finally {
      subscription.close();
    }
  });
});
