/** A unique-constraint violation on SQLite (better-sqlite3) or PostgreSQL (pg, SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/**
 * The database could not be reached or went away mid-request (a PostgreSQL restart or fail-over, a full
 * pool): the request did not fail because of its input, and a retry may well succeed. SQLSTATE classes 08
 * (connection exception) and 57P (operator intervention: shutdown, cannot connect now), socket errors,
 * and pg's own messages for a connection that ended or a pool that timed out.
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = String((err as { code?: unknown }).code ?? '');
  if (code.startsWith('08') || code.startsWith('57P')) return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code))
    return true;
  const message = err instanceof Error ? err.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
    message,
  );
}
