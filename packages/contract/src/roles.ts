/**
 * A person's place in a team and what it covers, shared by the server and the dashboard so that both decide
 * "may this role do that" the same way. This file imports nothing: the dashboard takes it in as
 * `@gcm/contract/roles` without the schema library.
 */

/** Strongest first (README "People and teams" has what each may do). */
export const TEAM_ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export function isTeamRole(value: string): value is TeamRole {
  return (TEAM_ROLES as readonly string[]).includes(value);
}

/** True when `held` is `needed` or stronger; no role (not in the team) covers nothing. */
export function roleCovers(held: TeamRole | undefined, needed: TeamRole): boolean {
  return held !== undefined && TEAM_ROLES.indexOf(held) <= TEAM_ROLES.indexOf(needed);
}
