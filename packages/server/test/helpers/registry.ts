import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DockerEngine, jsonLines } from '../../src/runtime/docker/engine.js';
import { spawnDaemon } from './daemon.js';
import { freePort } from './listening.js';

/** Debian's CNCF Distribution registry (package docker-registry). */
export const REGISTRY_BIN = '/usr/bin/docker-registry';
/** Debian's apache2-utils: the registry's htpasswd auth takes bcrypt entries only, which `htpasswd -B` makes. */
export const HTPASSWD_BIN = '/usr/bin/htpasswd';

/** Why a registry test cannot run here, or false (to be or-ed with dockerSkipReason's). */
export function registrySkipReason(file: string, options: { auth?: boolean } = {}): string | false {
  const skip = !existsSync(REGISTRY_BIN)
    ? `${REGISTRY_BIN} not found: install Debian's docker-registry (apt-get install docker-registry)`
    : options.auth === true && !existsSync(HTPASSWD_BIN)
      ? `${HTPASSWD_BIN} not found: install Debian's apache2-utils (apt-get install apache2-utils)`
      : false;
  if (skip !== false) console.log(`# ${file} skipped: ${skip}`);
  return skip;
}

export interface TestRegistry {
  /** `127.0.0.1:PORT`: what an image reference starts with, and the X-Registry-Auth serveraddress. */
  address: string;
  pid: number;
  /** What the registry logged so far, for a failure's message. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts a registry on 127.0.0.1 (`port`, or a free one) storing its blobs in a fresh temp dir, and waits
 * until `GET /v2/` answers (401 with `auth`). An engine pushes to it without an insecure-registries entry:
 * dockerd treats 127.0.0.0/8 as insecure (plain HTTP) by default. With `auth`, the registry asks for HTTP
 * basic auth against an htpasswd file of that one user.
 */
export async function startRegistry(
  options: {
    port?: number;
    auth?: { username: string; password: string };
    timeoutMs?: number;
    /** Whether it deletes manifests (storage.delete.enabled): on unless false, which is Distribution's default. */
    deletes?: boolean;
  } = {},
): Promise<TestRegistry> {
  const dir = mkdtempSync('/tmp/gcmr-');
  const port = options.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const lines = [
    'version: 0.1',
    'log:',
    '  level: warn',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${path.join(dir, 'data')}`,
    // Deleting by digest lets a test clean up as the service would; harmless otherwise.
    '  delete:',
    `    enabled: ${options.deletes !== false}`,
    'http:',
    `  addr: ${address}`,
  ];
  if (options.auth !== undefined) {
    const htpasswd = path.join(dir, 'htpasswd');
    // -i: the password on stdin, not in the process list.
    execFileSync(HTPASSWD_BIN, ['-B', '-c', '-i', htpasswd, options.auth.username], {
      input: options.auth.password,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    lines.push('auth:', '  htpasswd:', '    realm: gcm-test', `    path: ${htpasswd}`);
  }
  const config = path.join(dir, 'config.yml');
  writeFileSync(config, `${lines.join('\n')}\n`);
  const logFile = path.join(dir, 'registry.log');
  const daemon = spawnDaemon(REGISTRY_BIN, ['serve', config], logFile);
  const { pid, log } = daemon;
  const stop = async () => {
    await daemon.stop(10_000);
    rmSync(dir, { recursive: true, force: true });
  };
  const expected = options.auth === undefined ? 200 : 401;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (daemon.exitCode() !== undefined) {
      const text = log();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`the registry exited with ${daemon.exitCode()} before answering: ${text.slice(-4000)}`);
    }
    const status = await fetch(`http://${address}/v2/`)
      .then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      })
      .catch(() => undefined);
    if (status === expected) break;
    if (Date.now() > deadline) {
      const text = log();
      await stop();
      throw new Error(`the registry did not answer GET /v2/ with ${expected} (last: ${status}): ${text}`);
    }
    await sleep(50);
  }
  return { address, pid, log, stop };
}

/**
 * The X-Registry-Auth header's value the engine takes for a push, a pull or a service create: base64url
 * JSON WITH its `=` padding. dockerd 20.10 decodes it with Go's padded base64.URLEncoding and, when that
 * fails (Node's 'base64url' leaves the padding off), silently goes on with no credentials at all, so an
 * unpadded header ends in the registry's "no basic auth credentials" for one length in three.
 */
export function registryAuthHeader(
  registry: { address: string },
  auth?: { username: string; password: string },
): string {
  const json = JSON.stringify({ ...(auth ?? {}), serveraddress: registry.address });
  return Buffer.from(json, 'utf8').toString('base64').replaceAll('+', '-').replaceAll('/', '_');
}

/**
 * Tags the engine's image `name` as `<registry>/<repository>:<tag>` and pushes it (POST /images/…/push with
 * X-Registry-Auth), answering the reference by digest a service names: `<registry>/<repository>@sha256:…`.
 */
export async function pushImage(
  engine: DockerEngine,
  name: string,
  registry: { address: string },
  options: { repository?: string; tag?: string; auth?: { username: string; password: string } } = {},
): Promise<string> {
  const repository = `${registry.address}/${options.repository ?? 'gcm-test'}`;
  const tag = options.tag ?? 'latest';
  await engine.json({
    method: 'POST',
    path: `/images/${encodeURIComponent(name)}/tag`,
    query: { repo: repository, tag },
  });
  const pushed = await engine.open({
    method: 'POST',
    path: `/images/${encodeURIComponent(repository)}/push`,
    query: { tag },
    headers: { 'X-Registry-Auth': registryAuthHeader(registry, options.auth) },
    idleTimeoutMs: 120_000,
  });
  let digest: string | undefined;
  for await (const message of jsonLines(pushed)) {
    const { error, aux } = message as { error?: string; aux?: { Digest?: string } };
    if (error !== undefined) throw new Error(`pushing ${repository}:${tag} failed: ${error}`);
    if (aux?.Digest !== undefined) digest = aux.Digest;
  }
  if (digest === undefined) throw new Error(`pushing ${repository}:${tag} named no digest`);
  return `${repository}@${digest}`;
}
