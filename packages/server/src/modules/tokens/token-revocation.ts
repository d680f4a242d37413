import type { Db } from '../../db/open-db.js';
import type { CacheCoherence } from '../../lib/cache-coherence.js';

/**
 * Revokes, in `db` (the transaction that deletes what they were for), every token not yet revoked of a game,
 * or of one namespace of it (its reporter tokens), and publishes the change to the other instances' caches
 * in the same transaction. Returns their ids: once the transaction has committed, the caller passes them to
 * `TokenAuthority.forget`, so this process stops accepting them on the very next request (other instances
 * within STALE_BOUND_MS of the commit).
 */
export async function revokeTokensOf(
  db: Db,
  caches: CacheCoherence,
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
  const tokenIds = rows.map((row) => row.token_id);
  if (tokenIds.length > 0) await caches.publish(db, { kind: 'tokens', tokenIds });
  return tokenIds;
}
