import { type Static, Type } from 'typebox';
import { TeamRoleSchema } from './accounts.js';
import { Id, IdOf, Timestamp } from './common.js';
import { NextCursor } from './paging.js';

/**
 * The kinds of token a game has: `cloud` (the whole game), `reporter` (one namespace's lobby log), and a
 * namespace's game clients' `public` and `development` tokens (matchmaking in that namespace only).
 */
export const TokenKind = Type.Union([
  Type.Literal('cloud'),
  Type.Literal('reporter'),
  Type.Literal('public'),
  Type.Literal('development'),
]);

/** What the service knows of a token, never the token itself (its text is not stored) nor any hash of it. */
export const TokenSummary = Type.Object({
  token_id: Id,
  kind: TokenKind,
  namespace_id: Type.Union([Id, Type.Null()], {
    description: 'the namespace a reporter token may report for; null for a cloud token',
  }),
  create_ts: Timestamp,
  expire_ts: Type.Union([Timestamp, Type.Null()], {
    description: 'when the token stops working; every token the service mints today expires',
  }),
  last_used_ts: Type.Union([Timestamp, Type.Null()], {
    description:
      'when a request last authenticated with it, to the minute (a use less than a minute after the recorded one is not recorded); null if never',
  }),
  revoke_ts: Type.Union([Timestamp, Type.Null()], { description: 'when it was revoked; null if it was not' }),
  user_id: Type.Optional(
    IdOf(
      'the person it was minted for (a device link they approved, or their own mint); revoked when they leave the team or become a viewer',
    ),
  ),
});

/** `GET /cloud/games/{game_id}/tokens` (query: PageQuery): newest first, revoked and expired ones included. */
export const TokenList = Type.Object({
  tokens: Type.Array(TokenSummary),
  cursor: NextCursor,
});

export type TokenKind = Static<typeof TokenKind>;
export type TokenSummary = Static<typeof TokenSummary>;
export type TokenList = Static<typeof TokenList>;

/** A minted cloud or reporter token: the only answer that ever carries a token's text. */
export const TokenResponse = Type.Object({
  token: Type.String({ description: 'shown once; the service keeps only its id' }),
  token_id: Id,
  expire_ts: Timestamp,
});
export type TokenResponse = Static<typeof TokenResponse>;

/** `GET /cloud/auth/inspect`: who the bearer token speaks for. */
export const InspectResponse = Type.Object({
  agent: Type.Object({
    operator: Type.Optional(Type.Object({})),
    game_cloud: Type.Optional(
      Type.Object({
        game_id: Id,
        token_id: Id,
        create_ts: Timestamp,
        expire_ts: Timestamp,
        game: Type.Optional(
          Type.Object(
            { name_id: Type.String({ maxLength: 64 }), display_name: Type.String({ maxLength: 256 }) },
            { description: 'the game the token is scoped to, by name (absent once the game is retired)' },
          ),
        ),
        team: Type.Optional(
          Type.Object(
            { team_id: Id, name: Type.String({ maxLength: 256 }) },
            { description: 'the team that owns the game, when one does' },
          ),
        ),
        minted_for: Type.Optional(
          Type.Object(
            {
              user_id: Id,
              email: Type.String({ maxLength: 320 }),
              name: Type.String({ maxLength: 256 }),
              role: Type.Optional(TeamRoleSchema),
            },
            {
              description:
                'the person the token was minted for (gcm login, or a person’s mint), and their role now in the game’s team; absent for the operator’s tokens',
            },
          ),
        ),
      }),
    ),
    namespace_reporter: Type.Optional(
      Type.Object({
        game_id: Id,
        namespace_id: Id,
        token_id: Id,
        create_ts: Timestamp,
        expire_ts: Timestamp,
      }),
    ),
    person: Type.Optional(
      Type.Object(
        {
          user_id: Id,
          email: Type.String(),
          name: Type.String(),
          teams: Type.Array(
            Type.Object({
              team_id: Id,
              role: TeamRoleSchema,
            }),
            { maxItems: 1000 },
          ),
        },
        { description: 'a person signed in with a session cookie, and their role in each of their teams' },
      ),
    ),
  }),
});
export type InspectResponse = Static<typeof InspectResponse>;

export const TokenIdParams = Type.Object({ token_id: Id });
export type TokenIdParams = Static<typeof TokenIdParams>;
