import { sql } from 'kysely';
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
const KEPT_ROWS: Readonly<Record<string, (row: Record<string, unknown>) => boolean>> = {
  audit_events: (row) => Number(row.status) < 400,
};

const tableNames = new WeakMap<Db, Promise<string[]>>();

function canonical(row: Record<string, unknown>, skip: readonly string[]): string {
  const entries = Object.entries(row).filter(([column]) => !skip.includes(column));
  return JSON.stringify(Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1))));
}

/** Reads every table through the service's own Kysely instance (SQLite or PostgreSQL alike). */
export async function snapshotStore(db: Db): Promise<StoreSnapshot> {
  let names = tableNames.get(db);
  if (names === undefined) {
    names = db.introspection
      .getTables()
      .then((tables) => tables.map((t) => t.name).filter((name) => !TIMER_TABLES.has(name)));
    tableNames.set(db, names);
  }
  const out: StoreSnapshot = {};
  for (const name of await names) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
    const kept = KEPT_ROWS[name];
    out[name] = (kept === undefined ? rows : rows.filter(kept))
      .map((row) => canonical(row, BACKGROUND_COLUMNS[name] ?? []))
      .sort();
  }
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
