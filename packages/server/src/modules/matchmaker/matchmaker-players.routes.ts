import { CreateCustomLobbyBody, FindLobbyBody, JoinLobbyAnswer, JoinLobbyBody } from '@gcm/contract';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { gameClientOf } from '../../http/auth.js';
import { clientKey } from '../../http/rate-limits.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { createLobby, findLobby, type GameClient, joinLobby } from './matchmaker-players.service.js';

/**
 * find's body: game modes and regions are short names, tags, verification_data and a captcha response are
 * bounded (MATCHMAKER_LIMITS), all of it well under this.
 */
const FIND_BODY_LIMIT = 64 * 1024;

/** The asking client as admission sees it: its address (GCM_TRUST_PROXY applied) and User-Agent. */
function clientOf(request: FastifyRequest): GameClient {
  return { addr: clientKey(request), userAgent: request.headers['user-agent'] };
}

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
    async (request) => findLobby(deps, gameClientOf(request), request.body, clientOf(request)),
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
    async (request) => joinLobby(deps, gameClientOf(request), request.body, clientOf(request)),
  );

  app.post(
    '/matchmaker/lobbies/create',
    routeOptions(
      {
        operationId: 'matchmaker.lobbies.create',
        auth: 'matchmaker',
        audit: false,
        // lobby_config and verification_data are bounded at MATCHMAKER_LIMITS.jsonBytes each.
        bodyLimit: FIND_BODY_LIMIT,
        summary:
          "Create a custom lobby (when the game mode's actions.create enables it) and take its first slot: answers once the lobby is ready, with where to connect and a single-use player token",
        tag: 'matchmaker',
      },
      { body: CreateCustomLobbyBody, response: { 200: JoinLobbyAnswer } },
    ),
    async (request) => createLobby(deps, gameClientOf(request), request.body, clientOf(request)),
  );
}
