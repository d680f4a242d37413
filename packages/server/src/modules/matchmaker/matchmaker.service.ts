import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import type { LobbyCaller } from '../../identity/callers.js';
import { sha256Hex } from '../../identity/token-authority.js';
import * as repo from './matchmaker.repository.js';

/**
 * The calls a running lobby makes about itself (the original API's /matchmaker/lobbies and /players):
 * each acts on the caller's own lobby only, named by its token, never by the request. Every change wakes
 * the reconciler: a lobby that became ready, or idle, or busy changes how many more it should start.
 */

export async function lobbyReady(deps: Deps, lobby: LobbyCaller): Promise<void> {
  // A repeated ready (or one from a lobby already being stopped) changes nothing and is answered alike.
  if (await repo.markReady(deps.db, lobby.namespaceId, lobby.lobbyId, deps.clock.now())) {
    deps.runtime.wake(lobby.namespaceId);
  }
}

export async function setLobbyClosed(deps: Deps, lobby: LobbyCaller, closed: boolean): Promise<void> {
  await repo.setClosed(deps.db, lobby.namespaceId, lobby.lobbyId, closed);
  deps.runtime.wake(lobby.namespaceId);
}

/** Player tokens are kept only as their sha256, like every other token the service checks. */
const playerHash = sha256Hex;

/**
 * Counts the player once per token (a repeated report is a no-op), never beyond the lobby's max_players:
 * the lobby's row is locked while its players are counted, so two reports at once cannot both take the
 * last place.
 */
export async function playerConnected(deps: Deps, lobby: LobbyCaller, playerToken: string): Promise<void> {
  const { namespaceId, lobbyId } = lobby;
  const hash = playerHash(playerToken);
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const row = await repo.lockLobby(trx, namespaceId, lobbyId);
    if (row === undefined || row.run_state === null || row.run_state === 'stopped') {
      throw errors.lobbyTokenStopped();
    }
    if (await repo.hasPlayer(trx, namespaceId, lobbyId, hash)) return;
    if (row.run_state === 'stopping') throw errors.lobbyStopping();
    const max = row.max_players ?? 0;
    if ((row.player_count ?? 0) >= max) throw errors.lobbyFull(max);
    await repo.insertPlayer(trx, namespaceId, lobbyId, hash, now);
    await repo.recountPlayers(trx, namespaceId, lobbyId);
  });
  deps.runtime.wake(namespaceId);
}

/** A player the lobby did not count (or counted out already) is no error: the report is simply done. */
export async function playerDisconnected(deps: Deps, lobby: LobbyCaller, playerToken: string): Promise<void> {
  const { namespaceId, lobbyId } = lobby;
  const hash = playerHash(playerToken);
  const removed = await deps.db.transaction().execute(async (trx) => {
    await repo.lockLobby(trx, namespaceId, lobbyId);
    if (!(await repo.deletePlayer(trx, namespaceId, lobbyId, hash))) return false;
    await repo.recountPlayers(trx, namespaceId, lobbyId);
    return true;
  });
  if (removed) deps.runtime.wake(namespaceId);
}
