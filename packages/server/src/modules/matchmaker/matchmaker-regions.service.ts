import { type ListRegionsResponse, resolveVersionConfig, type VersionConfig } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import type { GameClientCaller } from '../../identity/callers.js';
import * as repo from './matchmaker-regions.repository.js';

/** Who runs the regions, as the original named its providers; the service is the only one it knows. */
export const REGION_PROVIDER = 'Game Cloud Management';

/**
 * The regions a game client may pick in its namespace: those where the namespace's version runs a game
 * mode (a game mode naming none runs in every region of GCM_REGIONS), in GCM_REGIONS' order. A version
 * with no game mode lists every region of the service, as the original listed a game's regions whatever
 * its version held: a client's region picker works before the first deploy. Coordinates and distances
 * are not known to the service: zero (docs/interface-notes.md).
 */
export async function listClientRegions(deps: Deps, caller: GameClientCaller): Promise<ListRegionsResponse> {
  const row = await repo.findNamespaceConfig(deps.db, caller.gameId, caller.namespaceId);
  // The namespace's deletion revokes its tokens; a request in flight meanwhile finds nothing.
  if (row === undefined) throw errors.namespaceNotFound();
  const offered = deps.config.regions;
  const run = regionsRun(row.config_json, offered);
  const listed = run.size === 0 ? offered : offered.filter((region) => run.has(region));
  return {
    regions: listed.map((region) => ({
      region_id: region,
      provider_display_name: REGION_PROVIDER,
      region_display_name: region,
      datacenter_coord: { latitude: 0, longitude: 0 },
      datacenter_distance_from_client: { kilometers: 0, miles: 0 },
    })),
  };
}

/** The regions the config's game modes run in; empty when it has none (or no longer parses). */
function regionsRun(configJson: string, offered: readonly string[]): Set<string> {
  return new Set(
    Object.values(resolvedGameModes(configJson, offered)).flatMap((gm) => Object.keys(gm.regions)),
  );
}

type ResolvedConfig = ReturnType<typeof resolveVersionConfig>;
type ResolvedGameModes = ResolvedConfig extends infer R
  ? R extends { matchmaker: { game_modes: infer G } }
    ? G
    : never
  : never;

/** The version config's game modes by name, resolved; none when it has none (or no longer parses). */
export function resolvedGameModes(configJson: string, offered: readonly string[]): ResolvedGameModes {
  try {
    const resolved = resolveVersionConfig(JSON.parse(configJson) as VersionConfig, { regions: offered });
    return 'matchmaker' in resolved ? resolved.matchmaker.game_modes : {};
  } catch {
    return {};
  }
}
