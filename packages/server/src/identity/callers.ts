import type { TeamRole } from './roles.js';

/**
 * Who a request speaks for: a bearer token's holder, or a person signed in with a session cookie. Decided
 * once per request, before any data is read (http/auth.ts).
 */
export type Caller = TokenCaller | Person;

export type TokenCaller =
  | { kind: 'operator' }
  | {
      kind: 'game_cloud';
      gameId: string;
      tokenId: string;
      createTs: number;
      expireTs: number;
      /** The person it was minted for (a device link, or a person's mint); null for the operator's. */
      userId: string | null;
    }
  | {
      kind: 'namespace_reporter';
      gameId: string;
      namespaceId: string;
      tokenId: string;
      createTs: number;
      expireTs: number;
    }
  | LobbyCaller;

/**
 * A running lobby, by its GCM_LOBBY_TOKEN (identity/lobby-tokens.ts): it acts on its own lobby alone, on
 * the routes whose rule is `lobby`, and on nothing else.
 */
export interface LobbyCaller {
  readonly kind: 'lobby';
  readonly gameId: string;
  readonly namespaceId: string;
  readonly lobbyId: string;
}

/** A signed-in person: who, through which session, and their role in each of their teams. */
export interface Person {
  readonly kind: 'person';
  readonly userId: string;
  readonly sessionId: string;
  readonly email: string;
  readonly name: string;
  readonly teams: ReadonlyMap<string, TeamRole>;
}
