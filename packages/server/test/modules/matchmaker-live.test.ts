/**
 * The studio's live view of a namespace (GET …/analytics/matchmaker/live) on both stores, over lobby rows
 * written as the reconciler writes them (helpers/runtime-lobbies.ts) and players put in them by find and
 * the lobby's own players/connected call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type GetAnalyticsMatchmakerLiveResponse, LIVE_LOBBIES_MAX } from '@gcm/contract';
import { RivetClient } from '@rivet-gg/api';
import { isPostgres } from '../../src/db/open-db.js';
import { newId } from '../../src/lib/ids.js';
import { liveLobbiesQuery } from '../../src/modules/runtime/live-lobbies.repository.js';
import { createGameWorld, type GameWorld, newNamespace } from '../helpers/api-world.js';
import { assertError } from '../helpers/error-answer.js';
import { startListening } from '../helpers/listening.js';
import { addMember, asPerson, giveGame, newTeam } from '../helpers/people.js';
import { queryPlan } from '../helpers/query-plan.js';
import {
  find,
  mintPublicToken,
  seedRuntimeLobby,
  switchToRuntimeVersion,
} from '../helpers/runtime-lobbies.js';
import type { TestService } from '../helpers/service.js';

describe('the live lobbies of a namespace', () => {
  let svc: TestService;
  let publicUrl: string;
  let world: GameWorld;
  let other: GameWorld;
  let publicToken: string;
  let versionId: string;

  before(async () => {
    // Listening: the original's published client reads the view over real HTTP.
    ({ svc, publicUrl } = await startListening());
    world = await createGameWorld(svc, 'live-game');
    other = await createGameWorld(svc, 'live-other');
    versionId = await switchToRuntimeVersion(svc, world, { min: 0, max: 0 });
    publicToken = await mintPublicToken(svc, world);
  });
  after(async () => {
    await svc?.close();
  });

  const livePath = (gameId: string, namespaceId: string) =>
    `/cloud/games/${gameId}/namespaces/${namespaceId}/analytics/matchmaker/live`;
  const live = async (token = world.cloudToken, namespaceId = world.namespaceId) => {
    const res = await svc.call('GET', livePath(world.gameId, namespaceId), { token });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<GetAnalyticsMatchmakerLiveResponse>();
  };

  it('answers the starting and ready lobbies, newest first, with the players find put in them', async () => {
    const stopped = await seedRuntimeLobby(
      svc,
      { namespaceId: world.namespaceId, versionId },
      {
        runState: 'stopped',
      },
    );
    const stopping = await seedRuntimeLobby(
      svc,
      { namespaceId: world.namespaceId, versionId },
      {
        runState: 'stopping',
      },
    );
    const outdated = await seedRuntimeLobby(
      svc,
      { namespaceId: world.namespaceId, versionId: world.versionId },
      { runState: 'ready', isClosed: true, maxPlayers: 4 },
    );
    svc.clock.advance(1);
    const busy = await seedRuntimeLobby(
      svc,
      { namespaceId: world.namespaceId, versionId },
      {
        runState: 'ready',
        maxPlayers: 8,
      },
    );
    svc.clock.advance(1);
    const starting = await seedRuntimeLobby(
      svc,
      { namespaceId: world.namespaceId, versionId },
      {
        runState: 'starting',
      },
    );

    const before = (await live()).lobbies.find((l) => l.lobby_id === busy.lobbyId);
    assert.equal(before?.total_player_count, 0);
    assert.equal(before?.is_idle, true);

    // Two players found into the only open ready lobby; the lobby admits one of them.
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await find(svc, publicToken);
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json<{ lobby: { lobby_id: string }; player: { token: string } }>();
      assert.equal(answer.lobby.lobby_id, busy.lobbyId);
      tokens.push(answer.player.token);
    }
    const connected = await svc.call('POST', '/matchmaker/players/connected', {
      token: busy.token,
      body: { player_token: tokens[0] },
    });
    assert.equal(connected.statusCode, 200, connected.body);

    const answer = await live();
    assert.equal(answer.truncated, false);
    assert.deepEqual(
      answer.lobbies.map((l) => l.lobby_id),
      [starting.lobbyId, busy.lobbyId, outdated.lobbyId],
      'newest first; no stopping, stopped or reported lobby',
    );
    for (const gone of [stopped.lobbyId, stopping.lobbyId, world.lobbyId])
      assert.ok(!answer.lobbies.some((l) => l.lobby_id === gone));
    const [s, b, o] = answer.lobbies;
    assert.deepEqual(b, {
      lobby_id: busy.lobbyId,
      lobby_group_id: b?.lobby_group_id,
      lobby_group_name_id: 'default',
      region_id: 'lnd-atl',
      create_ts: b?.create_ts,
      is_ready: true,
      is_idle: false,
      is_closed: false,
      is_outdated: false,
      max_players_normal: 8,
      max_players_direct: 8,
      max_players_party: 8,
      total_player_count: 2,
      registered_player_count: 1,
    });
    assert.match(
      b?.lobby_group_id ?? '',
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.equal(s?.lobby_group_id, b?.lobby_group_id, 'one lobby group per version and game mode');
    assert.notEqual(o?.lobby_group_id, b?.lobby_group_id, 'another version is another group');
    assert.equal(s?.is_ready, false);
    assert.equal(s?.is_idle, false);
    assert.equal(o?.is_outdated, true);
    assert.equal(o?.is_closed, true);
    assert.equal(o?.is_idle, false, 'a closed lobby is not idle');
    assert.equal(o?.max_players_normal, 4);

    // The original's published client reads the same answer (our `truncated` passes through).
    const client = new RivetClient({ environment: publicUrl, token: world.cloudToken });
    const read = await client.cloud.games.namespaces.analytics.getAnalyticsMatchmakerLive(
      world.gameId,
      world.namespaceId,
    );
    const seen = read.lobbies.find((l) => l.lobbyId === busy.lobbyId);
    assert.deepEqual(
      [seen?.lobbyGroupNameId, seen?.totalPlayerCount, seen?.registeredPlayerCount, seen?.isReady],
      ['default', 2, 1, true],
    );
    assert.equal(seen?.createTs.toISOString(), b?.create_ts);

    // The stop moves it out of the live view.
    const stop = await svc.call('DELETE', `/cloud/games/${world.gameId}/matchmaker/lobbies/${busy.lobbyId}`, {
      token: world.cloudToken,
    });
    assert.equal(stop.statusCode, 200, stop.body);
    assert.ok(!(await live()).lobbies.some((l) => l.lobby_id === busy.lobbyId));
  });

  it("answers the game's team from viewer up, and nobody else", async () => {
    const team = await newTeam(svc, 'live-team');
    await giveGame(svc, world.gameId, team.teamId);
    const viewer = await addMember(svc, team, 'viewer-live@example.com', 'viewer');
    const stranger = await newTeam(svc, 'live-stranger');
    const asViewer = await svc.call('GET', livePath(world.gameId, world.namespaceId), {
      token: null,
      headers: asPerson(svc, viewer),
    });
    assert.equal(asViewer.statusCode, 200, asViewer.body);
    assertError(
      await svc.call('GET', livePath(world.gameId, world.namespaceId), {
        token: null,
        headers: asPerson(svc, stranger.owner.cookie),
      }),
      403,
      'API_FORBIDDEN',
    );
    assertError(
      await svc.call('GET', livePath(world.gameId, world.namespaceId), { token: other.cloudToken }),
      403,
      'API_FORBIDDEN',
    );
    assertError(
      await svc.call('GET', livePath(world.gameId, other.namespaceId), { token: world.cloudToken }),
      404,
      'NAMESPACE_NOT_FOUND',
    );
    assertError(
      await svc.call('GET', livePath(world.gameId, world.namespaceId), { token: publicToken }),
      403,
      'API_FORBIDDEN',
    );
  });

  it(`answers at most ${LIVE_LOBBIES_MAX}, the newest, and says it left some out`, async () => {
    const namespaceId = await newNamespace(svc, world.gameId, versionId, 'live-many');
    const base = svc.clock.now();
    const rows = Array.from({ length: LIVE_LOBBIES_MAX + 2 }, (_, i) => ({
      lobby_id: newId(),
      namespace_id: namespaceId,
      lobby_group_name_id: 'default',
      region_id: 'lnd-atl',
      create_ts: base + i,
      run_state: 'ready' as const,
      version_id: versionId,
      is_closed: 0,
      player_count: 0,
      max_players: 8,
    }));
    for (let i = 0; i < rows.length; i += 200)
      await svc.deps.db
        .insertInto('lobbies')
        .values(rows.slice(i, i + 200))
        .execute();
    const answer = await live(world.cloudToken, namespaceId);
    assert.equal(answer.truncated, true);
    assert.equal(answer.lobbies.length, LIVE_LOBBIES_MAX);
    assert.equal(answer.lobbies[0]?.lobby_id, rows.at(-1)?.lobby_id, 'the newest first');
    assert.equal(answer.lobbies.at(-1)?.lobby_id, rows[2]?.lobby_id, 'the two oldest left out');
  });

  it('reads a range of lobbies_live_recent in its order, whatever the size of the log', async () => {
    const plan = await queryPlan(svc.deps.db, liveLobbiesQuery(svc.deps.db, world.namespaceId, 10).compile());
    assert.match(plan, /lobbies_live_recent/, plan);
    if (isPostgres(svc.deps.db)) assert.doesNotMatch(plan, /Sort/, plan);
    else assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
  });
});
