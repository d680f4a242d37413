import { TEAM_ROLES, type TeamRole } from '@gcm/contract';

export { TEAM_ROLES, type TeamRole } from '@gcm/contract';

export function isTeamRole(value: string): value is TeamRole {
  return (TEAM_ROLES as readonly string[]).includes(value);
}

/** True when `held` is `needed` or stronger. */
export function roleCovers(held: TeamRole, needed: TeamRole): boolean {
  return TEAM_ROLES.indexOf(held) <= TEAM_ROLES.indexOf(needed);
}
