import {
  type FailedLobby,
  type NamespaceRollout,
  REGION_PROBLEM_MAX_LENGTH,
  type RegionProblem,
  ROLLOUT_FAILED_MAX,
  ROLLOUT_PROBLEMS_MAX,
  type RolloutGroup,
  resolveGameMode,
  STOP_REASON_MAX_LENGTH,
  type VersionConfig,
} from '@gcm/contract';
import { assertGameExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { toTimestamp } from '../../lib/clock.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import { getVersion } from '../versions/versions.service.js';
import * as repo from './lobby-control.repository.js';

/**
 * A studio's stop of one lobby (DELETE /cloud/games/{g}/matchmaker/lobbies/{id}): the row is marked
 * stopping (reason 'studio') and the reconciler woken; it stops the container and writes the stop, as for
 * any stop the service decides. A lobby already stopping or stopped is answered did_remove: false.
 */
export async function stopLobby(
  deps: Deps,
  gameId: string,
  lobbyId: string,
): Promise<{ did_remove: boolean }> {
  await assertGameExists(deps, gameId);
  const [lobby] = await repo.findGameLobbies(deps.db, gameId, lobbyId);
  // Another game's lobby is not found, as a missing one: no answer tells whether an id exists elsewhere.
  if (lobby === undefined) throw errors.lobbyNotFound();
  if (lobby.run_state === null) throw errors.lobbyNotRuntime();
  const stopped = await repo.requestStop(deps.db, lobby.namespace_id, lobbyId, deps.clock.now(), 'studio');
  if (stopped) deps.runtime.wake(lobby.namespace_id);
  return { did_remove: stopped };
}

/**
 * The game's lobby the path names, for the reads of what it printed and used: another game's lobby is not
 * found, as a missing one is.
 */
export async function findGameLobby(
  deps: Deps,
  gameId: string,
  lobbyId: string,
): Promise<{ namespace_id: string; run_state: string | null; stop_ts: number | null }> {
  await assertGameExists(deps, gameId);
  const [lobby] = await repo.findGameLobbies(deps.db, gameId, lobbyId);
  if (lobby === undefined) throw errors.lobbyNotFound();
  return lobby;
}

type Counts = RolloutGroup['lobbies'];

function noLobbies(): Counts {
  return { starting: 0, ready_idle: 0, ready_busy: 0, closed: 0, stopping: 0 };
}

/** The idle lobbies the version wants ready per game mode × region (game modes that run a container). */
function idleWanted(
  deps: Deps,
  config: VersionConfig,
): Map<string, { gameMode: string; region: string; min: number }> {
  const wanted = new Map<string, { gameMode: string; region: string; min: number }>();
  const matchmaker = config.matchmaker;
  if (matchmaker === undefined || matchmaker === null) return wanted;
  for (const [gameMode, gm] of Object.entries(matchmaker.game_modes ?? {}).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    const resolved = resolveGameMode(matchmaker, gm ?? {}, { regions: deps.config.regions });
    if (resolved.container === undefined) continue;
    for (const [region, settings] of Object.entries(resolved.regions)) {
      wanted.set(groupKey(gameMode, region), { gameMode, region, min: settings.idle_lobbies.min });
    }
  }
  return wanted;
}

function groupKey(gameMode: string, region: string, versionId = ''): string {
  return JSON.stringify([versionId, gameMode, region]);
}

/**
 * The namespace's rollout: its live lobbies per version, game mode, region and state; whether the current
 * version has the idle lobbies it asks for ready everywhere; and that version's recent failures.
 */
export async function getRollout(
  deps: Deps & WithNamespaces,
  gameId: string,
  namespaceId: string,
): Promise<NamespaceRollout> {
  const namespace = await deps.namespaces.get(gameId, namespaceId);
  const current = namespace.version_id;
  const version = await getVersion(deps, gameId, current, false);
  const wanted = idleWanted(deps, version.config as VersionConfig);
  const groups = new Map<string, RolloutGroup>();
  for (const [, want] of wanted) {
    groups.set(groupKey(want.gameMode, want.region, current), {
      version_id: current,
      game_mode: want.gameMode,
      region_id: want.region,
      idle_wanted: want.min,
      lobbies: noLobbies(),
    });
  }
  for (const row of await repo.countLiveLobbies(deps.db, namespaceId)) {
    const versionId = row.version_id ?? current;
    const key = groupKey(row.lobby_group_name_id, row.region_id, versionId);
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        version_id: versionId,
        game_mode: row.lobby_group_name_id,
        region_id: row.region_id,
        idle_wanted: 0,
        lobbies: noLobbies(),
      };
      groups.set(key, group);
    }
    const state: keyof Counts =
      row.run_state === 'starting'
        ? 'starting'
        : row.run_state === 'stopping'
          ? 'stopping'
          : row.is_closed === 1
            ? 'closed'
            : row.busy === 1
              ? 'ready_busy'
              : 'ready_idle';
    group.lobbies[state] += row.n;
  }
  const currentGroups = [...groups.values()].filter((g) => g.version_id === current);
  const failed = await repo.recentFailedLobbies(deps.db, namespaceId, current, ROLLOUT_FAILED_MAX);
  const regionProblems = deps.runtime.regionProblems();
  const problems = [...new Set(currentGroups.map((g) => g.region_id))]
    .filter((region) => regionProblems[region] !== undefined)
    .sort()
    .slice(0, ROLLOUT_PROBLEMS_MAX)
    .map(
      (region): RegionProblem => ({
        region_id: region,
        message: (regionProblems[region] ?? '').slice(0, REGION_PROBLEM_MAX_LENGTH),
      }),
    );
  return {
    version_id: current,
    complete: currentGroups.every((g) => g.lobbies.ready_idle >= g.idle_wanted),
    // The current version's groups first, then older versions', each in name order.
    groups: [...groups.values()].sort(
      (a, b) =>
        Number(b.version_id === current) - Number(a.version_id === current) ||
        a.version_id.localeCompare(b.version_id) ||
        a.game_mode.localeCompare(b.game_mode) ||
        a.region_id.localeCompare(b.region_id),
    ),
    failed: failed.map(
      (f): FailedLobby => ({
        lobby_id: f.lobby_id,
        game_mode: f.lobby_group_name_id,
        region_id: f.region_id,
        exit_code: f.exit_code ?? 0,
        ...(f.stop_reason === null ? {} : { stop_reason: f.stop_reason.slice(0, STOP_REASON_MAX_LENGTH) }),
        stop_ts: toTimestamp(f.stop_ts ?? 0),
      }),
    ),
    problems,
  };
}
