import type { DevelopmentTarget } from '@gcm/contract';
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
  | LobbyCaller
  | GameClientCaller;

/**
 * A game client of one namespace, by the namespace's public token or a development token: it may matchmake
 * in that namespace (the routes whose rule is `matchmaker`) and do nothing else, on no other route.
 */
export interface GameClientCaller {
  readonly kind: 'game_client';
  readonly token: 'public' | 'development';
  readonly gameId: string;
  readonly namespaceId: string;
  readonly tokenId: string;
  readonly createTs: number;
  readonly expireTs: number;
  /** A development token's: the developer's host and ports, where its lobbies point; null for a public one. */
  readonly development: DevelopmentTarget | null;
}

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
