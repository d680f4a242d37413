import type { Db } from '../db/open-db.js';

// The queries the token authority checks bearer tokens with: token rows, operator token hashes, signing keys.
// The tokens module writes those tables (minting, revoking, the operator token at first start).

/** What a token's row says of it besides its ids and kind: read to check it and to list it. */
export const TOKEN_COLUMNS = [
  'namespace_id',
  'create_ts',
  'expire_ts',
  'revoke_ts',
  'last_used_ts',
  'user_id',
] as const;

/**
 * The row a bearer token is checked against: the one read on every request (a primary-key lookup) when
 * rows are not cached, so it reads what the check needs and nothing more.
 */
export function findToken(db: Db, tokenId: string) {
  return db
    .selectFrom('tokens')
    .select(['kind', 'game_id', 'development_json', ...TOKEN_COLUMNS])
    .where('token_id', '=', tokenId)
    .executeTakeFirst();
}

export type TokenRow = NonNullable<Awaited<ReturnType<typeof findToken>>>;

/**
 * Records a use at `now` unless one after `since` is recorded already, so instances that race here write
 * at most once between them, and a late write never moves the time back.
 */
export async function recordTokenUse(db: Db, tokenId: string, now: number, since: number): Promise<void> {
  await db
    .updateTable('tokens')
    .set({ last_used_ts: now })
    .where('token_id', '=', tokenId)
    .where((eb) => eb.or([eb('last_used_ts', 'is', null), eb('last_used_ts', '<=', since)]))
    .execute();
}

export function loadOperatorTokenHashes(db: Db) {
  return db.selectFrom('operator_tokens').select('token_sha256').execute();
}

/** Signing keys, oldest first: the last one signs, all of them verify. */
export function loadSigningKeys(db: Db) {
  return db.selectFrom('signing_keys').selectAll().orderBy('create_ts', 'asc').execute();
}

/**
 * The lobby a GCM_LOBBY_TOKEN's hash names, with its game: one lookup of the unique index lobbies_token.
 * Read on every call of a lobby (a handful per lobby's life, so never cached: a stop takes effect at once).
 */
export function findLobbyByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('lobbies')
    .innerJoin('namespaces', 'namespaces.namespace_id', 'lobbies.namespace_id')
    .select(['lobbies.lobby_id', 'lobbies.namespace_id', 'lobbies.run_state', 'namespaces.game_id'])
    .where('lobbies.token_hash', '=', tokenHash)
    .executeTakeFirst();
}
