import { sql } from 'kysely';
import type { TokensTable } from '../../db/database.js';
import { type Db, isPostgres } from '../../db/open-db.js';
import { TOKEN_COLUMNS } from '../../identity/token-store.js';
import type { PageKey } from '../../lib/paging.js';

// The tokens module's queries of its tables: token rows and operator token hashes. What a bearer token is
// checked against is read in identity/token-store.ts.

export async function insertToken(db: Db, row: TokensTable): Promise<void> {
  await db.insertInto('tokens').values(row).execute();
}

/** Revokes a token not yet revoked, of `gameId` only when given; reports whether a row changed. */
export async function revokeToken(
  db: Db,
  tokenId: string,
  now: number,
  gameId: string | undefined,
): Promise<boolean> {
  let query = db
    .updateTable('tokens')
    .set({ revoke_ts: now })
    .where('token_id', '=', tokenId)
    .where('revoke_ts', 'is', null);
  if (gameId !== undefined) query = query.where('game_id', '=', gameId);
  const result = await query.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Whether the token exists (and belongs to `gameId`, when given). */
export async function tokenExists(db: Db, tokenId: string, gameId: string | undefined): Promise<boolean> {
  let query = db.selectFrom('tokens').select('token_id').where('token_id', '=', tokenId);
  if (gameId !== undefined) query = query.where('game_id', '=', gameId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** A game's tokens, newest first, after `after`; a range of tokens_game_create read in index order. */
export function listGameTokensQuery(db: Db, gameId: string, after: PageKey | undefined, limit: number) {
  let query = db
    .selectFrom('tokens')
    .select(['token_id', 'kind', ...TOKEN_COLUMNS])
    .where('game_id', '=', gameId);
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('create_ts', 'token_id'), '<', eb.tuple(after.ts, after.id)));
  }
  return query.orderBy('create_ts', 'desc').orderBy('token_id', 'desc').limit(limit);
}

export function listGameTokens(db: Db, gameId: string, after: PageKey | undefined, limit: number) {
  return listGameTokensQuery(db, gameId, after, limit).execute();
}

/** An arbitrary application-wide advisory lock key (int8), distinct from Kysely's migration lock. */
const OPERATOR_TOKEN_LOCK_ID = sql.lit(BigInt('7164102384511029411'));

/**
 * Inside a transaction: instances starting together on one PostgreSQL take turns from here to its commit,
 * so only the first makes an operator token. (SQLite: the store is one process's.)
 */
export async function lockOperatorTokens(trx: Db): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(${OPERATOR_TOKEN_LOCK_ID})`.execute(trx);
}

export async function hasOperatorToken(db: Db): Promise<boolean> {
  return (
    (await db.selectFrom('operator_tokens').select('token_id').limit(1).executeTakeFirst()) !== undefined
  );
}

export async function insertOperatorToken(
  db: Db,
  row: { token_id: string; token_sha256: string; create_ts: number },
): Promise<void> {
  await db.insertInto('operator_tokens').values(row).execute();
}

/** The names a game cloud token's holder is shown by: its game's, the game's team's, and its person's. */
export async function findTokenNames(db: Db, gameId: string, userId: string | null) {
  const game = await db
    .selectFrom('games')
    .leftJoin('teams', 'teams.id', 'games.team_id')
    .select(['games.name_id', 'games.display_name', 'games.team_id', 'teams.name as team_name'])
    .where('games.game_id', '=', gameId)
    .where('games.delete_ts', 'is', null)
    .executeTakeFirst();
  const person =
    userId === null
      ? undefined
      : await db
          .selectFrom('users')
          .leftJoin('team_members', (join) =>
            join
              .onRef('team_members.user_id', '=', 'users.id')
              .on('team_members.team_id', '=', game?.team_id ?? ''),
          )
          .select(['users.id', 'users.email', 'users.name', 'team_members.role'])
          .where('users.id', '=', userId)
          .executeTakeFirst();
  return { game, person };
}
