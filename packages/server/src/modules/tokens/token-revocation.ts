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

/** Roles that may hold a token minted for them: viewers read with their session, not with a cloud token. */
const TOKEN_HOLDING_ROLES = ['owner', 'admin', 'member'];

/**
 * Revokes, in `db`, the tokens minted for people who can no longer act for the game's team: they left it,
 * were removed, became viewers, or the game went to another team. Scoped to one team's games or one game.
 * Publishes the change like `revokeTokensOf`; the caller `forget`s the returned ids after the commit.
 */
export async function revokeStrandedTokens(
  db: Db,
  caches: CacheCoherence,
  scope: { teamId: string } | { gameId: string } | 'all',
  now: number,
): Promise<string[]> {
  let query = db
    .updateTable('tokens')
    .set({ revoke_ts: now })
    .where('revoke_ts', 'is', null)
    .where('user_id', 'is not', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('games as g')
            .innerJoin('team_members as m', 'm.team_id', 'g.team_id')
            .select('m.user_id')
            .whereRef('g.game_id', '=', 'tokens.game_id')
            .whereRef('m.user_id', '=', 'tokens.user_id')
            .where('m.role', 'in', TOKEN_HOLDING_ROLES),
        ),
      ),
    );
  if (scope !== 'all') {
    query =
      'gameId' in scope
        ? query.where('game_id', '=', scope.gameId)
        : query.where(
            'game_id',
            'in',
            db.selectFrom('games').select('game_id').where('team_id', '=', scope.teamId),
          );
  }
  const rows = await query.returning('token_id').execute();
  const tokenIds = rows.map((row) => row.token_id);
  if (tokenIds.length > 0) await caches.publish(db, { kind: 'tokens', tokenIds });
  return tokenIds;
}
