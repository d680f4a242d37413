import type { Insertable, Selectable } from 'kysely';
import type { LobbyResourceSamplesTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';

export type ResourceRow = Selectable<LobbyResourceSamplesTable>;

/** Rows per statement: 9 parameters each stays far below SQLite's and PostgreSQL's parameter limits. */
const ROWS_PER_STATEMENT = 500;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

/** Each lobby's latest sample, replacing the one before: one statement for a pass's lobbies. */
export async function upsertLatest(db: Db, rows: readonly Insertable<LobbyResourceSamplesTable>[]) {
  for (const chunk of chunks(rows)) {
    await db
      .insertInto('lobby_resource_latest')
      .values(chunk)
      .onConflict((oc) =>
        oc.column('lobby_id').doUpdateSet((eb) => ({
          namespace_id: eb.ref('excluded.namespace_id'),
          ts: eb.ref('excluded.ts'),
          cpu_millicores: eb.ref('excluded.cpu_millicores'),
          memory_bytes: eb.ref('excluded.memory_bytes'),
          memory_limit_bytes: eb.ref('excluded.memory_limit_bytes'),
          rx_bytes: eb.ref('excluded.rx_bytes'),
          tx_bytes: eb.ref('excluded.tx_bytes'),
        })),
      )
      .execute();
  }
}

/**
 * History rows, stamped with the start of their interval: a second instance (or a restart) sampling in the
 * same interval adds nothing. Then each written lobby's rows older than `keepFrom` go, so a lobby keeps at
 * most its newest `cap` intervals.
 */
export async function addHistory(
  db: Db,
  rows: readonly Insertable<LobbyResourceSamplesTable>[],
  keepFrom: number,
): Promise<void> {
  for (const chunk of chunks(rows)) {
    await db
      .insertInto('lobby_resource_samples')
      .values(chunk)
      .onConflict((oc) => oc.columns(['lobby_id', 'ts']).doNothing())
      .execute();
    await db
      .deleteFrom('lobby_resource_samples')
      .where(
        'lobby_id',
        'in',
        chunk.map((r) => r.lobby_id),
      )
      .where('ts', '<', keepFrom)
      .execute();
  }
}

export function findLatest(db: Db, namespaceId: string, lobbyId: string) {
  return db
    .selectFrom('lobby_resource_latest')
    .selectAll()
    .where('lobby_id', '=', lobbyId)
    .where('namespace_id', '=', namespaceId)
    .executeTakeFirst();
}

export function listHistory(db: Db, namespaceId: string, lobbyId: string, limit: number) {
  return db
    .selectFrom('lobby_resource_samples')
    .selectAll()
    .where('lobby_id', '=', lobbyId)
    .where('namespace_id', '=', namespaceId)
    .orderBy('ts')
    .limit(limit)
    .execute();
}

/**
 * At most `limit` rows of `table` of the namespace from before `before` (every row: undefined), picked by
 * key so one batch is one bounded statement (a range of the (namespace_id, ts) index).
 */
export async function deleteSamplesBatch(
  db: Db,
  table: 'lobby_resource_samples' | 'lobby_resource_latest',
  namespaceId: string,
  before: number | undefined,
  limit: number,
): Promise<number> {
  // Both tables have the same columns: typed as one, so the row-value comparison type-checks.
  const t = table as 'lobby_resource_samples';
  const inNamespace = db.selectFrom(t).select(['lobby_id', 'ts']).where('namespace_id', '=', namespaceId);
  const picked = (before === undefined ? inNamespace : inNamespace.where('ts', '<', before)).limit(limit);
  const result = await db
    .deleteFrom(t)
    .where((eb) => eb(eb.refTuple('lobby_id', 'ts'), 'in', picked.$asTuple('lobby_id', 'ts')))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Every namespace, deleted ones too (their samples stay until the purge or the retention). */
export async function namespaceIds(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('namespaces').select('namespace_id').execute();
  return rows.map((r) => r.namespace_id);
}
