import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { readBody } from '../../src/runtime/docker/engine.js';
import { LOBBY_LABELS } from '../../src/runtime/driver.js';
import { recordedArchiveDigest } from '../helpers/api-world.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import {
  deploy,
  isLive,
  lobbiesOf,
  lobbyTokenOf,
  type RuntimeEngine,
  reportPlayer,
  runtimeGame,
  startRuntimeService,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import type { TestService } from '../helpers/service.js';
import { buildTestImage, type TestImage, tinyImageArchive } from '../helpers/test-image.js';
import { until } from '../helpers/until.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const skip = dockerSkipReason('runtime.test.ts');
/** This file's host ports: other runtime test files use other ranges, so files can run side by side. */
const PORT_RANGE = '27100-27399';
/** Containers start in about a second on an idle machine; a loaded 2-core one is slower. */
const WAIT_MS = 90_000;

describe('the lobby runtime', { skip }, () => {
  const engine = useRuntimeEngine();

  async function started(env: Record<string, string> = {}) {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
      env,
    });
    return svc;
  }

  it('keeps idle lobbies between min and max per game mode and region, and a second pass changes nothing', async () => {
    const svc = await started();
    try {
      const ids = await runtimeGame(svc, 'idle-game');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, {
        default: { buildId, min: 2, max: 3, regions: ['eu', 'us'] },
        duel: { buildId, min: 1, max: 1, regions: ['eu'] },
      });
      const live = async () => (await lobbiesOf(svc, ids.namespaceId)).filter(isLive);
      // Each server calls POST /matchmaker/lobbies/ready with its GCM_LOBBY_TOKEN once it runs.
      await until(
        '5 lobbies ready',
        WAIT_MS,
        async () => {
          const rows = await live();
          return rows.length === 5 && rows.every((r) => r.run_state === 'ready' && r.runtime_handle !== null);
        },
        50,
      );
      const rows = await live();
      const groups = (r: (typeof rows)[number]) => `${r.lobby_group_name_id}/${r.region_id}`;
      assert.deepEqual(rows.map(groups).sort(), [
        'default/eu',
        'default/eu',
        'default/us',
        'default/us',
        'duel/eu',
      ]);
      assert.equal((await engine.containersOf(svc)).filter((c) => c.state === 'running').length, 5);
      for (const row of rows) {
        assert.ok(row.token_hash !== null && row.ready_deadline_ts !== null && row.start_ts !== null);
        const ports = JSON.parse(row.ports ?? '[]') as { name: string; port: number }[];
        assert.equal(ports[0]?.name, 'game');
        assert.ok((ports[0]?.port ?? 0) >= 27100 && (ports[0]?.port ?? 0) <= 27399);
      }
      // Each lobby listens on the port its row gives players.
      const port = (JSON.parse(rows[0]?.ports ?? '[]') as { port: number }[])[0]?.port ?? 0;
      await until('the game port answers', WAIT_MS, () => canConnect(port), 100);

      const reconciler = svc.reconciler;
      assert.ok(reconciler !== undefined);
      await reconciler.pass();
      await reconciler.pass();
      const again = await live();
      assert.deepEqual(
        again.map((r) => [r.lobby_id, r.run_state, r.runtime_handle]),
        rows.map((r) => [r.lobby_id, 'ready', r.runtime_handle]),
        'a pass with nothing changed starts and stops nothing',
      );

      // Two of default/eu get players: they are busy, so two more idle ones start.
      const eu = rows.filter((r) => groups(r) === 'default/eu');
      const tokens = await Promise.all(
        eu.map((r) => lobbyTokenOf(engine.dockerd.engine, r.runtime_handle ?? '')),
      );
      for (const token of tokens) await reportPlayer(svc, token, 'player-1');
      await until(
        '2 more default/eu lobbies ready',
        WAIT_MS,
        async () => {
          const now = (await live()).filter((r) => groups(r) === 'default/eu');
          return now.length === 4 && now.every((r) => r.run_state === 'ready');
        },
        50,
      );
      // Both players leave: 4 idle, max 3: the newest idle one is stopped as surplus.
      for (const token of tokens) await reportPlayer(svc, token, 'player-1', false);
      await reconciler.pass();
      const all = (await lobbiesOf(svc, ids.namespaceId)).filter((r) => groups(r) === 'default/eu');
      const surplus = all.filter((r) => r.stop_reason === 'idle-surplus');
      assert.equal(surplus.length, 1);
      assert.equal(surplus[0]?.run_state, 'stopped');
      assert.equal(surplus[0]?.failed, 0);
      assert.equal(all.filter(isLive).length, 3);
      await until(
        'the surplus container removed',
        WAIT_MS,
        async () =>
          (await engine.containersOf(svc)).every(
            (c) => c.labels[LOBBY_LABELS.lobby] !== surplus[0]?.lobby_id,
          ),
        100,
      );
    } finally {
      await svc.close();
    }
  });

  it('never exceeds lobby_count_max nor a host capacity under a burst', async () => {
    const svc = await started({ GCM_RUNTIME_MAX_LOBBIES_PER_HOST: '4' });
    try {
      const a = await runtimeGame(svc, 'cap-a');
      const b = await runtimeGame(svc, 'cap-b');
      const buildA = await uploadBuild(svc, a.gameId, a.namespaceId, engine.image.archive);
      const buildB = await uploadBuild(svc, b.gameId, b.namespaceId, engine.image.archive);
      const capped = await svc.call(
        'POST',
        `/cloud/games/${a.gameId}/namespaces/${a.namespaceId}/mm-config`,
        {
          body: { lobby_count_max: 3, max_players: 8 },
        },
      );
      assert.equal(capped.statusCode, 204);
      await deploy(svc, a, { default: { buildId: buildA, min: 10, max: 10 } });
      await deploy(svc, b, { default: { buildId: buildB, min: 10, max: 10 } });
      const reconciler = svc.reconciler;
      assert.ok(reconciler !== undefined);
      await Promise.all([reconciler.pass(), reconciler.pass(), reconciler.pass()]);
      await until(
        '4 lobbies started',
        WAIT_MS,
        async () => {
          const rows = [...(await lobbiesOf(svc, a.namespaceId)), ...(await lobbiesOf(svc, b.namespaceId))];
          return rows.filter((r) => isLive(r) && r.runtime_handle !== null).length === 4;
        },
        50,
      );
      for (let i = 0; i < 3; i++) await reconciler.pass();
      const liveA = (await lobbiesOf(svc, a.namespaceId)).filter(isLive).length;
      const liveB = (await lobbiesOf(svc, b.namespaceId)).filter(isLive).length;
      assert.ok(liveA <= 3, `lobby_count_max: ${liveA}`);
      assert.equal(liveA + liveB, 4, 'the host is full');
      // Each reserves its idle minimum up to half the host (docs/runtime.md "What a tenant is guaranteed"):
      // 2 and 2 when a pass saw both versions; 3 and 1 when one saw A's before B's was deployed (B keeps
      // the last slot, and its reservation is honoured as A's lobbies end).
      assert.ok(liveB >= 1, `B has ${liveB}`);
      assert.equal((await engine.containersOf(svc)).length, 4);
    } finally {
      await svc.close();
    }
  });

  it('records a crashed server with its exit code and replaces it', async () => {
    const svc = await started();
    try {
      const ids = await runtimeGame(svc, 'crash-game');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      // Each server of this version exits on its own with 3, a few seconds after it started.
      await deploy(svc, ids, {
        default: { buildId, min: 1, max: 1, env: { TEST_EXIT_AFTER: '3', TEST_EXIT_CODE: '3' } },
      });
      await until(
        'a lobby started',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.runtime_handle !== null),
        50,
      );
      const [first] = await lobbiesOf(svc, ids.namespaceId);
      await until(
        'the crash recorded',
        WAIT_MS,
        async () => {
          const rows = await lobbiesOf(svc, ids.namespaceId);
          return rows.find((r) => r.lobby_id === first?.lobby_id)?.run_state === 'stopped';
        },
        50,
      );
      const rows = await lobbiesOf(svc, ids.namespaceId);
      const crashed = rows.find((r) => r.lobby_id === first?.lobby_id);
      assert.equal(crashed?.exit_code, 3);
      assert.equal(crashed?.failed, 1);
      assert.equal(crashed?.stop_reason, 'exited');
      await until(
        'a replacement',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).some(
            (r) => r.lobby_id !== first?.lobby_id && r.runtime_handle !== null,
          ),
        50,
      );
      const log = await svc.call(
        'GET',
        `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/logs/lobbies/${first?.lobby_id}`,
      );
      assert.equal(log.statusCode, 200);
      assert.deepEqual(
        {
          exit_code: log.json().lobby.status.stopped.exit_code,
          failed: log.json().lobby.status.stopped.failed,
        },
        { exit_code: 3, failed: true },
      );
    } finally {
      await svc.close();
    }
  });

  it('stops a lobby not ready within the ready timeout and records it failed', async () => {
    const svc = await started({ GCM_LOBBY_READY_TIMEOUT: '60' });
    try {
      const ids = await runtimeGame(svc, 'slow-game');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 1, max: 1, env: { TEST_NO_READY: '1' } } });
      await until(
        'a lobby started',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.runtime_handle !== null),
        50,
      );
      const [slow] = await lobbiesOf(svc, ids.namespaceId);
      svc.clock.advance(61_000);
      await svc.reconciler?.pass();
      const rows = await lobbiesOf(svc, ids.namespaceId);
      const stopped = rows.find((r) => r.lobby_id === slow?.lobby_id);
      assert.equal(stopped?.run_state, 'stopped');
      assert.equal(stopped?.stop_reason, 'ready-timeout');
      assert.equal(stopped?.failed, 1);
      assert.ok(
        (await engine.containersOf(svc)).every((c) => c.labels[LOBBY_LABELS.lobby] !== slow?.lobby_id),
      );
    } finally {
      await svc.close();
    }
  });

  it('rolls out: idle lobbies of the old version stop, a busy one drains, the new version starts', async () => {
    const svc = await started({ GCM_DRAIN_TIMEOUT: '600' });
    try {
      const ids = await runtimeGame(svc, 'rollout-game');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      const v1 = await deploy(svc, ids, { default: { buildId, min: 2, max: 2 } });
      await until(
        '2 lobbies ready',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready').length === 2,
        50,
      );
      const [busy, idle] = await lobbiesOf(svc, ids.namespaceId);
      await reportPlayer(
        svc,
        await lobbyTokenOf(engine.dockerd.engine, busy?.runtime_handle ?? ''),
        'player-1',
      );
      const idleToken = await lobbyTokenOf(engine.dockerd.engine, idle?.runtime_handle ?? '');
      assert.equal(
        (await svc.call('POST', '/matchmaker/lobbies/ready', { token: idleToken })).statusCode,
        200,
      );
      const v2 = await deploy(svc, ids, { default: { buildId, min: 2, max: 2 } }, 'v2');
      await until(
        'the rollout',
        WAIT_MS,
        async () => {
          const rows = await lobbiesOf(svc, ids.namespaceId);
          return (
            rows.find((r) => r.lobby_id === idle?.lobby_id)?.run_state === 'stopped' &&
            rows.filter((r) => r.version_id === v2 && r.run_state === 'ready').length === 2
          );
        },
        50,
      );
      let rows = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(rows.find((r) => r.lobby_id === idle?.lobby_id)?.stop_reason, 'rollout');
      assert.equal(rows.find((r) => r.lobby_id === idle?.lobby_id)?.failed, 0);
      const refused = await svc.call('POST', '/matchmaker/lobbies/ready', { token: idleToken });
      assert.equal(refused.statusCode, 401, 'the token of a stopped lobby stops working');
      assert.equal(
        rows.find((r) => r.lobby_id === busy?.lobby_id)?.run_state,
        'ready',
        'the busy one runs on',
      );
      assert.equal(rows.find((r) => r.lobby_id === busy?.lobby_id)?.version_id, v1);

      // The drain counts from the pass that first found the busy lobby on the old version: an edit of the
      // namespace afterwards (its update_ts moves) gives it no more time.
      await until(
        'the drain started',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.lobby_id === busy?.lobby_id)
            ?.drain_started_ts !== null,
        50,
      );
      svc.clock.advance(400_000);
      const edited = await svc.call(
        'POST',
        `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/mm-config`,
        { body: { lobby_count_max: 50, max_players: 8 } },
      );
      assert.equal(edited.statusCode, 204, edited.body);
      await svc.reconciler?.pass();
      rows = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(rows.find((r) => r.lobby_id === busy?.lobby_id)?.run_state, 'ready', 'drains on');
      svc.clock.advance(201_000);
      await svc.reconciler?.pass();
      rows = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(rows.find((r) => r.lobby_id === busy?.lobby_id)?.run_state, 'stopped');
      assert.equal(rows.find((r) => r.lobby_id === busy?.lobby_id)?.stop_reason, 'drain-timeout');
    } finally {
      await svc.close();
    }
  });

  it("collects build images no live version needs: keeps current, previous and a draining lobby's, never the operator's", async () => {
    const svc = await started({ GCM_RUNTIME_IMAGE_GC_GRACE: '0', GCM_DRAIN_TIMEOUT: '600' });
    const docker = engine.dockerd.engine;
    const present = async (ref: string) =>
      (await docker.json({ method: 'GET', path: `/images/${encodeURIComponent(ref)}/json` }, [404])) !==
      undefined;
    try {
      // The operator's own image, loaded by hand beside the service's.
      const mark = randomUUID().slice(0, 8);
      const operator = tinyImageArchive(`operator ${mark}`, [`operator-tool-${mark}:1`]);
      await readBody(
        await docker.open({
          method: 'POST',
          path: '/images/load',
          bodyStream: Readable.from([operator.archive]),
          contentType: 'application/x-tar',
        }),
        1024 * 1024,
      );
      // Three builds of three images (the test server, each with a label of its own).
      const images = [];
      for (const n of [1, 2, 3]) {
        images.push(await buildTestImage(docker, { name: `gc-${mark}-${n}:1`, variant: `${mark}-${n}` }));
      }
      const [one, two, three] = images as [TestImage, TestImage, TestImage];
      const ids = await runtimeGame(svc, 'gc-game');
      const build = (archive: Buffer) => uploadBuild(svc, ids.gameId, ids.namespaceId, archive);
      const readyOf = async (version: string) =>
        (await lobbiesOf(svc, ids.namespaceId)).filter(
          (r) => r.version_id === version && r.run_state === 'ready',
        );
      const v1 = await deploy(svc, ids, { default: { buildId: await build(one.archive), min: 1, max: 1 } });
      await until('v1 ready', WAIT_MS, async () => (await readyOf(v1)).length === 1, 50);
      const [busy] = await readyOf(v1);
      await reportPlayer(svc, await lobbyTokenOf(docker, busy?.runtime_handle ?? ''), 'player-1');
      // A build that fails: its archive holds two images, which the engine loads before the refusal.
      const failing = tinyImageArchive(
        `failed a ${mark}`,
        [`failed-${mark}-a:1`],
        [{ content: `failed b ${mark}`, repoTags: [`failed-${mark}-b:1`] }],
      );
      const vFailed = await deploy(
        svc,
        ids,
        { default: { buildId: await build(failing.archive), min: 1, max: 1 } },
        'failed',
      );
      await until(
        'the failed build failed',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).some(
            (r) => r.version_id === vFailed && r.failed === 1 && /image/.test(r.stop_reason ?? ''),
          ),
        50,
      );
      const v2 = await deploy(
        svc,
        ids,
        { default: { buildId: await build(two.archive), min: 1, max: 1 } },
        'v2',
      );
      await until('v2 ready', WAIT_MS, async () => (await readyOf(v2)).length === 1, 50);
      const v3 = await deploy(
        svc,
        ids,
        { default: { buildId: await build(three.archive), min: 1, max: 1 } },
        'v3',
      );
      await until('v3 ready', WAIT_MS, async () => (await readyOf(v3)).length === 1, 50);

      await svc.reconciler?.collectImages();
      assert.ok(await present(three.id), 'the current version keeps its image');
      assert.ok(await present(two.id), 'the previous version keeps its image: a rollback is instant');
      assert.ok(await present(one.id), 'a draining lobby of an older version keeps its image');
      for (const ref of [`failed-${mark}-a:1`, `failed-${mark}-b:1`, ...failing.ids]) {
        assert.equal(await present(ref), false, `the failed build's ${ref} is gone`);
      }

      // The drain ends: no live version needs v1's image any more.
      await until(
        'the drain started',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.lobby_id === busy?.lobby_id)
            ?.drain_started_ts !== null,
        50,
      );
      svc.clock.advance(601_000);
      await svc.reconciler?.pass();
      const done = await svc.reconciler?.collectImages();
      assert.equal(done?.[0]?.removed, 1, JSON.stringify(done));
      assert.equal(await present(one.id), false, "the old version's image is removed");
      assert.ok(await present(two.id));
      assert.ok(await present(three.id));
      assert.ok(await present(operator.ids[0] as string), "the operator's image is never removed");
      assert.ok(await present(`operator-tool-${mark}:1`));
    } finally {
      await svc.close();
    }
  });

  it('refuses a load past the image budget, and the studio sees why in its rollout', async () => {
    const svc = await started({ GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES: '4096' });
    try {
      const ids = await runtimeGame(svc, 'budget-game');
      // An archive of its own (over 4 KiB): one on the engine already would be found there, not loaded.
      const { archive } = tinyImageArchive(`budget ${randomUUID()}`);
      assert.ok(archive.length > 4096);
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, archive);
      await deploy(svc, ids, { default: { buildId, min: 1, max: 1 } });
      await until(
        'the lobby failed',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.failed === 1),
        50,
      );
      const rollout = (
        await svc.call('GET', `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/rollout`)
      ).json<{ failed: { stop_reason?: string }[]; problems: { region_id: string; message: string }[] }>();
      assert.match(
        rollout.failed[0]?.stop_reason ?? '',
        new RegExp(`build ${buildId} is not loaded.*image budget.*GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES`),
      );
      assert.deepEqual(
        rollout.problems.map((p) => p.region_id),
        ['eu'],
      );
      assert.match(rollout.problems[0]?.message ?? '', /image budget/);
      assert.equal((await engine.containersOf(svc)).length, 0, 'nothing started');
    } finally {
      await svc.close();
    }
  });

  it('fails a lobby clearly when its build is not an image, once, with lobby.failed', async () => {
    const svc = await started();
    const receiver = await WebhookReceiver.start();
    try {
      const ids = await runtimeGame(svc, 'bad-image');
      const hook = await svc.call('POST', `/cloud/games/${ids.gameId}/webhooks`, {
        body: { url: `${receiver.url}/hook`, events: ['lobby.failed', 'lobby.stopped'] },
      });
      assert.equal(hook.statusCode, 200, hook.body);
      const buildId = await uploadBuild(
        svc,
        ids.gameId,
        ids.namespaceId,
        Buffer.from('not a docker save archive'),
      );
      const failed = receiver.nextAt('/hook', WAIT_MS);
      await deploy(svc, ids, { default: { buildId, min: 2, max: 2 } });
      await until(
        'the failed lobby',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.run_state === 'stopped'),
        50,
      );
      await until('lobby.failed delivered', WAIT_MS, () =>
        receiver.at('/hook').some((r) => r.event.type === 'lobby.failed'),
      );
      await failed;
      for (let i = 0; i < 3; i++) await svc.reconciler?.pass();
      const rows = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(rows.length, 1, 'one failed lobby says why; no lobby after lobby fails the same way');
      assert.equal(rows[0]?.failed, 1);
      assert.match(rows[0]?.stop_reason ?? '', /^image: /);
      const event = receiver.at('/hook').find((r) => r.event.type === 'lobby.failed')?.event as unknown as {
        data: { lobby_id: string; reason: string };
      };
      assert.equal(event.data.lobby_id, rows[0]?.lobby_id);
      assert.match(event.data.reason, /^image: /);
      assert.equal((await engine.containersOf(svc)).length, 0);
    } finally {
      await receiver.close();
      await svc.close();
    }
  });

  it("loads a build checked against its upload's digest; one with no digest is hashed once, then loaded", async () => {
    const svc = await started();
    try {
      const ids = await runtimeGame(svc, 'digest-good');
      // A copy of its own (another padding byte), so no earlier load of the test image stands in for it.
      const archive = withPaddingByte(engine.image.archive, 3);
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, archive);
      assert.equal(await recordedArchiveDigest(svc, buildId), sha256Of(archive));
      // As a build completed before digests were recorded: its first use has it hashed, then loads it.
      await svc.deps.db
        .updateTable('builds')
        .set({ archive_sha256: null })
        .where('build_id', '=', buildId)
        .execute();
      await deploy(svc, ids, { default: { buildId, min: 1, max: 1 } });
      await until(
        'a lobby ready',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.run_state === 'ready'),
        50,
      );
      assert.equal(await recordedArchiveDigest(svc, buildId), sha256Of(archive));
      assert.ok(
        (await engineImages(engine)).some((i) => i.includes(`gcm-archive:${sha256Of(archive)}`)),
        'loaded and tagged by its digest',
      );
      assert.ok((await lobbiesOf(svc, ids.namespaceId)).every((r) => r.failed !== 1));
    } finally {
      await svc.close();
    }
  });

  it('fails the lobby and loads nothing when the archive changed in blob storage after its upload completed', async () => {
    const svc = await started();
    try {
      const ids = await runtimeGame(svc, 'digest-bad');
      const archive = withPaddingByte(engine.image.archive, 4);
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, archive);
      const declared = await recordedArchiveDigest(svc, buildId);
      assert.equal(declared, sha256Of(archive));
      // The same size and still a loadable image (one padding byte differs): only the digest tells.
      const changed = withPaddingByte(engine.image.archive, 5);
      writeFileSync(await storedArchivePath(svc, buildId), changed);
      const imagesBefore = await engineImages(engine);
      await deploy(svc, ids, { default: { buildId, min: 1, max: 1 } });
      await until(
        'the failed lobby',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.run_state === 'stopped'),
        50,
      );
      const rows = await lobbiesOf(svc, ids.namespaceId);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.failed, 1);
      assert.equal(
        rows[0]?.stop_reason,
        `image: build ${buildId}'s archive has sha256 ${sha256Of(changed)} where its upload declared ${declared}: it is not the archive that was uploaded`,
      );
      assert.deepEqual(await engineImages(engine), imagesBefore, 'nothing loaded, nothing tagged');
      assert.equal((await engine.containersOf(svc)).length, 0);
    } finally {
      await svc.close();
    }
  });
});

const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * A copy of a tar archive with the first padding byte after an entry's content set to `value`: the same size,
 * the same files (a tar reader skips padding), another sha256.
 */
function withPaddingByte(archive: Buffer, value: number): Buffer {
  for (let at = 0; at + 512 <= archive.length; ) {
    const header = archive.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const size = Number.parseInt(header.subarray(124, 136).toString('latin1').replace(/\0.*$/, '').trim(), 8);
    const blocks = Math.ceil(size / 512) * 512;
    if (size % 512 !== 0) {
      const copy = Buffer.from(archive);
      copy[at + 512 + size] = value;
      return copy;
    }
    at += 512 + blocks;
  }
  throw new Error('the archive has no padding to change');
}

/** Where the embedded store keeps the checked copy of a build's archive. */
async function storedArchivePath(svc: TestService, buildId: string): Promise<string> {
  const row = await svc.deps.db
    .selectFrom('builds')
    .innerJoin('uploads', 'uploads.upload_id', 'builds.upload_id')
    .select('uploads.frozen_key')
    .where('builds.build_id', '=', buildId)
    .executeTakeFirstOrThrow();
  const file = path.join(svc.dataDir, 'blobs', 'objects', ...(row.frozen_key ?? '').split('/'));
  assert.ok(existsSync(file), file);
  return file;
}

/** Every image on the engine, as `id tag,tag`, sorted. */
async function engineImages(engine: RuntimeEngine): Promise<string[]> {
  const body = await readBody(
    await engine.dockerd.engine.open({ method: 'GET', path: '/images/json' }),
    1 << 20,
  );
  return (JSON.parse(body) as { Id: string; RepoTags: string[] | null }[])
    .map((i) => `${i.Id} ${(i.RepoTags ?? []).sort().join(',')}`)
    .sort();
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
