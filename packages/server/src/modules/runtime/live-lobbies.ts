import { type GetAnalyticsMatchmakerLiveResponse, LIVE_LOBBIES_MAX } from '@gcm/contract';
import { v5 } from 'uuid';
import type { Deps } from '../../deps.js';
import { toTimestamp } from '../../lib/clock.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import { listLiveLobbies } from './live-lobbies.repository.js';

/**
 * The name space of lobby_group_id's UUIDv5: a fixed random UUID, so the same version and game mode give
 * the same id on every instance and after a restart.
 */
const LOBBY_GROUP_NAMESPACE = '6f1d0a52-3c47-4f0e-9a8e-2b7d5c1e9f34';

/** The original's lobby group is one game mode of one version; we have no id for it, so derive one. */
export function lobbyGroupId(versionId: string, gameMode: string): string {
  return v5(`${versionId}\n${gameMode}`, LOBBY_GROUP_NAMESPACE);
}

/**
 * The studio's live view of a namespace (the original's GET …/analytics/matchmaker/live): the lobbies the
 * service runs that are starting or ready, newest first, with their player counts. At most
 * LIVE_LOBBIES_MAX; `truncated` says the oldest were left out (one more row is read to know it).
 */
export async function getLiveLobbies(
  deps: Deps & WithNamespaces,
  gameId: string,
  namespaceId: string,
): Promise<GetAnalyticsMatchmakerLiveResponse> {
  const namespace = await deps.namespaces.get(gameId, namespaceId);
  const rows = await listLiveLobbies(deps.db, namespaceId, LIVE_LOBBIES_MAX + 1);
  return {
    lobbies: rows.slice(0, LIVE_LOBBIES_MAX).map((row) => {
      const normal = row.max_players ?? 0;
      const total = row.player_count ?? 0;
      const ready = row.run_state === 'ready';
      return {
        lobby_id: row.lobby_id,
        lobby_group_id: lobbyGroupId(row.version_id ?? '', row.lobby_group_name_id),
        lobby_group_name_id: row.lobby_group_name_id,
        region_id: row.region_id,
        create_ts: toTimestamp(row.create_ts),
        is_ready: ready,
        is_idle: ready && total === 0 && row.is_closed !== 1,
        is_closed: row.is_closed === 1,
        is_outdated: row.version_id !== namespace.version_id,
        max_players_normal: normal,
        max_players_direct: row.max_players_direct ?? normal,
        max_players_party: row.max_players_party ?? normal,
        total_player_count: total,
        // PostgreSQL counts in bigint, which its driver hands over as text.
        registered_player_count: Number(row.registered ?? 0),
      };
    }),
    truncated: rows.length > LIVE_LOBBIES_MAX,
  };
}
