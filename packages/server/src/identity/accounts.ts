import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { APIError, betterAuth } from 'better-auth';
import { createAuthMiddleware } from 'better-auth/api';
import { organization } from 'better-auth/plugins';
import { adminAc, defaultAc, memberAc, ownerAc } from 'better-auth/plugins/organization/access';
import type { Config } from '../config.js';
import type { Db } from '../db/open-db.js';
import { isPostgres } from '../db/open-db.js';
import { deleteInBatches } from '../lib/batched-delete.js';
import type { Mailer } from '../lib/mail.js';
import type { TrustedOrigins } from '../lib/trusted-origins.js';
import type { PasswordHashing } from './password-hashing.js';
import { isTeamRole, TEAM_ROLES } from './roles.js';

/** The header the service sets to the client's address (request.ip) before better-auth reads it. */
export const CLIENT_IP_HEADER = 'x-gcm-client-ip';

/** Where better-auth answers: its standard endpoints under this prefix (POST /auth/sign-in/email, …). */
export const AUTH_BASE_PATH = '/auth';

export const SESSION_COOKIE_PREFIX = 'gcm';

/** Limits better-auth does not set itself: names and slugs are shown in lists and pages. */
export const ACCOUNT_LIMITS = {
  name: 100,
  email: 254,
  teamName: 100,
  teamSlug: 48,
  passwordMin: 10,
  passwordMax: 128,
  teamsPerPerson: 50,
  membersPerTeam: 500,
  pendingInvitationsPerTeam: 200,
} as const;

const SLUG = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** Set while the operator makes an account (POST /cloud/teams): the sign-up mode does not apply to it. */
export const operatorSignUp = new AsyncLocalStorage<true>();

/** A password-reset mail sent while one is set is also kept here, for the operator's answer. */
export const resetCapture = new AsyncLocalStorage<{ token?: string; team?: string }>();

export interface AccountsOptions {
  config: Config;
  db: Db;
  mailer: Mailer;
  /** Pages whose origin may sign in and write with a session (asked per request: the port may come late). */
  origins: TrustedOrigins;
  /** The key cookies are signed with, from the store (migration 0018), so every instance signs alike. */
  secret: string;
  /** Refuses the deletion of a team that still owns a game (games.team_id has no foreign key). */
  teamOwnsGames: (teamId: string) => Promise<boolean>;
  /** Someone became a member of a team (accepted an invitation, or was added): the team's webhooks hear it. */
  memberJoined?: (member: {
    teamId: string;
    memberId: string;
    userId: string;
    email: string;
    role: string;
  }) => Promise<void>;
  /** A team is gone: what it alone owned (its webhook endpoints) goes too. */
  teamDeleted?: (teamId: string) => Promise<void>;
  /** Hashes and checks passwords, a few at once (GCM_PASSWORD_HASH_CONCURRENCY). */
  passwordHashing: PasswordHashing;
  /** better-auth's own warnings and errors, into the service's log. */
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;
}

function refuse(message: string, code: string): never {
  throw new APIError('BAD_REQUEST', { message, code });
}

/**
 * better-auth stores "admin,member" (or a list) as one role and grants the rights of each, which the
 * service, reading one role a membership, would not see: every role written is exactly one. The /auth
 * bodies are checked before this (auth-bodies.ts); this holds for every other way in (the server API, an
 * invitation written before).
 */
async function assertOneRole(role: string): Promise<void> {
  if (!isTeamRole(role)) refuse(`role must be exactly one of ${TEAM_ROLES.join(', ')}`, 'INVALID_ROLE');
}

/** A team name and slug as better-auth is asked to write them: refused past the limits, or not a slug. */
function assertTeamName(name: string): void {
  if (name.length > ACCOUNT_LIMITS.teamName) {
    refuse(`name must be at most ${ACCOUNT_LIMITS.teamName} characters`, 'NAME_TOO_LONG');
  }
}

function assertTeamSlug(slug: string): void {
  if (slug.length > ACCOUNT_LIMITS.teamSlug || !SLUG.test(slug)) {
    refuse(
      `slug must be 1-${ACCOUNT_LIMITS.teamSlug} of a-z, 0-9 and -, not starting or ending with -`,
      'INVALID_SLUG',
    );
  }
}

function assertPersonName(name: string): void {
  if (name.length > ACCOUNT_LIMITS.name) {
    refuse(`name must be at most ${ACCOUNT_LIMITS.name} characters`, 'NAME_TOO_LONG');
  }
}

/**
 * The mail a password-reset token goes out in: the account's welcome when the operator made it for a team's
 * owner (resetCapture names the team), a reset otherwise. The token is also kept for the operator's answer.
 */
function resetMailer(config: Config, mailer: Mailer) {
  return async ({ user, token }: { user: { email: string }; token: string }): Promise<void> => {
    const url = resetPageUrl(config.publicUrl, token);
    const capture = resetCapture.getStore();
    if (capture !== undefined) capture.token = token;
    if (capture?.team !== undefined) {
      await mailer.send({
        to: user.email,
        subject: `Your Game Cloud Manager account for ${capture.team}`,
        text:
          `An account was made for ${user.email}, the owner of the team "${capture.team}".\n\n` +
          `To choose its password, send POST ${config.publicUrl}${AUTH_BASE_PATH}/reset-password with ` +
          `{"token": "${token}", "newPassword": "..."} within the hour, or open:\n${url}\n\n` +
          `After the hour, ask for a new link: POST ${config.publicUrl}${AUTH_BASE_PATH}/request-password-reset.`,
      });
      return;
    }
    await mailer.send({
      to: user.email,
      subject: 'Reset your Game Cloud Manager password',
      text:
        `Someone asked to reset the password of ${user.email}.\n\n` +
        `To choose a new one, send POST ${config.publicUrl}${AUTH_BASE_PATH}/reset-password with ` +
        `{"token": "${token}", "newPassword": "..."} within the hour, or open:\n${url}\n\n` +
        'If it was not you, ignore this message: your password stays as it is.',
    });
  };
}

/** The invitation mail: how to sign up with it, or sign in and accept (or decline) it. */
function invitationMailer(config: Config, mailer: Mailer) {
  return async (data: {
    id: string;
    email: string;
    role: string;
    organization: { name: string };
    inviter: { user: { name: string; email: string } };
    invitation: { expiresAt: Date };
  }): Promise<void> => {
    await mailer.send({
      to: data.email,
      subject: `You are invited to ${data.organization.name} on Game Cloud Manager`,
      text:
        `${data.inviter.user.name} (${data.inviter.user.email}) invites you to the team ` +
        `"${data.organization.name}" as ${data.role}.\n\n` +
        `Invitation id: ${data.id}\n` +
        `New here? Make your account: ${invitationSignUpUrl(config.publicUrl, data.id, data.email)}\n` +
        `Have an account? Sign in and open ${config.publicUrl}/invitations?invitation=${data.id}\n` +
        `Or sign up or sign in at ${config.publicUrl}, then accept with POST ${config.publicUrl}` +
        `${AUTH_BASE_PATH}/organization/accept-invitation {"invitationId": "${data.id}"}, or decline ` +
        `with ${AUTH_BASE_PATH}/organization/reject-invitation.\n` +
        `The invitation expires ${new Date(data.invitation.expiresAt).toISOString()}.`,
    });
  };
}

/** Tells the team's webhooks of a member who joined (accepted an invitation, or was added). */
function memberJoinedNotice(options: AccountsOptions) {
  return async (
    member: { id: string; organizationId: string; role: string },
    user: { id: string; email: string },
  ): Promise<void> => {
    await options.memberJoined?.({
      teamId: member.organizationId,
      memberId: member.id,
      userId: user.id,
      email: user.email,
      role: member.role,
    });
  };
}

/** The four team roles as better-auth's access control: a viewer may read, and change nothing. */
function teamRoles() {
  const viewerAc = defaultAc.newRole({
    organization: [],
    member: [],
    invitation: [],
    team: [],
    ac: ['read'],
  });
  return { owner: ownerAc, admin: adminAc, member: memberAc, viewer: viewerAc };
}

/** better-auth's teams ("organizations"): limits, invitations, and the checks it runs around each change. */
function teamsPlugin(options: AccountsOptions) {
  const { config, db } = options;
  const joined = memberJoinedNotice(options);
  return organization({
    roles: teamRoles(),
    creatorRole: 'owner',
    allowUserToCreateOrganization: true,
    organizationLimit: ACCOUNT_LIMITS.teamsPerPerson,
    membershipLimit: ACCOUNT_LIMITS.membersPerTeam,
    invitationLimit: ACCOUNT_LIMITS.pendingInvitationsPerTeam,
    invitationExpiresIn: config.accounts.invitationTtlSeconds,
    cancelPendingInvitationsOnReInvite: true,
    // Invitation ids are random v4 uuids (below), as unguessable as better-auth's own: the emailed id is
    // the proof, as with its default ids.
    requireEmailVerificationOnInvitation: false,
    sendInvitationEmail: invitationMailer(config, options.mailer),
    organizationHooks: {
      // The invitation id was sent to the email (or handed over by the team's admin): as good a proof of
      // the address as a verification mail, so the person may list their other invitations from now on.
      afterAcceptInvitation: async ({ user, member }) => {
        await markEmailVerified(db, user.id);
        await joined(member, user);
      },
      afterAddMember: async ({ user, member }) => joined(member, user),
      beforeAddMember: async ({ member }) => assertOneRole(member.role),
      beforeUpdateMemberRole: async ({ newRole }) => assertOneRole(newRole),
      beforeCreateInvitation: async ({ invitation }) => assertOneRole(invitation.role),
      beforeAcceptInvitation: async ({ invitation }) => assertOneRole(invitation.role),
      afterDeleteOrganization: async ({ organization: team }) => {
        await options.teamDeleted?.(team.id);
      },
      beforeCreateOrganization: async ({ organization: team }) => {
        assertTeamName(team.name ?? '');
        assertTeamSlug(team.slug ?? '');
      },
      beforeUpdateOrganization: async ({ organization: team }) => {
        if (typeof team.name === 'string') assertTeamName(team.name);
        if (typeof team.slug === 'string') assertTeamSlug(team.slug);
      },
      beforeDeleteOrganization: async ({ organization: team }) => {
        if (await options.teamOwnsGames(team.id)) {
          refuse(
            'this team still owns games: delete them or give them to another team first',
            'TEAM_OWNS_GAMES',
          );
        }
      },
    },
    schema: {
      session: { fields: { activeOrganizationId: 'active_team_id' } },
      organization: { modelName: 'teams', fields: { createdAt: 'created_at' } },
      member: {
        modelName: 'team_members',
        fields: { organizationId: 'team_id', userId: 'user_id', createdAt: 'created_at' },
      },
      invitation: {
        modelName: 'team_invitations',
        fields: {
          organizationId: 'team_id',
          expiresAt: 'expires_at',
          createdAt: 'created_at',
          inviterId: 'inviter_id',
        },
      },
    },
  });
}

/** better-auth's models over the tables of migration 0018: their names, and their fields' snake_case columns. */
const SESSION_MODEL = {
  modelName: 'user_sessions',
  fields: {
    userId: 'user_id',
    expiresAt: 'expires_at',
    ipAddress: 'ip_address',
    userAgent: 'user_agent',
    createdAt: 'created_at',
    updatedAt: 'updated_at',
  },
};
const USER_MODEL = {
  modelName: 'users',
  fields: { emailVerified: 'email_verified', createdAt: 'created_at', updatedAt: 'updated_at' },
};
const ACCOUNT_MODEL = {
  modelName: 'user_accounts',
  fields: {
    userId: 'user_id',
    accountId: 'account_id',
    providerId: 'provider_id',
    accessToken: 'access_token',
    refreshToken: 'refresh_token',
    idToken: 'id_token',
    accessTokenExpiresAt: 'access_token_expires_at',
    refreshTokenExpiresAt: 'refresh_token_expires_at',
    createdAt: 'created_at',
    updatedAt: 'updated_at',
  },
};
const VERIFICATION_MODEL = {
  modelName: 'auth_verifications',
  fields: { expiresAt: 'expires_at', createdAt: 'created_at', updatedAt: 'updated_at' },
};

/**
 * better-auth over the service's own store: people, sessions, credentials and teams (its "organizations")
 * in the tables of migration 0018. Its rate limiter is off: /auth routes are limited per address by the
 * service's own limits, which instances on PostgreSQL share.
 */
export function createAccounts(options: AccountsOptions) {
  const { config, db } = options;
  return betterAuth({
    appName: 'Game Cloud Manager',
    baseURL: config.publicUrl,
    basePath: AUTH_BASE_PATH,
    secret: options.secret,
    trustedOrigins: () => options.origins.list(),
    telemetry: { enabled: false },
    logger: {
      level: 'warn',
      // Its "Invalid origin" is logged at error on every refusal; the route logs it once per origin, at warn,
      // saying what decides (accounts.routes.ts).
      log: (level, message) => {
        if (!message.startsWith('Invalid origin')) options.log(level, message);
      },
    },
    database: {
      // biome-ignore lint/suspicious/noExplicitAny: better-auth takes any Kysely; ours is typed for our tables.
      db: db as any,
      type: isPostgres(db) ? 'postgres' : 'sqlite',
      // Not on SQLite: its one connection would be held through a sign-up's whole password hash, stalling
      // every other request, and a hook's own read would wait for it forever. Each statement there commits
      // on its own; a crash between a new account's two rows leaves a person without a password, which a
      // password reset gives them.
      transaction: isPostgres(db),
    },
    rateLimit: { enabled: false },
    emailAndPassword: {
      enabled: true,
      disableSignUp: config.accounts.signup === 'off',
      minPasswordLength: ACCOUNT_LIMITS.passwordMin,
      maxPasswordLength: ACCOUNT_LIMITS.passwordMax,
      password: { hash: options.passwordHashing.hash, verify: options.passwordHashing.verify },
      revokeSessionsOnPasswordReset: true,
      // The token reached the person through the account's email (or the operator who made the account for
      // it): that proves the address, which listing one's invitations requires (markEmailVerified).
      onPasswordReset: async ({ user }) => markEmailVerified(db, user.id),
      resetPasswordTokenExpiresIn: 3600,
      // better-auth's own `url` goes through GET /auth/reset-password/{token}, which needs a `callbackURL`
      // the operator's and the CLI's requests do not send: the dashboard's page takes the token itself.
      sendResetPassword: resetMailer(config, options.mailer),
    },
    session: {
      expiresIn: config.accounts.sessionTtlSeconds,
      updateAge: Math.min(86_400, Math.floor(config.accounts.sessionTtlSeconds / 2)),
      ...SESSION_MODEL,
    },
    user: USER_MODEL,
    account: ACCOUNT_MODEL,
    verification: VERIFICATION_MODEL,
    advanced: {
      cookiePrefix: SESSION_COOKIE_PREFIX,
      useSecureCookies: config.publicUrl.startsWith('https:'),
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax' },
      // Random v4 ids, as opaque as better-auth's own, in the uuid shape every other id of the API has.
      database: { generateId: () => randomUUID() },
      // Set by the service to request.ip (which honours GCM_TRUST_PROXY), after dropping any the client sent.
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    hooks: {
      // Before better-auth looks the email up: an email that has an account but no invitation gets the
      // refusal an unknown one gets, or the answers would tell which emails have accounts (README "Sign-up").
      // Returned, not thrown: better-auth answers a returned error alike, without logging it as a failure.
      before: createAuthMiddleware(async (ctx) => {
        const email: unknown = ctx.path === '/sign-up/email' ? ctx.body?.email : undefined;
        return typeof email === 'string' ? await uninvitedRefusal(config, db, email) : undefined;
      }),
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => {
            assertPersonName(user.name);
            if (user.email.length > ACCOUNT_LIMITS.email) {
              refuse(`email must be at most ${ACCOUNT_LIMITS.email} characters`, 'EMAIL_TOO_LONG');
            }
            const refusal = await uninvitedRefusal(config, db, user.email);
            if (refusal !== undefined) throw refusal;
          },
        },
        update: {
          before: async (user) => {
            if (typeof user.name === 'string') assertPersonName(user.name);
          },
        },
      },
    },
    plugins: [teamsPlugin(options)],
  });
}

export type Accounts = ReturnType<typeof createAccounts>;

/** The dashboard's page that sets a new password with a mailed token (packages/dashboard ResetPassword). */
export function resetPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
}

/** The dashboard's sign-up page for an invited email: the account it makes joins the team at once. */
export function invitationSignUpUrl(publicUrl: string, invitationId: string, email: string): string {
  return `${publicUrl}/sign-up?invitation=${encodeURIComponent(invitationId)}&email=${encodeURIComponent(email)}`;
}

/**
 * better-auth lists a person's invitations (GET /auth/organization/list-user-invitations) only once their
 * email is verified, so an account squatting an address cannot see whom it was invited by. The service sends
 * no verification mail of its own: a mailed reset token or an accepted invitation id proves the address.
 */
async function markEmailVerified(db: Db, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ email_verified: isPostgres(db) ? true : 1 })
    .where('id', '=', userId)
    .execute();
}

/**
 * In `invite` mode, the refusal of an account for an email with no open invitation (unless the operator makes
 * it). One refusal whether or not the email has an account already: its status, code and message are alike.
 */
async function uninvitedRefusal(config: Config, db: Db, email: string): Promise<APIError | undefined> {
  if (
    config.accounts.signup === 'invite' &&
    operatorSignUp.getStore() !== true &&
    !(await hasPendingInvitation(db, email))
  ) {
    return new APIError('FORBIDDEN', {
      message:
        'sign-up is by invitation only: ask a team admin (or the operator) to invite this email; ' +
        'if it has an account already, sign in (or reset its password) instead',
      code: 'SIGN_UP_BY_INVITATION_ONLY',
    });
  }
  return undefined;
}

/** An invitation to any team for `email` that is still open: what lets a person sign up by invitation. */
async function hasPendingInvitation(db: Db, email: string): Promise<boolean> {
  const now = new Date();
  const rows = await db
    .selectFrom('team_invitations')
    .select(['expires_at'])
    .where('email', '=', email.toLowerCase())
    .where('status', '=', 'pending')
    .limit(50)
    .execute();
  return rows.some((row) => new Date(row.expires_at) > now);
}

/** The oldest secret signs: a fresh store has exactly one (migration 0018). */
export async function loadAccountSecret(db: Db): Promise<string> {
  const row = await db
    .selectFrom('account_secrets')
    .select('secret')
    .orderBy('create_ts', 'asc')
    .orderBy('secret_id', 'asc')
    .executeTakeFirstOrThrow();
  return row.secret;
}

/** Sessions deleted per statement by the sweep: a few milliseconds of the store's write lock each. */
const SESSION_SWEEP_BATCH = 1000;

/**
 * Deletes sign-in sessions that expired before `now`. better-auth refuses an expired session and deletes it
 * when its cookie comes back, but one whose browser never returns would stay for ever. Runs as the hourly
 * `session-clean-up` background job.
 */
export async function deleteExpiredSessions(db: Db, now: number): Promise<number> {
  // better-auth's dates: timestamptz on PostgreSQL; on SQLite ISO-8601 text in UTC with milliseconds,
  // which sorts as the time does.
  const before = isPostgres(db) ? new Date(now) : new Date(now).toISOString();
  return deleteInBatches(SESSION_SWEEP_BATCH, async (batch) => {
    const result = await db
      .deleteFrom('user_sessions')
      .where('id', 'in', (eb) =>
        eb.selectFrom('user_sessions').select('id').where('expires_at', '<', before).limit(batch),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}
