import { useQuery } from '@tanstack/react-query';
import { getSession, listTeams } from './auth';
import { api, unwrap } from './client';

/** Query keys in one place, so a sign-in or sign-out can drop exactly what belonged to the last person. */
export const keys = {
  session: ['session'] as const,
  inspect: ['inspect'] as const,
  teams: ['teams'] as const,
  games: ['games'] as const,
  game: (gameId: string) => ['games', gameId] as const,
};

export function useSession() {
  return useQuery({ queryKey: keys.session, queryFn: getSession, staleTime: 60_000 });
}

/** Who the service says the caller is: for a person, their teams and role in each. */
export function useInspect(enabled: boolean) {
  return useQuery({
    queryKey: keys.inspect,
    queryFn: () => unwrap(api.GET('/cloud/auth/inspect')),
    enabled,
    staleTime: 60_000,
  });
}

/** Team names: the service's inspect answer has ids and roles only. */
export function useTeamNames(enabled: boolean) {
  return useQuery({ queryKey: keys.teams, queryFn: listTeams, enabled, staleTime: 60_000 });
}

/** Every game the person's teams own (the list is not paged); pages filter it by team. */
export function useGames() {
  return useQuery({ queryKey: keys.games, queryFn: () => unwrap(api.GET('/cloud/games')) });
}

export function useGame(gameId: string) {
  return useQuery({
    queryKey: keys.game(gameId),
    queryFn: () => unwrap(api.GET('/cloud/games/{game_id}', { params: { path: { game_id: gameId } } })),
  });
}

/** The signed-in person's role in a team, or undefined while loading or when not a member. */
export function useTeamRole(teamId: string) {
  const inspect = useInspect(true);
  return inspect.data?.agent.person?.teams.find((t) => t.team_id === teamId)?.role;
}
