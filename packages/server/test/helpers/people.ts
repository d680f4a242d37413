import assert from 'node:assert/strict';
import type { TeamRole } from '@gcm/contract';
import type { LightMyRequestResponse } from 'fastify';
import type { TestService } from './service.js';

export const PASSWORD = 'correct horse battery staple';

/** The headers a browser page of the service itself sends: its session cookie and its Origin. */
export function asPerson(svc: TestService, cookie: string): Record<string, string> {
  return { cookie, origin: new URL(svc.deps.config.publicUrl).origin };
}

/** `name=value` of the session cookie an answer sets. */
export function sessionCookie(res: LightMyRequestResponse): string {
  const raw = res.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const found = all.find((c) => c.includes('session_token=') && !c.includes('session_token=;'));
  assert.ok(found !== undefined, `no session cookie in ${res.statusCode} ${res.body}`);
  return found.split(';')[0] as string;
}

/** POST (or GET) to better-auth under /auth, as a page of the service would. */
export function authCall(
  svc: TestService,
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const origin = new URL(svc.deps.config.publicUrl).origin;
  return svc.call(method, `/auth${path}`, {
    token: null,
    ...(options.body === undefined ? {} : { body: options.body }),
    headers: {
      origin,
      ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
      ...options.headers,
    },
  });
}

export async function signIn(svc: TestService, email: string, password = PASSWORD): Promise<string> {
  const res = await authCall(svc, 'POST', '/sign-in/email', { body: { email, password } });
  assert.equal(res.statusCode, 200, res.body);
  return sessionCookie(res);
}

export async function signUp(svc: TestService, email: string, name = email.split('@')[0]): Promise<string> {
  const res = await authCall(svc, 'POST', '/sign-up/email', { body: { email, password: PASSWORD, name } });
  assert.equal(res.statusCode, 200, res.body);
  return sessionCookie(res);
}

export interface Team {
  teamId: string;
  owner: { email: string; cookie: string };
}

/**
 * A team made by the operator (POST /cloud/teams) for a new owner, who sets a password with the setup token
 * the answer carries (no SMTP in tests) and signs in.
 */
export async function newTeam(svc: TestService, slug: string): Promise<Team> {
  const email = `owner-${slug}@example.com`;
  const res = await svc.call('POST', '/cloud/teams', {
    body: { name: `Team ${slug}`, slug, owner_email: email },
  });
  assert.equal(res.statusCode, 200, res.body);
  const made = res.json<{ team_id: string; password_setup?: { token: string } }>();
  assert.ok(made.password_setup !== undefined, 'a new owner gets a password setup token without SMTP');
  const reset = await authCall(svc, 'POST', '/reset-password', {
    body: { token: made.password_setup.token, newPassword: PASSWORD },
  });
  assert.equal(reset.statusCode, 200, reset.body);
  return { teamId: made.team_id, owner: { email, cookie: await signIn(svc, email) } };
}

/** Invites `email` as `role` (by the owner), and the invited person signs up and accepts. */
export async function addMember(
  svc: TestService,
  team: Team,
  email: string,
  role: TeamRole,
): Promise<string> {
  const invite = await authCall(svc, 'POST', '/organization/invite-member', {
    cookie: team.owner.cookie,
    body: { email, role, organizationId: team.teamId },
  });
  assert.equal(invite.statusCode, 200, invite.body);
  const cookie = await signUp(svc, email);
  const accept = await authCall(svc, 'POST', '/organization/accept-invitation', {
    cookie,
    body: { invitationId: invite.json<{ id: string }>().id },
  });
  assert.equal(accept.statusCode, 200, accept.body);
  return cookie;
}

/** Gives a game to a team (operator). */
export async function giveGame(svc: TestService, gameId: string, teamId: string): Promise<void> {
  const res = await svc.call('PUT', `/cloud/games/${gameId}/team`, { body: { team_id: teamId } });
  assert.equal(res.statusCode, 204, res.body);
}
