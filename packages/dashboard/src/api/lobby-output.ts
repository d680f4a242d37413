import type { components } from '@gcm/sdk';
import { useQuery } from '@tanstack/react-query';
import { ApiError, api, unwrap } from './client';

export type LogStream = 'std_out' | 'std_err';
export type LobbyLogsPage = components['schemas']['GetLobbyLogsResponse'];
export type LobbyResourceSample = components['schemas']['LobbyResourceSample'];

/** One printed line for display: its bytes decoded as UTF-8 (bad bytes become U+FFFD) and its time. */
export interface LogLine {
  ts: string;
  text: string;
}

const utf8 = new TextDecoder('utf-8');

/** The wire carries each line as base64 of the bytes printed, as the original API did. */
export function decodeLines(page: LobbyLogsPage): LogLine[] {
  return page.lines.map((line, i) => {
    const raw = atob(line);
    const bytes = new Uint8Array(raw.length);
    for (let j = 0; j < raw.length; j++) bytes[j] = raw.charCodeAt(j);
    return { ts: page.timestamps[i] ?? '', text: utf8.decode(bytes) };
  });
}

/** The largest page the service serves: fewer round trips when reading back a long log. */
export const LOG_PAGE_LINES = 1000;

export function readLobbyLogs(
  gameId: string,
  lobbyId: string,
  query: { stream: LogStream; cursor?: string; watch_index?: string },
  signal: AbortSignal,
): Promise<LobbyLogsPage> {
  return unwrap(
    api.GET('/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}/logs', {
      params: {
        path: { game_id: gameId, lobby_id: lobbyId },
        query: { ...query, limit: String(LOG_PAGE_LINES) },
      },
      signal,
    }),
  );
}

/** A presigned URL to the whole stream as a text file (the export is audited, so it is asked for on click). */
export async function exportLobbyLogs(gameId: string, lobbyId: string, stream: LogStream): Promise<string> {
  const answer = await unwrap(
    api.POST('/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}/logs/export', {
      params: { path: { game_id: gameId, lobby_id: lobbyId } },
      body: { stream },
    }),
  );
  return answer.url;
}

/** One lobby of a namespace's lobby log: its lifecycle. Read again every few seconds until it stopped. */
export function useLobby(gameId: string, namespaceId: string, lobbyId: string) {
  return useQuery({
    queryKey: ['games', gameId, 'lobbies', namespaceId, 'one', lobbyId],
    queryFn: ({ signal }) =>
      unwrap(
        api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies/{lobby_id}', {
          params: { path: { game_id: gameId, namespace_id: namespaceId, lobby_id: lobbyId } },
          signal,
        }),
      ),
    refetchInterval: (query) => (query.state.data?.lobby.status.stopped === undefined ? 3_000 : false),
  });
}

/**
 * A lobby's resource use, or null where the service has none for it (a 404: a reported lobby, or a
 * service without sampling): the page then shows no samples rather than an error.
 */
export function useLobbyResources(gameId: string, lobbyId: string, running: boolean) {
  return useQuery({
    queryKey: ['games', gameId, 'lobby-resources', lobbyId],
    queryFn: async ({ signal }) => {
      try {
        return await unwrap(
          api.GET('/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}/resources', {
            params: { path: { game_id: gameId, lobby_id: lobbyId } },
            signal,
          }),
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    refetchInterval: running ? 5_000 : false,
  });
}
