import { gameExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { deleteAbandonedBuilds, purgeBuildsOf } from '../builds/builds.service.js';
import * as games from '../games/games.service.js';
import { purgeLobbiesOf } from '../lobby-logs/lobby-logs.service.js';
import { purgeOutputOf } from '../lobby-output/lobby-output.service.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import * as namespaces from '../namespaces/namespaces.service.js';
import { purgeLobbyResourcesOf } from '../runtime/runtime.service.js';
import { deleteAvatarGarbage, purgeUploadsOfGame } from '../uploads/uploads.service.js';
import { buildIdsNamedByVersions } from '../versions/versions.service.js';
import { deleteWebhooksOf, gameScope } from '../webhooks/webhooks.service.js';

/**
 * How long after a delete the purge keeps looking for stragglers before it records that it finished: a
 * request that found the namespace (or game) alive just before the delete committed may still write a lobby,
 * a build or an upload after it. Requests end well within this (body, connection and pool timeouts).
 */
export const PURGE_GRACE_MS = 10 * 60 * 1000;

const NONE: ReadonlySet<string> = new Set();

/** Deleted namespaces (and retired games) taken per pass; the next pass takes the rest. */
const PASS_LIMIT = 100;

/**
 * The background half of deleting a namespace or retiring a game. The delete itself is one short
 * transaction that makes the namespace (game) gone for every reader; what it owned is deleted here, in
 * batches of short transactions, so a namespace with a million lobbies never holds the store's write lock
 * (SQLite) or a million row locks (PostgreSQL) in one go. Every step is idempotent and the work is found
 * again from the rows, so a pass cut short (a restart, a failure) is finished by a later one. Runs as the
 * `purge-deleted` background job (one instance at a time); tests call it directly.
 *
 * - A deleted namespace: its lobbies and their resource samples; its builds (with tags, uploads and files) except those a version of
 *   its game names, which any namespace may run; all of them once the game is retired.
 * - A retired game: every namespace of it as above, with no build kept (no version can run any more), then
 *   every upload of the game (avatars) with its files, and its webhook endpoints with their deliveries.
 */
export async function purgeDeleted(
  deps: Deps & WithNamespaces,
): Promise<{ namespaces: number; games: number }> {
  const done = { namespaces: 0, games: 0 };
  // One that fails (a file store down) does not hold the others up; the job logs it, the next pass retries.
  const failures: unknown[] = [];
  for (const ns of await namespaces.namespacesToPurge(deps.db, PASS_LIMIT)) {
    await purgeNamespace(deps, ns).then(
      (finished) => (done.namespaces += finished ? 1 : 0),
      (err: unknown) => failures.push(err),
    );
  }
  for (const game of await games.gamesToPurge(deps.db, PASS_LIMIT)) {
    await purgeGame(deps, game).then(
      (finished) => (done.games += finished ? 1 : 0),
      (err: unknown) => failures.push(err),
    );
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} purge(s) failed`);
  return done;
}

/** True once the grace after the delete at `deleteTs` is over: nothing can be written for it any more. */
function settled(deps: Deps, deleteTs: number | null): boolean {
  return deleteTs !== null && deps.clock.now() >= deleteTs + PURGE_GRACE_MS;
}

async function purgeNamespace(
  deps: Deps & WithNamespaces,
  ns: { namespace_id: string; game_id: string; delete_ts: number | null },
): Promise<boolean> {
  await purgeOutputOf(deps, ns.namespace_id);
  await purgeLobbiesOf(deps, ns.namespace_id);
  await purgeLobbyResourcesOf(deps, ns.namespace_id);
  await purgeBuildsOf(deps, ns.namespace_id, async () =>
    (await gameExists(deps.db, ns.game_id)) ? buildIdsNamedByVersions(deps, ns.game_id) : NONE,
  );
  if (!settled(deps, ns.delete_ts)) return false;
  await deps.namespaces.markPurged(ns.game_id, ns.namespace_id);
  return true;
}

async function purgeGame(
  deps: Deps & WithNamespaces,
  game: { game_id: string; delete_ts: number | null },
): Promise<boolean> {
  // Every namespace, those deleted and purged before the retirement too: they may keep builds for versions.
  for (const ns of await namespaces.namespaceIdsOfGame(deps.db, game.game_id)) {
    await purgeOutputOf(deps, ns);
    await purgeLobbiesOf(deps, ns);
    await purgeLobbyResourcesOf(deps, ns);
    await purgeBuildsOf(deps, ns, async () => NONE);
  }
  await purgeUploadsOfGame(deps, game.game_id);
  await deleteWebhooksOf(deps, gameScope(game.game_id));
  if (!settled(deps, game.delete_ts)) return false;
  if ((await namespaces.unpurgedNamespacesOf(deps.db, game.game_id)) > 0) return false;
  await games.markGamePurged(deps.db, game.game_id, deps.clock.now());
  return true;
}

/**
 * The hourly `upload-clean-up` background job's pass (one instance at a time; tests call it directly):
 * uploads nobody will complete or read, with their files. Avatars abandoned or replaced, and builds
 * prepared but never completed, with their tags, GCM_UPLOAD_ABANDON_HOURS after their URLs expired. Here
 * beside the purge because it deletes across the same two modules. Returns how many uploads went.
 */
export async function deleteUploadGarbage(deps: Deps): Promise<number> {
  return (await deleteAvatarGarbage(deps)) + (await deleteAbandonedBuilds(deps));
}
