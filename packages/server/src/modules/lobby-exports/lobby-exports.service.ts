import { type ExportLobbyHistoryBody, LOBBY_OUTPUT_LIMITS } from '@gcm/contract';
import type { LobbyExportsTable } from '../../db/database.js';
import { gameExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { lobbyHistoryCsv } from '../lobby-logs/lobby-logs.service.js';
import { listNamespaceSummaries } from '../namespaces/namespaces.service.js';
import * as repo from './lobby-exports.repository.js';

/** How long an exported file is kept; its URL expires well before (the store's URL TTL, 1 h by default). */
export const EXPORT_KEEP_MS = 24 * 3600 * 1000;
const CLEAN_UP_BATCH = 100;

/**
 * Stores a file made for a download and answers a presigned URL to it. The row is written first, so a
 * blob is never left without the row that gets it deleted after EXPORT_KEEP_MS.
 */
export async function storeExport(
  deps: Deps,
  input: {
    gameId: string;
    kind: LobbyExportsTable['kind'];
    filename: string;
    contentType: string;
    body: Buffer;
  },
): Promise<{ url: string; expireTs: number }> {
  const exportId = newId();
  const key = `exports/${input.kind}/${exportId}${input.filename.slice(input.filename.lastIndexOf('.'))}`;
  await repo.insertExport(deps.db, {
    export_id: exportId,
    game_id: input.gameId,
    kind: input.kind,
    blob_key: key,
    create_ts: deps.clock.now(),
  });
  await deps.blobs.putObject(key, input.body);
  return deps.blobs.presignGet({ key, filename: input.filename, contentType: input.contentType });
}

/** POST …/matchmaker/lobbies/export-history: a CSV of the game's lobbies created in the period. */
export async function exportLobbyHistory(
  deps: Deps,
  gameId: string,
  body: ExportLobbyHistoryBody,
): Promise<{ url: string }> {
  const { query_start: start, query_end: end } = body;
  if (end <= start) {
    throw errors.badBody('body field "query_end" must be after query_start', { field: 'query_end' });
  }
  if (end - start > LOBBY_OUTPUT_LIMITS.historyPeriodMaxMs) {
    throw errors.badBody(
      `body field "query_end" is more than ${LOBBY_OUTPUT_LIMITS.historyPeriodMaxMs / 86_400_000} days after query_start`,
      { field: 'query_end', max_ms: LOBBY_OUTPUT_LIMITS.historyPeriodMaxMs },
    );
  }
  const namespaces = await listNamespaceSummaries(deps.db, gameId);
  if (namespaces.length === 0 && !(await gameExists(deps.db, gameId))) throw errors.gameNotFound();
  const { csv } = await lobbyHistoryCsv(
    deps,
    namespaces,
    { start, end },
    LOBBY_OUTPUT_LIMITS.historyLobbiesMax,
  );
  const { url } = await storeExport(deps, {
    gameId,
    kind: 'lobby-history',
    filename: 'lobby-history.csv',
    contentType: 'text/csv',
    body: csv,
  });
  return { url };
}

/**
 * Deletes exported files older than EXPORT_KEEP_MS with their rows, a batch at a time (the blob first:
 * a crash between the two leaves a row whose delete is retried, never a blob nobody deletes).
 */
export async function deleteExpiredExports(deps: Deps): Promise<number> {
  const before = deps.clock.now() - EXPORT_KEEP_MS;
  let total = 0;
  for (;;) {
    const batch = await repo.exportsBefore(deps.db, before, CLEAN_UP_BATCH);
    for (const row of batch) await deps.blobs.delete(row.blob_key);
    await repo.deleteExportRows(
      deps.db,
      batch.map((row) => row.export_id),
    );
    total += batch.length;
    if (batch.length < CLEAN_UP_BATCH) return total;
  }
}
