import type { Db } from '../../db/open-db.js';

/**
 * Revokes, in `db` (the transaction that deletes what they were for), every token not yet revoked of a game,
 * or of one namespace of it (its reporter tokens). Returns their ids: once the transaction has committed,
 * the caller passes them to `TokenAuthority.forget`, so a process caching token rows stops accepting them
 * on the very next request. On PostgreSQL nothing caches token rows, so every instance sees the revocation
 * as soon as it commits.
 */
export async function revokeTokensOf(
  db: Db,
  scope: { gameId: string; namespaceId?: string },
  now: number,
): Promise<string[]> {
  let query = db
    .updateTable('tokens')
    .set({ revoke_ts: now })
    .where('game_id', '=', scope.gameId)
    .where('revoke_ts', 'is', null);
  if (scope.namespaceId !== undefined) query = query.where('namespace_id', '=', scope.namespaceId);
  const rows = await query.returning('token_id').execute();
  return rows.map((row) => row.token_id);
}
