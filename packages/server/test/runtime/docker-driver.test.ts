import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DockerDriver, dockerHostsFromRegions } from '../../src/runtime/docker/docker-driver.js';
import {
  DOCKER_API_VERSION_MAX,
  DockerEngine,
  DockerEngineError,
  dockerHostFromEnv,
  dockerTlsFromEnv,
  negotiateApiVersion,
  readBody,
} from '../../src/runtime/docker/engine.js';
import { inspectImage } from '../../src/runtime/docker/image-load.js';
import {
  ImageBudgetError,
  ImageLoadError,
  LOBBY_LABELS,
  type LobbySpec,
  type RuntimeEvent,
} from '../../src/runtime/driver.js';
import { dockerSkipReason, type PrivateDockerd, startDockerd } from '../helpers/dockerd.js';
import { makeImage, readTar, withRepoTags } from '../helpers/image-archives.js';
import { type TarEntry, tar } from '../helpers/tar.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { buildTestImage, imageArchive, type TestImage, tinyImageArchive } from '../helpers/test-image.js';
import { HANG_MS, until } from '../helpers/until.js';
import { runDriverContract } from './driver-contract.js';

const skip = dockerSkipReason('docker-driver.test.ts', { sqliteOnly: true });

/** Bytes under the engine's data root (du), as its disk sees them. */
function dataRootBytes(engine: PrivateDockerd): number {
  const out = execFileSync('du', ['-sb', path.join(engine.dir, 'data')], { encoding: 'utf8' });
  return Number(out.split(/\s/)[0]);
}

/** One `docker save` archive of both images (as `docker save A B` writes it), the second under `tag`. */
async function twoImages(first: Buffer, second: Buffer, tag: string): Promise<Buffer> {
  const a = await readTar(first);
  const b = await readTar(second);
  const manifest = (entries: TarEntry[]) => {
    const found = entries.find((e) => e.type === 'file' && e.name === 'manifest.json');
    return JSON.parse((found as { content: Buffer }).content.toString()) as { RepoTags: string[] | null }[];
  };
  const items = [...manifest(a), ...manifest(b).map((item) => ({ ...item, RepoTags: [tag] }))];
  const names = new Set(a.map((e) => ('name' in e ? e.name : '')));
  return tar([
    ...a.filter((e) => e.type !== 'file' || (e.name !== 'manifest.json' && e.name !== 'repositories')),
    ...b.filter((e) => !('name' in e && names.has(e.name))),
    { type: 'file', name: 'manifest.json', content: JSON.stringify(items) },
  ]);
}

/** One private engine for the file: the contract suite and the docker-only tests share it and its image. */
let dockerd: PrivateDockerd | undefined;
let testImage: TestImage | undefined;
async function engine(): Promise<{ dockerd: PrivateDockerd; testImage: TestImage }> {
  dockerd ??= await startDockerd();
  testImage ??= await buildTestImage(dockerd.engine);
  return { dockerd, testImage };
}
after(async () => {
  await dockerd?.stop();
});

runDriverContract(
  'docker',
  async () => {
    const { dockerd, testImage } = await engine();
    const driver = new DockerDriver({
      hosts: [{ dockerHost: dockerd.dockerHost, regions: ['eu', 'us'], capacity: 10 }],
    });
    return { driver, region: 'eu', image: testImage.archive, engine: dockerd.engine, close: async () => {} };
  },
  { skip },
);

describe('docker driver: what the engine is asked', { skip, timeout: 600_000 }, () => {
  let driver: DockerDriver;
  let env: PrivateDockerd;
  let image: string;

  before(async () => {
    const started = await engine();
    env = started.dockerd;
    driver = new DockerDriver({ hosts: [{ dockerHost: env.dockerHost, regions: ['eu'], capacity: 10 }] });
    ({ image } = await driver.ensureImage('eu', imageArchive(started.testImage.archive)));
  });
  after(async () => {
    await driver?.close();
  });

  async function imageLoads(since: number): Promise<number> {
    const response = await env.engine.open({
      method: 'GET',
      path: '/events',
      query: {
        since: (since / 1000).toFixed(3),
        until: (Date.now() / 1000 + 1).toFixed(3),
        filters: JSON.stringify({ type: ['image'], event: ['load'] }),
      },
    });
    return (await readBody(response, 1024 * 1024)).split('\n').filter((l) => l.trim() !== '').length;
  }

  test('an archive is loaded once per engine, even by a new driver after a restart', async () => {
    const { testImage } = await engine();
    // Its own copy of the image under another digest: a build uploaded anew.
    const other = await buildTestImage(env.engine, { name: `gcm-test-server:${randomUUID()}` });
    const since = Date.now() - 1000;
    const first = await driver.ensureImage('eu', imageArchive(other.archive));
    const again = await Promise.all([
      driver.ensureImage('eu', imageArchive(other.archive)),
      driver.ensureImage('eu', imageArchive(other.archive)),
    ]);
    assert.equal(first.image, other.id);
    assert.deepEqual(
      again.map((a) => a.image),
      [other.id, other.id],
    );
    // A restarted service finds it by its archive's digest: it reads the archive again to know which image it
    // is (a name alone is not trusted), but does not load it again.
    const restarted = new DockerDriver({
      hosts: [{ dockerHost: env.dockerHost, regions: ['eu'], capacity: 1 }],
    });
    let opened = 0;
    const archive = imageArchive(other.archive);
    assert.equal(
      (
        await restarted.ensureImage('eu', {
          ...archive,
          open: () => {
            opened++;
            return archive.open();
          },
        })
      ).image,
      other.id,
    );
    await restarted.close();
    assert.equal(opened, 1);
    assert.equal(await imageLoads(since), 1);
    assert.notEqual(testImage.sha256, other.sha256);
  });

  test('an archive naming another build’s gcm-archive tag is refused, and moves nothing', async () => {
    const victim = await buildTestImage(env.engine, { name: `gcm-test-server:${randomUUID()}` });
    const attacker = await buildTestImage(env.engine, { name: `gcm-test-server:${randomUUID()}` });
    const victimTag = `gcm-archive:${victim.sha256}`;
    assert.equal((await driver.ensureImage('eu', imageArchive(victim.archive))).image, victim.id);
    const forged = await withRepoTags(attacker.archive, [victimTag]);
    const refusal = (buildId: string) => (err: Error) =>
      err instanceof ImageLoadError &&
      new RegExp(`${buildId}.*a name only the service gives`).test(err.message);
    const forgedLoad = await driver.ensureImage('eu', imageArchive(forged, { buildId: 'build-forged' })).then(
      () => undefined,
      (err: Error) => err,
    );
    // A restarted service, which looks for a build by that tag first, runs the victim's own image.
    const restarted = new DockerDriver({
      hosts: [{ dockerHost: env.dockerHost, regions: ['eu'], capacity: 1 }],
    });
    try {
      assert.equal((await restarted.ensureImage('eu', imageArchive(victim.archive))).image, victim.id);
    } finally {
      await restarted.close();
    }
    assert.ok(forgedLoad !== undefined && refusal('build-forged')(forgedLoad), String(forgedLoad));
    // Two images in one archive, one of them under the victim's tag: refused, and the tag is where it was.
    const pair = await twoImages(
      attacker.archive,
      await withRepoTags(victim.archive, [victimTag]),
      victimTag,
    );
    await assert.rejects(
      driver.ensureImage('eu', imageArchive(pair, { buildId: 'build-pair' })),
      (err: Error) => err instanceof ImageLoadError && /build-pair/.test(err.message),
    );
    assert.equal(await inspectImage(env.engine, victimTag), victim.id);
  });

  test('a decoy manifest.json behind a PAX name is not what the build is taken for', async () => {
    // Another game's image is on the engine; the attacker knows its id, not its bytes.
    const victim = await buildTestImage(env.engine, { name: `gcm-test-server:${randomUUID()}` });
    assert.equal((await driver.ensureImage('eu', imageArchive(victim.archive))).image, victim.id);
    const attacker = await buildTestImage(env.engine, { name: `gcm-test-server:${randomUUID()}` });
    const entries = await readTar(attacker.archive);
    const real = entries.find((e) => e.type === 'file' && e.name === 'manifest.json') as TarEntry;
    const decoy = JSON.stringify([
      { Config: `${victim.id.slice('sha256:'.length)}.json`, RepoTags: null, Layers: [] },
    ]);
    const archive = tar([
      ...entries.filter((e) => e !== real),
      // What the engine reads as manifest.json, under another name in the ustar header.
      { type: 'pax', records: { path: 'manifest.json' } },
      { ...real, name: 'not-the-manifest.json' } as TarEntry,
      // What a reader that skips PAX records reads as manifest.json; the engine reads it as decoy.json.
      { type: 'pax', records: { path: 'decoy.json' } },
      { type: 'file', name: 'manifest.json', content: decoy },
    ]);
    const { image } = await driver.ensureImage('eu', imageArchive(archive, { buildId: 'build-decoy' }));
    assert.notEqual(image, victim.id);
    assert.equal(image, attacker.id);
  });

  test('a gzip layer bomb is refused before the engine’s data root grows', async (t) => {
    const bombLayer = tar([{ type: 'file', name: 'zeros', content: Buffer.alloc(64 * 1024 * 1024) }]);
    const bomb = makeImage({ layers: [bombLayer], gzip: true, repoTags: null, label: 'bomb' });
    const archive = tar([...bomb.entries, bomb.manifest]);
    const bounded = new DockerDriver({
      hosts: [{ dockerHost: env.dockerHost, regions: ['eu'], capacity: 1 }],
      maxUnpackedBytes: 16 * 1024 * 1024,
    });
    const before = dataRootBytes(env);
    const loaded = await bounded
      .ensureImage('eu', imageArchive(archive, { buildId: 'build-bomb' }))
      .then(
        () => undefined,
        (err: Error) => err,
      )
      .finally(() => bounded.close());
    const grown = dataRootBytes(env) - before;
    t.diagnostic(`a ${archive.length}-byte archive grew the data root by ${grown} bytes`);
    assert.ok(
      grown < 8 * 1024 * 1024,
      `the data root grew by ${grown} bytes for a ${archive.length}-byte archive`,
    );
    assert.equal(await inspectImage(env.engine, bomb.id), undefined);
    assert.ok(
      loaded instanceof ImageLoadError && /build-bomb's archive unpacks to more than/.test(loaded.message),
      String(loaded),
    );
  });

  test('an image removed from the engine behind the driver is loaded again', async () => {
    const other = await buildTestImage(env.engine, { name: `gcm-test-server:${randomUUID()}` });
    const { image: id } = await driver.ensureImage('eu', imageArchive(other.archive));
    await readBody(
      await env.engine.open({ method: 'DELETE', path: `/images/${id}`, query: { force: true } }),
      65536,
    );
    assert.equal((await driver.ensureImage('eu', imageArchive(other.archive))).image, id);
  });

  const present = async (ref: string) =>
    (await env.engine.json({ method: 'GET', path: `/images/${encodeURIComponent(ref)}/json` }, [404])) !==
    undefined;

  test('the collector keeps an image a container uses, and removes it once the container is gone', async () => {
    const own = new DockerDriver({
      hosts: [{ dockerHost: env.dockerHost, regions: ['eu'], capacity: 10 }],
      owner: `gc-${randomUUID().slice(0, 8)}`,
    });
    const copy = await buildTestImage(env.engine, {
      name: `gcm-test-server:${randomUUID()}`,
      variant: randomUUID(),
    });
    const { image: id } = await own.ensureImage('eu', imageArchive(copy.archive));
    const lobbyId = randomUUID();
    const { handle } = await own.start({
      lobbyId,
      region: 'eu',
      image: id,
      args: [],
      env: { TEST_NO_READY: '1' },
      networkMode: 'host',
      ports: [],
      limits: { nanoCpus: 250_000_000, memoryBytes: 64 * 1024 * 1024, pids: 64 },
      readOnlyRootFs: true,
      labels: { [LOBBY_LABELS.lobby]: lobbyId, [LOBBY_LABELS.owner]: 'gc-in-use' },
    });
    const inUse = await own.collectImages(new Set(), { graceMs: 0 });
    assert.deepEqual(
      inUse.map((h) => [h.removed, h.kept]),
      [[0, 1]],
    );
    assert.ok(await present(id), 'a running lobby keeps its image');
    await own.stop('eu', handle, 0);
    const done = await own.collectImages(new Set(), { graceMs: 0 });
    assert.deepEqual(
      done.map((h) => h.removed),
      [1],
    );
    assert.equal(await present(id), false);
    await own.close();
  });

  test('a load past the image budget is refused, saying so, until the collector frees room', async () => {
    const mark = randomUUID();
    // A holds 16 KiB unpacked: with it loaded, B's archive passes the budget; alone, either fits.
    const a = tinyImageArchive(`budget a ${mark} ${'a'.repeat(16 * 1024)}`);
    const b = tinyImageArchive(`budget b ${mark}`);
    const budget = a.archive.length;
    const own = new DockerDriver({
      hosts: [{ dockerHost: env.dockerHost, regions: ['eu'], capacity: 10 }],
      owner: `gc-${mark.slice(0, 8)}`,
      imageDiskBudgetBytes: budget,
    });
    await own.ensureImage('eu', imageArchive(a.archive, { buildId: 'build-a' }));
    await assert.rejects(
      own.ensureImage('eu', imageArchive(b.archive, { buildId: 'build-b' })),
      (err: Error) =>
        err instanceof ImageBudgetError &&
        err.message.includes('build-b') &&
        err.message.includes('GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES'),
    );
    assert.equal(await present(b.ids[0] as string), false, 'nothing of it reached the disk');
    assert.match(own.hosts()[0]?.problem ?? '', /image budget/);
    const [node] = await own.nodes({});
    assert.equal(node?.disk?.serviceImages, 1);
    assert.equal(node?.disk?.budgetBytes, budget);
    assert.ok((node?.disk?.imagesBytes ?? 0) > 0);
    await own.collectImages(new Set(), { graceMs: 0 });
    assert.equal(own.hosts()[0]?.problem, undefined);
    await own.ensureImage('eu', imageArchive(b.archive, { buildId: 'build-b' }));
    assert.ok(await present(b.ids[0] as string));
    await own.collectImages(new Set(), { graceMs: 0 });
    await own.close();
  });

  test('a load refused once the engine read it takes away the images and tags it brought', async () => {
    const tag = `gc-failed-${randomUUID()}`;
    const two = tinyImageArchive(
      `one ${tag}`,
      [`${tag}-a:1`],
      [{ content: `two ${tag}`, repoTags: [`${tag}-b:1`] }],
    );
    await assert.rejects(
      driver.ensureImage('eu', imageArchive(two.archive, { buildId: 'build-two' })),
      ImageLoadError,
    );
    for (const ref of [`${tag}-a:1`, `${tag}-b:1`, ...two.ids]) {
      assert.equal(await present(ref), false, ref);
    }
  });

  test('a container gets its limits, no privileges, a read-only root with a /tmp, and a capped log', async () => {
    const lobbyId = randomUUID();
    const spec: LobbySpec = {
      lobbyId,
      region: 'eu',
      image,
      args: [],
      env: { TEST_NO_READY: '1', A: 'b=c' },
      networkMode: 'host',
      ports: [],
      limits: { nanoCpus: 250_000_000, memoryBytes: 128 * 1024 * 1024, pids: 77 },
      readOnlyRootFs: true,
      labels: { [LOBBY_LABELS.lobby]: lobbyId, [LOBBY_LABELS.owner]: 'inspect' },
    };
    const { handle } = await driver.start(spec);
    const inspected = await env.engine.json<{
      Name: string;
      Config: { Env: string[]; Labels: Record<string, string> };
      HostConfig: Record<string, unknown>;
    }>({ method: 'GET', path: `/containers/${handle}/json` });
    assert.ok(inspected !== undefined);
    assert.equal(inspected.Name, `/gcm-${lobbyId}`);
    assert.ok(inspected.Config.Env.includes('A=b=c'));
    assert.equal(inspected.Config.Labels[LOBBY_LABELS.region], 'eu');
    assert.equal(inspected.Config.Labels[LOBBY_LABELS.owner], 'inspect');
    const host = inspected.HostConfig;
    assert.deepEqual(
      {
        NetworkMode: host.NetworkMode,
        NanoCpus: host.NanoCpus,
        Memory: host.Memory,
        MemorySwap: host.MemorySwap,
        PidsLimit: host.PidsLimit,
        ReadonlyRootfs: host.ReadonlyRootfs,
        SecurityOpt: host.SecurityOpt,
        CapDrop: host.CapDrop,
        Privileged: host.Privileged,
        Binds: host.Binds ?? [],
        RestartPolicy: (host.RestartPolicy as { Name: string }).Name,
        LogConfig: host.LogConfig,
      },
      {
        NetworkMode: 'host',
        NanoCpus: 250_000_000,
        Memory: 128 * 1024 * 1024,
        MemorySwap: 128 * 1024 * 1024,
        PidsLimit: 77,
        ReadonlyRootfs: true,
        SecurityOpt: ['no-new-privileges'],
        CapDrop: ['ALL'],
        Privileged: false,
        Binds: [],
        RestartPolicy: 'no',
        LogConfig: { Type: 'local', Config: { 'max-size': '10m', 'max-file': '2' } },
      },
    );
    assert.match(String((host.Tmpfs as Record<string, string>)['/tmp']), /size=64m/);
    // Starting the same lobby again (a start cut short after the create) takes up the container it made.
    assert.equal((await driver.start(spec)).handle, handle);
    await driver.stop('eu', handle, 1);
  });

  test('a bridge-mode lobby on an engine without its bridge is refused, not started unreachable', async (t) => {
    // `--bridge=none` here: the engine would start it with no network and no port published.
    const lobbyId = randomUUID();
    await assert.rejects(
      driver.start({
        lobbyId,
        region: 'eu',
        image,
        args: [],
        env: {},
        networkMode: 'bridge',
        ports: [{ name: 'game', protocol: 'udp', containerPort: 7777, hostPort: 27015 }],
        limits: { nanoCpus: 1e9, memoryBytes: 64 * 1024 * 1024, pids: 32 },
        readOnlyRootFs: false,
        labels: { [LOBBY_LABELS.lobby]: lobbyId },
      }),
      (err: Error) =>
        err instanceof DockerEngineError && err.message.includes(`${env.dockerHost} has no bridge network`),
    );
    // A failed start leaves nothing behind.
    const left = await env.engine.json<unknown[]>({
      method: 'GET',
      path: '/containers/json',
      query: { all: true, filters: JSON.stringify({ name: [`gcm-${lobbyId}`] }) },
    });
    assert.deepEqual(left, []);
    t.diagnostic('bridge mode with a bridge (ports published on every host address) is untested here');
  });

  test('events over tcp:// come back after the connection drops, with what happened meanwhile', async () => {
    const proxy = new TcpProxy(env.dockerHost.slice('unix://'.length));
    await proxy.start();
    const warnings: string[] = [];
    const viaTcp = new DockerDriver({
      hosts: [{ dockerHost: `tcp://127.0.0.1:${proxy.port}`, regions: ['eu'], capacity: 1 }],
      onWarning: (message) => warnings.push(message),
    });
    const owner = `events-${randomUUID()}`;
    const events: RuntimeEvent[] = [];
    const subscription = viaTcp.events({ [LOBBY_LABELS.owner]: owner }, (event) => events.push(event));
    const lobby = (lobbyId: string, env: Record<string, string> = {}): LobbySpec => ({
      lobbyId,
      region: 'eu',
      image,
      args: [],
      env: { TEST_NO_READY: '1', ...env },
      networkMode: 'host',
      ports: [],
      limits: { nanoCpus: 1e9, memoryBytes: 64 * 1024 * 1024, pids: 32 },
      readOnlyRootFs: true,
      labels: { [LOBBY_LABELS.lobby]: lobbyId, [LOBBY_LABELS.owner]: owner },
    });
    const first = await viaTcp.start(lobby(randomUUID()));
    await until('the first start', HANG_MS, () => events.some((e) => e.handle === first.handle));
    await proxy.stop();
    // While the stream is down, a lobby crashes; the direct driver sees to it.
    const crashed = await driver.start(lobby(randomUUID(), { TEST_EXIT_AFTER: '0', TEST_EXIT_CODE: '9' }));
    await until('the crash', HANG_MS, async () =>
      (await driver.list({ [LOBBY_LABELS.owner]: owner })).some(
        (l) => l.handle === crashed.handle && l.state === 'exited',
      ),
    );
    await proxy.start();
    await until('the missed events', HANG_MS, () =>
      events.some((e) => e.type === 'exited' && e.handle === crashed.handle && e.exitCode === 9),
    );
    assert.ok(
      warnings.some((w) => w.includes(`tcp://127.0.0.1:${proxy.port}`)),
      warnings.join('\n'),
    );
    // Each event once, in order, though the stream was opened twice.
    assert.deepEqual(
      events.filter((e) => e.handle === crashed.handle).map((e) => e.type),
      ['started', 'exited'],
    );
    subscription.close();
    await Promise.all([first, crashed].map(({ handle }) => viaTcp.stop('eu', handle, 1)));
    await viaTcp.close();
    await proxy.stop();
  });

  test('an engine that cannot be reached is named with DOCKER_HOST and why', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-nodocker-'));
    const missing = new DockerDriver({
      hosts: [{ dockerHost: `unix://${dir}/docker.sock`, regions: ['eu'], capacity: 1 }],
    });
    await assert.rejects(
      missing.list({}),
      (err: Error) =>
        err.message.includes(`DOCKER_HOST unix://${dir}/docker.sock`) &&
        /is dockerd running/.test(err.message),
    );
    await missing.close();
    rmSync(dir, { recursive: true });
    assert.throws(() => new DockerEngine('ssh://me@host'), /not unix:\/\/\/path.*or tcp:\/\/host:port/);
  });

  test('the API version is what the engine speaks, capped at the newest the driver knows', async () => {
    // Docker 29 refuses versions below 1.44: a pinned v1.41 would lock current engines out.
    assert.equal(negotiateApiVersion('1.41'), 'v1.41');
    assert.equal(negotiateApiVersion('1.44'), 'v1.44');
    assert.equal(negotiateApiVersion('1.52'), `v${DOCKER_API_VERSION_MAX}`);
    assert.equal(negotiateApiVersion(undefined), 'v1.41');
    assert.equal(negotiateApiVersion('1.x; rm -rf'), 'v1.41');
  });

  test('DOCKER_HOST and the TLS settings are read as Docker reads them', () => {
    assert.equal(dockerHostFromEnv({}), 'unix:///var/run/docker.sock');
    assert.equal(dockerHostFromEnv({ DOCKER_HOST: 'tcp://10.0.0.2:2376' }), 'tcp://10.0.0.2:2376');
    assert.equal(dockerTlsFromEnv({ DOCKER_CERT_PATH: '/certs' }), undefined);
    assert.deepEqual(dockerTlsFromEnv({ DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: '/certs' }), {
      verify: true,
      certPath: '/certs',
    });
    assert.deepEqual(dockerTlsFromEnv({ DOCKER_TLS_VERIFY: '1' }), {
      verify: true,
      certPath: path.join(os.homedir(), '.docker'),
    });
    // TLS with no ca.pem to verify against says which file is missing where.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-certs-'));
    writeFileSync(path.join(dir, 'cert.pem'), '');
    assert.throws(
      () => new DockerEngine('tcp://127.0.0.1:2376', { verify: true, certPath: dir }),
      (err: Error) => err.message.includes(`DOCKER_CERT_PATH ${dir}: cannot read ca.pem`),
    );
    rmSync(dir, { recursive: true });
    assert.deepEqual(
      dockerHostsFromRegions({ eu: 'unix:///a.sock', us: 'tcp://b:2376', asia: 'unix:///a.sock' }, 5),
      [
        { dockerHost: 'unix:///a.sock', regions: ['eu', 'asia'], capacity: 5 },
        { dockerHost: 'tcp://b:2376', regions: ['us'], capacity: 5 },
      ],
    );
  });
});
