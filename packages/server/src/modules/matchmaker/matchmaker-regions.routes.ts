import { ListRegionsResponse } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { gameClientOf } from '../../http/auth.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { listClientRegions } from './matchmaker-regions.service.js';

/** A game client's own calls, with its namespace's public or development token. */
export function matchmakerRegionsRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/matchmaker/regions',
    routeOptions(
      {
        operationId: 'matchmaker.regions.list',
        auth: 'matchmaker',
        summary:
          "The regions a player may pick: those the token's namespace runs its version's game modes in",
        tag: 'matchmaker',
      },
      { response: { 200: ListRegionsResponse } },
    ),
    async (request) => listClientRegions(deps, gameClientOf(request)),
  );
}
