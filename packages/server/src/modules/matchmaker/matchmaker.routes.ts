import { LobbyCallAnswer, PlayerTokenBody, SetLobbyClosedBody } from '@gcm/contract';
import type { TSchema } from 'typebox';
import type { Deps } from '../../deps.js';
import { lobbyCallerOf } from '../../http/auth.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { lobbyReady, playerConnected, playerDisconnected, setLobbyClosed } from './matchmaker.service.js';

const TAG = 'matchmaker';
/** The bodies are one boolean or one player token (≤ 512 characters): a few hundred bytes at most. */
const BODY_LIMIT = 4096;

/**
 * A lobby call's route options: the lobby's own token only, not audited (like lobby-log reports, these are
 * what the studio's servers stream in, and would drown the log), a small body, an empty answer.
 */
function lobbyCallMeta(operationId: string, summary: string) {
  return { operationId, auth: 'lobby', audit: false, bodyLimit: BODY_LIMIT, summary, tag: TAG } as const;
}

function lobbyCall<B extends TSchema>(operationId: string, summary: string, body: B) {
  return routeOptions(lobbyCallMeta(operationId, summary), { body, response: { 200: LobbyCallAnswer } });
}

/** The running lobby's own calls, with its GCM_LOBBY_TOKEN: each acts on that lobby. */
export function matchmakerRoutes(app: TypedApp, deps: Deps): void {
  // No body: whatever a game server's HTTP tool sends with it (an empty form from busybox wget or curl -d,
  // a JSON {}, nothing) is ignored (http/bodyless-routes.ts).
  app.post(
    '/matchmaker/lobbies/ready',
    routeOptions(
      lobbyCallMeta(
        'matchmaker.lobbies.ready',
        'The calling lobby can take players: starting → ready (a repeat is a no-op); any body is ignored',
      ),
      { response: { 200: LobbyCallAnswer } },
    ),
    async (request) => {
      await lobbyReady(deps, lobbyCallerOf(request));
      return {};
    },
  );

  app.put(
    '/matchmaker/lobbies/closed',
    lobbyCall(
      'matchmaker.lobbies.setClosed',
      'Close (or open) the calling lobby to new players from the matchmaker; it keeps running',
      SetLobbyClosedBody,
    ),
    async (request) => {
      await setLobbyClosed(deps, lobbyCallerOf(request), request.body.is_closed);
      return {};
    },
  );

  app.post(
    '/matchmaker/players/connected',
    lobbyCall(
      'matchmaker.players.connected',
      'A player connected to the calling lobby (counted once per player token, up to max_players)',
      PlayerTokenBody,
    ),
    async (request) => {
      await playerConnected(deps, lobbyCallerOf(request), request.body.player_token);
      return {};
    },
  );

  app.post(
    '/matchmaker/players/disconnected',
    lobbyCall(
      'matchmaker.players.disconnected',
      'A player left the calling lobby (a token it did not count is a no-op)',
      PlayerTokenBody,
    ),
    async (request) => {
      await playerDisconnected(deps, lobbyCallerOf(request), request.body.player_token);
      return {};
    },
  );
}
