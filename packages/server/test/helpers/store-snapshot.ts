import { PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { Db } from '../../src/db/open-db.js';

/** Every table's rows, each row as canonical JSON, sorted: equal snapshots mean an unchanged store. */
export type StoreSnapshot = Record<string, string[]>;

/**
 * Tables written by timers rather than by requests: on PostgreSQL the background jobs renew their leases
 * every pass, so a request that changed nothing could still see this table move under it.
 */
const TIMER_TABLES = new Set(['job_leases']);

/**
 * Columns written beside a request rather than by it: a token's last use is recorded (at most once a
 * minute, in the background) whenever the token authenticates, whatever the answer then is.
 */
const BACKGROUND_COLUMNS: Readonly<Record<string, readonly string[]>> = { tokens: ['last_used_ts'] };

/**
 * The audit log records refused writes too, by design (audit.test.ts checks them): a refusal may add its own
 * refused event and nothing else, so events of refusals (status 4xx and 5xx) are left out here.
 */
const KEPT_ROWS: Readonly<Record<string, RawBuilder<unknown>>> = { audit_events: sql`status < 400` };

/** Per Db: the one statement that reads a whole snapshot. */
interface SnapshotQuery {
  tables: string[];
  query: RawBuilder<{ t: string; r: string }>;
}
const snapshotQueries = new WeakMap<Db, Promise<SnapshotQuery>>();

/**
 * One `union all` over every table, each row turned into JSON by the store itself: the authorization matrix
 * and the fuzz suite take a snapshot around each of thousands of requests, and a statement per table (and a
 * JSON pass per row in JavaScript) made up most of their time. Columns are named in sorted order (PostgreSQL's
 * jsonb orders keys itself), so equal rows give equal text within a run.
 */
async function snapshotQuery(db: Db): Promise<SnapshotQuery> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const tables = (await db.introspection.getTables()).filter((t) => !TIMER_TABLES.has(t.name));
  const parts = tables.map((table) => {
    const skip = BACKGROUND_COLUMNS[table.name] ?? [];
    const columns = table.columns.map((c) => c.name).filter((c) => !skip.includes(c));
    columns.sort();
    const row = pg
      ? sql`(to_jsonb(x) ${sql.raw(skip.map((c) => `- '${c}'`).join(' '))})::text`
      : sql`json_object(${sql.join(columns.flatMap((c) => [sql.lit(c), sql.ref(`x.${c}`)]))})`;
    const kept = KEPT_ROWS[table.name];
    return sql`select ${sql.lit(table.name)} as t, ${row} as r from ${sql.table(table.name)} as x${
      kept === undefined ? sql`` : sql` where ${kept}`
    }`;
  });
  return {
    tables: tables.map((t) => t.name),
    query: sql<{ t: string; r: string }>`${sql.join(parts, sql` union all `)}`,
  };
}

/** Per Db on SQLite: the last snapshot read, and the store's change marker when it was read. */
const lastSnapshots = new WeakMap<Db, { marker: string; snapshot: StoreSnapshot }>();

/**
 * On SQLite, what changes whenever a row does: the rows this (only) connection has inserted, updated or
 * deleted since it opened, and `data_version`, which moves when another connection commits. Equal markers
 * mean an unchanged store, so the last snapshot stands: most of the matrix's and the fuzz suite's calls
 * are refusals that write nothing, and reading the whole store around each of them was most of their time.
 * PostgreSQL has no such per-database counter (its WAL position moves with every other test's writes), so
 * there the store is read every time.
 */
async function changeMarker(db: Db): Promise<string | undefined> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return undefined;
  const { rows } = await sql<{ c: number; v: number }>`
    select total_changes() as c, (select data_version from pragma_data_version) as v`.execute(db);
  return `${rows[0]?.c} ${rows[0]?.v}`;
}

/**
 * Reads every table through the service's own Kysely instance (SQLite or PostgreSQL alike). The answer may
 * be the same object as an earlier call's when nothing changed in between: callers must not modify it.
 */
export async function snapshotStore(db: Db): Promise<StoreSnapshot> {
  const marker = await changeMarker(db);
  const last = lastSnapshots.get(db);
  if (marker !== undefined && last?.marker === marker) return last.snapshot;
  let query = snapshotQueries.get(db);
  if (query === undefined) {
    query = snapshotQuery(db);
    snapshotQueries.set(db, query);
  }
  const { tables, query: statement } = await query;
  const out: StoreSnapshot = Object.fromEntries(tables.map((t) => [t, [] as string[]]));
  for (const { t, r } of (await statement.execute(db)).rows) out[t]?.push(r);
  for (const rows of Object.values(out)) rows.sort();
  if (marker !== undefined) lastSnapshots.set(db, { marker, snapshot: out });
  return out;
}

/** What differs between two snapshots, table by table: rows only before (`-`) and only after (`+`). */
export function diffSnapshots(before: StoreSnapshot, after: StoreSnapshot): string[] {
  const out: string[] = [];
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = new Set(before[table] ?? []);
    const now = new Set(after[table] ?? []);
    for (const row of was) if (!now.has(row)) out.push(`${table} - ${row}`);
    for (const row of now) if (!was.has(row)) out.push(`${table} + ${row}`);
  }
  return out;
}

/**
 * Columns that name an owned thing: a row holding one of a game's values in such a column is the game's.
 * Not lobby_id: a lobby is (namespace_id, lobby_id), and the data plane may give lobbies of two namespaces
 * the same id, so a lobby id alone names no owner (its row is found by its namespace_id anyway).
 */
const OWNER_COLUMNS = ['game_id', 'namespace_id', 'version_id', 'build_id', 'upload_id', 'token_id'] as const;

type OwnerColumn = (typeof OWNER_COLUMNS)[number];

/**
 * The rows owned from one seed value: those holding it in `seed` column, and, until nothing more is found,
 * every row that names, in one of the `through` columns, a value an owned row holds there.
 */
function rowsOwned(
  snapshot: StoreSnapshot,
  seed: OwnerColumn,
  id: string,
  through: readonly OwnerColumn[],
): StoreSnapshot {
  const owned = new Map<string, Set<string>>(through.map((c) => [c, new Set<string>()]));
  owned.set(seed, new Set([id]));
  const parsed = Object.entries(snapshot).map(
    ([table, rows]) =>
      [table, rows.map((r) => [r, JSON.parse(r) as Record<string, unknown>] as const)] as const,
  );
  const taken = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [table, rows] of parsed) {
      for (const [text, row] of rows) {
        const key = `${table} ${text}`;
        if (taken.has(key)) continue;
        const mine = [...owned].some(([c, ids]) => typeof row[c] === 'string' && ids.has(row[c] as string));
        if (!mine) continue;
        taken.add(key);
        grew = true;
        for (const c of through) if (typeof row[c] === 'string') owned.get(c)?.add(row[c] as string);
      }
    }
  }
  const out: StoreSnapshot = {};
  for (const [table, rows] of parsed)
    out[table] = rows.filter(([t]) => taken.has(`${table} ${t}`)).map(([t]) => t);
  return out;
}

/**
 * The rows that belong to one game: its own rows (game_id), and, until nothing more is found, every row
 * that names one of their namespaces, versions, builds, uploads or tokens.
 */
export function rowsOfGame(snapshot: StoreSnapshot, gameId: string): StoreSnapshot {
  return rowsOwned(snapshot, 'game_id', gameId, OWNER_COLUMNS);
}

/**
 * The rows that belong to one namespace (environment): those naming it (the namespace, its CDN users,
 * reporter tokens, lobbies, builds and their tags), and the uploads of its builds. Not through game_id or
 * version_id, which its sibling namespaces share.
 */
export function rowsOfNamespace(snapshot: StoreSnapshot, namespaceId: string): StoreSnapshot {
  return rowsOwned(snapshot, 'namespace_id', namespaceId, ['namespace_id', 'build_id', 'upload_id']);
}
