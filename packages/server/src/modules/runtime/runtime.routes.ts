import {
  DeleteMatchmakerLobbyResponse,
  GameLobbyParams,
  GetAnalyticsMatchmakerLiveResponse,
  GetRuntimeResponse,
  LIVE_LOBBIES_MAX,
  LobbyResources,
  NamespaceParams,
  NamespaceRollout,
} from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import { getLiveLobbies } from './live-lobbies.js';
import { getRollout, stopLobby } from './lobby-control.js';
import { getLobbyResources } from './lobby-resources.js';
import { getRuntimeView } from './runtime-view.js';

/** A studio's controls over the lobbies the runtime runs, and the view of a namespace's rollout. */
export function runtimeRoutes(app: TypedApp, deps: Deps & WithNamespaces): void {
  app.get(
    '/cloud/admin/runtime',
    routeOptions(
      {
        operationId: 'admin.getRuntime',
        auth: 'operator',
        summary: 'The machines lobbies run on, by region, with their capacity, lobbies and state',
        tag: 'admin',
        internal: true,
      },
      { response: { 200: GetRuntimeResponse } },
    ),
    async () => getRuntimeView(deps),
  );

  app.delete(
    '/cloud/games/:game_id/matchmaker/lobbies/:lobby_id',
    routeOptions(
      {
        operationId: 'games.matchmaker.deleteMatchmakerLobby',
        auth: 'game',
        summary: 'Stop a lobby the service runs (SIGTERM, then SIGKILL after the grace period)',
        tag: 'matchmaker',
      },
      { params: GameLobbyParams, response: { 200: DeleteMatchmakerLobbyResponse } },
    ),
    async (request) => stopLobby(deps, request.params.game_id, request.params.lobby_id),
  );

  app.get(
    '/cloud/games/:game_id/matchmaker/lobbies/:lobby_id/resources',
    routeOptions(
      {
        operationId: 'games.matchmaker.getLobbyResources',
        auth: 'game',
        summary:
          "A lobby's latest CPU, memory and network sample and its coarse history (docs/runtime.md, Resource use)",
        tag: 'matchmaker',
      },
      { params: GameLobbyParams, response: { 200: LobbyResources } },
    ),
    async (request) => getLobbyResources(deps, request.params.game_id, request.params.lobby_id),
  );

  app.get(
    '/cloud/games/:game_id/namespaces/:namespace_id/rollout',
    routeOptions(
      {
        operationId: 'games.namespaces.getNamespaceRollout',
        auth: 'game',
        summary:
          "The namespace's lobbies per version and state, and whether its version's idle lobbies are ready",
        tag: 'namespaces',
      },
      { params: NamespaceParams, response: { 200: NamespaceRollout } },
    ),
    async (request) => getRollout(deps, request.params.game_id, request.params.namespace_id),
  );

  app.get(
    '/cloud/games/:game_id/namespaces/:namespace_id/analytics/matchmaker/live',
    routeOptions(
      {
        operationId: 'games.namespaces.analytics.getAnalyticsMatchmakerLive',
        auth: 'game',
        summary: `The namespace's starting and ready lobbies with their player counts, newest first (at most ${LIVE_LOBBIES_MAX}; truncated says more exist)`,
        tag: 'namespaces',
      },
      { params: NamespaceParams, response: { 200: GetAnalyticsMatchmakerLiveResponse } },
    ),
    async (request) => getLiveLobbies(deps, request.params.game_id, request.params.namespace_id),
  );
}
