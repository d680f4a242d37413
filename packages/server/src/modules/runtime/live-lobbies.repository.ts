import { sql } from 'kysely';
import type { Db } from '../../db/open-db.js';

/**
 * The namespace's starting and ready lobbies, the newest first, at most `limit`, each with its connected
 * players counted: a backward range of the partial index lobbies_live_recent (0029), whose condition the
 * query spells with literals (a store matches a partial index only on what it can prove), and for each
 * lobby a range of lobby_players' primary key.
 */
export function liveLobbiesQuery(db: Db, namespaceId: string, limit: number) {
  return db
    .selectFrom('lobbies')
    .select((eb) => [
      'lobby_id',
      'lobby_group_name_id',
      'region_id',
      'create_ts',
      'run_state',
      'version_id',
      'is_closed',
      'player_count',
      'max_players',
      'max_players_direct',
      'max_players_party',
      eb
        .selectFrom('lobby_players')
        .select((inner) => inner.fn.countAll<number | string>().as('n'))
        .whereRef('lobby_players.namespace_id', '=', 'lobbies.namespace_id')
        .whereRef('lobby_players.lobby_id', '=', 'lobbies.lobby_id')
        .where('lobby_players.state', '=', sql.lit('connected'))
        .as('registered'),
    ])
    .where('namespace_id', '=', namespaceId)
    .where(sql.ref('run_state'), 'in', [sql.lit('starting'), sql.lit('ready')])
    .orderBy('create_ts', 'desc')
    .orderBy('lobby_id', 'desc')
    .limit(limit);
}

export function listLiveLobbies(db: Db, namespaceId: string, limit: number) {
  return liveLobbiesQuery(db, namespaceId, limit).execute();
}
