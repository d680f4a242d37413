/**
 * GET /healthz, /readyz and /metrics (src/http/health.ts) and the operations listener (GCM_METRICS_LISTEN,
 * src/http/ops-listener.ts): who may call them, that no limit counts them, readiness through a missing
 * migration, a store outage (PostgreSQL) and shutdown, and the Prometheus series after real requests.
 * That the probes stay out of the access log is checked on the real process (test/process/health-metrics).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../../src/config.js';
import { LATEST_MIGRATION } from '../../src/db/migrations/index.js';
import { openSqlite } from '../../src/db/open-db.js';
import { Readiness } from '../../src/http/health.js';
import { listenerPort, listenForOperations } from '../../src/http/ops-listener.js';
import { BackgroundJobs } from '../../src/lib/background-jobs.js';
import { Metrics } from '../../src/lib/metrics.js';
import { prepareAvatar, putPresigned } from '../helpers/api-world.js';
import {
  billingUrl,
  choosePlan,
  createBillingGame,
  readBilling,
  waitForWaiters,
} from '../helpers/billing.js';
import { onPostgres } from '../helpers/postgres.js';
import { DEFAULT_LIMITS, startTestService, type TestService } from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';
import { proxyDatabase } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/until.js';

const METRICS_TOKEN = 'scraper-token-0123456789-abcdefghijklmnop';
const UNKNOWN_ID = '0190a0a0-0000-7000-8000-00000000beef';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match !== null, `not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[name as string] = value as string;
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value;
}

async function scrape(svc: TestService): Promise<Sample[]> {
  const res = await svc.call('GET', '/metrics', { token: METRICS_TOKEN });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(res.body);
}

function from(svc: TestService, address: string, url: string, token?: string) {
  return svc.app.inject({
    method: 'GET',
    url,
    remoteAddress: address,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
}

function assertError(res: { statusCode: number; json<T>(): T }, status: number, code: string) {
  assert.equal(res.statusCode, status);
  const body = res.json<{ code: string; ray_id: string; metadata?: { reason?: string } }>();
  assert.equal(body.code, code);
  assert.equal(typeof body.ray_id, 'string');
  return body;
}

/** The operations listener of `svc` on a free loopback port; must run before the service first answers. */
async function opsListener(svc: TestService, metricsToken?: string): Promise<string> {
  const server: Server = await listenForOperations(
    svc.app,
    { readiness: svc.app.readiness, metrics: svc.deps.metrics, metricsToken },
    { host: '127.0.0.1', port: 0 },
  );
  return `http://127.0.0.1:${listenerPort(server)}`;
}

describe('configuration', () => {
  it('reads GCM_METRICS_LISTEN as host:port and refuses a short metrics token or a bad address', () => {
    assert.deepEqual(loadConfig({ GCM_METRICS_LISTEN: '127.0.0.1:9464' }).metricsListen, {
      host: '127.0.0.1',
      port: 9464,
    });
    assert.deepEqual(loadConfig({ GCM_METRICS_LISTEN: '[::1]:0' }).metricsListen, { host: '::1', port: 0 });
    assert.equal(loadConfig({}).metricsListen, undefined);
    assert.equal(loadConfig({}).metricsToken, undefined);
    assert.equal(loadConfig({ GCM_METRICS_TOKEN: METRICS_TOKEN }).metricsToken, METRICS_TOKEN);
    for (const [name, value] of [
      ['GCM_METRICS_TOKEN', 'too-short'],
      ['GCM_METRICS_TOKEN', `${'a'.repeat(20)} ${'b'.repeat(20)}`],
      ['GCM_METRICS_LISTEN', '9464'],
      ['GCM_METRICS_LISTEN', '127.0.0.1:99999'],
      ['GCM_METRICS_LISTEN', '[not-ipv6]:9464'],
      ['GCM_METRICS_LISTEN', 'http://127.0.0.1:9464'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name),
        `${name}=${value}`,
      );
    }
  });

  it('refuses GCM_METRICS_LISTEN without GCM_METRICS_TOKEN while the service runs lobbies (GCM_RUNTIME)', () => {
    // A lobby in network_mode host shares its host's loopback and addresses: no address hides the listener.
    for (const runtime of ['docker', 'swarm']) {
      const env = { GCM_RUNTIME: runtime, GCM_REGISTRY: 'registry.example.com/studio' };
      for (const listen of ['127.0.0.1:9464', '[::1]:0', '0.0.0.0:9464']) {
        assert.throws(
          () => loadConfig({ ...env, GCM_METRICS_LISTEN: listen }),
          (err: unknown) =>
            err instanceof ConfigError &&
            err.message.includes('GCM_METRICS_LISTEN needs GCM_METRICS_TOKEN') &&
            err.message.includes(`GCM_RUNTIME=${runtime}`),
          `${runtime} ${listen}`,
        );
      }
      const guarded = loadConfig({
        ...env,
        GCM_METRICS_LISTEN: '127.0.0.1:9464',
        GCM_METRICS_TOKEN: METRICS_TOKEN,
      });
      assert.equal(guarded.metricsToken, METRICS_TOKEN);
      assert.equal(loadConfig(env).metricsListen, undefined, 'no listener, no token needed');
    }
    assert.equal(
      loadConfig({ GCM_RUNTIME: 'none', GCM_METRICS_LISTEN: '127.0.0.1:9464' }).metricsToken,
      undefined,
    );
  });
});

describe('health probes', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({
      env: { ...DEFAULT_LIMITS, GCM_RATE_LIMIT_PUBLIC_READS: '3', GCM_RATE_LIMIT_AUTH_FAILURES: '3' },
    });
  });
  after(() => svc?.close());

  it('answer anyone, with or without a token, and no limit counts them', async () => {
    const address = '198.51.100.20';
    for (let i = 0; i < 3; i++) assert.equal((await from(svc, address, '/openapi.json')).statusCode, 200);
    assertError(await from(svc, address, '/openapi.json'), 429, 'RATE_LIMITED');
    // Far beyond the public limit, and with a wrong token far beyond the failed-token limit.
    for (let i = 0; i < 40; i++) {
      const token = i % 2 === 0 ? undefined : `wrong-token-${i}`;
      const alive = await from(svc, address, '/healthz', token);
      assert.equal(alive.statusCode, 200, alive.body);
      assert.deepEqual(alive.json(), { status: 'ok' });
      const ready = await from(svc, address, '/readyz', token);
      assert.equal(ready.statusCode, 200, ready.body);
      assert.deepEqual(ready.json(), { status: 'ready' });
    }
    const head = await svc.app.inject({ method: 'HEAD', url: '/healthz' });
    assert.equal(head.statusCode, 200);
  });

  it('readyz answers 503 while a migration this instance needs is missing, and 200 once it is back', async () => {
    const db = svc.deps.db;
    const { rows } = await sql<{ timestamp: string }>`
      select timestamp from kysely_migration where name = ${LATEST_MIGRATION}`.execute(db);
    const recorded = rows[0]?.timestamp;
    assert.ok(recorded !== undefined);
    await sql`delete from kysely_migration where name = ${LATEST_MIGRATION}`.execute(db);
    try {
      await until('readyz says migrations_pending', 3_000, async () => {
        const res = await svc.call('GET', '/readyz', { token: null });
        return res.statusCode === 503;
      });
      const res = await svc.call('GET', '/readyz', { token: null });
      const body = assertError(res, 503, 'SERVICE_UNAVAILABLE');
      assert.deepEqual(body.metadata, { reason: 'migrations_pending' });
      // Liveness never asks the store.
      assert.equal((await svc.call('GET', '/healthz', { token: null })).statusCode, 200);
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${LATEST_MIGRATION}, ${recorded})`.execute(
        db,
      );
    }
    await until(
      'readyz is 200 again',
      3_000,
      async () => (await svc.call('GET', '/readyz', { token: null })).statusCode === 200,
    );
  });
});

describe('readiness check', () => {
  it('shares one probe among concurrent and repeated checks for a second', async () => {
    let probes = 0;
    const readiness = new Readiness(async () => {
      probes++;
      return true;
    });
    const answers = await Promise.all(Array.from({ length: 50 }, () => readiness.check()));
    assert.deepEqual(new Set(answers), new Set([undefined]));
    assert.equal(await readiness.check(), undefined);
    assert.equal(probes, 1);
  });

  it('maps a failing or silent store to store_unavailable, a missing migration to migrations_pending', async () => {
    const failing = new Readiness(async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    });
    assert.equal(await failing.check(), 'store_unavailable');
    const silent = new Readiness(() => new Promise<boolean>(() => {}), 50);
    // The store never answers, so an answer at all is the timeout's.
    assert.equal(await silent.check(), 'store_unavailable');
    assert.equal(await new Readiness(async () => false).check(), 'migrations_pending');
  });

  it('says shutting_down from close on, without asking the store', async () => {
    let probes = 0;
    const readiness = new Readiness(async () => {
      probes++;
      return true;
    });
    readiness.close();
    assert.equal(await readiness.check(), 'shutting_down');
    assert.equal(probes, 0);
  });
});

describe('readiness when the store is gone', pgOnly, () => {
  it('readyz answers 503 store_unavailable while PostgreSQL is unreachable, 200 once it is back', async () => {
    const first = await startTestService();
    const { proxy, url } = await proxyDatabase(first.deps.config.databaseUrl as string);
    const svc = await startTestService({
      clock: first.clock,
      env: { DATABASE_URL: url, GCM_OPERATOR_TOKEN: first.operatorToken },
    });
    try {
      assert.equal((await svc.call('GET', '/readyz', { token: null })).statusCode, 200);
      await proxy.stop();
      await until(
        'readyz is 503',
        5_000,
        async () => (await svc.call('GET', '/readyz', { token: null })).statusCode === 503,
      );
      const body = assertError(await svc.call('GET', '/readyz', { token: null }), 503, 'SERVICE_UNAVAILABLE');
      assert.deepEqual(body.metadata, { reason: 'store_unavailable' });
      assert.equal((await svc.call('GET', '/healthz', { token: null })).statusCode, 200);
      await proxy.start();
      await until(
        'readyz is 200 again',
        10_000,
        async () => (await svc.call('GET', '/readyz', { token: null })).statusCode === 200,
      );
    } finally {
      await svc.close();
      await proxy.stop();
      await first.close();
    }
  });
});

/** Sends raw bytes on `socket` and resolves with the first full answer (headers and a Content-Length body). */
function readAnswer(socket: net.Socket): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let data = '';
    const onData = (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(data.slice(0, end))?.[1] ?? 0);
      if (data.length < end + 4 + length) return;
      socket.off('data', onData);
      resolve({ status: Number(data.slice(9, 12)), body: data.slice(end + 4, end + 4 + length) });
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

describe('shutting down', () => {
  it('readyz answers 503 shutting_down on both ports while requests finish; healthz on the listener stays 200', async () => {
    const svc = await startTestService();
    const ops = await opsListener(svc);
    await svc.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (svc.app.server.address() as net.AddressInfo).port;
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    try {
      socket.write('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.equal((await readAnswer(socket)).status, 200);
      // A request under way (its headers not yet complete) holds shutdown open, as a slow client would.
      socket.write('GET /readyz HTTP/1.1\r\nHost: x\r\n');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const closing = svc.close();
      await until('shutdown began', 2_000, () => svc.app.readiness.shuttingDown);

      const opsReady = await fetch(`${ops}/readyz`);
      assert.equal(opsReady.status, 503);
      const opsBody = (await opsReady.json()) as { code: string; metadata: unknown };
      assert.equal(opsBody.code, 'SERVICE_UNAVAILABLE');
      assert.deepEqual(opsBody.metadata, { reason: 'shutting_down' });
      assert.equal((await fetch(`${ops}/healthz`)).status, 200);

      const answer = readAnswer(socket);
      socket.write('\r\n');
      const { status, body } = await answer;
      assert.equal(status, 503, body);
      const parsed = JSON.parse(body) as { code: string; ray_id: string; metadata: unknown };
      assert.equal(parsed.code, 'SERVICE_UNAVAILABLE');
      assert.deepEqual(parsed.metadata, { reason: 'shutting_down' });
      assert.equal(typeof parsed.ray_id, 'string');
      await closing;
      await assert.rejects(fetch(`${ops}/healthz`), 'the listener closed with the service');
    } finally {
      socket.destroy();
    }
  });
});

describe('/metrics', () => {
  it('is not served on the main port without GCM_METRICS_TOKEN', async () => {
    const svc = await startTestService();
    try {
      for (const token of [null, svc.operatorToken, METRICS_TOKEN]) {
        const body = assertError(await svc.call('GET', '/metrics', { token }), 404, 'API_NOT_FOUND');
        assert.match(JSON.stringify(body), /GCM_METRICS_TOKEN/);
      }
    } finally {
      await svc.close();
    }
  });

  it('asks for the metrics token: none, a wrong one and the operator token are refused', async () => {
    const svc = await startTestService({ env: { GCM_METRICS_TOKEN: METRICS_TOKEN } });
    try {
      for (const token of [null, `${METRICS_TOKEN}x`, METRICS_TOKEN.slice(1), svc.operatorToken]) {
        assertError(await svc.call('GET', '/metrics', { token }), 401, 'API_UNAUTHORIZED');
      }
      const lower = await svc.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `bearer ${METRICS_TOKEN}` },
      });
      assert.equal(lower.statusCode, 200);
      await scrape(svc);
    } finally {
      await svc.close();
    }
  });

  it('the operations listener serves /metrics and the probes only; the token, when set, there too', async () => {
    const open = await startTestService();
    const guarded = await startTestService({ env: { GCM_METRICS_TOKEN: METRICS_TOKEN } });
    try {
      const openUrl = await opsListener(open);
      const guardedUrl = await opsListener(guarded, METRICS_TOKEN);
      const served = await fetch(`${openUrl}/metrics`);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
      const samples = parseExposition(await served.text());
      assert.ok(sampleValue(samples, 'gcm_db_connections_max') !== undefined);
      assert.ok(sampleValue(samples, 'process_resident_memory_bytes') !== undefined, 'process metrics too');

      const refused = await fetch(`${guardedUrl}/metrics`);
      assert.equal(refused.status, 401);
      assert.equal(((await refused.json()) as { code: string }).code, 'API_UNAUTHORIZED');
      const allowed = await fetch(`${guardedUrl}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(allowed.status, 200);
      await allowed.text();
      for (const probe of ['/healthz', '/readyz']) {
        const res = await fetch(`${guardedUrl}${probe}`);
        assert.equal(res.status, 200);
        assert.ok(res.headers.get('x-ray-id'));
        await res.text();
      }
      for (const [method, url] of [
        ['GET', '/cloud/games'],
        ['GET', '/'],
        ['POST', '/metrics'],
      ] as const) {
        const res = await fetch(`${openUrl}${url}`, { method });
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.equal(((await res.json()) as { code: string }).code, 'API_NOT_FOUND');
      }
      const head = await fetch(`${openUrl}/healthz`, { method: 'HEAD' });
      assert.equal(head.status, 200);
    } finally {
      await open.close();
      await guarded.close();
    }
  });

  it('counts real requests by route pattern and status, refusals by limit, upload bytes, and reads the gauges', async () => {
    const svc = await startTestService({
      env: {
        ...DEFAULT_LIMITS,
        GCM_METRICS_TOKEN: METRICS_TOKEN,
        GCM_RATE_LIMIT_PUBLIC_READS: '2',
        GCM_RATE_LIMIT_AUTH_FAILURES: '2',
      },
    });
    try {
      const { gameId } = await createBillingGame(svc, 'metrics-game');
      assert.equal((await svc.call('GET', '/cloud/games')).statusCode, 200);
      assert.equal((await svc.call('GET', `/cloud/games/${UNKNOWN_ID}`)).statusCode, 404);
      assert.equal((await svc.call('GET', '/cloud/games', { token: null })).statusCode, 401);
      assert.equal((await svc.call('DELETE', `/no/such/${gameId}`)).statusCode, 404);
      const reader = '198.51.100.30';
      for (let i = 0; i < 2; i++) assert.equal((await from(svc, reader, '/openapi.json')).statusCode, 200);
      assertError(await from(svc, reader, '/openapi.json'), 429, 'RATE_LIMITED');
      const guesser = '198.51.100.31';
      for (let i = 0; i < 2; i++)
        assert.equal((await from(svc, guesser, '/cloud/games', 'x')).statusCode, 401);
      assertError(await from(svc, guesser, '/cloud/games', 'x'), 429, 'RATE_LIMITED');
      const avatar = await prepareAvatar(svc, gameId, 100);
      assert.equal((await putPresigned(svc, avatar.url, avatar.bytes)).statusCode, 200);
      // A watcher waiting for a change of the game's billing.
      const index = (await readBilling(svc, gameId)).watch.index;
      const watching = svc.call('GET', `${billingUrl(gameId)}?watch_index=${index}`);
      await waitForWaiters(svc, 1);

      const res = await svc.call('GET', '/metrics', { token: METRICS_TOKEN });
      assert.equal(res.statusCode, 200);
      assert.ok(!res.body.includes(gameId) && !res.body.includes(UNKNOWN_ID), 'no raw path in a label');
      const samples = parseExposition(res.body);
      const requests = (method: string, route: string, status: string) =>
        sampleValue(samples, 'gcm_http_request_duration_seconds_count', { method, route, status });
      assert.equal(requests('GET', '/cloud/games', '200'), 1);
      assert.equal(requests('GET', '/cloud/games', '401'), 3);
      assert.equal(requests('GET', '/cloud/games', '429'), 1);
      assert.equal(requests('GET', '/cloud/games/:game_id', '404'), 1);
      assert.equal(requests('DELETE', 'unmatched', '404'), 1);
      assert.equal(requests('GET', '/openapi.json', '200'), 2);
      assert.equal(requests('GET', '/openapi.json', '429'), 1);
      assert.equal(requests('PUT', '/uploads/:upload_id/parts/:part', '200'), 1);
      assert.equal(requests('POST', '/cloud/games/:game_id/prepare', '200'), 1);
      // The latency buckets of one series add up to its count.
      const inf = sampleValue(samples, 'gcm_http_request_duration_seconds_bucket', {
        method: 'GET',
        route: '/openapi.json',
        status: '200',
        le: '+Inf',
      });
      assert.equal(inf, 2);

      assert.equal(sampleValue(samples, 'gcm_rate_limit_refusals_total', { limit: 'public_reads' }), 1);
      assert.equal(sampleValue(samples, 'gcm_rate_limit_refusals_total', { limit: 'auth_failures' }), 1);
      assert.equal(sampleValue(samples, 'gcm_rate_limit_refusals_total', { limit: 'upload_puts' }), 0);
      assert.equal(sampleValue(samples, 'gcm_upload_bytes_total'), 100);
      assert.equal(sampleValue(samples, 'gcm_watch_waiting'), 1);
      assert.ok(
        (sampleValue(samples, 'gcm_db_query_duration_seconds_count', { operation: 'select' }) ?? 0) > 0,
      );
      assert.ok(
        (sampleValue(samples, 'gcm_db_query_duration_seconds_count', { operation: 'insert' }) ?? 0) > 0,
      );
      assert.equal(sampleValue(samples, 'gcm_db_connections_max'), onPostgres ? 10 : 1);
      assert.ok(sampleValue(samples, 'gcm_db_connections', { state: 'idle' }) !== undefined);
      assert.ok(sampleValue(samples, 'gcm_db_connections', { state: 'busy' }) !== undefined);
      assert.equal(sampleValue(samples, 'gcm_db_waiting'), 0);
      for (const job of ['billing-roll-over', 'purge-deleted', 'rate-limit-clean-up']) {
        assert.ok(sampleValue(samples, 'gcm_background_job_runs_total', { job }) !== undefined, job);
        assert.ok(sampleValue(samples, 'gcm_background_job_failures_total', { job }) !== undefined, job);
      }

      await choosePlan(svc, gameId, 'indie');
      assert.equal((await watching).statusCode, 200);
      const later = await scrape(svc);
      assert.equal(sampleValue(later, 'gcm_watch_waiting'), 0);
      assert.equal(
        sampleValue(later, 'gcm_http_request_duration_seconds_count', {
          method: 'GET',
          route: '/metrics',
          status: '200',
        }),
        1,
      );
    } finally {
      await svc.close();
    }
  });

  it('counts background job passes and their failures', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-jobs-'));
    const db = openSqlite(dir);
    const metrics = new Metrics();
    const jobs = new BackgroundJobs(db, false, () => {}, Date.now, metrics);
    let passes = 0;
    try {
      jobs.start({
        name: 'flaky',
        intervalMs: 5,
        run: async () => {
          passes++;
          if (passes % 2 === 0) throw new Error('every second pass fails');
        },
      });
      await until('four passes', 2_000, () => passes >= 4);
      await jobs.stop();
      const samples = parseExposition(await metrics.render());
      const runs = sampleValue(samples, 'gcm_background_job_runs_total', { job: 'flaky' }) ?? 0;
      assert.equal(runs, passes);
      assert.equal(
        sampleValue(samples, 'gcm_background_job_failures_total', { job: 'flaky' }),
        Math.floor(passes / 2),
      );
      const lastSuccess = sampleValue(samples, 'gcm_background_job_last_success_timestamp_seconds', {
        job: 'flaky',
      });
      assert.ok(lastSuccess !== undefined && Math.abs(lastSuccess - Date.now() / 1000) < 60);
    } finally {
      await jobs.stop();
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
