import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import type { LobbyCaller } from '../../identity/callers.js';
import { sha256Hex } from '../../identity/token-authority.js';
import { lobbyBecameReady } from './lobby-ready-wait.js';
import * as repo from './matchmaker.repository.js';
import * as players from './matchmaker-players.repository.js';

/**
 * The calls a running lobby makes about itself (the original API's /matchmaker/lobbies and /players):
 * each acts on the caller's own lobby only, named by its token, never by the request. Every change wakes
 * the reconciler: a lobby that became ready, or idle, or busy changes how many more it should start.
 */

export async function lobbyReady(deps: Deps, lobby: LobbyCaller): Promise<void> {
  // Its players are told where to connect as soon as it is ready: on a swarm, that is where it was placed.
  await deps.runtime.locate?.(lobby.namespaceId, lobby.lobbyId);
  // A repeated ready (or one from a lobby already being stopped) changes nothing and is answered alike.
  if (await repo.markReady(deps.db, lobby.namespaceId, lobby.lobbyId, deps.clock.now())) {
    lobbyBecameReady(lobby.lobbyId);
    deps.runtime.wake(lobby.namespaceId);
  }
}

export async function setLobbyClosed(deps: Deps, lobby: LobbyCaller, closed: boolean): Promise<void> {
  await repo.setClosed(deps.db, lobby.namespaceId, lobby.lobbyId, closed);
  deps.runtime.wake(lobby.namespaceId);
}

/**
 * A player token's row is keyed by the sha256 of the player id the token carries (its `sub`): the token is
 * signed after its slot's transaction, and only a token this service signed reaches the lookup.
 */
export const playerKey = sha256Hex;

type ConnectVerdict = 'connected' | 'stopped' | 'stopping' | 'unknown' | 'used' | 'expired';

/**
 * Admits a player whose token find/join/create issued for THIS lobby, once: its slot, reserved since, stops
 * expiring. Anything else is refused, and the lobby server must drop that connection (the original's
 * contract). The lobby's row is locked while the token's row changes, so a token is used once.
 */
export async function playerConnected(deps: Deps, lobby: LobbyCaller, playerToken: string): Promise<void> {
  const { namespaceId, lobbyId } = lobby;
  const claims = await deps.tokens.verifyPlayerToken(playerToken);
  if (claims === undefined) {
    throw errors.playerTokenInvalid('unknown', 'player_token is not a player token this service issued');
  }
  if (claims.namespaceId !== namespaceId || claims.lobbyId !== lobbyId) {
    throw errors.playerTokenInvalid('other_lobby', 'player_token was issued for another lobby');
  }
  const hash = playerKey(claims.playerId);
  const now = deps.clock.now();
  const verdict = await deps.db.transaction().execute(async (trx): Promise<ConnectVerdict> => {
    const row = await repo.lockLobby(trx, namespaceId, lobbyId);
    if (row === undefined || row.run_state === null || row.run_state === 'stopped') return 'stopped';
    const player = await repo.findPlayer(trx, namespaceId, lobbyId, hash);
    if (player === undefined) return claims.expired ? 'expired' : 'unknown';
    if (player.state === 'connected') return 'used';
    if ((player.connect_deadline_ts ?? 0) <= now) {
      // Expired before the expiry job came by: its slot is freed here, in the same transaction.
      await repo.deletePlayer(trx, namespaceId, lobbyId, hash);
      await players.recountPlayers(trx, namespaceId, lobbyId);
      return 'expired';
    }
    if (row.run_state === 'stopping') return 'stopping';
    await repo.markConnected(trx, namespaceId, lobbyId, hash, now);
    return 'connected';
  });
  switch (verdict) {
    case 'connected':
      deps.runtime.wake(namespaceId);
      return;
    case 'stopped':
      throw errors.lobbyTokenStopped();
    case 'stopping':
      throw errors.lobbyStopping();
    case 'used':
      throw errors.playerTokenInvalid('used', 'player_token was used already: a player token admits once');
    case 'expired':
      throw errors.playerTokenInvalid(
        'expired',
        'player_token expired before the player connected (GCM_PLAYER_CONNECT_TIMEOUT); its slot is free again',
      );
    case 'unknown':
      throw errors.playerTokenInvalid('unknown', 'player_token holds no slot in this lobby');
  }
}

/** A player the lobby did not count (or counted out already) is no error: the report is simply done. */
export async function playerDisconnected(deps: Deps, lobby: LobbyCaller, playerToken: string): Promise<void> {
  const { namespaceId, lobbyId } = lobby;
  const claims = await deps.tokens.verifyPlayerToken(playerToken);
  if (claims === undefined || claims.namespaceId !== namespaceId || claims.lobbyId !== lobbyId) return;
  const hash = playerKey(claims.playerId);
  const removed = await deps.db.transaction().execute(async (trx) => {
    await repo.lockLobby(trx, namespaceId, lobbyId);
    if (!(await repo.deletePlayer(trx, namespaceId, lobbyId, hash))) return false;
    await players.recountPlayers(trx, namespaceId, lobbyId);
    return true;
  });
  if (removed) deps.runtime.wake(namespaceId);
}
