import {
  CreateLobbyBody,
  CreateLobbyResponse,
  GetLobbyResponse,
  ListLobbiesQuery,
  LobbyEventBody,
  LobbyList,
  LobbyParams,
  NamespaceParams,
  NoContent,
} from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { WithNamespaces } from '../namespaces/namespaces.service.js';
import { createLobby, getLobby, listLobbies, lobbyWrites, recordLobbyEvent } from './lobby-logs.service.js';

const TAG = 'lobby logs';
const BASE = '/cloud/games/:game_id/namespaces/:namespace_id/logs/lobbies';

export function lobbyLogsRoutes(app: TypedApp, deps: Deps & WithNamespaces): void {
  const writes = lobbyWrites(deps.db);
  app.get(
    BASE,
    routeOptions(
      {
        operationId: 'games.namespaces.logs.listNamespaceLobbies',
        auth: 'game',
        summary:
          'Lobbies of the namespace, newest first, 64 a page, created strictly before before_create_ts',
        tag: TAG,
      },
      {
        params: NamespaceParams,
        querystring: ListLobbiesQuery,
        response: { 200: LobbyList },
      },
    ),
    async (request) => {
      const { game_id, namespace_id } = request.params;
      return listLobbies(deps, game_id, namespace_id, request.query);
    },
  );

  app.get(
    `${BASE}/:lobby_id`,
    routeOptions(
      {
        operationId: 'games.namespaces.logs.getNamespaceLobby',
        auth: 'game',
        summary: 'One lobby of the namespace log',
        tag: TAG,
      },
      { params: LobbyParams, response: { 200: GetLobbyResponse } },
    ),
    async (request) => {
      const { game_id, namespace_id, lobby_id } = request.params;
      return { lobby: await getLobby(deps, game_id, namespace_id, lobby_id) };
    },
  );

  app.post(
    BASE,
    routeOptions(
      {
        operationId: 'games.namespaces.logs.createNamespaceLobby',
        auth: 'reporter',
        audit: false,
        summary: 'Data plane: record a new lobby (idempotent for a retried lobby_id)',
        tag: TAG,
        idempotent: true,
      },
      {
        params: NamespaceParams,
        body: CreateLobbyBody,
        response: { 200: CreateLobbyResponse },
      },
    ),
    async (request) => {
      const { game_id, namespace_id } = request.params;
      return { lobby_id: await createLobby(deps, writes, game_id, namespace_id, request.body) };
    },
  );

  app.post(
    `${BASE}/:lobby_id/events`,
    routeOptions(
      {
        operationId: 'games.namespaces.logs.recordNamespaceLobbyEvent',
        auth: 'reporter',
        audit: false,
        summary: 'Data plane: record start, ready or stop of a lobby (a repeated event is a no-op)',
        tag: TAG,
      },
      { params: LobbyParams, body: LobbyEventBody, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, namespace_id, lobby_id } = request.params;
      await recordLobbyEvent(deps, writes, game_id, namespace_id, lobby_id, request.body);
      return reply.code(204).send(null);
    },
  );
}
