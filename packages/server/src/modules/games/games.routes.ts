import {
  CreateGameBody,
  CreateGameResponse,
  GameIdParams,
  GameList,
  HostNetworkingBody,
  NoContent,
  UpdateGameBody,
  ValidateGameBody,
  ValidationResult,
} from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { callerOf } from '../../http/auth.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import {
  assertMayCreateIn,
  createGame,
  listGames,
  renameGame,
  setHostNetworking,
  validateGame,
} from './games.service.js';

export function gamesRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/cloud/games/validate',
    routeOptions(
      {
        operationId: 'games.validateGame',
        auth: 'operator',
        personRole: 'admin',
        summary: 'Validate the display name (and optional name_id) of a new game',
        tag: 'games',
      },
      { body: ValidateGameBody, response: { 200: ValidationResult } },
    ),
    async (request) => {
      await assertMayCreateIn(deps, callerOf(request), request.body.team_id);
      return { errors: await validateGame(deps, request.body) };
    },
  );

  app.post(
    '/cloud/games',
    routeOptions(
      {
        operationId: 'games.createGame',
        auth: 'operator',
        personRole: 'admin',
        summary: 'Create a game',
        tag: 'games',
        idempotent: true,
      },
      { body: CreateGameBody, response: { 200: CreateGameResponse } },
    ),
    async (request) => {
      await assertMayCreateIn(deps, callerOf(request), request.body.team_id);
      return { game_id: await createGame(deps, request.body) };
    },
  );

  app.get(
    '/cloud/games',
    routeOptions(
      {
        operationId: 'games.getGames',
        auth: 'any',
        summary: 'List games: all for the operator, its own for a game cloud token',
        tag: 'games',
      },
      { response: { 200: GameList } },
    ),
    async (request) => ({ games: await listGames(deps, callerOf(request)) }),
  );

  app.patch(
    '/cloud/games/:game_id',
    routeOptions(
      {
        operationId: 'games.updateGame',
        auth: 'game',
        summary: "Change a game's display name (its name id stays)",
        tag: 'games',
      },
      { params: GameIdParams, body: UpdateGameBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      await renameGame(deps, request.params.game_id, request.body.display_name);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/cloud/games/:game_id/host-networking',
    routeOptions(
      {
        operationId: 'games.setGameHostNetworking',
        auth: 'operator',
        summary: 'Allow or refuse network_mode "host" in the versions of this game',
        tag: 'games',
      },
      { params: GameIdParams, body: HostNetworkingBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      await setHostNetworking(deps, request.params.game_id, request.body.enabled);
      return reply.code(204).send(null);
    },
  );
}
