import { sql } from 'kysely';
import type { Db } from '../../db/open-db.js';

/**
 * The lobbies players may see in a namespace: ready, open, started for find or made public by create, of
 * the given game modes; the fullest first, at most `limit`. The namespace × game mode × run_state range
 * of lobbies_live (0024): the namespace's live lobbies, never the log of stopped ones.
 */
export function listOpenLobbiesQuery(
  db: Db,
  namespaceId: string,
  gameModes: readonly string[],
  includeState: boolean,
  limit: number,
) {
  return db
    .selectFrom('lobbies')
    .select([
      'lobby_id',
      'lobby_group_name_id',
      'region_id',
      'player_count',
      'max_players',
      'max_players_direct',
      'max_players_party',
    ])
    .$if(includeState, (q) => q.select('state_json'))
    .where('namespace_id', '=', namespaceId)
    .where('lobby_group_name_id', 'in', gameModes)
    .where('run_state', '=', sql.lit('ready'))
    .where('is_closed', '=', 0)
    .where((eb) => eb.or([eb('publicity', 'is', null), eb('publicity', '=', 'public')]))
    .orderBy('player_count', 'desc')
    .orderBy('lobby_id')
    .limit(limit);
}

export function listOpenLobbies(...args: Parameters<typeof listOpenLobbiesQuery>) {
  return listOpenLobbiesQuery(...args).execute();
}

/** Sets the lobby's state while it runs; false when it is no longer running (stopped meanwhile). */
export async function setState(db: Db, namespaceId: string, lobbyId: string, stateJson: string | null) {
  const result = await db
    .updateTable('lobbies')
    .set({ state_json: stateJson })
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', 'in', ['starting', 'ready', 'stopping'])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A lobby of the namespace that the runtime runs or ran (run_state set): its state, or undefined. */
export function findState(db: Db, namespaceId: string, lobbyId: string) {
  return db
    .selectFrom('lobbies')
    .select('state_json')
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', 'is not', null)
    .executeTakeFirst();
}
