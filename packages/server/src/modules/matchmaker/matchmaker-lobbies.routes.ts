import {
  ListLobbiesResponse,
  ListOpenLobbiesQuery,
  LobbyCallAnswer,
  LobbyStateParams,
  MATCHMAKER_LIMITS,
} from '@gcm/contract';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { gameClientOf, lobbyCallerOf, namespaceReaderOf } from '../../http/auth.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { getLobbyState, listLobbies, setLobbyState, takeStateWrite } from './matchmaker-lobbies.service.js';

const TAG = 'matchmaker';

/** The lobbies players browse, and the state a lobby publishes for them (the original's lobbies.yml). */
export function matchmakerLobbiesRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/matchmaker/lobbies/list',
    routeOptions(
      {
        operationId: 'matchmaker.lobbies.list',
        auth: 'matchmaker',
        summary: `The ready, open, public lobbies of the namespace's listable game modes, the fullest first (at most ${MATCHMAKER_LIMITS.listLobbies})`,
        tag: TAG,
      },
      { querystring: ListOpenLobbiesQuery, response: { 200: ListLobbiesResponse } },
    ),
    async (request) => listLobbies(deps, gameClientOf(request), request.query.include_state === 'true'),
  );

  app.put(
    '/matchmaker/lobbies/state',
    {
      ...routeOptions(
        {
          operationId: 'matchmaker.lobbies.setState',
          auth: 'lobby',
          audit: false,
          bodyLimit: MATCHMAKER_LIMITS.stateBytes,
          bodyOptional: true,
          summary: `Set the calling lobby's state: any JSON (at most ${MATCHMAKER_LIMITS.stateBytes} bytes) players may read; no body clears it`,
          tag: TAG,
        },
        { body: Type.Unknown(), response: { 200: LobbyCallAnswer } },
      ),
      // Before the body is read: a refused write is neither parsed nor stored.
      preParsing: async (request, _reply, payload) => {
        takeStateWrite(deps, lobbyCallerOf(request));
        return payload;
      },
    },
    async (request) => {
      await setLobbyState(deps, lobbyCallerOf(request), request.body);
      return {};
    },
  );

  app.get(
    '/matchmaker/lobbies/:lobby_id/state',
    routeOptions(
      {
        operationId: 'matchmaker.lobbies.getState',
        auth: 'reader',
        summary:
          "A lobby's state as it set it (null when none), for its namespace's game clients and lobbies",
        tag: TAG,
      },
      { params: LobbyStateParams, response: { 200: Type.Unknown() } },
    ),
    // Serialized here: a state that is a bare string is still answered as JSON, not as text.
    async (request, reply) => {
      const state = await getLobbyState(deps, namespaceReaderOf(request), request.params.lobby_id);
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(state));
    },
  );
}
