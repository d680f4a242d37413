import { errors } from '../../errors.js';
import { ACCOUNT_LIMITS } from '../../identity/accounts.js';
import { isTeamRole, TEAM_ROLES } from '../../identity/roles.js';

/**
 * What each better-auth POST endpoint the service serves under /auth takes, checked before the library sees
 * the body. better-auth's own schemas coerce (a number name is stored as "12345.0"), pass objects through
 * to a text column (on PostgreSQL as JSON, past every length limit) or fail with a 500 on null; here every
 * field has one type and a length, an unknown or ill-typed field is a 400 naming it, and a path with no
 * entry is not served at all (social sign-in, account deletion and the rest that this service does not set
 * up). GET endpoints take no body; better-auth checks their queries.
 */
type Field =
  | { readonly type: 'string'; readonly max: number; readonly min?: number; readonly nullable?: true }
  | { readonly type: 'boolean' }
  /** Exactly one of TEAM_ROLES: better-auth would also take "admin,member" or a list, and grant both. */
  | { readonly type: 'role' }
  | { readonly type: 'object'; readonly fields: Fields };

type Fields = Readonly<Record<string, Field & { readonly required?: true }>>;

/** Ids better-auth makes here are UUIDs (accounts.ts generateId); a little room above that. */
const ID_MAX = 64;
/** Reset and session tokens: better-auth's are 32 characters. */
const TOKEN_MAX = 256;
const URL_MAX = 2048;

const text = (max: number, min = 0) => ({ type: 'string', max, min }) as const;
const required = <F extends Field>(field: F) => ({ ...field, required: true }) as const;
const flag = { type: 'boolean' } as const;
const id = required(text(ID_MAX, 1));
const email = required(text(ACCOUNT_LIMITS.email, 1));
const password = required(text(ACCOUNT_LIMITS.passwordMax));
const name = text(ACCOUNT_LIMITS.name, 1);
const teamName = text(ACCOUNT_LIMITS.teamName, 1);
const slug = text(ACCOUNT_LIMITS.teamSlug, 1);
const callbackURL = text(URL_MAX);
const role = required({ type: 'role' } as const);

/** By path under AUTH_BASE_PATH. */
export const AUTH_BODIES: Readonly<Record<string, Fields>> = {
  '/sign-up/email': { email, password, name: required(name), callbackURL, rememberMe: flag },
  '/sign-in/email': { email, password, callbackURL, rememberMe: flag },
  '/sign-out': {},
  '/get-session': {},
  '/update-user': { name },
  '/change-password': {
    currentPassword: password,
    newPassword: password,
    revokeOtherSessions: flag,
  },
  '/request-password-reset': { email, redirectTo: text(URL_MAX) },
  '/reset-password': { newPassword: password, token: text(TOKEN_MAX, 1) },
  '/revoke-session': { token: required(text(TOKEN_MAX, 1)) },
  '/revoke-sessions': {},
  '/revoke-other-sessions': {},
  '/organization/create': {
    name: required(teamName),
    slug: required(slug),
    keepCurrentActiveOrganization: flag,
  },
  '/organization/update': {
    data: required({ type: 'object', fields: { name: teamName, slug } }),
    organizationId: id,
  },
  '/organization/delete': { organizationId: id },
  '/organization/check-slug': { slug: required(slug) },
  '/organization/set-active': {
    organizationId: { ...text(ID_MAX, 1), nullable: true },
    organizationSlug: slug,
  },
  '/organization/invite-member': {
    email,
    role,
    organizationId: text(ID_MAX, 1),
    resend: flag,
  },
  '/organization/accept-invitation': { invitationId: id },
  '/organization/reject-invitation': { invitationId: id },
  '/organization/cancel-invitation': { invitationId: id },
  // The team is named, never taken from the session's active team: it is the one whose member changes
  // take turns (accounts.routes.ts), and a concurrent set-active could point better-auth at another.
  '/organization/update-member-role': { memberId: id, role, organizationId: id },
  '/organization/remove-member': {
    memberIdOrEmail: required(text(ACCOUNT_LIMITS.email, 1)),
    organizationId: id,
  },
  '/organization/leave': { organizationId: id },
};

/**
 * The body for better-auth, or the 400 naming the first field that is unknown, missing, of the wrong type
 * or length; undefined when `path` is no endpoint the service serves.
 */
export function checkAuthBody(path: string, body: unknown): Record<string, unknown> | undefined {
  const fields = Object.hasOwn(AUTH_BODIES, path) ? AUTH_BODIES[path] : undefined;
  if (fields === undefined) return undefined;
  // A body-less call (sign-out) may send nothing at all.
  const given = body === undefined || body === null ? {} : body;
  checkObject(given, fields, []);
  return given as Record<string, unknown>;
}

function checkObject(value: unknown, fields: Fields, path: string[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const where = path.length === 0 ? 'the body' : path.join('.');
    throw errors.badBody(`${where} must be a JSON object`, { field: path.join('.') || 'body' });
  }
  const record = value as Record<string, unknown>;
  const known = Object.keys(fields);
  for (const key of Object.keys(record)) {
    if (!Object.hasOwn(fields, key)) {
      const field = [...path, key].join('.');
      const takes = known.length === 0 ? 'no fields' : known.join(', ');
      throw errors.badBody(`${field} is not a field of this call (it takes ${takes})`, { field });
    }
  }
  for (const [key, field] of Object.entries(fields)) {
    const at = [...path, key];
    const inner = record[key];
    if (inner === undefined) {
      if (field.required === true)
        throw errors.badBody(`${at.join('.')} is required`, { field: at.join('.') });
      continue;
    }
    checkField(inner, field, at);
  }
}

function checkField(value: unknown, field: Field, path: string[]): void {
  const name = path.join('.');
  switch (field.type) {
    case 'object':
      checkObject(value, field.fields, path);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw errors.badBody(`${name} must be true or false`, { field: name });
      return;
    case 'role':
      if (typeof value !== 'string' || !isTeamRole(value)) {
        throw errors.badBody(
          `${name} must be exactly one of ${TEAM_ROLES.join(', ')}: one role, not a list`,
          {
            field: name,
            allowed: [...TEAM_ROLES],
          },
        );
      }
      return;
    case 'string': {
      if (value === null && field.nullable === true) return;
      const min = field.min ?? 0;
      if (typeof value !== 'string' || value.length < min || value.length > field.max) {
        const length = min === 0 ? `at most ${field.max}` : `${min}-${field.max}`;
        throw errors.badBody(`${name} must be a string of ${length} characters`, {
          field: name,
          max_length: field.max,
        });
      }
    }
  }
}
