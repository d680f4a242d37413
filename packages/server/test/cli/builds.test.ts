/**
 * `gcm builds push`, `gcm builds list` and `gcm deploy`, end to end: the real binary (packages/cli/dist)
 * against a real service listening on a port, with 1 MiB parts so that a few MiB make a multipart upload.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { findBuild } from '../../src/modules/builds/builds.repository.js';
import { findUpload } from '../../src/modules/uploads/uploads.repository.js';
import { finished, type CliResult as Run, startCli as startGcm } from '../helpers/cli.js';
import { startListening } from '../helpers/listening.js';
import { createGameFixture, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const MiB = 1024 * 1024;
/** Uploads of several MiB through a throttled service take a while; a stuck run still fails the test. */
const RUN_TIMEOUT_MS = 120_000;

/** One part PUT the service answered 200 to. */
interface PartPut {
  uploadId: string;
  part: number;
}

let svc: TestService;
let publicUrl: string;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'gcm-cli-builds-'));
const partPuts: PartPut[] = [];
/** Milliseconds each part PUT is held before the service reads it: a window to kill the CLI in. */
let holdPutsMs = 0;
/** Refusals (or, `reset`, a dropped connection) the next part PUTs get instead of being read. */
const failPuts: ({ status: number; retryAfter: string } | 'reset')[] = [];
const refusedPuts: number[] = [];

before(async () => {
  const started = await startListening({
    env: { GCM_BUILD_PART_SIZE_BYTES: String(MiB) },
    beforeListen: (service) => {
      const partUrl = /^\/uploads\/([^/?]+)\/parts\/(\d+)\?/;
      service.app.addHook('onRequest', async (request, reply) => {
        if (request.method !== 'PUT' || !partUrl.test(request.url)) return;
        if (holdPutsMs > 0) await sleep(holdPutsMs);
        const failure = failPuts.shift();
        if (failure === 'reset') {
          refusedPuts.push(Date.now());
          request.raw.socket.destroy();
          return reply;
        }
        if (failure !== undefined) {
          refusedPuts.push(Date.now());
          return reply
            .code(failure.status)
            .header('retry-after', failure.retryAfter)
            .header('content-type', 'application/json')
            .send(JSON.stringify({ code: 'TEST_REFUSAL', message: 'refused by the test' }));
        }
      });
      service.app.addHook('onResponse', async (request, reply) => {
        const match = partUrl.exec(request.url);
        if (request.method === 'PUT' && match !== null && reply.statusCode === 200) {
          partPuts.push({ uploadId: match[1] as string, part: Number(match[2]) });
        }
      });
    },
  });
  svc = started.svc;
  publicUrl = started.publicUrl;
});

after(async () => {
  await svc?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A run of the real binary as a CI job would: the service's URL, a token, its own config dir. */
function startCli(args: string[], token: string, configDir: string): ChildProcessWithoutNullStreams {
  return startGcm(args, { GCM_URL: publicUrl, GCM_TOKEN: token, GCM_CONFIG_DIR: configDir });
}

function runCli(args: string[], token: string, configDir: string): Promise<Run> {
  return finished(startCli(args, token, configDir), RUN_TIMEOUT_MS);
}

/** The one JSON document a --json run printed, after checking it succeeded. */
function jsonOf<T>(run: Run, what: string): T {
  assert.equal(run.code, 0, `${what}: exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `${what}: one JSON document on stdout, got ${run.stdout}`);
  return JSON.parse(lines[0] as string) as T;
}

function randomFile(name: string, size: number): { file: string; bytes: Buffer; sha256: string } {
  const bytes = randomBytes(size);
  const file = path.join(scratch, name);
  writeFileSync(file, bytes);
  return { file, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

function freshConfigDir(): string {
  return mkdtempSync(path.join(scratch, 'config-'));
}

/** The bytes the service stored for a completed build, read back from its blob store. */
async function storedBytes(namespaceId: string, buildId: string): Promise<Buffer> {
  const build = await findBuild(svc.deps.db, namespaceId, buildId);
  assert.ok(build !== undefined, `build ${buildId} is in the store`);
  const upload = await findUpload(svc.deps.db, build.upload_id);
  assert.ok(upload !== undefined && upload.state === 'complete', 'its upload is complete');
  const stream = await svc.deps.blobs.openRead(upload.frozen_key ?? upload.object_key);
  assert.ok(stream !== undefined, 'its file is in the blob store');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function uploadIdOf(namespaceId: string, buildId: string): Promise<string> {
  const build = await findBuild(svc.deps.db, namespaceId, buildId);
  assert.ok(build !== undefined);
  return build.upload_id;
}

interface PushJson {
  build_id: string;
  name: string;
  content_length: number;
  multipart: boolean;
  parts: number;
  parts_uploaded: number;
  parts_skipped: number;
  resumed: boolean;
  tags: Record<string, string>;
}

interface BuildJson {
  id: string;
  name: string;
  content_length: number;
  created_at: string;
  tags: Record<string, string>;
}

describe('gcm builds push', () => {
  test('pushes a 6 MiB file as a multipart upload, every byte as it is on disk', async () => {
    const fx = await createGameFixture(svc, 'push-multipart');
    const configDir = freshConfigDir();
    const image = randomFile('server-6m.tar', 6 * MiB + 12_345);
    const run = await runCli(
      ['builds', 'push', image.file, '--namespace', 'prod', '--tag', 'channel=beta', '--json'],
      fx.cloudToken,
      configDir,
    );
    const pushed = jsonOf<PushJson>(run, 'builds push');
    assert.equal(pushed.multipart, true);
    assert.equal(pushed.parts, 7, '6 MiB and a bit in 1 MiB parts');
    assert.equal(pushed.parts_uploaded, 7);
    assert.equal(pushed.parts_skipped, 0);
    assert.equal(pushed.resumed, false);
    assert.equal(pushed.name, 'server-6m.tar');
    assert.equal(pushed.content_length, image.bytes.length);
    assert.deepEqual(pushed.tags, { channel: 'beta', 'gcm.sha256': image.sha256 });

    const uploadId = await uploadIdOf(fx.namespaceId, pushed.build_id);
    const parts = partPuts.filter((p) => p.uploadId === uploadId).map((p) => p.part);
    assert.deepEqual(
      [...parts].sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7],
      'each part PUT once',
    );

    const got = await svc.call(
      'GET',
      `/games/${fx.gameId}/environments/${fx.namespaceId}/builds/${pushed.build_id}`,
      { token: fx.cloudToken },
    );
    assert.equal(got.statusCode, 200, got.body);
    const { build } = got.json<{ build: BuildJson }>();
    assert.equal(build.content_length, image.bytes.length);
    assert.deepEqual(build.tags, { channel: 'beta', 'gcm.sha256': image.sha256 });
    assert.ok(
      (await storedBytes(fx.namespaceId, pushed.build_id)).equals(image.bytes),
      'stored bytes = file',
    );
    assert.deepEqual(readdirSync(path.join(configDir, 'uploads')), [], 'no state file is left behind');
  });

  test('resumes after the CLI is killed mid-upload, sending only the missing parts', async () => {
    const fx = await createGameFixture(svc, 'push-resume');
    const configDir = freshConfigDir();
    const image = randomFile('server-8m.tar', 8 * MiB);
    const args = ['builds', 'push', image.file, '--namespace', 'prod', '--concurrency', '1', '--json'];
    const seen = partPuts.length;
    holdPutsMs = 250;
    try {
      const child = startCli(args, fx.cloudToken, configDir);
      const firstRun = finished(child, RUN_TIMEOUT_MS);
      await until('two parts arrive', 20_000, () => partPuts.length - seen >= 2);
      assert.equal(child.exitCode, null, 'the first run is still uploading');
      child.kill('SIGKILL');
      const killed = await firstRun;
      assert.equal(killed.signal, 'SIGKILL');
    } finally {
      holdPutsMs = 0;
    }
    const firstPuts = partPuts.slice(seen);
    const [uploadId] = [...new Set(firstPuts.map((p) => p.uploadId))] as [string];
    const stateDir = path.join(configDir, 'uploads');
    const stateFiles = readdirSync(stateDir);
    assert.equal(stateFiles.length, 1, 'the killed run left its state file');
    const statePath = path.join(stateDir, stateFiles[0] as string);
    assert.equal(statSync(stateDir).mode & 0o777, 0o700);
    assert.equal(statSync(statePath).mode & 0o777, 0o600);
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as { build_id: string; part_count: number };
    assert.equal(state.part_count, 8);
    const incomplete = await svc.call(
      'GET',
      `/games/${fx.gameId}/environments/${fx.namespaceId}/builds/${state.build_id}`,
      { token: fx.cloudToken },
    );
    assert.equal(incomplete.statusCode, 404, 'the build is not complete after the kill');
    // Which parts the first run left stored, as the service sees them: a part whose body was in when the CLI
    // died is still stored (its answer never reached anyone), so ask the service until its answer settles.
    const missingNow = async () => {
      const res = await svc.call(
        'POST',
        `/games/${fx.gameId}/environments/${fx.namespaceId}/builds/${state.build_id}/complete`,
        { token: fx.cloudToken },
      );
      assert.equal(res.statusCode, 400, res.body);
      return res.json<{ code: string; metadata: { parts: number[] } }>().metadata.parts.join(',');
    };
    let missing = await missingNow();
    for (let settled = false; !settled; ) {
      await sleep(1_000);
      const again = await missingNow();
      settled = again === missing;
      missing = again;
    }
    const firstParts = [1, 2, 3, 4, 5, 6, 7, 8].filter((part) => !missing.split(',').includes(String(part)));
    assert.ok(firstParts.length >= 2, `the first run stored ${firstParts.join(',')}`);

    const secondSeen = partPuts.length;
    const resumed = jsonOf<PushJson>(await runCli(args, fx.cloudToken, configDir), 'resumed push');
    const secondParts = partPuts.slice(secondSeen).map((p) => p.part);
    assert.equal(resumed.build_id, state.build_id, 'the same build, not a new prepare');
    assert.equal(resumed.resumed, true);
    assert.equal(resumed.parts, 8);
    assert.ok(resumed.parts_uploaded < resumed.parts, `${resumed.parts_uploaded} of 8 parts sent again`);
    assert.ok(resumed.parts_uploaded >= 1, 'some parts were still missing');
    assert.equal(resumed.parts_uploaded + resumed.parts_skipped, 8);
    assert.equal(secondParts.length, resumed.parts_uploaded, 'the service saw exactly the parts it reports');
    assert.deepEqual(
      secondParts.filter((part) => firstParts.includes(part)),
      [],
      'no part that arrived before the kill is sent again',
    );
    assert.deepEqual(
      [...new Set([...firstParts, ...secondParts])].sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.equal(await uploadIdOf(fx.namespaceId, resumed.build_id), uploadId);
    assert.ok(
      (await storedBytes(fx.namespaceId, resumed.build_id)).equals(image.bytes),
      'stored bytes = file',
    );
    assert.equal(existsSync(statePath), false, 'the state file is gone once the build is complete');

    const list = await svc.call('GET', `/games/${fx.gameId}/environments/${fx.namespaceId}/builds`, {
      token: fx.cloudToken,
    });
    assert.equal(list.json<{ builds: BuildJson[] }>().builds.length, 1, 'one build, not two');
  });

  test('starts over when the service no longer knows the build of a state file', async () => {
    const fx = await createGameFixture(svc, 'push-restart');
    const configDir = freshConfigDir();
    const image = randomFile('small.tar', 300_000);
    const args = ['builds', 'push', image.file, '--namespace', fx.namespaceId, '--json'];
    const first = jsonOf<PushJson>(await runCli(args, fx.cloudToken, configDir), 'first push');
    assert.equal(first.multipart, false, 'under 5 MiB: one PUT');
    assert.equal(first.parts, 1);
    // A state file naming a build the service never made: what is left after the service lost it.
    const stateDir = path.join(configDir, 'uploads');
    const key = createHash('sha256')
      .update(
        [
          publicUrl,
          fx.gameId,
          fx.namespaceId,
          path.resolve(image.file),
          String(statSync(image.file).size),
          String(statSync(image.file).mtimeMs),
        ].join('\n'),
      )
      .digest('hex');
    const statePath = path.join(stateDir, `${key}.json`);
    const ghost = '00000000-0000-4000-8000-000000000000';
    writeFileSync(
      statePath,
      JSON.stringify({ version: 1, build_id: ghost, part_count: 1, multipart: false, name: 'x', tags: {} }),
      { mode: 0o600 },
    );
    const second = await runCli(args, fx.cloudToken, configDir);
    const pushed = jsonOf<PushJson>(second, 'push over a stale state file');
    assert.notEqual(pushed.build_id, ghost);
    assert.notEqual(pushed.build_id, first.build_id);
    assert.equal(pushed.resumed, false);
    assert.match(second.stderr, /no longer knows build/);
    assert.equal(existsSync(statePath), false);
  });

  test('retries part PUTs answered 503 or 429 (after their Retry-After) or cut off', async () => {
    const fx = await createGameFixture(svc, 'push-retry');
    const image = randomFile('retry.tar', 6 * MiB);
    failPuts.push({ status: 503, retryAfter: '2' }, 'reset', { status: 429, retryAfter: '0' });
    refusedPuts.length = 0;
    const started = Date.now();
    const run = await runCli(
      ['builds', 'push', image.file, '--namespace', 'prod', '--concurrency', '1', '--json'],
      fx.cloudToken,
      freshConfigDir(),
    );
    const pushed = jsonOf<PushJson>(run, 'push with refusals');
    assert.deepEqual(failPuts, [], 'every refusal was met');
    assert.equal(refusedPuts.length, 3);
    assert.ok(
      (refusedPuts[1] as number) - (refusedPuts[0] as number) >= 1900,
      'the 503’s Retry-After of 2 s was waited out',
    );
    assert.ok(Date.now() - started >= 2000);
    assert.equal(pushed.parts_uploaded, 6);
    assert.match(run.stderr, /^part 1: the store answered 503 TEST_REFUSAL; retrying in [2-9]\.\d s$/m);
    assert.match(run.stderr, /^part 1: ECONNRESET; retrying in/m);
    assert.match(run.stderr, /^part 1: the store answered 429 TEST_REFUSAL; retrying in/m);
    assert.ok((await storedBytes(fx.namespaceId, pushed.build_id)).equals(image.bytes));
  });
});

describe('gcm builds list', () => {
  test('lists the builds having every --tag, with exclusive tags moving between builds', async () => {
    const fx = await createGameFixture(svc, 'list-tags');
    const configDir = freshConfigDir();
    const push = async (name: string, ...flags: string[]) => {
      const image = randomFile(`${name}.tar`, 2048);
      const run = await runCli(
        ['builds', 'push', image.file, '--namespace', 'prod', '--name', name, ...flags, '--json'],
        fx.cloudToken,
        configDir,
      );
      return jsonOf<PushJson>(run, `push ${name}`).build_id;
    };
    const a = await push('a', '--tag', 'kind=server', '--tag', 'channel=beta');
    const b = await push('b', '--tag', 'kind=server');
    const c = await push('c', '--tag', 'kind=tool');
    const list = async (...tags: string[]) => {
      const run = await runCli(
        ['builds', 'list', '--namespace', 'prod', ...tags.flatMap((t) => ['--tag', t]), '--json'],
        fx.cloudToken,
        configDir,
      );
      return jsonOf<{ builds: BuildJson[] }>(run, 'builds list').builds.map((build) => build.id);
    };
    assert.deepEqual(await list('kind=server'), [b, a], 'newest first');
    assert.deepEqual(await list('kind=server', 'channel=beta'), [a]);
    assert.deepEqual(await list('kind=tool'), [c]);
    assert.deepEqual(await list('kind=none'), []);
    assert.deepEqual(await list(), [c, b, a]);

    const d = await push('d', '--tag', 'channel=beta', '--exclusive-tag', 'channel');
    assert.deepEqual(await list('channel=beta'), [d], 'the exclusive tag left build a');

    const human = await runCli(['builds', 'list', '--namespace', 'prod'], fx.cloudToken, configDir);
    assert.equal(human.code, 0, human.stderr);
    const lines = human.stdout.trim().split('\n');
    assert.match(lines[0] ?? '', /^ID\s+NAME\s+SIZE\s+CREATED\s+TAGS$/);
    assert.equal(lines.length, 5);
    assert.match(lines[1] ?? '', new RegExp(`^${d}\\s+d\\s+2\\.0 KiB\\s+\\S+\\s+channel=beta$`));

    const bad = await runCli(
      ['builds', 'list', '--namespace', 'prod', '--tag', 'novalue'],
      fx.cloudToken,
      configDir,
    );
    assert.equal(bad.code, 2, 'a malformed --tag is a usage error');
  });
});

const DEPLOY_CONFIG = `# what a studio keeps in its repository
matchmaker:
  max_players: 12
  container:
    args: ["--mode", "casual"]
    ports:
      game:
        port: 7777
        protocol: udp
  game_modes:
    casual: {}
    ranked:
      max_players: 8
      container:
        args: ["--mode", "ranked"]
        ports:
          game:
            port: 7777
            protocol: udp
`;

interface DeployJson {
  build_id: string | null;
  build_reused: boolean;
  version_id: string;
  version_name: string;
  version_created: boolean;
  namespace_id: string;
  namespace_changed: boolean;
  tag_changed: boolean;
}

/** The game's audit log, newest first, as the operator reads it: what every write left. */
async function auditOf(gameId: string): Promise<{ event_id: string; operation: string }[]> {
  const res = await svc.call('GET', `/cloud/games/${gameId}/audit?limit=1000`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ events: { event_id: string; operation: string }[] }>().events;
}

describe('gcm deploy', () => {
  test('pushes, creates a version running the build, points the namespace at it; a re-run changes nothing', async () => {
    const fx = await createGameFixture(svc, 'deploy-yaml');
    const configDir = freshConfigDir();
    const configFile = path.join(scratch, 'deploy-gcm.yaml');
    writeFileSync(configFile, DEPLOY_CONFIG);
    const image = randomFile('deploy-5m.tar', 5 * MiB + 1);
    // A build already tagged current, which the deploy must take the tag from.
    const old = jsonOf<PushJson>(
      await runCli(
        [
          'builds',
          'push',
          randomFile('old.tar', 1000).file,
          '--namespace',
          'prod',
          '--tag',
          'current=true',
          '--exclusive-tag',
          'current',
          '--json',
        ],
        fx.cloudToken,
        configDir,
      ),
      'old build',
    );
    const args = ['deploy', image.file, '--namespace', 'prod', '--config', configFile, '--json'];
    const seen = partPuts.length;
    const first = jsonOf<DeployJson>(await runCli(args, fx.cloudToken, configDir), 'deploy');
    assert.equal(first.build_reused, false);
    assert.equal(first.version_created, true);
    assert.equal(first.namespace_changed, true);
    assert.equal(first.tag_changed, true);
    assert.equal(first.namespace_id, fx.namespaceId);
    assert.match(first.version_name, /^deploy-[0-9a-f]{12}$/);
    assert.ok(first.build_id !== null);
    assert.equal(partPuts.length - seen, 6, '5 MiB and a byte: six 1 MiB parts');

    const base = `/games/${fx.gameId}/environments/${fx.namespaceId}/builds`;
    const build = (await svc.call('GET', `${base}/${first.build_id}`, { token: fx.cloudToken })).json<{
      build: BuildJson;
    }>().build;
    assert.equal(build.content_length, image.bytes.length);
    assert.deepEqual(build.tags, { 'gcm.sha256': image.sha256, current: 'true' });
    assert.ok((await storedBytes(fx.namespaceId, first.build_id)).equals(image.bytes));
    const oldBuild = (await svc.call('GET', `${base}/${old.build_id}`, { token: fx.cloudToken })).json<{
      build: BuildJson;
    }>().build;
    assert.equal(oldBuild.tags.current, undefined, 'current moved off the old build');

    const ns = await svc.call('GET', `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}`, {
      token: fx.cloudToken,
    });
    assert.equal(ns.json<{ namespace: { version_id: string } }>().namespace.version_id, first.version_id);
    const version = await svc.call(
      'GET',
      `/cloud/games/${fx.gameId}/versions/${first.version_id}?resolved=true`,
      {
        token: fx.cloudToken,
      },
    );
    assert.equal(version.statusCode, 200, version.body);
    const resolved = version.json<{
      version: {
        display_name: string;
        config: {
          matchmaker: { game_modes: Record<string, { container: { image_id: string; args: string[] } }> };
        };
      };
    }>().version;
    assert.equal(resolved.display_name, first.version_name);
    const modes = resolved.config.matchmaker.game_modes;
    assert.deepEqual(Object.keys(modes).sort(), ['casual', 'ranked']);
    assert.equal(modes.casual?.container.image_id, first.build_id, 'casual runs the matchmaker’s runtime');
    assert.deepEqual(modes.casual?.container.args, ['--mode', 'casual']);
    assert.equal(modes.ranked?.container.image_id, first.build_id, 'ranked runs its own runtime');
    assert.deepEqual(modes.ranked?.container.args, ['--mode', 'ranked']);

    const versionsBefore = (
      await svc.call('GET', `/cloud/games/${fx.gameId}/versions`, { token: fx.cloudToken })
    ).json<{ versions: unknown[] }>().versions.length;
    const putsBefore = partPuts.length;
    const auditBefore = await auditOf(fx.gameId);
    assert.ok(
      auditBefore.some((e) => e.operation === 'builds.patchTags'),
      `the first deploy's tagging is in the audit log: ${auditBefore.map((e) => e.operation).join(', ')}`,
    );
    const again = jsonOf<DeployJson>(await runCli(args, fx.cloudToken, configDir), 'deploy again');
    assert.deepEqual(again, {
      ...first,
      build_reused: true,
      version_created: false,
      namespace_changed: false,
      tag_changed: false,
    });
    assert.equal(partPuts.length, putsBefore, 'nothing uploaded again');
    const versionsAfter = (
      await svc.call('GET', `/cloud/games/${fx.gameId}/versions`, { token: fx.cloudToken })
    ).json<{ versions: unknown[] }>().versions.length;
    assert.equal(versionsAfter, versionsBefore, 'no new version');
    const builds = (await svc.call('GET', base, { token: fx.cloudToken })).json<{ builds: BuildJson[] }>()
      .builds;
    assert.equal(builds.length, 2, 'no new build');

    const human = await runCli(args.slice(0, -1), fx.cloudToken, configDir);
    assert.equal(human.code, 0, human.stderr);
    assert.match(
      human.stdout,
      new RegExp(`Version ${first.version_name} \\(${first.version_id}\\): already exists`),
    );
    assert.match(human.stdout, /Namespace prod: already runs/);
    assert.match(human.stdout, /already tagged current/);
    assert.doesNotMatch(human.stdout, /now tagged/);
    // Two re-runs wrote nothing at all: no tag update, no version, no audit event.
    assert.deepEqual(await auditOf(fx.gameId), auditBefore, 'the audit log is as it was');
  });

  test('a missing image is named plainly, before anything is read or sent', async () => {
    const fx = await createGameFixture(svc, 'deploy-missing');
    const configFile = path.join(scratch, 'missing-gcm.yaml');
    writeFileSync(configFile, DEPLOY_CONFIG);
    const missing = path.join(scratch, 'missing.tar');
    const auditBefore = await auditOf(fx.gameId);
    const run = await runCli(
      ['deploy', missing, '--namespace', 'prod', '--config', configFile],
      fx.cloudToken,
      freshConfigDir(),
    );
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr.trim(), `error: there is no file ${missing}`);
    assert.doesNotMatch(run.stderr, /ENOENT/);
    assert.deepEqual(await auditOf(fx.gameId), auditBefore);
  });

  test('a config with an error fails with exit 1 and file:line:column, before anything is pushed', async () => {
    const fx = await createGameFixture(svc, 'deploy-bad');
    const configDir = freshConfigDir();
    const configFile = path.join(scratch, 'bad-gcm.yaml');
    const text = DEPLOY_CONFIG.replace('max_players: 8', 'max_players: 8\n      max_playrs: 9');
    writeFileSync(configFile, text);
    const image = randomFile('bad-image.tar', 4096);
    const run = await runCli(
      ['deploy', image.file, '--namespace', 'prod', '--config', configFile],
      fx.cloudToken,
      configDir,
    );
    assert.equal(run.code, 1, run.stderr);
    const line = text.split('\n').findIndex((l) => l.includes('max_playrs')) + 1;
    const column = (text.split('\n')[line - 1]?.indexOf('max_playrs') ?? -1) + 1;
    assert.match(
      run.stderr,
      new RegExp(`${configFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}:${column}: `),
    );
    assert.match(run.stderr, /unknown key "max_playrs"/);
    assert.equal(run.stdout, '');
    const builds = await svc.call('GET', `/games/${fx.gameId}/environments/${fx.namespaceId}/builds`, {
      token: fx.cloudToken,
    });
    assert.deepEqual(builds.json<{ builds: unknown[] }>().builds, [], 'nothing was pushed');
    const ns = await svc.call('GET', `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}`, {
      token: fx.cloudToken,
    });
    assert.equal(ns.json<{ namespace: { version_id: string } }>().namespace.version_id, fx.versionId);
  });

  test('an error only the service finds (an unknown region) is reported with its place, as JSON too', async () => {
    const fx = await createGameFixture(svc, 'deploy-region');
    const configDir = freshConfigDir();
    const configFile = path.join(scratch, 'region-gcm.yaml');
    const text = DEPLOY_CONFIG.replace(
      'max_players: 8',
      'max_players: 8\n      regions:\n        atlantis: {}',
    );
    writeFileSync(configFile, text);
    const image = randomFile('region-image.tar', 4096);
    const run = await runCli(
      ['deploy', image.file, '--namespace', 'prod', '--config', configFile, '--json'],
      fx.cloudToken,
      configDir,
    );
    assert.equal(run.code, 1, run.stderr);
    const body = JSON.parse(run.stdout.trim()) as {
      code: string;
      errors: { path: string[]; message: string; line?: number; source: string }[];
    };
    assert.equal(body.code, 'CONFIG_INVALID');
    const problem = body.errors.find((e) => e.path.includes('*ranked*') && e.message.includes('atlantis'));
    assert.ok(problem !== undefined, run.stdout);
    assert.equal(problem.source, 'service');
    assert.equal(problem.line, text.split('\n').findIndex((l) => l.includes('atlantis')) + 1);
    const ns = await svc.call('GET', `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}`, {
      token: fx.cloudToken,
    });
    assert.equal(ns.json<{ namespace: { version_id: string } }>().namespace.version_id, fx.versionId);
  });

  test('without IMAGE, a config that names no build is a usage error (exit 2)', async () => {
    const fx = await createGameFixture(svc, 'deploy-usage');
    const configFile = path.join(scratch, 'usage-gcm.yaml');
    writeFileSync(configFile, DEPLOY_CONFIG);
    const run = await runCli(
      ['deploy', '--namespace', 'prod', '--config', configFile],
      fx.cloudToken,
      freshConfigDir(),
    );
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /give the image to deploy/);
  });
});
