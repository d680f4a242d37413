import { ExportLobbyHistoryBody, ExportLobbyHistoryResponse, GameIdParams } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { exportLobbyHistory } from './lobby-exports.service.js';

export function lobbyExportsRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/cloud/games/:game_id/matchmaker/lobbies/export-history',
    routeOptions(
      {
        operationId: 'games.matchmaker.exportMatchmakerLobbyHistory',
        auth: 'game',
        // Reading the lobby log is a viewer's right; a POST only because the original defined it so.
        personRole: 'viewer',
        summary:
          "A presigned URL (valid one hour, the file kept a day) to a CSV of the game's lobbies created in [query_start, query_end)",
        tag: 'matchmaker',
      },
      { params: GameIdParams, body: ExportLobbyHistoryBody, response: { 200: ExportLobbyHistoryResponse } },
    ),
    async (request) => exportLobbyHistory(deps, request.params.game_id, request.body),
  );
}
