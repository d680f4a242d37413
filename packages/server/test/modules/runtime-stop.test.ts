/**
 * A studio's stop of a lobby the runtime runs, end to end on a private engine: DELETE
 * /cloud/games/{g}/matchmaker/lobbies/{id} by a member of the game's team, the container gone from the
 * engine, the lobby log's stop (a studio's stop is not a failure, whatever the exit code), the webhooks, and
 * the replacement the reconciler starts to keep idle_lobbies.min. Runs on either store
 * (GCM_TEST_DATABASE_URL for PostgreSQL).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOBBY_LABELS } from '../../src/runtime/driver.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import { addMember, asPerson, giveGame, newTeam } from '../helpers/people.js';
import {
  deploy,
  isLive,
  lobbiesOf,
  runtimeGame,
  startRuntimeService,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import { until } from '../helpers/until.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const skip = dockerSkipReason('runtime-stop.test.ts');
/** This file's host ports (the other runtime test files have others). */
const PORT_RANGE = '27800-27899';
/** Containers start in about a second on an idle machine; a loaded 2-core one is slower. */
const WAIT_MS = 90_000;

describe('a studio stopping a running lobby', { skip }, () => {
  const engine = useRuntimeEngine();

  it('stops its container, logs it stopped (not failed) with lobby.stopped, and a replacement starts', async () => {
    const { svc } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
    });
    const receiver = await WebhookReceiver.start();
    try {
      const ids = await runtimeGame(svc, 'stop-game');
      const team = await newTeam(svc, 'stoppers');
      await giveGame(svc, ids.gameId, team.teamId);
      const member = asPerson(svc, await addMember(svc, team, 'member@stoppers.example', 'member'));
      const hook = await svc.call('POST', `/cloud/games/${ids.gameId}/webhooks`, {
        body: { url: `${receiver.url}/hook`, events: ['lobby.stopped', 'lobby.failed'] },
      });
      assert.equal(hook.statusCode, 200, hook.body);
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      // The server exits with 7 on SIGTERM: a studio's stop is no failure whatever the exit code says.
      await deploy(svc, ids, { default: { buildId, min: 1, max: 1, env: { TEST_TERM_EXIT: '7' } } });
      await until(
        'a lobby ready',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.run_state === 'ready'),
        50,
      );
      const [lobby] = await lobbiesOf(svc, ids.namespaceId);
      assert.ok(lobby?.runtime_handle !== null && lobby?.runtime_handle !== undefined);
      const handle = lobby.runtime_handle;
      const onEngine = async () =>
        (await engine.containersOf(svc)).filter((c) => c.labels[LOBBY_LABELS.lobby] === lobby.lobby_id);
      assert.equal((await onEngine())[0]?.state, 'running');

      const url = `/cloud/games/${ids.gameId}/matchmaker/lobbies/${lobby.lobby_id}`;
      const stop = await svc.call('DELETE', url, { token: null, headers: member });
      assert.equal(stop.statusCode, 200, stop.body);
      assert.deepEqual(stop.json(), { did_remove: true });
      // Asked again while it stops: nothing more to remove (docs/interface-notes.md).
      const again = await svc.call('DELETE', url, { token: null, headers: member });
      assert.deepEqual(again.json(), { did_remove: false });

      const stopped = receiver.nextAt('/hook', WAIT_MS);
      await until(
        'the lobby stopped',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.lobby_id === lobby.lobby_id)?.run_state ===
          'stopped',
        50,
      );
      const row = (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.lobby_id === lobby.lobby_id);
      assert.equal(row?.stop_reason, 'studio');
      assert.equal(row?.failed, 0);
      assert.equal(row?.exit_code, 7, 'the exit code the engine reported after SIGTERM');
      assert.ok(row?.stop_ts !== null);
      await until(
        'its container removed from the engine',
        WAIT_MS,
        async () => (await onEngine()).length === 0,
        50,
      );
      // The list leaves out a container being removed; the engine forgets it once removed (inspect: 404).
      await until(
        'the engine no longer knows the container',
        WAIT_MS,
        async () =>
          (await engine.dockerd.engine.json({ method: 'GET', path: `/containers/${handle}/json` }, [404])) ===
          undefined,
        50,
      );

      const log = await svc.call(
        'GET',
        `/cloud/games/${ids.gameId}/namespaces/${ids.namespaceId}/logs/lobbies/${lobby.lobby_id}`,
        { token: null, headers: member },
      );
      assert.equal(log.statusCode, 200, log.body);
      assert.deepEqual(
        {
          exit_code: log.json().lobby.status.stopped.exit_code,
          failed: log.json().lobby.status.stopped.failed,
        },
        { exit_code: 7, failed: false },
      );

      const delivered = await stopped;
      assert.equal(delivered.event.type, 'lobby.stopped');
      const data = delivered.event.data as { lobby_id: string; exit_code: number | null; failed: boolean };
      assert.deepEqual([data.lobby_id, data.exit_code, data.failed], [lobby.lobby_id, 7, false]);

      // idle_lobbies.min is 1: the reconciler starts another in its place.
      await until(
        'a replacement ready',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).some(
            (r) => r.lobby_id !== lobby.lobby_id && r.run_state === 'ready',
          ),
        50,
      );
      const live = (await lobbiesOf(svc, ids.namespaceId)).filter(isLive);
      assert.equal(live.length, 1);
      assert.deepEqual(
        (await engine.containersOf(svc)).map((c) => c.labels[LOBBY_LABELS.lobby]),
        [live[0]?.lobby_id],
      );
      // Its stop queued no lobby.failed (which would have been queued with lobby.stopped, in order).
      assert.deepEqual(
        receiver.at('/hook').map((r) => r.event.type),
        ['lobby.stopped'],
      );
      // Stopped for good: still nothing to remove.
      assert.deepEqual((await svc.call('DELETE', url, { token: null, headers: member })).json(), {
        did_remove: false,
      });
    } finally {
      await receiver.close();
      await svc.close();
    }
  });
});
