import { type ListLobbiesResponse, MATCHMAKER_LIMITS } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import type { GameClientCaller, LobbyCaller } from '../../identity/callers.js';
import { TokenBuckets } from '../../lib/token-bucket.js';
import { gameModesOf } from '../runtime/runtime.service.js';
import * as repo from './matchmaker-lobbies.repository.js';
import { clientNamespace, listClientRegions } from './matchmaker-regions.service.js';

/**
 * The lobbies a player may pick from (the original's GET /matchmaker/lobbies/list): those of the
 * namespace's listable game modes that are ready and open, started by the reconciler or made public by
 * create (a private custom lobby never), the fullest first (a player browsing joins where others play),
 * at most MATCHMAKER_LIMITS.listLobbies. Game modes are the namespace's version's; regions as
 * GET /matchmaker/regions answers them.
 */
export async function listLobbies(
  deps: Deps,
  caller: GameClientCaller,
  includeState: boolean,
): Promise<ListLobbiesResponse> {
  const ns = await clientNamespace(deps, caller);
  const gameModes = gameModesOf(ns, deps.config.regions);
  const names = Object.keys(gameModes);
  const listable = names.filter((name) => gameModes[name]?.listable === true);
  const [{ regions }, lobbies] = await Promise.all([
    listClientRegions(deps, caller),
    listable.length === 0
      ? Promise.resolve([])
      : repo.listOpenLobbies(
          deps.db,
          caller.namespaceId,
          listable,
          includeState,
          MATCHMAKER_LIMITS.listLobbies,
        ),
  ]);
  return {
    game_modes: names.map((game_mode_id) => ({ game_mode_id })),
    regions,
    lobbies: lobbies.map((lobby) => {
      const normal = lobby.max_players ?? 0;
      return {
        region_id: lobby.region_id,
        game_mode_id: lobby.lobby_group_name_id,
        lobby_id: lobby.lobby_id,
        max_players_normal: normal,
        max_players_direct: lobby.max_players_direct ?? normal,
        max_players_party: lobby.max_players_party ?? normal,
        total_player_count: lobby.player_count ?? 0,
        ...(includeState ? { state: parseState((lobby as { state_json?: string | null }).state_json) } : {}),
      };
    }),
  };
}

function parseState(stateJson: string | null | undefined): unknown {
  return stateJson === null || stateJson === undefined ? null : JSON.parse(stateJson);
}

/**
 * The calling lobby's state, any JSON its players may read; absent (or null) clears it. Bounded by its
 * serialized size, which the route's body limit already keeps within MATCHMAKER_LIMITS.stateBytes.
 */
/** Each service's state-write buckets, by lobby (namespace and id): one per config, so per service. */
const stateWrites = new WeakMap<Deps['config'], TokenBuckets>();

/**
 * Counts one state write of the lobby against its rate (GCM_LOBBY_STATE_WRITES_PER_SECOND, with
 * GCM_LOBBY_STATE_WRITE_BURST): past it, 429 with Retry-After. Called before the body is read, so a lobby
 * that writes faster than that costs the service no parse and no store write for the refused ones.
 */
export function takeStateWrite(deps: Deps, lobby: LobbyCaller): void {
  let buckets = stateWrites.get(deps.config);
  if (buckets === undefined) {
    const { lobbyStateWritesPerSecond, lobbyStateWriteBurst } = deps.config.matchmaker;
    buckets = new TokenBuckets(lobbyStateWritesPerSecond, lobbyStateWriteBurst);
    stateWrites.set(deps.config, buckets);
  }
  const waitMs = buckets.take(`${lobby.namespaceId}/${lobby.lobbyId}`, 1);
  if (waitMs > 0) {
    throw errors.rateLimited(
      Math.max(1, Math.ceil(waitMs / 1000)),
      `too many state writes from this lobby: at most ${deps.config.matchmaker.lobbyStateWritesPerSecond} a second (GCM_LOBBY_STATE_WRITES_PER_SECOND)`,
    );
  }
}

export async function setLobbyState(deps: Deps, lobby: LobbyCaller, state: unknown): Promise<void> {
  const json = state === undefined || state === null ? null : JSON.stringify(state);
  if (json !== null && Buffer.byteLength(json) > MATCHMAKER_LIMITS.stateBytes) {
    throw errors.bodyTooLarge(MATCHMAKER_LIMITS.stateBytes);
  }
  if (!(await repo.setState(deps.db, lobby.namespaceId, lobby.lobbyId, json))) {
    throw errors.lobbyTokenStopped();
  }
}

/** A lobby's state for a game client or a lobby of its namespace; another namespace's is not found. */
export async function getLobbyState(
  deps: Deps,
  caller: GameClientCaller | LobbyCaller,
  lobbyId: string,
): Promise<unknown> {
  const row = await repo.findState(deps.db, caller.namespaceId, lobbyId);
  if (row === undefined) throw errors.matchmakerLobbyNotFound();
  return parseState(row.state_json);
}
