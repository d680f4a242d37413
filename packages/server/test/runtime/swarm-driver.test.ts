import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type DockerEngine, readBody } from '../../src/runtime/docker/engine.js';
import { ImageLoadError, LOBBY_LABELS, type LobbySpec, type RuntimeEvent } from '../../src/runtime/driver.js';
import { ENGINE_NODE_LABEL, SwarmDriver } from '../../src/runtime/swarm/swarm-driver.js';
import { withRepoTags } from '../helpers/image-archives.js';
import { pushImage, registrySkipReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { type SwarmNode, startSwarm, type TestSwarm } from '../helpers/swarm.js';
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

  test('the collector deletes a build’s manifest with the push’s credentials', async () => {
    const driver = driverWith(credentials);
    try {
      const { image: ref } = await driver.ensureImage('eu', imageArchive(image.archive));
      const manifest = (reference: string) =>
        fetch(`http://${locked.address}/v2/gcm-builds/manifests/${reference}`, {
          method: 'HEAD',
          headers: {
            accept: 'application/vnd.docker.distribution.manifest.v2+json',
            authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`,
          },
        }).then((res) => res.status);
      assert.equal(await manifest(image.sha256), 200);
      const done = await driver.collectImages(new Set(), { graceMs: 0 });
      const entry = done.find((h) => h.registry === true);
      assert.deepEqual(
        { problem: entry?.problem, removed: entry?.removed },
        { problem: undefined, removed: 1 },
        JSON.stringify(done),
      );
      assert.equal(await manifest(ref.slice(ref.indexOf('@') + 1)), 404);
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
  let archive: TestImage;
  const owner = `two-nodes-${randomUUID()}`;
  const driverOf = (registry: TestRegistry, driverOwner?: string) =>
    new SwarmDriver({
      managerHost: pair.managerHost,
      regions: ['eu', 'us'],
      capacityPerNode: 10,
      registry: { address: registry.address },
      pollMs: 200,
      ...(driverOwner === undefined ? {} : { owner: driverOwner }),
    });

  before(async () => {
    // A 1 s heartbeat: the manager marks a dead node down in ~4 s, not ~15.
    pair = await startSwarm({ nodes: 2, regions: ['eu', 'us'], heartbeatMs: 1000 });
    open = await startRegistry();
    archive = await buildTestImage(pair.manager);
    driver = driverOf(open);
    ({ image } = await driver.ensureImage('eu', imageArchive(archive.archive)));
  });
  after(async () => {
    await driver?.close();
    await open?.stop();
    await pair?.stop();
  });

  const lobby = (region: string, ref = image): LobbySpec => {
    const lobbyId = randomUUID();
    return {
      lobbyId,
      region,
      image: ref,
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

  /** The worker's engine (node 1, region us), as its gcm.engine label names it to the driver. */
  const worker = () => (pair.nodes[1] as SwarmNode).dockerd;
  const labelWorkerEngine = async () => {
    const node = await pair.manager.json<{ Version: { Index: number }; Spec: { Labels?: object } }>({
      method: 'GET',
      path: `/nodes/${(pair.nodes[1] as SwarmNode).id}`,
    });
    assert.ok(node !== undefined);
    await pair.manager.json({
      method: 'POST',
      path: `/nodes/${(pair.nodes[1] as SwarmNode).id}/update`,
      query: { version: node.Version.Index },
      body: { ...node.Spec, Labels: { ...node.Spec.Labels, [ENGINE_NODE_LABEL]: worker().dockerHost } },
    });
  };
  /** Runs a lobby of `ref` on the worker until it ran, and, unless `leave`, stops it and waits for its container to go. */
  const runOnWorker = async (ref: string, leave = false) => {
    const spec = lobby('us', ref);
    const ofLobby = { label: [`${LOBBY_LABELS.lobby}=${spec.lobbyId}`] };
    const containers = async (filters: object) =>
      (await worker().engine.json<unknown[]>({
        method: 'GET',
        path: '/containers/json',
        query: { all: true, filters: JSON.stringify(filters) },
      })) ?? [];
    const { handle } = await driver.start(spec);
    await until('the lobby running on the worker', HANG_MS, async () => {
      return (await containers({ ...ofLobby, status: ['running'] })).length === 1;
    });
    if (leave) return handle;
    await driver.stop('us', handle, 1);
    await until('its container gone from the worker', HANG_MS, async () => {
      return (await containers(ofLobby)).length === 0;
    });
    return handle;
  };
  /** Whether the engine holds an image by that reference (`repo@digest` or `repo:tag`). */
  const holds = async (engine: DockerEngine, ref: string) =>
    (await engine.json({ method: 'GET', path: `/images/${ref}/json` }, [404])) !== undefined;
  /** Whether the registry answers the manifest (a digest or a tag of `repository` there). */
  const inRegistry = async (registry: TestRegistry, repository: string, reference: string) => {
    const res = await fetch(`http://${registry.address}/v2/${repository}/manifests/${reference}`, {
      method: 'HEAD',
      headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json' },
    });
    return res.status === 200;
  };
  const digestOf = (ref: string) => ref.slice(ref.indexOf('@') + 1);

  test('the collector removes a build no version needs from the node that pulled it and from the registry', async () => {
    await labelWorkerEngine();
    const kept = new Set([archive.sha256]);
    const old = await buildTestImage(pair.manager, {
      name: `gcm-test-server:${randomUUID()}`,
      variant: 'old',
    });
    const busy = await buildTestImage(pair.manager, {
      name: `gcm-test-server:${randomUUID()}`,
      variant: 'busy',
    });
    const { image: oldRef } = await driver.ensureImage(
      'us',
      imageArchive(old.archive, { buildId: 'build-old' }),
    );
    const { image: busyRef } = await driver.ensureImage('us', imageArchive(busy.archive));
    // The kept build's image in an archive of its own (another name in it): a build not kept that shares the
    // kept one's manifest.
    const twin = await withRepoTags(archive.archive, [`gcm-test-twin:${randomUUID()}`]);
    const { image: twinRef } = await driver.ensureImage('us', imageArchive(twin));
    assert.equal(twinRef, image, 'the same image pushed twice is one manifest');
    // Another repository, in the registry and on the worker: the operator's, never the collector's.
    const other = await buildTestImage(worker().engine, {
      name: `gcm-test-other:${randomUUID()}`,
      keep: true,
    });
    const otherRef = await pushImage(worker().engine, other.name, open, { repository: 'gcm-test' });
    await runOnWorker(oldRef);
    await runOnWorker(image);
    const running = await runOnWorker(busyRef, true);
    try {
      for (const ref of [oldRef, image, busyRef]) {
        assert.ok(
          await holds(worker().engine, ref),
          `${ref} pulled: ${JSON.stringify(await worker().engine.json({ method: 'GET', path: '/images/json' }))}`,
        );
      }

      const done = await driver.collectImages(kept, { graceMs: 0 });
      const byHost = new Map(done.map((h) => [h.hostId, h]));
      assert.deepEqual(
        done.filter((h) => h.problem !== undefined || h.note !== undefined),
        [],
        JSON.stringify(done),
      );
      assert.equal(byHost.get(worker().dockerHost)?.removed, 1, JSON.stringify(done));
      assert.equal(byHost.get(worker().dockerHost)?.kept, 1, 'the running lobby’s image stays');
      assert.equal(byHost.get(`${open.address}/gcm-builds`)?.removed, 2, JSON.stringify(done));

      assert.equal(await holds(worker().engine, oldRef), false, 'the old build is gone from the worker');
      assert.ok(await holds(worker().engine, image), 'the kept build stays on the worker');
      assert.ok(await holds(worker().engine, busyRef), 'the image a container uses stays');
      assert.ok(await holds(worker().engine, other.name), 'another repository’s image stays');
      assert.ok(await holds(worker().engine, otherRef), 'another repository’s image stays');
      assert.equal(await inRegistry(open, 'gcm-builds', digestOf(oldRef)), false, 'the old manifest is gone');
      assert.equal(await inRegistry(open, 'gcm-builds', old.sha256), false);
      assert.ok(await inRegistry(open, 'gcm-builds', digestOf(image)), 'the kept manifest stays');
      assert.ok(await inRegistry(open, 'gcm-builds', archive.sha256));
      assert.ok(await inRegistry(open, 'gcm-test', digestOf(otherRef)), 'another repository stays');

      // Once its lobby is gone, the next collection takes it from the worker too.
      await driver.stop('us', running, 1);
      await until('the busy build collected from the worker', HANG_MS, async () => {
        await driver.collectImages(kept, { graceMs: 0 });
        return !(await holds(worker().engine, busyRef));
      });
      assert.ok(await holds(worker().engine, image), 'the kept build stays on the worker');
    } finally {
      await driver.stop('us', running, 1).catch(() => undefined);
    }
  });

  test('a registry that refuses deletes leaves its manifests, and the nodes’ copies still go', async () => {
    const closed = await startRegistry({ deletes: false });
    const closedDriver = driverOf(closed, `closed-${randomUUID()}`);
    try {
      const build = await buildTestImage(pair.manager, {
        name: `gcm-test-server:${randomUUID()}`,
        variant: 'closed',
      });
      const { image: ref } = await closedDriver.ensureImage('us', imageArchive(build.archive));
      await runOnWorker(ref);
      assert.ok(await holds(worker().engine, ref));

      const done = await closedDriver.collectImages(new Set(), { graceMs: 0 });
      assert.deepEqual(
        done.filter((h) => h.problem !== undefined),
        [],
        JSON.stringify(done),
      );
      const registryEntry = done.find((h) => h.hostId === `${closed.address}/gcm-builds`);
      assert.match(registryEntry?.note ?? '', /refuses deletes \(405/);
      assert.equal(registryEntry?.kept, 1);
      assert.equal(await holds(worker().engine, ref), false, 'the worker’s copy is gone');
      assert.ok(await inRegistry(closed, 'gcm-builds', digestOf(ref)), 'the manifest stays');
      // The other driver's kept build, in the other registry, is not this one's to collect.
      assert.ok(await holds(worker().engine, image));
    } finally {
      await closedDriver.close();
      await closed.stop();
    }
  });

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

  test('a node that does not answer is that host’s problem, not the collection’s', async () => {
    // Node 1 was killed by the test before.
    const done = await driver.collectImages(new Set([archive.sha256]), { graceMs: 0 });
    const byHost = new Map(done.map((h) => [h.hostId, h]));
    assert.ok(byHost.get(worker().dockerHost)?.problem, JSON.stringify(done));
    assert.equal(byHost.get(pair.managerHost)?.problem, undefined, JSON.stringify(done));
    assert.equal(byHost.get(`${open.address}/gcm-builds`)?.problem, undefined, JSON.stringify(done));
    assert.ok(await inRegistry(open, 'gcm-builds', archive.sha256), 'the kept manifest stays');
  });
});
