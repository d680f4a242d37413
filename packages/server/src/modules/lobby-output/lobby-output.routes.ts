import {
  ExportLobbyLogsBody,
  ExportLobbyLogsResponse,
  GameLobbyParams,
  GetLobbyLogsQuery,
  GetLobbyLogsResponse,
  LOBBY_OUTPUT_LIMITS,
} from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { answerWhen, parseWatchIndex } from '../../http/watch.js';
import { exportLogs, lobbyOfGame, readLogs } from './lobby-output.service.js';
import { outputKey } from './output-capture.js';

const TAG = 'matchmaker';

/** What a lobby printed: read a page, page back with a cursor, follow with the watch index. */
export function lobbyOutputRoutes(app: TypedApp, deps: Deps): void {
  app.get(
    '/cloud/games/:game_id/matchmaker/lobbies/:lobby_id/logs',
    routeOptions(
      {
        operationId: 'games.matchmaker.getLobbyLogs',
        auth: 'game',
        summary:
          "The lobby's stdout or stderr, oldest first (base64 lines with their times): the newest page, the page before `cursor`, or with watch_index the lines after it (waiting for new ones, at most the watch timeout)",
        tag: TAG,
      },
      { params: GameLobbyParams, querystring: GetLobbyLogsQuery, response: { 200: GetLobbyLogsResponse } },
    ),
    async (request, reply) => {
      const { game_id, lobby_id } = request.params;
      const { stream } = request.query;
      const limit = request.query.limit === undefined ? undefined : Number(request.query.limit);
      if (limit !== undefined && (limit < 1 || limit > LOBBY_OUTPUT_LIMITS.pageLinesMax)) {
        throw errors.badQuery(
          `query parameter "limit" must be a whole number from 1 to ${LOBBY_OUTPUT_LIMITS.pageLinesMax}`,
          { field: 'limit' },
        );
      }
      const after = parseWatchIndex(request.query.watch_index);
      if (after !== undefined && request.query.cursor !== undefined) {
        throw errors.badQuery('give either "cursor" (an older page) or "watch_index" (follow), not both', {
          field: 'cursor',
        });
      }
      const lobby = await lobbyOfGame(deps, game_id, lobby_id);
      const options = {
        ...(limit === undefined ? {} : { limit }),
        ...(request.query.cursor === undefined ? {} : { cursor: Number(request.query.cursor) }),
      };
      if (after === undefined) return (await readLogs(deps, lobby, stream, options)).answer;
      // Past 2^53 no stream reaches: read as "after everything", which waits for new lines.
      const position = after > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(after);
      // Each follower reads from its own position, so the reads a notification wakes are not shared.
      const page = await answerWhen(
        reply,
        deps.notifier,
        {
          key: outputKey(lobby.namespaceId, lobby_id, stream),
          timeoutMs: deps.config.watchTimeoutMs,
          shareReads: false,
        },
        () => readLogs(deps, lobby, stream, { ...options, after: position }),
        (current) => current.count > 0 || current.answer.complete,
      );
      return page.answer;
    },
  );

  app.post(
    '/cloud/games/:game_id/matchmaker/lobbies/:lobby_id/logs/export',
    routeOptions(
      {
        operationId: 'games.matchmaker.exportLobbyLogs',
        auth: 'game',
        // Reading output is a viewer's right, though the export is a POST (the original's method).
        personRole: 'viewer',
        summary:
          "A presigned URL (one hour) to the lobby's whole stdout or stderr as a text file, one line each",
        tag: TAG,
      },
      { params: GameLobbyParams, body: ExportLobbyLogsBody, response: { 200: ExportLobbyLogsResponse } },
    ),
    async (request) => exportLogs(deps, request.params.game_id, request.params.lobby_id, request.body.stream),
  );
}
