import { sql } from 'kysely';
import type { Db } from '../../db/open-db.js';
import { LIVE_STATES } from './runtime.repository.js';

// The studio's controls over the lobbies the runtime runs: which lobby an id names in a game, the stop
// the service decides (the row protocol's conditional update), and the rollout's counts.

/** The lobby `lobbyId` names in any namespace of the game; lobby ids are unique per namespace only. */
export function findGameLobbies(db: Db, gameId: string, lobbyId: string) {
  return (
    db
      .selectFrom('lobbies')
      .select(['namespace_id', 'run_state', 'stop_ts'])
      .where('lobby_id', '=', lobbyId)
      .where('namespace_id', 'in', (eb) =>
        eb.selectFrom('namespaces').select('namespace_id').where('game_id', '=', gameId),
      )
      // A runtime lobby first: a reported lobby of another namespace may carry the same id.
      .orderBy(sql`case when run_state is null then 1 else 0 end`)
      .limit(2)
      .execute()
  );
}

/** starting|ready → stopping, once: the reconciler then stops its container and records the stop. */
export async function requestStop(
  db: Db,
  namespaceId: string,
  lobbyId: string,
  now: number,
  reason: string,
): Promise<boolean> {
  const result = await db
    .updateTable('lobbies')
    .set({ run_state: 'stopping', stop_requested_ts: now, stop_reason: reason })
    .where('namespace_id', '=', namespaceId)
    .where('lobby_id', '=', lobbyId)
    .where('run_state', 'in', ['starting', 'ready'])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Live lobbies of the namespace by version, game mode, region and state: a range of lobbies_live. */
export async function countLiveLobbies(db: Db, namespaceId: string) {
  const busy = sql<number>`case when player_count > 0 then 1 else 0 end`;
  const rows = await db
    .selectFrom('lobbies')
    .select([
      'version_id',
      'lobby_group_name_id',
      'region_id',
      'run_state',
      'is_closed',
      busy.as('busy'),
      (eb) => eb.fn.countAll<number | string>().as('n'),
    ])
    .where('namespace_id', '=', namespaceId)
    .where('run_state', 'in', LIVE_STATES)
    .groupBy(['version_id', 'lobby_group_name_id', 'region_id', 'run_state', 'is_closed', busy])
    .execute();
  // PostgreSQL counts in bigint, which its driver hands over as text.
  return rows.map((r) => ({ ...r, busy: Number(r.busy), n: Number(r.n) }));
}

/**
 * The version's most recent failed lobbies in the namespace, newest first: a backward range of the partial
 * index lobbies_failed (0025), whose condition the query spells with literals, as a store needs to match a
 * partial index (a bound parameter could be anything).
 */
export function recentFailedLobbiesQuery(db: Db, namespaceId: string, versionId: string, limit: number) {
  return db
    .selectFrom('lobbies')
    .select(['lobby_id', 'lobby_group_name_id', 'region_id', 'exit_code', 'stop_reason', 'stop_ts'])
    .where('namespace_id', '=', namespaceId)
    .where('version_id', '=', versionId)
    .where(sql.ref('run_state'), '=', sql.lit('stopped'))
    .where(sql.ref('failed'), '=', sql.lit(1))
    .orderBy('stop_ts', 'desc')
    .limit(limit);
}

export function recentFailedLobbies(db: Db, namespaceId: string, versionId: string, limit: number) {
  return recentFailedLobbiesQuery(db, namespaceId, versionId, limit).execute();
}
