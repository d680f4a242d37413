import { createHash } from 'node:crypto';
import pg from 'pg';

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

/** Creates the data dir's database if it does not exist yet; returns its URL. */
export async function testDatabaseUrl(dataDir: string): Promise<string> {
  const name = databaseNameFor(dataDir);
  await admin(async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database ${name}`);
  });
  const url = new URL(testPgAdminUrl as string);
  url.pathname = `/${name}`;
  return url.toString();
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
