import { type Static, Type } from 'typebox';
import { Id, SINGLE_LINE_PATTERN, Timestamp } from './common.js';

/** A person's place in a team on the wire: one of `TEAM_ROLES` (roles.ts). */
export const TeamRoleSchema = Type.Union([
  Type.Literal('owner'),
  Type.Literal('admin'),
  Type.Literal('member'),
  Type.Literal('viewer'),
]);

/** A team's slug: what its URL and the CLI name it by. */
export const TEAM_SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$';

/**
 * `POST /cloud/teams` (operator): a team and its first owner. The owner's account is made when the email has
 * none yet (sign-up need not be open), and they set their password through the reset link they are sent.
 */
export const CreateTeamBody = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: SINGLE_LINE_PATTERN,
    description: 'shown in lists',
  }),
  slug: Type.String({
    maxLength: 48,
    pattern: TEAM_SLUG_PATTERN,
    description: '1-48 of a-z, 0-9 and -, unique',
  }),
  owner_email: Type.String({ format: 'email', maxLength: 254, description: 'the owner’s sign-in email' }),
  owner_name: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: SINGLE_LINE_PATTERN,
      description: 'for a new account (default: the part of the email before @)',
    }),
  ),
});
export type CreateTeamBody = Static<typeof CreateTeamBody>;

export const CreateTeamResponse = Type.Object({
  team_id: Id,
  owner: Type.Object({
    user_id: Id,
    email: Type.String(),
    new_account: Type.Boolean({ description: 'true when this call made the account' }),
  }),
  password_setup: Type.Optional(
    Type.Object(
      {
        token: Type.String({ description: 'for POST /auth/reset-password {"token", "newPassword"}' }),
        expire_ts: Timestamp,
      },
      {
        description:
          'only for a new account when no SMTP server is configured (GCM_SMTP_URL): the operator passes it on; ' +
          'with SMTP it is mailed to the owner instead. Never replayed by Idempotency-Key.',
      },
    ),
  ),
});
export type CreateTeamResponse = Static<typeof CreateTeamResponse>;

/** `PUT /cloud/games/{game_id}/team` (operator): which team owns the game; null leaves it to the operator. */
export const SetGameTeamBody = Type.Object({ team_id: Type.Union([Id, Type.Null()]) });
export type SetGameTeamBody = Static<typeof SetGameTeamBody>;
