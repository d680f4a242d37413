import type { LobbyResourceSample, LobbyResources } from '@gcm/contract';
import type { LobbyResourceSamplesTable } from '../../db/database.js';
import { assertGameExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { deleteInBatches } from '../../lib/batched-delete.js';
import { DAY_MS, toTimestamp } from '../../lib/clock.js';
import { findGameLobbies } from './lobby-control.repository.js';
import * as repo from './lobby-resources.repository.js';
import { HISTORY_MAX } from './resource-sampler.js';

/** Sample rows per delete statement: short statements, so retention never holds the store for long. */
const DELETE_BATCH = 1000;

function toSample(row: LobbyResourceSamplesTable): LobbyResourceSample {
  return {
    ts: toTimestamp(row.ts),
    cpu_cores: row.cpu_millicores / 1000,
    memory_bytes: row.memory_bytes,
    memory_limit_bytes: row.memory_limit_bytes,
    rx_bytes: row.rx_bytes,
    tx_bytes: row.tx_bytes,
  };
}

/**
 * A lobby's resource use (GET /cloud/games/{g}/matchmaker/lobbies/{id}/resources): its latest sample (the
 * one this instance holds when it samples and it is newer, else the store's) and its coarse history.
 * Another game's lobby is not found, as a missing one.
 */
export async function getLobbyResources(
  deps: Deps,
  gameId: string,
  lobbyId: string,
): Promise<LobbyResources> {
  await assertGameExists(deps, gameId);
  const [lobby] = await findGameLobbies(deps.db, gameId, lobbyId);
  if (lobby === undefined) throw errors.lobbyNotFound();
  const [stored, history] = await Promise.all([
    repo.findLatest(deps.db, lobby.namespace_id, lobbyId),
    repo.listHistory(deps.db, lobby.namespace_id, lobbyId, HISTORY_MAX),
  ]);
  const held = deps.runtime.latestSample?.(lobby.namespace_id, lobbyId);
  const latest = held !== undefined && (stored === undefined || held.ts >= stored.ts) ? held : stored;
  return {
    ...(latest === undefined ? {} : { latest: toSample(latest) }),
    history: history.map(toSample),
  };
}

/**
 * Samples older than GCM_LOBBY_RETENTION_DAYS, in batches: the lobby log's retention deletes lobbies whose
 * last report is older than that, and no sample of a lobby is newer than its last report. Part of the
 * `lobby-retention` job.
 */
export async function deleteExpiredLobbyResources(deps: Deps): Promise<number> {
  const days = deps.config.lobbyRetentionDays;
  if (days === 0) return 0;
  const before = deps.clock.now() - days * DAY_MS;
  let total = 0;
  for (const namespaceId of await repo.namespaceIds(deps.db)) total += await purge(deps, namespaceId, before);
  return total;
}

/** Every sample of a deleted namespace (the purge), in batches. */
export function purgeLobbyResourcesOf(deps: Deps, namespaceId: string): Promise<number> {
  return purge(deps, namespaceId, undefined);
}

async function purge(deps: Deps, namespaceId: string, before: number | undefined): Promise<number> {
  let total = 0;
  for (const table of ['lobby_resource_samples', 'lobby_resource_latest'] as const) {
    total += await deleteInBatches(DELETE_BATCH, (batch) =>
      repo.deleteSamplesBatch(deps.db, table, namespaceId, before, batch),
    );
  }
  return total;
}
