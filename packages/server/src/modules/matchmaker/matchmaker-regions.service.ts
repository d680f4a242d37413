import type { ListRegionsResponse } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import type { GameClientCaller } from '../../identity/callers.js';
import { gameModesOf, type NamespaceWish, namespaceConfig } from '../runtime/runtime.service.js';

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
  const ns = await clientNamespace(deps, caller);
  const offered = deps.config.regions;
  const run = new Set(Object.values(gameModesOf(ns, offered)).flatMap((gm) => Object.keys(gm.regions)));
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

/**
 * The caller's namespace with its current config. Deleting a namespace (or its game) revokes its tokens; a
 * request in flight meanwhile finds nothing.
 */
export async function clientNamespace(deps: Deps, caller: GameClientCaller): Promise<NamespaceWish> {
  const ns = await namespaceConfig(deps, caller.namespaceId);
  if (ns === undefined || ns.game_id !== caller.gameId) throw errors.namespaceNotFound();
  return ns;
}
