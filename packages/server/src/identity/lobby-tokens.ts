import { createHash, randomBytes } from 'node:crypto';

/**
 * GCM_LOBBY_TOKEN: the bearer a running lobby calls the service with (ready, closed, players). It names
 * one lobby alone and works while that lobby is not stopped; only its sha256 is stored (lobbies.token_hash),
 * so a leaked store cannot act as any lobby. The prefix lets a bearer be told apart from the JWT-shaped
 * cloud tokens without parsing.
 */
export const LOBBY_TOKEN_PREFIX = 'gcm_lobby_';
/** Exactly what newLobbyToken makes: the prefix and 32 random bytes in base64url. */
export const LOBBY_TOKEN_SHAPE = /^gcm_lobby_[A-Za-z0-9_-]{43}$/;

export function newLobbyToken(): { token: string; hash: string } {
  const token = `${LOBBY_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashLobbyToken(token) };
}

export function hashLobbyToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function isLobbyToken(bearer: string): boolean {
  return bearer.startsWith(LOBBY_TOKEN_PREFIX) && bearer.length <= LOBBY_TOKEN_PREFIX.length + 64;
}
