/**
 * The runtime on a Docker Swarm (GCM_RUNTIME=swarm): a private engine made a one-node swarm serving region
 * `eu`, a private registry, the busybox test server as the build. What the docker runtime does, the swarm
 * does through the same reconciler: idle lobbies, ready, a player's find and connection at the node's
 * address, output, a rollout, adoption after a restart; and what only a cluster has: a drained node. On both
 * stores.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { GetLobbyLogsResponse } from '@gcm/contract';
import { RivetClient } from '@rivet-gg/api';
import { ownerOf } from '../../src/modules/runtime/runtime.service.js';
import { LOBBY_LABELS } from '../../src/runtime/driver.js';
import { freePort } from '../helpers/listening.js';
import { dropTestDatabase, onPostgres } from '../helpers/postgres.js';
import { mintPublicToken } from '../helpers/runtime-lobbies.js';
import { deploy, isLive, lobbiesOf, runtimeGame, tellLobby, uploadBuild } from '../helpers/runtime-world.js';
import { startSwarmService, swarmSkipReason, useSwarmEngine } from '../helpers/swarm-world.js';
import { until } from '../helpers/until.js';

const skip = swarmSkipReason('runtime-swarm.test.ts');
/** This file's host ports: other runtime test files use other ranges. */
const PORT_RANGE = '28500-28599';
/** A task starts in a few seconds on an idle machine; a loaded 2-core one is slower. */
const WAIT_MS = 120_000;
/**
 * The swarm reserves each lobby's tier on its node, and the node has the machine's two cores: basic-1d1 (a
 * core each) would fit two lobbies; basic-1d16 (1/16 of a core) fits 32.
 */
const TIER = 'basic-1d16';

describe('the lobby runtime on a Docker Swarm', { skip }, () => {
  const engine = useSwarmEngine();

  it('runs idle lobbies on the region’s node; a player finds one and connects at the node’s address', async () => {
    // The region's own host is one no player could reach: the answer must name the node's address.
    const { svc, publicUrl } = await startSwarmService({
      engine,
      portRange: PORT_RANGE,
      env: { GCM_REGION_PUBLIC_HOSTS: 'eu=region-host.invalid' },
    });
    try {
      const ids = await runtimeGame(svc, 'swarm-find');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 2, max: 2, regions: ['eu'], tier: TIER } });
      await until(
        '2 lobbies ready',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready').length === 2,
        100,
      );
      const ready = (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready');
      for (const row of ready) {
        assert.equal(row.public_host, '127.0.0.1', 'the node’s gcm.public_host label');
        assert.ok(row.runtime_handle !== null);
      }
      const onSwarm = await engine.lobbiesOn(svc);
      assert.deepEqual(
        onSwarm.map((l) => l.handle).sort(),
        ready.map((r) => r.runtime_handle).sort(),
        'each lobby is one swarm service',
      );
      assert.ok(onSwarm.every((l) => l.state === 'running' && l.region === 'eu'));

      const client = new RivetClient({ environment: publicUrl, token: await mintPublicToken(svc, ids) });
      const found = await client.matchmaker.lobbies.find({ gameModes: ['default'], regions: ['eu'] });
      const game = found.ports.game;
      assert.equal(game?.hostname, '127.0.0.1');
      const port = game?.port ?? 0;
      // The server listens a moment after it calls ready: connect until it does.
      assert.equal(await tellLobby(port, `player ${found.player.token}`), 'admitted');

      // What it printed reached the lobby's log through the service's log of the swarm.
      const logs = await svc.call(
        'GET',
        `/cloud/games/${ids.gameId}/matchmaker/lobbies/${found.lobby.lobbyId}/logs?stream=std_out`,
      );
      assert.equal(logs.statusCode, 200, logs.body);
      const lines = logs
        .json<GetLobbyLogsResponse>()
        .lines.map((line) => Buffer.from(line, 'base64').toString('utf8'));
      assert.ok(
        lines.some((l) => l.startsWith('server: starting')),
        lines.join('\n'),
      );

      // Busy, it is not idle: the reconciler starts another to keep two idle.
      await until(
        'a third lobby for idle_lobbies.min',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready').length === 3,
        100,
      );
    } finally {
      await svc.close();
    }
  });

  it('adopts what runs after a restart, then rolls out a version: the old lobbies stop with exit codes', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-runtime-swarm-'));
    const options = { engine, portRange: PORT_RANGE, dataDir, port: await freePort() };
    let { svc } = await startSwarmService(options);
    try {
      const ids = await runtimeGame(svc, 'swarm-rollout');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 1, max: 1, regions: ['eu'], tier: TIER } });
      await until(
        'a lobby ready',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.run_state === 'ready'),
        100,
      );
      const [first] = (await lobbiesOf(svc, ids.namespaceId)).filter(isLive);
      await svc.close();
      ({ svc } = await startSwarmService(options));
      // Down, the lobby kept running; the restarted service adopts it (a lobby it did not find would be
      // recorded lost, and another started): it is the one the rollout stops.
      assert.ok((await engine.lobbiesOn(svc)).some((l) => l.handle === first?.runtime_handle));
      const v2 = await deploy(
        svc,
        ids,
        { default: { buildId, min: 1, max: 1, regions: ['eu'], tier: TIER, env: { TEST_TERM_EXIT: '3' } } },
        'v2',
      );
      await until(
        'the old lobby stopped and one of v2 ready',
        WAIT_MS,
        async () => {
          const rows = await lobbiesOf(svc, ids.namespaceId);
          const old = rows.find((r) => r.lobby_id === first?.lobby_id);
          return (
            old?.run_state === 'stopped' && rows.some((r) => r.version_id === v2 && r.run_state === 'ready')
          );
        },
        100,
      );
      const old = (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.lobby_id === first?.lobby_id);
      assert.equal(old?.stop_reason, 'rollout');
      // The test server exits 0 on TERM unless told otherwise: the code the swarm kept for its task.
      assert.equal(old?.exit_code, 0);
      await until(
        'the old lobby’s service removed',
        WAIT_MS,
        async () => !(await engine.lobbiesOn(svc)).some((l) => l.handle === old?.runtime_handle),
        100,
      );
    } finally {
      await svc.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (onPostgres) await dropTestDatabase(dataDir);
    }
  });

  it('records the lobbies of a drained node stopped as node-lost, and starts none where no node is ready', async () => {
    const { svc } = await startSwarmService({ engine, portRange: PORT_RANGE });
    try {
      const ids = await runtimeGame(svc, 'swarm-drain');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 2, max: 2, regions: ['eu'], tier: TIER } });
      await until(
        '2 lobbies ready',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready').length === 2,
        100,
      );
      const ready = (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready');
      await engine.swarm.drain(engine.nodeId);
      try {
        await until(
          'both lobbies recorded stopped',
          WAIT_MS,
          async () => {
            const rows = await lobbiesOf(svc, ids.namespaceId);
            return ready.every((r) => rows.find((x) => x.lobby_id === r.lobby_id)?.run_state === 'stopped');
          },
          100,
        );
        const rows = await lobbiesOf(svc, ids.namespaceId);
        for (const lobby of ready) {
          const row = rows.find((r) => r.lobby_id === lobby.lobby_id);
          assert.equal(row?.stop_reason, 'node-lost', JSON.stringify(row));
          assert.equal(row?.exit_code, null);
        }
        // No node serves eu now: nothing is started there, and nothing is left running.
        await until('no lobby on the swarm', WAIT_MS, async () => (await engine.lobbiesOn(svc)).length === 0);
        assert.equal((await lobbiesOf(svc, ids.namespaceId)).filter(isLive).length, 0);
      } finally {
        await engine.swarm.activate(engine.nodeId);
      }
      // The node is back: the region's idle lobbies start again.
      await until(
        '2 new lobbies ready',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready').length === 2,
        100,
      );
    } finally {
      await svc.close();
    }
  });
});

describe('the lobby runtime on a two-node swarm', { skip }, () => {
  const engine = useSwarmEngine({ nodes: 2 });

  it('records a dead node’s lobbies stopped as node-lost and replaces the idle ones on the region’s other node', async () => {
    const { svc } = await startSwarmService({ engine, portRange: PORT_RANGE });
    try {
      const ids = await runtimeGame(svc, 'swarm-node-loss');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      // Half a core each: a node (two cores, as each engine reports the machine) takes four, so six need both.
      await deploy(svc, ids, { default: { buildId, min: 6, max: 6, regions: ['eu'], tier: 'basic-1d2' } });
      const readyCount = async () =>
        (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready').length;
      await until('6 lobbies ready', WAIT_MS, async () => (await readyCount()) === 6, 100);
      const [, worker] = engine.swarm.nodes;
      const onWorker = async () =>
        (await engine.driver.nodes({ [LOBBY_LABELS.owner]: ownerOf(svc.deps.config) })).find(
          (n) => n.id === worker?.id,
        )?.lobbies ?? 0;
      const lostCount = await onWorker();
      assert.ok(lostCount >= 2, `the swarm put ${lostCount} of 6 on the worker`);
      const before = await lobbiesOf(svc, ids.namespaceId);

      await engine.swarm.kill(1);
      await until(
        'the worker’s lobbies recorded node-lost',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.stop_reason === 'node-lost').length ===
          lostCount,
        100,
      );
      // Replaced on the manager, the region's one node left, as far as it has room: four ready again there.
      await until('4 lobbies ready on the manager', WAIT_MS, async () => (await readyCount()) === 4, 100);
      const lost = (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.stop_reason === 'node-lost');
      for (const row of lost) {
        assert.equal(row.run_state, 'stopped');
        assert.ok(before.some((b) => b.lobby_id === row.lobby_id));
      }
    } finally {
      await svc.close();
    }
  });
});
