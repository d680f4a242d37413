import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { toTimestamp } from '../../lib/clock.js';
import { billingWatchKey, endBilling } from '../billing/billing.service.js';
import { getGameOrThrow, markGameDeleted, toGameSummary } from '../games/games.service.js';
import { listNamespaceSummaries, type WithNamespaces } from '../namespaces/namespaces.service.js';
import { revokeTokensOf } from '../tokens/token-revocation.js';
import { listVersionSummaries } from '../versions/versions.service.js';

// What spans modules for one game: its full view (games, namespaces, versions) and its retirement (games,
// namespaces, tokens, billing). Here, above those modules, so none of them has to import the others.

/** GET /cloud/games/{game_id}: the game with its namespaces and versions. */
export async function getGameFull(deps: Deps, gameId: string) {
  const game = await getGameOrThrow(deps, gameId);
  const [namespaces, versions] = await Promise.all([
    listNamespaceSummaries(deps.db, gameId),
    listVersionSummaries(deps.db, gameId),
  ]);
  return {
    ...toGameSummary(game),
    host_networking_enabled: game.host_networking_enabled === 1,
    // The service's, not the game's: what lets the dashboard skip rollouts where nothing runs lobbies.
    runtime: deps.config.runtime.kind,
    namespaces: namespaces.map((n) => ({ ...n, create_ts: toTimestamp(n.create_ts) })),
    versions: versions.map((v) => ({ ...v, create_ts: toTimestamp(v.create_ts) })),
  };
}

/**
 * DELETE /cloud/games/{game_id} (operator only), in one transaction: the game is marked retired (every
 * operation naming it answers 404 GAME_NOT_FOUND from the commit on, and GET /cloud/games leaves it out)
 * and its name_id freed, every namespace of it deleted as DELETE .../namespaces/{id} deletes one, every
 * token of it revoked, and its billing ended (no subscription, no roll-over). Watchers of its billing are
 * answered at once. Lobbies, builds and uploads with their files are purged afterwards (purge.service.ts).
 */
export async function retireGame(deps: Deps & WithNamespaces, gameId: string): Promise<void> {
  const now = deps.clock.now();
  const revoked = await deps.namespaces.deleteAllOfGame(gameId, async (trx) => {
    if (!(await markGameDeleted(trx, gameId, now))) throw errors.gameNotFound();
    await endBilling(trx, gameId);
    return revokeTokensOf(trx, deps.caches, { gameId }, now);
  });
  for (const tokenId of revoked) deps.tokens.forget(tokenId);
  deps.notifier.notify(billingWatchKey(gameId));
}
