import { checkDisplayName, checkNameId, GAME_DISPLAY_NAME_MAX_BYTES, quote } from '@gcm/contract';
import { findGame, type GameRow, teamExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { errors, type ValidationErrorItem } from '../../errors.js';
import type { Caller } from '../../identity/callers.js';
import { toTimestamp } from '../../lib/clock.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { newId } from '../../lib/ids.js';
import * as repo from './games.repository.js';

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
  if (teamId !== undefined && !(await teamExists(deps.db, teamId))) throw errors.teamNotFound();
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
  const row = await findGame(deps.db, gameId);
  if (row === undefined) throw errors.gameNotFound();
  return row;
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
 * What the modules above read and write of a game's row: its retirement (whole-game), the purge of retired
 * games (purge), and whether a team still owns one (the composition root's guard on deleting a team).
 */
export { gamesToPurge, markGameDeleted, markGamePurged, teamOwnsGames } from './games.repository.js';
