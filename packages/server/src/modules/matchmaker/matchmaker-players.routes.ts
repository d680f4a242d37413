import { FindLobbyBody, JoinLobbyAnswer, JoinLobbyBody } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { gameClientOf } from '../../http/auth.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { findLobby, joinLobby } from './matchmaker-players.service.js';

/**
 * find's body: game modes and regions are short names, tags, verification_data and a captcha response are
 * bounded (MATCHMAKER_LIMITS), all of it well under this.
 */
const FIND_BODY_LIMIT = 64 * 1024;

/** A game client's calls that get a player into a lobby, with its namespace's public or development token. */
export function matchmakerPlayersRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/matchmaker/lobbies/find',
    routeOptions(
      {
        operationId: 'matchmaker.lobbies.find',
        auth: 'matchmaker',
        // Players' finds are the hot path of a running game, as lobby reports are: not audited.
        audit: false,
        bodyLimit: FIND_BODY_LIMIT,
        summary:
          'Find a ready lobby with a free slot (first game mode and region in the order given) and take the slot: answers where to connect and a single-use player token',
        tag: 'matchmaker',
      },
      { body: FindLobbyBody, response: { 200: JoinLobbyAnswer } },
    ),
    async (request) => findLobby(deps, gameClientOf(request), request.body, request.ip),
  );

  app.post(
    '/matchmaker/lobbies/join',
    routeOptions(
      {
        operationId: 'matchmaker.lobbies.join',
        auth: 'matchmaker',
        audit: false,
        bodyLimit: FIND_BODY_LIMIT,
        summary:
          "Join a lobby by id: a slot within its game mode's direct maximum, and a single-use player token",
        tag: 'matchmaker',
      },
      { body: JoinLobbyBody, response: { 200: JoinLobbyAnswer } },
    ),
    async (request) => joinLobby(deps, gameClientOf(request), request.body, request.ip),
  );
}
