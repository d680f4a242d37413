import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../../db/open-db.js';
import { newOperatorTokenSecret, sha256Hex } from '../../identity/token-authority.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import * as repo from './tokens.repository.js';

export const OPERATOR_TOKEN_FILE = 'operator-token';

/**
 * On the first start of a store with no operator token, makes one: the file is written (0600) before the
 * hash is committed, so a crash in between leaves no token that nobody can read. Only the SHA-256 of the
 * token is stored. Returns the new token so the caller can print it this once; undefined otherwise.
 */
export async function ensureOperatorToken(
  db: Db,
  dataDir: string,
  clock: Clock,
  overrideToken: string | undefined,
): Promise<string | undefined> {
  if (overrideToken !== undefined) return undefined;
  return db.transaction().execute(async (trx) => {
    // Instances starting together on one PostgreSQL take turns here, so only the first makes a token.
    await repo.lockOperatorTokens(trx);
    if (await repo.hasOperatorToken(trx)) return undefined;

    const token = newOperatorTokenSecret();
    const file = path.join(dataDir, OPERATOR_TOKEN_FILE);
    const temp = `${file}.tmp-${process.pid}`;
    writeFileSync(temp, `${token}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, file);
    await repo.insertOperatorToken(trx, {
      token_id: newId(),
      token_sha256: sha256Hex(token),
      create_ts: clock.now(),
    });
    return token;
  });
}
