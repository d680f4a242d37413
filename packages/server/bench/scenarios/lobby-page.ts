import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { v7 } from 'uuid';
import { type Db, migrateToLatest, openDatabase, openSqlite } from '../../src/db/open-db.js';
import type { BenchPostgres } from '../lib/postgres.js';
import type { Comparison, Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { BENCH_REGIONS, instances, startPeer, startService } from '../lib/service.js';

const BIG = 1_000_000;
const SMALL = 10_000;
const REQUESTS = 2_000;
const STEP_MS = 250;
const BASE_TS = Date.parse('2025-01-01T00:00:00.000Z');
const P99_TARGET_MS = 10;
const SCALE_TARGET = 2;

interface LoadedStore {
  gameId: string;
  namespaces: { big: string; small: string };
  /** The PostgreSQL database holding them; undefined for the SQLite file in the data dir. */
  databaseUrl?: string;
}

/**
 * The fixed rows of the store, through the service's own schema (migrated first) and Kysely: one game, one
 * version, and the two namespaces that then get BIG and SMALL lobbies.
 */
export async function insertFixedRows(db: Db): Promise<LoadedStore> {
  await migrateToLatest(db);
  const now = Date.now();
  const gameId = v7();
  const versionId = v7();
  const namespaces = { big: v7(), small: v7() };
  await db
    .insertInto('games')
    .values({
      game_id: gameId,
      name_id: 'bench-lobbies',
      display_name: 'Bench Lobbies',
      create_ts: now,
      avatar_url: null,
      host_networking_enabled: 0,
    })
    .execute();
  await db
    .insertInto('versions')
    .values({ version_id: versionId, game_id: gameId, display_name: 'v1', config_json: '{}', create_ts: now })
    .execute();
  for (const [name, namespaceId] of Object.entries(namespaces)) {
    await db
      .insertInto('namespaces')
      .values({
        namespace_id: namespaceId,
        game_id: gameId,
        version_id: versionId,
        name_id: name,
        display_name: name,
        create_ts: now,
        update_ts: now,
        cdn_auth_type: 'none',
        cdn_enable_domain_public_auth: 0,
        mm_lobby_count_max: 256,
        mm_max_players_per_client: 8,
        mm_max_players_per_client_hosting: 8,
        mm_max_players_per_client_proxy: 8,
        mm_max_players_per_client_tor: 8,
        mm_max_players_per_client_vpn: 8,
      })
      .execute();
  }
  return { gameId, namespaces };
}

function logLoaded(log: (m: string) => void, started: number, how = ''): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  log(`lobby-page: loaded ${BIG + SMALL} lobbies in ${seconds} s${how}`);
}

/**
 * Loads the store before the service opens it (the service locks its file). The lobby rows go through one
 * prepared statement in one transaction, which is what makes a million rows take seconds rather than minutes.
 * Lobby i of a namespace: created at BASE_TS + i * STEP_MS, every third in group "ranked", regions in turn,
 * all but the newest 500 stopped, every 50th of those failed (loadPostgresStore makes the same rows).
 */
async function loadSqliteStore(dataDir: string, log: (m: string) => void): Promise<LoadedStore> {
  const db = openSqlite(dataDir);
  const store = await insertFixedRows(db);
  await db.destroy();

  const started = performance.now();
  const file = new SqliteDatabase(path.join(dataDir, 'gcm.sqlite3'));
  file.pragma('journal_mode = WAL');
  const insert = file.prepare(
    'insert into lobbies (lobby_id, namespace_id, lobby_group_name_id, region_id, create_ts, start_ts, ready_ts, stop_ts, exit_code, failed) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const fill = file.transaction((namespaceId: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const ts = BASE_TS + i * STEP_MS;
      const stopped = i < count - 500;
      insert.run(
        v7({ msecs: ts }),
        namespaceId,
        i % 3 === 0 ? 'ranked' : 'casual',
        BENCH_REGIONS[i % BENCH_REGIONS.length],
        ts,
        ts + 1_000,
        ts + 3_000,
        stopped ? ts + 600_000 : null,
        stopped ? (i % 50 === 0 ? 1 : 0) : null,
        stopped ? (i % 50 === 0 ? 1 : 0) : null,
      );
    }
  });
  fill(store.namespaces.big, BIG);
  fill(store.namespaces.small, SMALL);
  file.close();
  logLoaded(log, started);
  return store;
}

/**
 * The PostgreSQL equivalent of loadSqliteStore, in a fresh database: the same rows, made by the server itself
 * from generate_series in one statement per namespace (lobby ids in UUIDv7 form: the creation millisecond,
 * then bits from an md5 of the namespace and the index), then ANALYZE, as a database that grew to this size
 * would have been analysed by autovacuum.
 */
async function loadPostgresStore(
  postgres: BenchPostgres,
  dataDir: string,
  log: (m: string) => void,
): Promise<LoadedStore> {
  const databaseUrl = await postgres.createDatabase('lobbies');
  const { db } = openDatabase({ dataDir, databaseUrl, pgPoolMax: 1 }, (err) =>
    log(`lobby-page: loading connection failed: ${err.message}`),
  );
  try {
    const store = await insertFixedRows(db);
    const started = performance.now();
    for (const [namespaceId, count] of [
      [store.namespaces.big, BIG],
      [store.namespaces.small, SMALL],
    ] as const) {
      await sql`
        insert into lobbies (lobby_id, namespace_id, lobby_group_name_id, region_id, create_ts, start_ts,
          ready_ts, stop_ts, exit_code, failed)
        select substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-8' || substr(r, 4, 3)
            || '-' || substr(r, 7, 12),
          ${namespaceId}::text,
          case when i % 3 = 0 then 'ranked' else 'casual' end,
          (${BENCH_REGIONS}::text[])[i % ${BENCH_REGIONS.length}::int + 1],
          ts, ts + 1000, ts + 3000,
          case when stopped then ts + 600000 end,
          case when stopped then (i % 50 = 0)::int end,
          case when stopped then (i % 50 = 0)::int end
        from generate_series(0, ${count - 1}::int) as i,
          lateral (select ${BASE_TS}::bigint + i::bigint * ${STEP_MS}::bigint as ts) as t,
          lateral (
            select lpad(to_hex(ts), 12, '0') as h, md5(${namespaceId}::text || ':' || i) as r,
              i < ${count - 500}::int as stopped
          ) as derived`.execute(db);
    }
    // As autovacuum would have long before a namespace holds a million lobbies; left to it, its pass over
    // the fresh rows would run during the first timings.
    await sql`vacuum analyze lobbies`.execute(db);
    logLoaded(log, started, ' (generate_series, then VACUUM ANALYZE)');
    return { ...store, databaseUrl };
  } finally {
    await db.destroy();
  }
}

interface Timing {
  label: string;
  p50: number;
  p99: number;
}

/** Sequential pages; with several URLs (instances) the requests go to each in turn. */
async function timePage(label: string, urls: readonly string[], token: string): Promise<Timing> {
  const headers = { authorization: `Bearer ${token}` };
  const times: number[] = [];
  for (let i = 0; i < REQUESTS + 100; i++) {
    const url = urls[i % urls.length] as string;
    const start = performance.now();
    const res = await fetch(url, { headers });
    const body = (await res.json()) as { lobbies?: unknown[] };
    if (res.status !== 200 || body.lobbies?.length !== 64) {
      throw new Error(`${label}: ${url} answered ${res.status} with ${body.lobbies?.length} lobbies`);
    }
    if (i >= 100) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    label,
    p50: times[Math.floor(times.length / 2)] ?? Number.NaN,
    p99: times[Math.floor(times.length * 0.99)] ?? Number.NaN,
  };
}

/** The newest, middle and oldest page of each namespace, through the service(s) at `baseUrls`. */
async function timePositions(baseUrls: readonly string[], store: LoadedStore, token: string) {
  const timings: Timing[] = [];
  for (const [size, count] of [
    ['1M', BIG],
    ['10k', SMALL],
  ] as const) {
    const namespaceId = size === '1M' ? store.namespaces.big : store.namespaces.small;
    const page = (query: string) =>
      baseUrls.map(
        (base) => `${base}/cloud/games/${store.gameId}/namespaces/${namespaceId}/logs/lobbies${query}`,
      );
    const cursor = (i: number) =>
      `?before_create_ts=${encodeURIComponent(new Date(BASE_TS + i * STEP_MS).toISOString())}`;
    timings.push(await timePage(`${size} newest`, page(''), token));
    timings.push(await timePage(`${size} middle`, page(cursor(Math.floor(count / 2))), token));
    timings.push(await timePage(`${size} oldest`, page(cursor(64)), token));
  }
  return timings;
}

/** The timings of one set-up: one service, or (--pg) two instances on one database. */
interface Setup {
  name: string;
  timings: Timing[];
}

/** One table, one p50/p99 column pair per set-up (named only when there are several). */
function timingTable(setups: readonly Setup[]): string[] {
  const named = setups.length > 1;
  const header = setups.flatMap((s) => [
    `${named ? `${s.name} ` : ''}p50 ms`,
    `${named ? `${s.name} ` : ''}p99 ms`,
  ]);
  const rows = (setups[0]?.timings ?? []).map((t, i) => [
    t.label,
    ...setups.flatMap((s) => [s.timings[i]?.p50.toFixed(2) ?? '', s.timings[i]?.p99.toFixed(2) ?? '']),
  ]);
  return [
    `| position | ${header.join(' | ')} |`,
    `|---|${'---:|'.repeat(header.length)}`,
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ];
}

function targets(setup: Setup, named: boolean): Comparison[] {
  const worst = (prefix: string) =>
    Math.max(...setup.timings.filter((t) => t.label.startsWith(prefix)).map((t) => t.p99));
  const worstBig = worst('1M');
  const worstSmall = worst('10k');
  const suffix = named ? `, ${setup.name}` : '';
  return [
    {
      label: `worst p99 ms at 1M lobbies${suffix}`,
      value: worstBig,
      target: `< ${P99_TARGET_MS} ms`,
      met: worstBig < P99_TARGET_MS,
    },
    {
      label: `worst p99 at 1M / worst p99 at 10k${suffix}`,
      value: worstBig / worstSmall,
      target: `<= ${SCALE_TARGET}`,
      met: worstBig / worstSmall <= SCALE_TARGET,
    },
  ];
}

/**
 * A page of the lobby log at the newest, middle and oldest end of a 1M and a 10k lobby namespace. Under
 * `--pg`, on PostgreSQL with one instance, then with a second instance on the same database.
 */
export const lobbyPage: Scenario = {
  name: 'lobby-page',
  description: `GET .../logs/lobbies (64 a page) in namespaces of ${BIG.toLocaleString('en-US')} and ${SMALL.toLocaleString('en-US')} lobbies`,
  supportsPostgres: true,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const dataDir = path.join(context.workDir, 'lobby-data');
    const store =
      context.postgres === undefined
        ? await loadSqliteStore(dataDir, context.log)
        : await loadPostgresStore(context.postgres, dataDir, context.log);
    const operatorToken = `bench_op_${randomBytes(32).toString('base64url')}`;
    const service = await startService(context.registry, context.workDir, {
      dataDir,
      name: 'service (lobby log)',
      operatorToken,
      databaseUrl: store.databaseUrl,
    });
    const setups: Setup[] = [
      { name: instances(1), timings: await timePositions([service.baseUrl], store, operatorToken) },
    ];
    if (context.postgres !== undefined) {
      context.log('lobby-page: starting a second instance on the same database');
      const peer = await startPeer(context.registry, context.workDir, service, 'service (lobby log, second)');
      const both = [service.baseUrl, peer.baseUrl];
      setups.push({ name: instances(2), timings: await timePositions(both, store, operatorToken) });
    }
    const named = setups.length > 1;
    return {
      title: `lobby-page${context.postgres === undefined ? '' : ' on PostgreSQL'}: ${lobbyPage.description}`,
      rows: [],
      notes: [
        `${REQUESTS} sequential requests per position over HTTP (operator token)` +
          `${named ? `, alternating between the instances with ${instances(2)}` : ''}, latency in ms:`,
        '',
        ...timingTable(setups),
      ],
      comparisons: setups.flatMap((s) => targets(s, named)),
    };
  },
};
