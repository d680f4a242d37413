import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ownerOf } from '../../src/modules/runtime/runtime.service.js';
import { readBody } from '../../src/runtime/docker/engine.js';
import { LOBBY_LABELS } from '../../src/runtime/driver.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import { freePort } from '../helpers/listening.js';
import { dropTestDatabase, onPostgres } from '../helpers/postgres.js';
import {
  deploy,
  isLive,
  lobbiesOf,
  runtimeGame,
  startRuntimeService,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import { secondInstance } from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';
import { imageArchive } from '../helpers/test-image.js';
import { until } from '../helpers/until.js';

const skip = dockerSkipReason('runtime-restart.test.ts');
/** This file's host ports (runtime.test.ts has others). */
const PORT_RANGE = '27400-27699';
const WAIT_MS = 90_000;

describe('the lobby runtime across restarts and instances', { skip }, () => {
  const engine = useRuntimeEngine();

  it('adopts running lobbies after a restart, removes containers no lobby knows, records lost ones', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-runtime-restart-'));
    const port = await freePort();
    const options = { dockerHost: engine.dockerd.dockerHost, portRange: PORT_RANGE, dataDir, port };
    let { svc } = await startRuntimeService(options);
    try {
      const ids = await runtimeGame(svc, 'restart-game');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 2, max: 2 } });
      await until(
        '2 lobbies ready',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready').length === 2,
        50,
      );
      const before = await lobbiesOf(svc, ids.namespaceId);
      const owner = ownerOf(svc.deps.config);
      await svc.close();
      // Down: the lobbies keep running. One container goes away meanwhile, and one nobody made appears.
      const running = await engine.driver.list({ [LOBBY_LABELS.owner]: owner });
      assert.equal(
        running.filter((c) => c.state === 'running').length,
        2,
        'closing the service stops no lobby',
      );
      const [kept, lost] = before;
      await readBody(
        await engine.dockerd.engine.open({
          method: 'DELETE',
          path: `/containers/${lost?.runtime_handle}`,
          query: { force: 1 },
        }),
        65536,
      );
      const { image: ref } = await engine.driver.ensureImage('eu', imageArchive(engine.image.archive));
      const stray = await engine.driver.start({
        lobbyId: 'stray',
        region: 'eu',
        image: ref,
        args: [],
        env: { TEST_NO_READY: '1' },
        networkMode: 'host',
        ports: [],
        limits: { nanoCpus: 100_000_000, memoryBytes: 64 * 1024 * 1024, pids: 64 },
        readOnlyRootFs: true,
        labels: {
          [LOBBY_LABELS.owner]: owner,
          [LOBBY_LABELS.lobby]: 'stray',
          [LOBBY_LABELS.namespace]: ids.namespaceId,
        },
      });

      ({ svc } = await startRuntimeService(options));
      await until(
        'the stray container removed',
        WAIT_MS,
        async () =>
          (await engine.driver.list({ [LOBBY_LABELS.owner]: owner })).every((c) => c.handle !== stray.handle),
        100,
      );
      await until(
        'the lost lobby recorded and replaced',
        WAIT_MS,
        async () => {
          const rows = await lobbiesOf(svc, ids.namespaceId);
          return (
            rows.find((r) => r.lobby_id === lost?.lobby_id)?.run_state === 'stopped' &&
            rows.filter((r) => r.run_state === 'ready').length === 2
          );
        },
        50,
      );
      const rows = await lobbiesOf(svc, ids.namespaceId);
      const adopted = rows.find((r) => r.lobby_id === kept?.lobby_id);
      assert.equal(adopted?.run_state, 'ready', 'the running lobby is adopted, not replaced');
      assert.equal(adopted?.runtime_handle, kept?.runtime_handle);
      const gone = rows.find((r) => r.lobby_id === lost?.lobby_id);
      assert.equal(gone?.stop_reason, 'lost');
      assert.equal(gone?.failed, 1);
      assert.equal(rows.length, 3, 'one replacement, nothing else');
      const containers = (await engine.driver.list({ [LOBBY_LABELS.owner]: owner })).filter(
        (c) => c.state === 'running',
      );
      assert.deepEqual(
        containers.map((c) => c.labels[LOBBY_LABELS.lobby]).sort(),
        rows
          .filter(isLive)
          .map((r) => r.lobby_id)
          .sort(),
        'no row says running without a container, no container runs without a row',
      );
    } finally {
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (onPostgres) await dropTestDatabase(dataDir);
    }
  });

  it('never starts a lobby twice with two instances on one PostgreSQL', pgOnly, async () => {
    const { svc: first, publicUrl } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
    });
    const second = await secondInstance(first, {
      GCM_PUBLIC_URL: publicUrl,
      GCM_RUNTIME: 'docker',
      GCM_REGIONS: 'eu,us',
      GCM_RUNTIME_HOSTS: `eu=${engine.dockerd.dockerHost},us=${engine.dockerd.dockerHost}`,
      GCM_RUNTIME_PORT_RANGE: PORT_RANGE,
      GCM_RUNTIME_RECONCILE_INTERVAL: '1',
      GCM_LOBBY_STOP_GRACE: '1',
    });
    try {
      const ids = await runtimeGame(first, 'two-instances');
      const buildId = await uploadBuild(first, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(first, ids, { default: { buildId, min: 3, max: 3, regions: ['eu', 'us'] } });
      for (let i = 0; i < 5; i++) {
        second.deps.runtime.wake(ids.namespaceId);
        await Promise.all([first.reconciler?.pass(), second.reconciler?.pass()]);
      }
      await until(
        '6 lobbies ready',
        WAIT_MS,
        async () =>
          (await lobbiesOf(first, ids.namespaceId)).filter((r) => r.run_state === 'ready').length === 6,
        50,
      );
      for (let i = 0; i < 3; i++) await Promise.all([first.reconciler?.pass(), second.reconciler?.pass()]);
      const rows = await lobbiesOf(first, ids.namespaceId);
      assert.equal(rows.length, 6, 'every lobby row is one the game mode asked for');
      const containers = await engine.driver.list({ [LOBBY_LABELS.owner]: ownerOf(first.deps.config) });
      assert.equal(containers.length, 6, 'one container per lobby');
    } finally {
      await second.close();
      await first.close();
    }
  });
});
