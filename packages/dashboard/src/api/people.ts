import type { TeamRole } from '@gcm/contract/roles';
import type { components } from '@gcm/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from './auth';
import { api, unwrap } from './client';
import { keys, useSession } from './queries';

/**
 * Members, invitations and password resets: better-auth's organization and password endpoints under /auth
 * (README "People and teams"), typed by hand as the library answers them; and the audit log from the
 * service's own OpenAPI.
 */

export type { TeamRole };

export interface Member {
  id: string;
  userId: string;
  role: string;
  createdAt: string;
  user: { id: string; name: string; email: string };
}

export interface Invitation {
  id: string;
  email: string;
  role: string;
  organizationId: string;
  status: 'pending' | 'accepted' | 'rejected' | 'canceled';
  expiresAt: string;
  createdAt: string;
}

/** `get-full-organization`: invitations are empty for roles that may not see them (member, viewer). */
export interface FullTeam {
  id: string;
  name: string;
  members: Member[];
  invitations: Invitation[];
}

/** `list-user-invitations` adds the team's name to each. */
export interface UserInvitation extends Invitation {
  organizationName: string;
}

/** `get-invitation?id=`: one invitation addressed to the signed-in person. */
export interface InvitationDetail extends Invitation {
  organizationName: string;
  inviterEmail: string;
}

export const peopleKeys = {
  team: (teamId: string) => ['people', 'team', teamId] as const,
  mine: ['people', 'invitations'] as const,
  invitation: (id: string) => ['people', 'invitation', id] as const,
  audit: (scope: AuditScope, limit: number, cursor: string | null) =>
    ['people', 'audit', scope.kind, scope.id, limit, cursor] as const,
};

/** Pending and not yet expired: what may still be accepted or cancelled. */
export function isOpen(invitation: Invitation, now = Date.now()): boolean {
  return invitation.status === 'pending' && new Date(invitation.expiresAt).getTime() > now;
}

export function useFullTeam(teamId: string) {
  return useQuery({
    queryKey: peopleKeys.team(teamId),
    queryFn: () =>
      call<FullTeam>(
        'GET',
        `/organization/get-full-organization?organizationId=${encodeURIComponent(teamId)}`,
      ),
  });
}

/** A mutation of the team's members or invitations that refreshes the team (and the caller's own roles). */
export function useTeamChange<V, T>(teamId: string, mutationFn: (vars: V) => Promise<T>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: peopleKeys.team(teamId) }),
        queryClient.invalidateQueries({ queryKey: keys.inspect }),
      ]);
    },
  });
}

export function inviteMember(teamId: string, email: string, role: TeamRole): Promise<Invitation> {
  return call<Invitation>('POST', '/organization/invite-member', { email, role, organizationId: teamId });
}

export function cancelInvitation(invitationId: string): Promise<unknown> {
  return call('POST', '/organization/cancel-invitation', { invitationId });
}

export function updateMemberRole(teamId: string, memberId: string, role: TeamRole): Promise<unknown> {
  return call('POST', '/organization/update-member-role', { memberId, role, organizationId: teamId });
}

export function removeMember(teamId: string, memberId: string): Promise<unknown> {
  return call('POST', '/organization/remove-member', { memberIdOrEmail: memberId, organizationId: teamId });
}

/**
 * The person's pending invitations. better-auth lists them only for a proven email (an accepted invitation
 * or a mailed reset proves it), so the call is not made before: it would only be refused.
 */
export function useMyInvitations() {
  const session = useSession();
  const verified = session.data?.user.emailVerified === true;
  const query = useQuery({
    queryKey: peopleKeys.mine,
    queryFn: () => call<UserInvitation[]>('GET', '/organization/list-user-invitations'),
    enabled: verified,
  });
  return { query, verified, sessionPending: session.isPending };
}

export function useInvitation(id: string | null) {
  return useQuery({
    queryKey: peopleKeys.invitation(id ?? ''),
    queryFn: () =>
      call<InvitationDetail>('GET', `/organization/get-invitation?id=${encodeURIComponent(id ?? '')}`),
    enabled: id !== null,
  });
}

/** Accept or decline; either way the person's teams, switcher and invitation count change. */
export function useAnswerInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({
      id,
      accept,
      teamId,
    }: {
      id: string;
      accept: boolean;
      team: string;
      teamId: string;
    }) => {
      await call('POST', accept ? '/organization/accept-invitation' : '/organization/reject-invitation', {
        invitationId: id,
      });
      return { teamId };
    },
    onSuccess: async (_answer, { id }) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: keys.inspect }),
        queryClient.invalidateQueries({ queryKey: keys.teams }),
        queryClient.invalidateQueries({ queryKey: keys.games }),
        // Accepting proves the email: the session now says so, and the list may be read.
        queryClient.invalidateQueries({ queryKey: keys.session }),
        queryClient.invalidateQueries({ queryKey: peopleKeys.mine }),
        queryClient.invalidateQueries({ queryKey: peopleKeys.invitation(id) }),
      ]);
    },
  });
}

/** Answers alike whether or not the email has an account: the page must say so too. */
export function requestPasswordReset(email: string): Promise<unknown> {
  return call('POST', '/request-password-reset', { email, redirectTo: '/reset-password' });
}

export function resetPassword(token: string, newPassword: string): Promise<unknown> {
  return call('POST', '/reset-password', { token, newPassword });
}

export type AuditEvent = components['schemas']['AuditEvent'];
export interface AuditScope {
  kind: 'game' | 'team';
  id: string;
}

function fetchAudit(scope: AuditScope, limit: number, cursor: string | null) {
  const query = { limit: String(limit), ...(cursor === null ? {} : { cursor }) };
  return scope.kind === 'game'
    ? unwrap(api.GET('/cloud/games/{game_id}/audit', { params: { path: { game_id: scope.id }, query } }))
    : unwrap(api.GET('/cloud/teams/{team_id}/audit', { params: { path: { team_id: scope.id }, query } }));
}

export function useAudit(scope: AuditScope, limit: number, cursor: string | null, enabled: boolean) {
  return useQuery({
    queryKey: peopleKeys.audit(scope, limit, cursor),
    queryFn: () => fetchAudit(scope, limit, cursor),
    enabled,
    placeholderData: keepPreviousData,
  });
}
