import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../../src/db/open-db.js';
import { SERVER_ROOT } from './paths.js';

/**
 * The suite runs on SQLite by default and on PostgreSQL when GCM_TEST_DATABASE_URL names a server where
 * it may create databases (.ci/run starts a throw-away one; see the README). Each test service gets a
 * database of its own, named after its data dir, so a test that restarts a service on the same data dir
 * finds its data again, as it would on SQLite.
 */
export const testPgAdminUrl: string | undefined = process.env.GCM_TEST_DATABASE_URL || undefined;

export const onPostgres = testPgAdminUrl !== undefined;

/** The database name for a data dir: stable, and unique per data dir. */
function databaseNameFor(dataDir: string): string {
  return `gcm_t_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;
}

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  if (testPgAdminUrl === undefined) throw new Error('GCM_TEST_DATABASE_URL is not set');
  const client = new pg.Client({ connectionString: testPgAdminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Runs one statement as the admin on the server's admin database (tests that act on the server itself). */
export function adminQuery(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  return admin((client) => client.query(text, values));
}

function urlOf(name: string): string {
  const url = new URL(testPgAdminUrl as string);
  url.pathname = `/${name}`;
  return url.toString();
}

const MIGRATIONS_DIR = path.join(SERVER_ROOT, 'src/db/migrations');

/**
 * The migrated template's name, from the migrations' source: an added or edited migration names a new
 * template, so no test database is ever copied from a stale schema (and runs of other checkouts on the same
 * server keep theirs).
 */
function templateName(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(path.join(MIGRATIONS_DIR, file)))
      .update('\0');
  }
  return `gcm_tpl_${hash.digest('hex').slice(0, 24)}`;
}

let template: Promise<string> | undefined;

/**
 * A database every migration has run on, made once per server and migrations: each test database is a copy
 * of it, which takes a fraction of the time of running every migration again, per test service, on the
 * PostgreSQL pass. Made under an advisory lock (test files run in parallel processes) and under another name
 * until it is complete, so that its name existing means it is whole. Nothing ever connects to it after that:
 * PostgreSQL copies no database someone is connected to. The copies share what the migrations generate (the
 * first signing key, the upload and account secrets); the tests that need a store as a new deployment finds
 * it, empty, ask for one (`testDatabaseUrl`'s `empty`).
 */
function migratedTemplate(): Promise<string> {
  template ??= admin(async (client) => {
    const name = templateName();
    const building = `${name}_building`;
    await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [name]);
    try {
      const found = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount !== 0) return name;
      // Left behind by a run that stopped half-way.
      await client.query(`drop database if exists ${building} with (force)`);
      await client.query(`create database ${building}`);
      // Production's way in (openDatabase, migrateToLatest). An idle connection's failure needs no handler:
      // the migration's own query would fail.
      const store = { dataDir: os.tmpdir(), databaseUrl: urlOf(building), pgPoolMax: 1 };
      const { db } = openDatabase(store, () => {});
      try {
        await migrateToLatest(db);
      } finally {
        await db.destroy();
      }
      await client.query(`alter database ${building} rename to ${name}`);
      return name;
    } finally {
      await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [name]);
    }
  });
  return template;
}

/**
 * Creates the data dir's database if it does not exist yet, with every migration already applied (a copy of
 * the migrated template), or with nothing in it when `empty` (tests of what instances do on a new store);
 * returns its URL.
 */
export async function testDatabaseUrl(dataDir: string, options: { empty?: boolean } = {}): Promise<string> {
  const name = databaseNameFor(dataDir);
  const source = options.empty === true ? undefined : await migratedTemplate();
  await admin(async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(
        source === undefined ? `create database ${name}` : `create database ${name} template ${source}`,
      );
    }
  });
  return urlOf(name);
}

/**
 * On a PostgreSQL run, `env` plus the DATABASE_URL of its GCM_DATA_DIR's own database, unless it names one
 * itself; on SQLite, `env` as it is. Test services and test processes both start through this.
 */
export async function withTestDatabase(env: Record<string, string>): Promise<Record<string, string>> {
  if (!onPostgres || env.DATABASE_URL !== undefined || env.GCM_DATA_DIR === undefined) return env;
  return { ...env, DATABASE_URL: await testDatabaseUrl(env.GCM_DATA_DIR) };
}

/** Drops the data dir's database (ending any connection still open to it). */
export async function dropTestDatabase(dataDir: string): Promise<void> {
  await admin((client) => client.query(`drop database if exists ${databaseNameFor(dataDir)} with (force)`));
}

/** Runs SQL as the admin on the data dir's database (tests that look under the API). */
export async function queryTestDatabase<R extends pg.QueryResultRow>(
  dataDir: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const url = await testDatabaseUrl(dataDir);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Every row of every table of the data dir's database, as text: what a dump of the store would hold. */
export async function dumpTestDatabase(dataDir: string): Promise<string> {
  const tables = await queryTestDatabase<{ table_name: string }>(
    dataDir,
    "select table_name from information_schema.tables where table_schema = 'public'",
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await queryTestDatabase<{ row: string }>(
      dataDir,
      `select t::text as row from "${table_name}" t`,
    );
    parts.push(...rows.map((r) => r.row));
  }
  return parts.join('\n');
}
