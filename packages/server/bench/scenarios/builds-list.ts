import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Insertable, sql } from 'kysely';
import { v7 } from 'uuid';
import type { BuildsTable, BuildTagsTable, UploadsTable } from '../../src/db/database.js';
import { type Db, openDatabase, openSqlite } from '../../src/db/open-db.js';
import { startBaseline } from '../lib/baseline.js';
import type { Comparison, Scenario, ScenarioContext, ScenarioReport } from '../lib/scenario.js';
import { startService } from '../lib/service.js';
import { insertFixedRows } from './lobby-page.js';

const BUILDS = 100_000;
const BATCH = 500;
const REQUESTS = 300;
const WARMUP = 30;
const P50_TARGET_MS = 5;
const BASE_TS = Date.parse('2025-01-01T00:00:00.000Z');
const CHANNELS = ['stable', 'beta', 'nightly'];
const BRANCHES = 300;
/** The one old build carrying `rare: yes`. */
const RARE_INDEX = 5;

/**
 * Build i: created BASE_TS + i s, complete, tagged with a unique `version`, one of three channels and one of
 * 300 branches; build RARE_INDEX (among the oldest) also carries `rare: yes`. Loaded through the service's
 * own schema before it starts, in batches (each build needs its upload row too).
 */
async function load(db: Db, log: (m: string) => void) {
  const store = await insertFixedRows(db);
  const namespaceId = store.namespaces.big;
  const started = performance.now();
  for (let first = 0; first < BUILDS; first += BATCH) {
    const builds: Insertable<BuildsTable>[] = [];
    const uploads: Insertable<UploadsTable>[] = [];
    const tags: Insertable<BuildTagsTable>[] = [];
    for (let i = first; i < Math.min(first + BATCH, BUILDS); i++) {
      const ts = BASE_TS + i * 1000;
      const buildId = v7({ msecs: ts });
      const uploadId = v7({ msecs: ts });
      uploads.push({
        upload_id: uploadId,
        game_id: store.gameId,
        kind: 'build',
        object_key: `builds/${uploadId}`,
        path: 'image.tar',
        mime: 'application/x-tar',
        content_length: 1000,
        part_count: 1,
        part_size: 1000,
        multipart_id: null,
        create_ts: ts,
        expire_ts: ts + 3_600_000,
        complete_ts: ts + 1000,
        state: 'complete',
        frozen_key: `builds/${uploadId}.frozen`,
      });
      builds.push({
        build_id: buildId,
        game_id: store.gameId,
        namespace_id: namespaceId,
        name: `build ${i}`,
        upload_id: uploadId,
        content_length: 1000,
        create_ts: ts,
        complete_ts: ts + 1000,
      });
      const pairs: [string, string][] = [
        ['version', `v${i}`],
        ['channel', CHANNELS[i % CHANNELS.length] as string],
        ['branch', `branch-${i % BRANCHES}`],
      ];
      if (i === RARE_INDEX) pairs.push(['rare', 'yes']);
      for (const [tag_key, tag_value] of pairs) {
        tags.push({ build_id: buildId, tag_key, tag_value, namespace_id: namespaceId, create_ts: ts });
      }
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('uploads').values(uploads).execute();
      await trx.insertInto('builds').values(builds).execute();
      await trx.insertInto('build_tags').values(tags).execute();
    });
  }
  log(`builds-list: loaded ${BUILDS} builds in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { gameId: store.gameId, namespaceId };
}

interface Timing {
  label: string;
  p50: number;
  p99: number;
}

async function time(
  label: string,
  request: () => Promise<Response>,
  check: (res: Response, text: string) => void,
) {
  const times: number[] = [];
  for (let i = 0; i < REQUESTS + WARMUP; i++) {
    const start = performance.now();
    const res = await request();
    const text = await res.text();
    const took = performance.now() - start;
    check(res, text);
    if (i >= WARMUP) times.push(took);
  }
  times.sort((a, b) => a - b);
  return {
    label,
    p50: times[Math.floor(times.length / 2)] ?? Number.NaN,
    p99: times[Math.floor(times.length * 0.99)] ?? Number.NaN,
  };
}

/**
 * The builds list of a namespace of 100,000 builds: the first page (the default 1,000, and 100), a page in
 * the middle by cursor, tag filters (a common tag, two tags, no match, one old match), and PATCH tags with an
 * exclusive key; sequential requests, each timed to its whole answer. The baseline is a bare node:http
 * server answering the first page's body, timed the same way.
 */
export const buildsList: Scenario = {
  name: 'builds-list',
  description: `GET .../builds (pages, tag filters) and PATCH tags with exclusive_tags, ${BUILDS.toLocaleString('en-US')} builds`,
  supportsPostgres: true,
  async run(context: ScenarioContext): Promise<ScenarioReport> {
    const dataDir = path.join(context.workDir, 'builds-data');
    let databaseUrl: string | undefined;
    let store: { gameId: string; namespaceId: string };
    if (context.postgres === undefined) {
      const db = openSqlite(dataDir);
      store = await load(db, context.log);
      await db.destroy();
    } else {
      databaseUrl = await context.postgres.createDatabase('builds');
      const { db } = openDatabase({ dataDir, databaseUrl, pgPoolMax: 1 }, (err) =>
        context.log(`builds-list: loading connection failed: ${err.message}`),
      );
      try {
        store = await load(db, context.log);
        // As autovacuum would have by the time a namespace holds this many builds (left to it, its pass
        // over the fresh rows would run during the timings).
        await sql`vacuum analyze`.execute(db);
      } finally {
        await db.destroy();
      }
    }
    const operatorToken = `bench_op_${randomBytes(32).toString('base64url')}`;
    const service = await startService(context.registry, context.workDir, {
      dataDir,
      name: 'service (builds)',
      operatorToken,
      databaseUrl,
    });
    const headers = { authorization: `Bearer ${operatorToken}` };
    const base = `${service.baseUrl}/games/${store.gameId}/environments/${store.namespaceId}/builds`;
    const list = (label: string, query: string, expected: number) => {
      const url = `${base}${query}`;
      return () =>
        time(
          label,
          () => fetch(url, { headers }),
          (res, text) => {
            const count = res.status === 200 ? (JSON.parse(text) as { builds: unknown[] }).builds.length : -1;
            if (count !== expected)
              throw new Error(`${url} answered ${res.status} with ${count} builds: ${text.slice(0, 200)}`);
          },
        );
    };
    const tagged = (tags: Record<string, string>) => `?tags_json=${encodeURIComponent(JSON.stringify(tags))}`;

    // The cursor of the page halfway down, walked to as a client would.
    let cursor = '';
    for (let page = 0; page < BUILDS / 1000 / 2; page++) {
      const res = await fetch(`${base}?limit=1000${cursor === '' ? '' : `&cursor=${cursor}`}`, { headers });
      cursor = ((await res.json()) as { cursor: string }).cursor;
    }
    const firstPage = await (await fetch(base, { headers })).text();
    const baseline = await startBaseline(context.registry, context.workDir, 'builds-list', firstPage);

    const timings: Timing[] = [];
    timings.push(
      await time(
        'bare node:http, first page body',
        () => fetch(`${baseline.baseUrl}/`),
        (res) => {
          if (res.status !== 200) throw new Error(`baseline answered ${res.status}`);
        },
      ),
    );
    timings.push(await list('first page, no filter (the default 1,000)', '', 1000)());
    timings.push(await list('first page of 100, no filter', '?limit=100', 100)());
    timings.push(await list('page of 1,000 halfway down, by cursor', `?limit=1000&cursor=${cursor}`, 1000)());
    timings.push(
      await list('channel=stable (a third of all), 100', `${tagged({ channel: 'stable' })}&limit=100`, 100)(),
    );
    const branchBeta = Array.from({ length: BUILDS }, (_, i) => i).filter(
      (i) => i % BRANCHES === 7 && CHANNELS[i % CHANNELS.length] === 'beta',
    ).length;
    timings.push(
      await list(
        `channel=beta and branch=branch-7 (${branchBeta} builds)`,
        tagged({ channel: 'beta', branch: 'branch-7' }),
        branchBeta,
      )(),
    );
    timings.push(await list('branch=no-such-branch (no match)', tagged({ branch: 'no-such-branch' }), 0)());
    const rareChannel = CHANNELS[RARE_INDEX % CHANNELS.length] as string;
    timings.push(
      await list(
        `rare=yes and channel=${rareChannel} (one old match)`,
        tagged({ rare: 'yes', channel: rareChannel }),
        1,
      )(),
    );

    // Two builds take an exclusive key from each other in turn: each PATCH removes it from the other.
    const newest = (JSON.parse(firstPage) as { builds: { id: string }[] }).builds
      .slice(0, 2)
      .map((b) => b.id);
    let turn = 0;
    timings.push(
      await time(
        'PATCH tags, exclusive_tags',
        () =>
          fetch(`${base}/${newest[turn++ % 2]}/tags`, {
            method: 'PATCH',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ tags: { current: 'yes' }, exclusive_tags: ['current'] }),
          }),
        (res, text) => {
          if (res.status !== 204) throw new Error(`PATCH answered ${res.status}: ${text}`);
        },
      ),
    );

    const bare = timings[0] as Timing;
    const comparisons: Comparison[] = timings.slice(1).map((t) => ({
      label: `p50 ms, ${t.label}`,
      value: t.p50,
      target: `< ${P50_TARGET_MS} ms`,
      met: t.p50 < P50_TARGET_MS,
    }));
    return {
      title: `builds-list${context.postgres === undefined ? '' : ' on PostgreSQL'}: ${buildsList.description}`,
      rows: [],
      notes: [
        `${REQUESTS} sequential requests per line after ${WARMUP} unmeasured (operator token), each timed to its whole answer, ms:`,
        '',
        '| request | p50 ms | p99 ms | p50 / bare p50 |',
        '|---|---:|---:|---:|',
        ...timings.map(
          (t) =>
            `| ${t.label} | ${t.p50.toFixed(2)} | ${t.p99.toFixed(2)} | ${(t.p50 / bare.p50).toFixed(1)} |`,
        ),
      ],
      comparisons,
    };
  },
};
