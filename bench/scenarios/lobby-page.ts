import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import SqliteDatabase from 'better-sqlite3';
import { v7 } from 'uuid';
import { migrateToLatest, openSqlite } from '../../src/db/open-db.js';
import type { Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { BENCH_REGIONS, startService } from '../lib/service.js';

const BIG = 1_000_000;
const SMALL = 10_000;
const REQUESTS = 2_000;
const STEP_MS = 250;
const BASE_TS = Date.parse('2025-01-01T00:00:00.000Z');
const P99_TARGET_MS = 10;
const SCALE_TARGET = 2;

/**
 * Loads the store before the service opens it (the service locks its file): one game, one version, and
 * two namespaces holding BIG and SMALL lobbies. Schema and fixed rows go through the service's own
 * migrations and Kysely; the lobby rows through one prepared statement in one transaction, which is what
 * makes a million rows take seconds rather than minutes.
 */
async function loadStore(dataDir: string, log: (m: string) => void) {
  const db = openSqlite(dataDir);
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
  fill(namespaces.big, BIG);
  fill(namespaces.small, SMALL);
  file.close();
  log(`lobby-page: loaded ${BIG + SMALL} lobbies in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { gameId, namespaces };
}

interface Timing {
  label: string;
  p50: number;
  p99: number;
}

async function timePage(label: string, url: string, token: string): Promise<Timing> {
  const headers = { authorization: `Bearer ${token}` };
  const times: number[] = [];
  for (let i = 0; i < REQUESTS + 100; i++) {
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

/** A page of the lobby log at the newest, middle and oldest end of a 1M and a 10k lobby namespace. */
export const lobbyPage: Scenario = {
  name: 'lobby-page',
  description: `GET .../logs/lobbies (64 a page) in namespaces of ${BIG.toLocaleString('en-US')} and ${SMALL.toLocaleString('en-US')} lobbies`,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const dataDir = path.join(context.workDir, 'lobby-data');
    const { gameId, namespaces } = await loadStore(dataDir, context.log);
    const operatorToken = `bench_op_${randomBytes(32).toString('base64url')}`;
    const service = await startService(context.registry, context.workDir, {
      dataDir,
      name: 'service (lobby log)',
      operatorToken,
    });
    const timings: Timing[] = [];
    for (const [size, count] of [
      ['1M', BIG],
      ['10k', SMALL],
    ] as const) {
      const namespaceId = size === '1M' ? namespaces.big : namespaces.small;
      const base = `${service.baseUrl}/cloud/games/${gameId}/namespaces/${namespaceId}/logs/lobbies`;
      const cursor = (i: number) =>
        `?before_create_ts=${encodeURIComponent(new Date(BASE_TS + i * STEP_MS).toISOString())}`;
      timings.push(await timePage(`${size} newest`, base, operatorToken));
      timings.push(
        await timePage(`${size} middle`, `${base}${cursor(Math.floor(count / 2))}`, operatorToken),
      );
      timings.push(await timePage(`${size} oldest`, `${base}${cursor(64)}`, operatorToken));
    }
    const worst = (prefix: string) =>
      Math.max(...timings.filter((t) => t.label.startsWith(prefix)).map((t) => t.p99));
    const worstBig = worst('1M');
    const worstSmall = worst('10k');
    return {
      title: `lobby-page: ${lobbyPage.description}`,
      rows: [],
      notes: [
        `${REQUESTS} sequential requests per position over HTTP (operator token), latency in ms:`,
        '',
        '| position | p50 ms | p99 ms |',
        '|---|---:|---:|',
        ...timings.map((t) => `| ${t.label} | ${t.p50.toFixed(2)} | ${t.p99.toFixed(2)} |`),
      ],
      comparisons: [
        {
          label: 'worst p99 ms at 1M lobbies',
          value: worstBig,
          target: `< ${P99_TARGET_MS} ms`,
          met: worstBig < P99_TARGET_MS,
        },
        {
          label: 'worst p99 at 1M / worst p99 at 10k',
          value: worstBig / worstSmall,
          target: `<= ${SCALE_TARGET}`,
          met: worstBig / worstSmall <= SCALE_TARGET,
        },
      ],
    };
  },
};
