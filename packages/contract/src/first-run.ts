import { type Static, Type } from 'typebox';
import { TEAM_SLUG_PATTERN } from './accounts.js';
import { Id, SINGLE_LINE_PATTERN } from './common.js';

/**
 * The first-run setup (docs/first-run.md): on a service with no team, the start log and a file in the data
 * dir hold a one-time link, `<public URL>/setup/<secret>`, whose page makes the first team and its owner.
 */
const SetupSecret = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'the secret of the setup link (the start log, or the data dir’s first-run-setup file)',
});

export const SetupStatusBody = Type.Object({ secret: SetupSecret });
export type SetupStatusBody = Static<typeof SetupStatusBody>;

export const SetupStatusResponse = Type.Object({
  status: Type.Literal('open', { description: 'the link is this service’s and has not been used' }),
});
export type SetupStatusResponse = Static<typeof SetupStatusResponse>;

export const CompleteSetupBody = Type.Object({
  secret: SetupSecret,
  team_name: Type.String({ minLength: 1, maxLength: 100, pattern: SINGLE_LINE_PATTERN }),
  team_slug: Type.String({
    maxLength: 48,
    pattern: TEAM_SLUG_PATTERN,
    description: '1-48 of a-z, 0-9 and -',
  }),
  name: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: SINGLE_LINE_PATTERN,
    description: 'the owner’s',
  }),
  email: Type.String({ format: 'email', maxLength: 254, description: 'the owner’s sign-in email' }),
  password: Type.String({
    minLength: 10,
    maxLength: 128,
    description: 'the owner’s; as strong as GCM_PASSWORD_MIN_SCORE asks (PASSWORD_TOO_WEAK otherwise)',
  }),
});
export type CompleteSetupBody = Static<typeof CompleteSetupBody>;

export const CompleteSetupResponse = Type.Object({
  team_id: Id,
  user_id: Id,
  email: Type.String({ maxLength: 254 }),
});
export type CompleteSetupResponse = Static<typeof CompleteSetupResponse>;
