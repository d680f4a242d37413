/**
 * Lobby rows as the reconciler writes them (the row protocol in docs/runtime.md), put straight into the
 * store: the lobby-facing routes are tested on their own, without a Docker engine, by holding the token the
 * reconciler would have put in the container's GCM_LOBBY_TOKEN.
 */
import assert from 'node:assert/strict';
import { hashLobbyToken, newLobbyToken } from '../../src/identity/lobby-tokens.js';
import { sha256Hex } from '../../src/identity/token-authority.js';
import { newId } from '../../src/lib/ids.js';
import type { GameWorld } from './api-world.js';
import type { TestService } from './service.js';

export interface SeededLobby {
  lobbyId: string;
  /** What the container would have in GCM_LOBBY_TOKEN. */
  token: string;
}

export async function seedRuntimeLobby(
  svc: TestService,
  where: { namespaceId: string; versionId: string },
  options: {
    runState?: 'starting' | 'ready' | 'stopping' | 'stopped';
    gameMode?: string;
    region?: string;
    maxPlayers?: number;
    playerCount?: number;
    isClosed?: boolean;
    failed?: { exitCode: number; reason: string };
  } = {},
): Promise<SeededLobby> {
  const { token, hash } = newLobbyToken();
  const lobbyId = newId();
  const now = svc.clock.now();
  const state = options.runState ?? 'starting';
  const stopped = state === 'stopped';
  await svc.deps.db
    .insertInto('lobbies')
    .values({
      lobby_id: lobbyId,
      namespace_id: where.namespaceId,
      lobby_group_name_id: options.gameMode ?? 'default',
      region_id: options.region ?? 'lnd-atl',
      create_ts: now,
      start_ts: now,
      ready_ts: state === 'ready' ? now : null,
      stop_ts: stopped ? now : null,
      exit_code: stopped ? (options.failed?.exitCode ?? 0) : null,
      failed: stopped ? (options.failed === undefined ? 0 : 1) : null,
      run_state: state,
      version_id: where.versionId,
      is_closed: options.isClosed === true ? 1 : 0,
      player_count: options.playerCount ?? 0,
      max_players: options.maxPlayers ?? 8,
      token_hash: hash,
      runtime_host: 'local',
      runtime_handle: `seeded-${lobbyId}`,
      ports: '[]',
      ready_deadline_ts: now + 300_000,
      stop_requested_ts: state === 'stopping' ? now : null,
      stop_reason: options.failed?.reason ?? null,
    })
    .execute();
  return { lobbyId, token };
}

interface IdleLobbies {
  min: number;
  max: number;
}

/**
 * A version `v2` of the world's game whose `default` game mode runs the world's build in lnd-atl and
 * lnd-fra, keeping `idle` idle lobbies in each (`fraIdle` in lnd-fra when given), and the world's namespace
 * switched to it: what seeded lobbies of a rollout belong to, beside the world's first version's. Answers
 * v2's id.
 */
export async function switchToRuntimeVersion(
  svc: TestService,
  world: Pick<GameWorld, 'gameId' | 'namespaceId' | 'buildId'>,
  idle: IdleLobbies,
  fraIdle?: IdleLobbies,
): Promise<string> {
  const version = await svc.call('POST', `/cloud/games/${world.gameId}/versions`, {
    body: {
      display_name: 'v2',
      config: {
        matchmaker: {
          game_modes: {
            default: {
              container: { image_id: world.buildId },
              idle_lobbies: idle,
              // Custom lobbies of either publicity, so POST /matchmaker/lobbies/create gets past its checks.
              actions: { create: { enabled: true, enable_public: true, enable_private: true } },
              regions: { 'lnd-atl': {}, 'lnd-fra': fraIdle === undefined ? {} : { idle_lobbies: fraIdle } },
            },
          },
        },
      },
    },
  });
  assert.equal(version.statusCode, 200, version.body);
  const versionId = version.json<{ version_id: string }>().version_id;
  const switched = await svc.call(
    'PUT',
    `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/version`,
    { body: { version_id: versionId } },
  );
  assert.equal(switched.statusCode, 204, switched.body);
  return versionId;
}

/** A public token of the world's namespace, as a game client holds it. */
export async function mintPublicToken(
  svc: TestService,
  world: Pick<GameWorld, 'gameId' | 'namespaceId'>,
): Promise<string> {
  const res = await svc.call(
    'POST',
    `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/tokens/public`,
  );
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ token: string }>().token;
}

/** POST /matchmaker/lobbies/find with a public token; by default game mode `default`, no auto-create. */
export function find(svc: TestService, publicToken: string, body: Record<string, unknown> = {}) {
  return svc.call('POST', '/matchmaker/lobbies/find', {
    token: publicToken,
    body: { game_modes: ['default'], prevent_auto_create_lobby: true, ...body },
  });
}

/** A player token from find, for the lobby find put the player in (asserted when `lobbyId` is given). */
export async function playerTokenOf(
  svc: TestService,
  publicToken: string,
  lobbyId?: string,
): Promise<string> {
  const res = await find(svc, publicToken);
  assert.equal(res.statusCode, 200, res.body);
  const answer = res.json<{ lobby: { lobby_id: string }; player: { token: string } }>();
  if (lobbyId !== undefined) assert.equal(answer.lobby.lobby_id, lobbyId);
  return answer.player.token;
}

/** Player tokens issued by issuePlayerToken, by lobby token and player name. */
const issuedPlayers = new Map<string, string>();

/**
 * A player token for THIS lobby, issued as find issues one (a signed token and its pending slot): the
 * reconciler's and the authorization matrix's tests pick which lobby gets a player, which find (fullest
 * first) does not let them choose. The matchmaker's own tests get theirs from find.
 */
export async function issuePlayerToken(svc: TestService, lobbyToken: string, name: string): Promise<string> {
  const key = `${lobbyToken} ${name}`;
  const known = issuedPlayers.get(key);
  if (known !== undefined) return known;
  const lobby = await svc.deps.db
    .selectFrom('lobbies')
    .select(['namespace_id', 'lobby_id'])
    .where('token_hash', '=', hashLobbyToken(lobbyToken))
    .executeTakeFirstOrThrow();
  const now = svc.clock.now();
  const deadline = now + 3_600_000;
  const playerId = newId();
  const token = await svc.deps.tokens.signPlayerToken({
    namespaceId: lobby.namespace_id,
    lobbyId: lobby.lobby_id,
    playerId,
    createTs: now,
    expireTs: deadline,
  });
  await svc.deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('lobby_players')
      .values({
        namespace_id: lobby.namespace_id,
        lobby_id: lobby.lobby_id,
        player_token_hash: sha256Hex(playerId),
        state: 'pending',
        join_kind: 'normal',
        issued_ts: now,
        connect_deadline_ts: deadline,
        connected_ts: null,
        client_addr: '127.0.0.1',
      })
      .execute();
    await trx
      .updateTable('lobbies')
      .set((eb) => ({ player_count: eb('player_count', '+', 1) }))
      .where('lobby_id', '=', lobby.lobby_id)
      .execute();
  });
  issuedPlayers.set(key, token);
  return token;
}
