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

/** The one statement that reads a whole snapshot. */
interface SnapshotQuery {
  tables: string[];
  query: RawBuilder<{ t: string; r: string }>;
}

/** What is kept per Db: its snapshot statement and change marker (made once), and the last snapshot read. */
interface SnapshotState {
  ready: Promise<{ statement: SnapshotQuery; marker: () => Promise<string> }>;
  last?: { marker: string; snapshot: StoreSnapshot };
}
const states = new WeakMap<Db, SnapshotState>();

function stateOf(db: Db): SnapshotState {
  let state = states.get(db);
  if (state === undefined) {
    const ready = snapshotQuery(db).then(async (statement) => ({
      statement,
      marker: await makeChangeMarker(db, statement.tables),
    }));
    state = { ready };
    states.set(db, state);
  }
  return state;
}

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

/**
 * A reading that moves whenever a row of the snapshot's tables does: equal readings mean an unchanged store,
 * so the last snapshot stands. Most of the matrix's and the fuzz suite's calls are refusals that write
 * nothing, and reading the whole store around each of them was most of their time.
 *
 * On SQLite: the rows this (only) connection inserted, updated or deleted since it opened, and
 * `data_version`, which moves when another connection commits. PostgreSQL has no per-database counter (the
 * WAL position moves with every other test's writes), so the first snapshot of a test database gives each
 * table a trigger that takes a number from a sequence as a write commits: deferred to the commit, so that a
 * transaction still open when a snapshot is read (its rows not yet visible) has not moved the reading either.
 */
async function makeChangeMarker(db: Db, tables: string[]): Promise<() => Promise<string>> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    return async () => {
      const { rows } = await sql<{ c: number; v: number }>`
        select total_changes() as c, (select data_version from pragma_data_version) as v`.execute(db);
      return `${rows[0]?.c} ${rows[0]?.v}`;
    };
  }
  await sql`create sequence if not exists gcm_test_changes`.execute(db);
  await sql`create or replace function gcm_test_note_change() returns trigger language plpgsql as $$
    begin perform nextval('gcm_test_changes'); return null; end $$`.execute(db);
  const { rows } = await sql<{ t: string }>`
    select relname as t from pg_trigger join pg_class on pg_class.oid = tgrelid
    where tgname = 'gcm_test_changes'`.execute(db);
  const done = new Set(rows.map((r) => r.t));
  for (const table of tables.filter((t) => !done.has(t))) {
    await sql`create constraint trigger gcm_test_changes after insert or update or delete on ${sql.table(table)}
      deferrable initially deferred for each row execute function gcm_test_note_change()`
      .execute(db)
      .catch((err: { code?: string }) => {
        // A second instance on the same database may have made it first.
        if (err.code !== '42710') throw err;
      });
  }
  return async () => {
    const { rows: read } = await sql<{ v: string; c: boolean }>`
      select last_value::text as v, is_called as c from gcm_test_changes`.execute(db);
    return `${read[0]?.v} ${read[0]?.c}`;
  };
}

/**
 * Reads every table through the service's own Kysely instance (SQLite or PostgreSQL alike). The answer may
 * be the same object as an earlier call's when nothing changed in between: callers must not modify it.
 */
export async function snapshotStore(db: Db): Promise<StoreSnapshot> {
  const state = stateOf(db);
  const { statement, marker: readMarker } = await state.ready;
  const marker = await readMarker();
  if (state.last?.marker === marker) return state.last.snapshot;
  const out: StoreSnapshot = Object.fromEntries(statement.tables.map((t) => [t, [] as string[]]));
  for (const { t, r } of (await statement.query.execute(db)).rows) out[t]?.push(r);
  for (const rows of Object.values(out)) rows.sort();
  state.last = { marker, snapshot: out };
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
