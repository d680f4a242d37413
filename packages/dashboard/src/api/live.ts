import type { Plan } from '@gcm/contract/limits';
import type { components } from '@gcm/sdk';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ApiError, api, unwrap } from './client';

export type LobbySummary = components['schemas']['LobbySummary'];
export type GameBilling = components['schemas']['GameBilling'];
export type TokenSummary = components['schemas']['TokenSummary'];
export type TokenResponse = components['schemas']['TokenResponse'];
export type NamespaceSummary = components['schemas']['NamespaceSummary'];
export type NamespaceRollout = components['schemas']['NamespaceRollout'];
export type LiveLobby = components['schemas']['LobbySummaryAnalytics'];

/** The plans, cheapest first (the order the service ranks them in), from the contract's typebox-free part. */
export { PLANS } from '@gcm/contract/limits';
export type { Plan };

export const liveKeys = {
  lobbies: (gameId: string, namespaceId: string, cursor: string | undefined) =>
    ['games', gameId, 'lobbies', namespaceId, cursor ?? 'newest'] as const,
  billing: (gameId: string) => ['games', gameId, 'billing'] as const,
  /** A namespace's live lobbies; under `allLobbies` so a stop refreshes them too (no cursor is 'live'). */
  liveLobbies: (gameId: string, namespaceId: string) =>
    ['games', gameId, 'lobbies', namespaceId, 'live'] as const,
  /** Every page of every namespace's lobby log of the game: what a stop refreshes. */
  allLobbies: (gameId: string) => ['games', gameId, 'lobbies'] as const,
  rollout: (gameId: string, namespaceId: string) => ['games', gameId, 'rollout', namespaceId] as const,
  tokens: (gameId: string) => ['games', gameId, 'tokens'] as const,
  tokenPage: (gameId: string, cursor: string | undefined) =>
    ['games', gameId, 'tokens', cursor ?? 'first'] as const,
};

/** The service's lobby page size (its list route says so: 64 a page); a shorter page is the last one. */
export const LOBBY_PAGE_SIZE = 64;

/** How often the newest page of lobbies is read again: the lobby list has no `watch_index` to wait on. */
const LOBBY_POLL_MS = 3_000;
/** Longest pause after failures, so an unreachable service is not hammered. */
const MAX_BACKOFF_MS = 60_000;

/** Doubling pauses after consecutive failures, from `base` up to MAX_BACKOFF_MS. */
export function backoff(failures: number, base: number): number {
  return Math.min(base * 2 ** Math.max(0, failures), MAX_BACKOFF_MS);
}

/**
 * The pause before the next read of the newest page: the poll interval while reads succeed; while they
 * fail, as long as they have been failing (so the pauses double), within the backoff's bounds.
 */
function pollDelay(state: { dataUpdatedAt: number; errorUpdatedAt: number; errorUpdateCount: number }) {
  if (state.errorUpdatedAt <= state.dataUpdatedAt) return LOBBY_POLL_MS;
  if (state.dataUpdatedAt === 0) return backoff(state.errorUpdateCount, LOBBY_POLL_MS);
  return Math.min(Math.max(2 * LOBBY_POLL_MS, Date.now() - state.dataUpdatedAt), MAX_BACKOFF_MS);
}

/**
 * A lobby page cursor for the URL: the last lobby's create_ts and lobby_id, which the service takes as
 * before_create_ts and before_lobby_id (the pair is exact even inside one millisecond).
 */
export function lobbyCursorOf(lobby: LobbySummary): string {
  return `${lobby.create_ts}~${lobby.lobby_id}`;
}

function parseLobbyCursor(cursor: string): { before_create_ts: string; before_lobby_id?: string } {
  const at = cursor.indexOf('~');
  if (at < 0) return { before_create_ts: cursor };
  return { before_create_ts: cursor.slice(0, at), before_lobby_id: cursor.slice(at + 1) };
}

/**
 * One page of a namespace's lobby log, newest first. The newest page (no cursor) is read again every few
 * seconds while the tab is visible, waiting longer after failures; older pages do not change much and are
 * read once. Leaving the page aborts the request under way (TanStack Query passes its signal on).
 */
export function useLobbies(gameId: string, namespaceId: string | undefined, cursor: string | undefined) {
  return useQuery({
    queryKey: liveKeys.lobbies(gameId, namespaceId ?? '', cursor),
    enabled: namespaceId !== undefined,
    queryFn: ({ signal }) =>
      unwrap(
        api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/logs/lobbies', {
          params: {
            path: { game_id: gameId, namespace_id: namespaceId ?? '' },
            query: cursor === undefined ? {} : parseLobbyCursor(cursor),
          },
          signal,
        }),
      ),
    refetchInterval: cursor === undefined ? (query) => pollDelay(query.state) : false,
    // A failed poll is retried by the next interval; the table keeps the last good page meanwhile.
    retry: cursor === undefined ? false : undefined,
  });
}

/**
 * A namespace's live lobbies with their players (GET …/analytics/matchmaker/live), read again every
 * LOBBY_POLL_MS while the tab is visible, like the newest lobby page (the route has no `watch_index`
 * either), waiting longer after failures.
 */
export function useLiveLobbies(gameId: string, namespaceId: string) {
  return useQuery({
    queryKey: liveKeys.liveLobbies(gameId, namespaceId),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/analytics/matchmaker/live', {
          params: { path: { game_id: gameId, namespace_id: namespaceId } },
          signal,
        }),
      ),
    refetchInterval: (query) => pollDelay(query.state),
    retry: false,
  });
}

/**
 * Stops a lobby the service runs: the service marks it stopping and its runtime stops the container. The
 * lobby pages and rollouts are read again at once, so the row shows stopping without waiting for a poll.
 */
export function useStopLobby(gameId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (lobbyId: string) =>
      unwrap(
        api.DELETE('/cloud/games/{game_id}/matchmaker/lobbies/{lobby_id}', {
          params: { path: { game_id: gameId, lobby_id: lobbyId } },
        }),
      ),
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: liveKeys.allLobbies(gameId) }),
        queryClient.invalidateQueries({ queryKey: ['games', gameId, 'rollout'] }),
      ]),
  });
}

/** A rollout is read again this often while nothing moves in it, rather than every LOBBY_POLL_MS. */
const ROLLOUT_SETTLED_MS = 15_000;

/**
 * Nothing is rolling out: every game mode and region of the current version has its idle lobbies, none
 * is starting or stopping, and no lobby of an older version is left.
 */
function rolloutSettled(rollout: NamespaceRollout): boolean {
  return (
    rollout.complete &&
    rollout.groups.every((g) =>
      g.version_id === rollout.version_id
        ? g.lobbies.starting === 0 && g.lobbies.stopping === 0
        : Object.values(g.lobbies).every((n) => n === 0),
    )
  );
}

/**
 * The rollout of each namespace (its lobbies per version and state, and recent failures), read again every
 * few seconds like the newest lobby page while lobbies start, stop or drain (the route has no
 * `watch_index` either), and every ROLLOUT_SETTLED_MS once it settled: a deploy elsewhere still shows
 * within that, without a read every 3 s of every namespace of an idle game. Only for a service that runs
 * lobbies (the game's `runtime`): the caller does not mount it otherwise.
 */
export function useRollouts(gameId: string, namespaceIds: string[]) {
  return useQueries({
    queries: namespaceIds.map((namespaceId) => ({
      queryKey: liveKeys.rollout(gameId, namespaceId),
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        unwrap(
          api.GET('/cloud/games/{game_id}/namespaces/{namespace_id}/rollout', {
            params: { path: { game_id: gameId, namespace_id: namespaceId } },
            signal,
          }),
        ),
      refetchInterval: (query: { state: Parameters<typeof pollDelay>[0] & { data?: NamespaceRollout } }) => {
        const { data, dataUpdatedAt, errorUpdatedAt } = query.state;
        const ok = data !== undefined && errorUpdatedAt <= dataUpdatedAt;
        return ok && rolloutSettled(data) ? ROLLOUT_SETTLED_MS : pollDelay(query.state);
      },
      retry: false,
    })),
  });
}

export function useBilling(gameId: string) {
  return useQuery({
    queryKey: liveKeys.billing(gameId),
    queryFn: ({ signal }) =>
      unwrap(api.GET('/cloud/games/{game_id}/billing', { params: { path: { game_id: gameId } }, signal })),
  });
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Fastest the watch loop asks again, whatever the service answers: never a tight loop. */
const WATCH_MIN_GAP_MS = 1_000;

/**
 * Keeps the game's billing current while the page is open: a long poll with `watch_index` (the service
 * holds the request until the billing changes or its watch timeout), each answer's `watch.index` passed to
 * the next request. The answers go into the billing query, so the page just reads that. Unmounting aborts
 * the request under way; failures wait longer each time (a 4xx too, since repeating it at once would only
 * fail again).
 */
export function useBillingWatch(gameId: string, startIndex: string | undefined) {
  const queryClient = useQueryClient();
  const started = startIndex !== undefined;
  useEffect(() => {
    if (!started) return;
    const stop = new AbortController();
    const key = liveKeys.billing(gameId);
    void (async () => {
      let failures = 0;
      while (!stop.signal.aborted) {
        const since = Date.now();
        const index = queryClient.getQueryData<GameBilling>(key)?.watch.index;
        try {
          const next = await unwrap(
            api.GET('/cloud/games/{game_id}/billing', {
              params: {
                path: { game_id: gameId },
                query: index === undefined ? {} : { watch_index: index },
              },
              signal: stop.signal,
            }),
          );
          failures = 0;
          queryClient.setQueryData(key, next);
          await sleep(Math.max(0, WATCH_MIN_GAP_MS - (Date.now() - since)), stop.signal);
        } catch (err) {
          if (stop.signal.aborted) return;
          failures += 1;
          // The game went away or the person lost access: the page's own query shows why; stop watching.
          if (err instanceof ApiError && (err.status === 403 || err.status === 404)) return;
          await sleep(backoff(failures - 1, 2_000), stop.signal);
        }
      }
    })();
    return () => stop.abort();
  }, [gameId, started, queryClient]);
}

export function useUpdatePlan(gameId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (plan: Plan) =>
      unwrap(
        api.PUT('/cloud/games/{game_id}/billing/plan', {
          params: { path: { game_id: gameId } },
          body: { plan },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: liveKeys.billing(gameId) }),
  });
}

export function useTokens(gameId: string, cursor: string | undefined, enabled: boolean) {
  return useQuery({
    queryKey: liveKeys.tokenPage(gameId, cursor),
    enabled,
    queryFn: ({ signal }) =>
      unwrap(
        api.GET('/cloud/games/{game_id}/tokens', {
          params: { path: { game_id: gameId }, query: cursor === undefined ? {} : { cursor } },
          signal,
        }),
      ),
  });
}

export type MintRequest = { kind: 'cloud' } | { kind: 'reporter'; namespaceId: string };

/**
 * Mints a token. The answer is the only place its text ever appears: `gcTime: 0` drops the mutation (and
 * the text in it) from the mutation cache as soon as the page stops using it, and nothing puts it in a
 * query. The caller keeps it in component state only.
 */
export function useMintToken(gameId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    gcTime: 0,
    mutationFn: (request: MintRequest) =>
      request.kind === 'cloud'
        ? unwrap(api.POST('/cloud/games/{game_id}/tokens/cloud', { params: { path: { game_id: gameId } } }))
        : unwrap(
            api.POST('/cloud/games/{game_id}/namespaces/{namespace_id}/tokens/reporter', {
              params: { path: { game_id: gameId, namespace_id: request.namespaceId } },
            }),
          ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: liveKeys.tokens(gameId) }),
  });
}

export function useRevokeToken(gameId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) =>
      unwrap(api.DELETE('/cloud/tokens/{token_id}', { params: { path: { token_id: tokenId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: liveKeys.tokens(gameId) }),
  });
}
