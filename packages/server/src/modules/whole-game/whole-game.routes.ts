import { GameIdParams, GetGameResponse, NoContent } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import { getGameFull, retireGame } from './whole-game.service.js';

/** The routes of a game as a whole: its full view and its retirement (registered beside the games'). */
export function wholeGameRoutes(app: TypedApp, deps: Deps & WithNamespaces): void {
  app.get(
    '/cloud/games/:game_id',
    routeOptions(
      {
        operationId: 'games.getGameById',
        auth: 'game',
        summary: 'A game with its namespaces and versions',
        tag: 'games',
      },
      { params: GameIdParams, response: { 200: GetGameResponse } },
    ),
    async (request) => ({ game: await getGameFull(deps, request.params.game_id) }),
  );

  app.delete(
    '/cloud/games/:game_id',
    routeOptions(
      {
        operationId: 'games.deleteGame',
        auth: 'operator',
        personRole: 'owner',
        summary:
          'Retire a game: gone at once with its namespaces, tokens and billing; lobbies, builds and uploads are purged in the background',
        tag: 'games',
      },
      { params: GameIdParams, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      await retireGame(deps, request.params.game_id);
      return reply.code(204).send(null);
    },
  );
}
