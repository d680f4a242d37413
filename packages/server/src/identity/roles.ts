/**
 * A person's place in a team: the contract's roles, so that the service and the dashboard decide "may this
 * role do that" with one function.
 */
export { isTeamRole, roleCovers, TEAM_ROLES, type TeamRole } from '@gcm/contract/roles';
