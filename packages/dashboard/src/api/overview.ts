import { useQueries, useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { LOBBY_PAGE_SIZE, liveKeys } from './live';
import { keys } from './queries';

/** How many namespaces the overview reads for its figures: a game with more shows "N+". */
export const OVERVIEW_NAMESPACES_MAX = 8;
/** Builds counted per namespace: one page each, so a busy game costs the same as a new one. */
export const OVERVIEW_PAGE = 100;

/** A count read from pages that may not hold everything: `more` when some were not counted. */
export interface Figure {
  count: number;
  more: boolean;
  pending: boolean;
}

function sum(
  pages: ({ count: number; more: boolean } | undefined)[],
  skipped: boolean,
  pending: boolean,
): Figure {
  let count = 0;
  let more = skipped;
  for (const page of pages) {
    if (page === undefined) continue;
    count += page.count;
    more ||= page.more;
  }
  return { count, more, pending };
}

/**
 * The game's builds (every namespace's, summed) and its live lobbies (running in the newest page of each
 * namespace's lobby log), for the overview's figures and first-run checklist.
 */
export function useOverviewFigures(gameId: string, namespaceIds: string[]) {
  const read = namespaceIds.slice(0, OVERVIEW_NAMESPACES_MAX);
  const skipped = namespaceIds.length > read.length;
  const builds = useQueries({
    queries: read.map((id) => ({
      // Under the game's key: an upload invalidates the game's builds, and so this figure.
      queryKey: [...keys.game(gameId), 'builds', id, 'overview'] as const,
      queryFn: async () => {
        const page = await unwrap(
          api.GET('/games/{game_id}/environments/{environment_id}/builds', {
            params: {
              path: { game_id: gameId, environment_id: id },
              query: { limit: String(OVERVIEW_PAGE) },
            },
          }),
        );
        return { count: page.builds.length, more: page.cursor != null };
      },
    })),
  });
  const lobbies = useQueries({
    queries: read.map((id) => ({
      queryKey: ['overview-lobbies', gameId, id] as const,
      queryFn: async () => {
        const page = await unwrap(
          api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies', {
            params: { path: { game_id: gameId, namespace_id: id } },
          }),
        );
        const running = page.lobbies.filter((l) => l.status.stopped === undefined).length;
        // A full page of running lobbies may have more running behind it.
        return { count: running, more: running === LOBBY_PAGE_SIZE };
      },
      refetchInterval: 10_000,
    })),
  });
  return {
    builds: sum(
      builds.map((q) => q.data),
      skipped,
      builds.some((q) => q.isPending),
    ),
    lobbies: sum(
      lobbies.map((q) => q.data),
      skipped,
      lobbies.some((q) => q.isPending),
    ),
  };
}

/** Whether the game has any token (admins and owners only may list them; others are not asked). */
export function useHasToken(gameId: string, enabled: boolean) {
  return useQuery({
    // Under the tokens' key: minting one invalidates it.
    queryKey: [...liveKeys.tokens(gameId), 'any'] as const,
    enabled,
    queryFn: async () => {
      const page = await unwrap(
        api.GET('/cloud/games/{game_id}/tokens', { params: { path: { game_id: gameId } } }),
      );
      return page.tokens.length > 0;
    },
  });
}
