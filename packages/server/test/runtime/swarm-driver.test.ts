import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { SwarmDriver } from '../../src/runtime/swarm/swarm-driver.js';
import { dockerSkipReason, type PrivateDockerd, startDockerd } from '../helpers/dockerd.js';
import { freePort } from '../helpers/listening.js';
import { buildTestImage, type TestImage } from '../helpers/test-image.js';
import { HANG_MS, until } from '../helpers/until.js';
import { runDriverContract } from './driver-contract.js';

const REGISTRY_BIN = '/usr/bin/docker-registry';
const skip =
  dockerSkipReason('swarm-driver.test.ts', { sqliteOnly: true }) ||
  (existsSync(REGISTRY_BIN)
    ? false
    : `${REGISTRY_BIN} not found: install Debian's docker-registry (apt-get install docker-registry)`);

let dockerd: PrivateDockerd | undefined;
let registry: { address: string; stop(): Promise<void> } | undefined;
let testImage: TestImage | undefined;
after(async () => {
  await registry?.stop();
  await dockerd?.stop();
});

async function startRegistry(): Promise<{ address: string; stop(): Promise<void> }> {
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
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A one-node swarm on a private engine, the node serving region `eu`. */
async function swarm(): Promise<{ dockerd: PrivateDockerd; registry: { address: string } }> {
  if (dockerd === undefined) {
    dockerd = await startDockerd();
    const listen = await freePort();
    await dockerd.engine.json({
      method: 'POST',
      path: '/swarm/init',
      body: { ListenAddr: `127.0.0.1:${listen}`, AdvertiseAddr: `127.0.0.1:${listen}` },
    });
    const [node] =
      (await dockerd.engine.json<{ ID: string; Version: { Index: number }; Spec: Record<string, unknown> }[]>(
        { method: 'GET', path: '/nodes' },
      )) ?? [];
    if (node === undefined) throw new Error('the swarm has no node');
    await dockerd.engine.json({
      method: 'POST',
      path: `/nodes/${node.ID}/update`,
      query: { version: node.Version.Index },
      body: { ...node.Spec, Labels: { 'gcm.region': 'eu' } },
    });
    testImage = await buildTestImage(dockerd.engine);
  }
  registry ??= await startRegistry();
  return { dockerd, registry };
}

runDriverContract(
  'swarm',
  async () => {
    const { dockerd, registry } = await swarm();
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
      image: (testImage as TestImage).archive,
      imagePattern: new RegExp(`^${registry.address}/gcm-builds@sha256:[0-9a-f]{64}$`),
      close: async () => {},
    };
  },
  { skip },
);
