import { checkDisplayName, checkNameId, GAME_DISPLAY_NAME_MAX_BYTES, quote } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { errors, type ValidationErrorItem } from '../../errors.js';
import type { Caller } from '../../identity/callers.js';
import { toTimestamp } from '../../lib/clock.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { newId } from '../../lib/ids.js';
import * as teams from '../accounts/teams.repository.js';
import { billingWatchKey, endBilling } from '../billing/billing.service.js';
import { listNamespaceSummaries } from '../namespaces/namespaces.repository.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import { revokeTokensOf } from '../tokens/token-revocation.js';
import { listVersionSummaries } from '../versions/versions.repository.js';
import * as repo from './games.repository.js';

type GameRow = NonNullable<Awaited<ReturnType<typeof repo.findGame>>>;

export function toGameSummary(row: GameRow) {
  return {
    game_id: row.game_id,
    name_id: row.name_id,
    display_name: row.display_name,
    create_ts: toTimestamp(row.create_ts),
    ...(row.avatar_url === null ? {} : { avatar_url: row.avatar_url }),
    ...(row.team_id === null ? {} : { team_id: row.team_id }),
  };
}

/**
 * Who may make a game in which team: the operator in any team that exists (or in none: a game only the
 * operator manages); a signed-in person only in a team where they are admin or owner, named explicitly.
 */
export async function assertMayCreateIn(
  deps: Deps,
  caller: Caller,
  teamId: string | undefined,
): Promise<void> {
  if (caller.kind === 'person') {
    if (teamId === undefined) {
      throw errors.badBody('team_id is required: name the team that is to own the game', {
        field: 'team_id',
      });
    }
    deps.people.assertTeamRole(caller, teamId, 'admin');
    return;
  }
  if (caller.kind !== 'operator') throw errors.forbidden('this operation needs the operator token');
  if (teamId !== undefined && !(await teams.teamExists(deps.db, teamId))) throw errors.teamNotFound();
}

function gameNameIdTaken(nameId: string): ValidationErrorItem {
  return {
    path: ['name-id', 'not-unique'],
    message: `name_id ${quote(nameId)} is taken by another game; game name_ids are unique`,
  };
}

/** The rules of games.validateGame (4.7), shared with createGame so both always agree. */
export async function validateGame(
  deps: Deps,
  input: { display_name: string; name_id?: string | null | undefined },
): Promise<ValidationErrorItem[]> {
  const found = checkDisplayName(input.display_name, GAME_DISPLAY_NAME_MAX_BYTES);
  if (input.name_id !== undefined && input.name_id !== null) {
    const nameErrors = checkNameId(input.name_id);
    found.push(...nameErrors);
    if (nameErrors.length === 0 && (await repo.gameNameIdTaken(deps.db, input.name_id))) {
      found.push(gameNameIdTaken(input.name_id));
    }
  }
  return found;
}

export async function createGame(
  deps: Deps,
  input: { name_id: string; display_name: string; team_id?: string | undefined },
) {
  const found = await validateGame(deps, input);
  if (found.length > 0) throw errors.validation(found);
  const gameId = newId();
  try {
    await repo.insertGame(deps.db, {
      game_id: gameId,
      name_id: input.name_id,
      display_name: input.display_name,
      create_ts: deps.clock.now(),
      avatar_url: null,
      host_networking_enabled: 0,
      delete_ts: null,
      purge_ts: null,
      team_id: input.team_id ?? null,
    });
  } catch (err) {
    // Two creates with one name_id can both pass the check above; the unique index decides.
    if (isUniqueViolation(err)) throw errors.validation([gameNameIdTaken(input.name_id)]);
    throw err;
  }
  return gameId;
}

export async function listGames(deps: Deps, caller: Caller) {
  const scope: repo.GameScope =
    caller.kind === 'operator'
      ? { all: true }
      : caller.kind === 'person'
        ? { teamIds: [...caller.teams.keys()] }
        : { gameId: caller.gameId };
  const rows = await repo.listGames(deps.db, scope);
  return rows.map(toGameSummary);
}

export async function getGameOrThrow(deps: Deps, gameId: string): Promise<GameRow> {
  const row = await repo.findGame(deps.db, gameId);
  if (row === undefined) throw errors.gameNotFound();
  return row;
}

export async function assertGameExists(deps: Deps, gameId: string): Promise<void> {
  if (!(await repo.gameExists(deps.db, gameId))) throw errors.gameNotFound();
}

export async function getGameFull(deps: Deps, gameId: string) {
  const game = await getGameOrThrow(deps, gameId);
  const [namespaces, versions] = await Promise.all([
    listNamespaceSummaries(deps.db, gameId),
    listVersionSummaries(deps.db, gameId),
  ]);
  return {
    ...toGameSummary(game),
    host_networking_enabled: game.host_networking_enabled === 1,
    namespaces: namespaces.map((n) => ({ ...n, create_ts: toTimestamp(n.create_ts) })),
    versions: versions.map((v) => ({ ...v, create_ts: toTimestamp(v.create_ts) })),
  };
}

/** PATCH /cloud/games/{game_id}: a new display name, checked as a new game's is. */
export async function renameGame(deps: Deps, gameId: string, displayName: string): Promise<void> {
  const found = checkDisplayName(displayName, GAME_DISPLAY_NAME_MAX_BYTES);
  if (found.length > 0) throw errors.validation(found);
  if (!(await repo.setDisplayName(deps.db, gameId, displayName))) throw errors.gameNotFound();
}

/** Operator only: lets the game's versions use network_mode `host` (or stops new ones from doing so). */
export async function setHostNetworking(deps: Deps, gameId: string, enabled: boolean): Promise<void> {
  if (!(await repo.setHostNetworking(deps.db, gameId, enabled))) throw errors.gameNotFound();
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
    if (!(await repo.markGameDeleted(trx, gameId, now))) throw errors.gameNotFound();
    await endBilling(trx, gameId);
    return revokeTokensOf(trx, deps.caches, { gameId }, now);
  });
  for (const tokenId of revoked) deps.tokens.forget(tokenId);
  deps.notifier.notify(billingWatchKey(gameId));
}
