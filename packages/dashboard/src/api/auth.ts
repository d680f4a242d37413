import { toApiError } from './client';

/**
 * better-auth's endpoints under /auth. They are not in the OpenAPI document (the library owns them), so
 * the few the dashboard calls are typed here by hand, as the README's "People and teams" describes them.
 * The browser sends the page's Origin with these same-origin POSTs itself, which the service requires of
 * every cookie write.
 */

export interface Session {
  /** `emailVerified`: proven by an accepted invitation or a mailed reset; listing invitations needs it. */
  user: { id: string; email: string; name: string; emailVerified?: boolean };
}

export interface Team {
  id: string;
  name: string;
  slug: string;
}

/** One better-auth call: its JSON answer, or its refusal as an ApiError in the service's words. */
export async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/auth${path}`, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!response.ok) throw toApiError(response, parsed);
  return parsed as T;
}

/** The signed-in person, or null: better-auth answers 200 null when signed out, so this never fails. */
export function getSession(): Promise<Session | null> {
  return call<Session | null>('GET', '/get-session');
}

export function signIn(email: string, password: string): Promise<unknown> {
  return call('POST', '/sign-in/email', { email, password });
}

export function signUp(name: string, email: string, password: string): Promise<unknown> {
  return call('POST', '/sign-up/email', { name, email, password });
}

export function signOut(): Promise<unknown> {
  return call('POST', '/sign-out', {});
}

export function listTeams(): Promise<Team[]> {
  return call<Team[]>('GET', '/organization/list');
}

export function acceptInvitation(invitationId: string): Promise<unknown> {
  return call('POST', '/organization/accept-invitation', { invitationId });
}

/** Makes a team; the signed-in person becomes its owner. */
export function createTeam(name: string, slug: string): Promise<Team> {
  return call<Team>('POST', '/organization/create', { name, slug });
}
