/**
 * A player's way into a real lobby, through the original API's published client (@rivet-gg/api): find
 * answers a lobby the runtime started on the test engine; the player connects to its game port and sends its
 * player token; the busybox server asks POST /matchmaker/players/connected and admits the player once; the
 * player leaves and its slot is free. On both stores.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RivetClient } from '@rivet-gg/api';
import { dockerSkipReason } from '../helpers/dockerd.js';
import { mintPublicToken } from '../helpers/runtime-lobbies.js';
import {
  deploy,
  lobbiesOf,
  runtimeGame,
  sayToLobby,
  startRuntimeService,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import { until } from '../helpers/until.js';

const skip = dockerSkipReason('matchmaker-find-runtime.test.ts');
const PORT_RANGE = '27900-27999';
const WAIT_MS = 90_000;

const say = sayToLobby;

describe('a player finds a running lobby and connects to it', { skip }, () => {
  const engine = useRuntimeEngine();

  it('find → the lobby admits the player token once → the player leaves', async () => {
    const { svc, publicUrl } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORT_RANGE,
    });
    try {
      const ids = await runtimeGame(svc, 'find-runtime');
      const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
      await deploy(svc, ids, { default: { buildId, min: 1, max: 1, regions: ['eu'] } });
      await until(
        'a lobby ready',
        WAIT_MS,
        async () => (await lobbiesOf(svc, ids.namespaceId)).some((r) => r.run_state === 'ready'),
        100,
      );
      const client = new RivetClient({ environment: publicUrl, token: await mintPublicToken(svc, ids) });
      const found = await client.matchmaker.lobbies.find({ gameModes: ['default'], regions: ['eu'] });
      const [lobby] = (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready');
      assert.equal(found.lobby.lobbyId, lobby?.lobby_id);
      assert.equal(found.lobby.region.regionId, 'eu');
      const game = found.ports.game;
      assert.ok(game?.port !== undefined, JSON.stringify(found.ports));
      assert.equal(game.isTls, false);
      assert.equal(lobby?.player_count, 1, 'the slot is held from find');

      const token = found.player.token;
      await until(
        'the game port answers',
        WAIT_MS,
        () =>
          say(game.hostname, game.port ?? 0, 'hello').then(
            () => true,
            () => false,
          ),
        100,
      );
      assert.equal(await say(game.hostname, game.port, `player ${token}`), 'admitted');
      assert.equal(
        await say(game.hostname, game.port, `player ${token}`),
        'refused',
        'a player token admits once',
      );
      assert.equal(await say(game.hostname, game.port, 'player not-a-token'), 'refused');
      const connected = await svc.deps.db
        .selectFrom('lobby_players')
        .select('state')
        .where('lobby_id', '=', found.lobby.lobbyId)
        .execute();
      assert.deepEqual(connected, [{ state: 'connected' }]);

      // A busy lobby is no longer idle: the reconciler starts another to keep one idle.
      await until(
        'a second lobby for idle_lobbies.min',
        WAIT_MS,
        async () =>
          (await lobbiesOf(svc, ids.namespaceId)).filter((r) => r.run_state === 'ready').length === 2,
        100,
      );

      assert.equal(await say(game.hostname, game.port, `leave ${token}`), 'left');
      const after = (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.lobby_id === found.lobby.lobbyId);
      assert.equal(after?.player_count, 0);
    } finally {
      await svc.close();
    }
  });
});
