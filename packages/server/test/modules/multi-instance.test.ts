import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createService } from '../../src/composition-root.js';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { BackgroundJobs } from '../../src/lib/background-jobs.js';
import { DEGRADED_WAIT_MS } from '../../src/lib/pg-change-relay.js';
import { PERIOD_MS } from '../../src/modules/billing/billing.rules.js';
import {
  type BillingBody,
  billingUrl,
  choosePlan,
  createBillingGame,
  readBilling,
} from '../helpers/billing.js';
import { adminQuery, dropTestDatabase, testDatabaseUrl } from '../helpers/postgres.js';
import {
  createGameFixture,
  secondInstance,
  startTestService,
  type TestService,
  testConfig,
} from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';
import { proxyDatabase } from '../helpers/tcp-proxy.js';
import { HANG_MS, until } from '../helpers/until.js';

describe('job leases', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { GCM_BILLING_TICK_MS: '0' } });
  });
  after(() => svc.close());

  it('goes to one holder at a time, is renewed by it, and is taken over once it expires', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const noError = (job: string, err: unknown) => assert.fail(`${job}: ${String(err)}`);
    const a = new BackgroundJobs(svc.deps.db, true, noError, clock);
    const b = new BackgroundJobs(svc.deps.db, true, noError, clock);
    assert.equal(await a.takeLease('job', 5_000), true);
    assert.equal(await b.takeLease('job', 5_000), false, 'held by a');
    assert.equal(await b.takeLease('other-job', 5_000), true, 'leases are per job');
    now += 4_000;
    assert.equal(await a.takeLease('job', 5_000), true, 'a renews');
    now += 4_000;
    assert.equal(await b.takeLease('job', 5_000), false, 'renewed, so not expired yet');
    now += 1_001;
    assert.equal(await b.takeLease('job', 5_000), true, 'expired: b takes over');
    assert.equal(await a.takeLease('job', 5_000), false, 'and a no longer holds it');
  });

  it('is handed back on stop, so another instance takes over at once', async () => {
    const noError = (job: string, err: unknown) => assert.fail(`${job}: ${String(err)}`);
    const a = new BackgroundJobs(svc.deps.db, true, noError);
    const b = new BackgroundJobs(svc.deps.db, true, noError);
    let runs = 0;
    a.start({ name: 'handed-back', intervalMs: 10, run: async () => runs++ });
    await until('a runs the job', 2_000, () => runs > 0);
    assert.equal(await b.takeLease('handed-back', 60_000), false);
    await a.stop();
    assert.equal(await b.takeLease('handed-back', 60_000), true);
  });
});

describe('several instances on one PostgreSQL', pgOnly, () => {
  let a: TestService;
  let b: TestService;
  before(async () => {
    a = await startTestService({ env: { GCM_BILLING_TICK_MS: '0' } });
    b = await secondInstance(a);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('runs a leased job on one instance at a time: one runs every pass, the other takes over on stop', async () => {
    const noError = (job: string, err: unknown) => assert.fail(`${job}: ${String(err)}`);
    // The leases' clock stands still, so no lease runs out during the test: who runs is decided by the lease
    // alone, however slow this machine is, and a hand-over happens only when the holder stops.
    const leaseClock = () => 1_000_000;
    const instances = {
      a: new BackgroundJobs(a.deps.db, true, noError, leaseClock),
      b: new BackgroundJobs(b.deps.db, true, noError, leaseClock),
    };
    const runs = { a: 0, b: 0 };
    let inFlight = 0;
    let overlaps = 0;
    for (const who of ['a', 'b'] as const) {
      instances[who].start({
        name: 'once-across-instances',
        intervalMs: 10,
        run: async () => {
          inFlight += 1;
          if (inFlight > 1) overlaps += 1;
          runs[who] += 1;
          // Longer than the interval: the other instance's timer fires while this pass runs.
          await new Promise((resolve) => setTimeout(resolve, 25));
          inFlight -= 1;
        },
      });
    }
    try {
      await until('20 passes', 30_000, () => runs.a + runs.b >= 20);
      const holder = runs.a > 0 ? 'a' : 'b';
      const waiting = holder === 'a' ? 'b' : 'a';
      assert.equal(runs[waiting], 0, `only ${holder}, the lease's holder, ran the job`);
      assert.equal(overlaps, 0, 'no two passes ran at once');

      await instances[holder].stop();
      const held = runs[holder];
      await until(`${waiting} takes over`, 30_000, () => runs[waiting] >= 10);
      assert.equal(runs[holder], held, 'the stopped instance ran no more');
      assert.equal(overlaps, 0, 'no two passes ran at once, the hand-over included');
    } finally {
      await instances.a.stop();
      await instances.b.stop();
    }
  });

  it('start together on a fresh database: migrations once, one operator token', async () => {
    // A fresh database of its own (named after `root`), shared by four data dirs.
    const root = mkdtempSync(path.join(os.tmpdir(), 'gcm-starts-'));
    const url = await testDatabaseUrl(root, { empty: true });
    const dirs = ['a', 'b', 'c', 'd'].map((name) => path.join(root, name));
    try {
      const configs = await Promise.all(
        dirs.map((dir) => testConfig(dir, { DATABASE_URL: url, GCM_BILLING_TICK_MS: '0' })),
      );
      // Four instances starting at once on an empty database.
      const services = await Promise.all(configs.map((config) => createService(config, { logger: false })));
      try {
        const made = services.map((s) => s.newOperatorToken).filter((t) => t !== undefined);
        assert.equal(made.length, 1, 'one operator token, made by the first instance only');
        const db = services[0]?.deps.db;
        assert.ok(db !== undefined);
        const count = (table: 'operator_tokens' | 'signing_keys') =>
          db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
        assert.equal((await count('operator_tokens')).n, 1);
        assert.equal(
          (await count('signing_keys')).n,
          1,
          'one signing key, so every instance verifies all tokens',
        );
        const applied = await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(db);
        // Every migration the build lists, each once (not a fixed number, which each new migration would break).
        const listed = Object.keys(await migrationProvider.getMigrations()).length;
        assert.equal(Number(applied.rows[0]?.n), listed);
        // Every instance serves what another wrote.
        const headers = { authorization: `Bearer ${made[0]}` };
        const game = await services[1]?.app.inject({
          method: 'POST',
          url: '/cloud/games',
          headers,
          payload: { name_id: 'shared', display_name: 'Shared' },
        });
        assert.equal(game?.statusCode, 200, game?.body);
        const id = game?.json<{ game_id: string }>().game_id;
        for (const s of services) {
          assert.equal(
            (await s.app.inject({ method: 'GET', url: `/cloud/games/${id}`, headers })).statusCode,
            200,
          );
        }
      } finally {
        await Promise.all(services.map((s) => s.app.close()));
      }
    } finally {
      await dropTestDatabase(root);
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('rolls each due billing period over exactly once when two instances run the roll-over together', async () => {
    const games: string[] = [];
    for (let i = 0; i < 150; i++) {
      const { gameId } = await createBillingGame(a, `roll-${i}`);
      await choosePlan(i % 2 === 0 ? a : b, gameId, 'indie');
      games.push(gameId);
    }
    const before = new Map<string, BillingBody>();
    for (const id of games) before.set(id, await readBilling(a, id));
    a.clock.advance(PERIOD_MS);
    const [byA, byB] = await Promise.all([a.billingScheduler.runDue(), b.billingScheduler.runDue()]);
    assert.equal(byA + byB, games.length, `a rolled ${byA}, b rolled ${byB}`);
    for (const id of games) {
      const was = before.get(id) as BillingBody;
      const now = await readBilling(b, id);
      // Once: the new period is the one right after the old (the index is opaque, so it cannot count).
      assert.notEqual(now.watch.index, was.watch.index, `game ${id} rolled over`);
      assert.equal(now.subscription?.period_start_ts, was.subscription?.period_end_ts);
      assert.equal(
        Date.parse(now.subscription?.period_end_ts ?? ''),
        Date.parse(was.subscription?.period_end_ts ?? '') + PERIOD_MS,
        `game ${id} rolled over once`,
      );
    }
  });

  it('applies concurrent lobby events through both instances one at a time', async () => {
    const f = await createGameFixture(a, 'lobby-race');
    const reporter = await a.call(
      'POST',
      `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/tokens/reporter`,
    );
    const token = reporter.json<{ token: string }>().token;
    const base = `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/logs/lobbies`;
    const created = await a.call('POST', base, {
      token,
      body: { lobby_group_name_id: 'default', region_id: 'lnd-atl' },
    });
    assert.equal(created.statusCode, 200, created.body);
    const lobbyId = created.json<{ lobby_id: string }>().lobby_id;
    const t0 = a.clock.now();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? a : b).call('POST', `${base}/${lobbyId}/events`, {
          token,
          body: { kind: 'start', ts: new Date(t0 + 1_000 + i).toISOString() },
        }),
      ),
    );
    const statuses = answers.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [204, ...Array(11).fill(409)], answers.map((r) => r.body).join('\n'));
  });

  it('answers watchers at once when the change feed is lost, and hears other instances again after', async () => {
    const { gameId } = await createBillingGame(a, 'feed-loss');
    const relay = a.relay;
    assert.ok(relay !== undefined);
    await until('a listens', 5_000, () => relay.connected);
    const index = (await readBilling(a, gameId)).watch.index;
    const watch = () => a.call('GET', `${billingUrl(gameId)}?watch_index=${index}`);

    const waitingBefore = watch();
    await until('a watcher waits', 2_000, () => a.deps.notifier.waiting === 1);
    const pid = relay.listenerPid;
    assert.ok(pid !== undefined);
    const lostAt = Date.now();
    // What a database restart does to the listening connection.
    await adminQuery('select pg_terminate_backend($1)', [pid]);
    const answered = await waitingBefore;
    assert.equal(answered.statusCode, 200);
    assert.equal(answered.json<BillingBody>().watch.index, index, 'answered with what is current');
    assert.ok(Date.now() - lostAt < HANG_MS, 'answered when the feed was lost, not at the watch timeout');

    await until('a listens again', 10_000, () => relay.connected && relay.listenerPid !== pid);
    const watching = watch();
    await until('a watcher waits again', 2_000, () => a.deps.notifier.waiting === 1);
    await choosePlan(b, gameId, 'studio');
    const woken = await watching;
    // Woken by b's change: an answer at the watch timeout would carry the old plan.
    assert.equal(woken.json<BillingBody>().active_plan, 'studio');
  });

  it('while the feed is down, watchers answer within about a second rather than hang', async () => {
    const { gameId } = await createBillingGame(a, 'feed-down');
    const index = (await readBilling(a, gameId)).watch.index;
    a.deps.notifier.waitCapMs = DEGRADED_WAIT_MS;
    try {
      const started = Date.now();
      const res = await a.call('GET', `${billingUrl(gameId)}?watch_index=${index}`);
      const took = Date.now() - started;
      assert.equal(res.statusCode, 200);
      assert.ok(
        // Not before the cap, and by the cap rather than at the 40 s watch timeout.
        took >= DEGRADED_WAIT_MS - 50 && took < HANG_MS,
        `answered after ${took} ms`,
      );
    } finally {
      a.deps.notifier.waitCapMs = undefined;
    }
  });

  it('rides out a database outage: 503 while it is down, watchers answered, all back after', async () => {
    const { proxy, url: viaProxy } = await proxyDatabase(a.deps.config.databaseUrl as string);
    const c = await startTestService({
      clock: a.clock,
      env: { DATABASE_URL: viaProxy, GCM_OPERATOR_TOKEN: a.operatorToken },
    });
    try {
      const { gameId } = await createBillingGame(c, 'outage');
      const index = (await readBilling(c, gameId)).watch.index;
      const watching = c.call('GET', `${billingUrl(gameId)}?watch_index=${index}`);
      await until('a watcher waits', 2_000, () => c.deps.notifier.waiting === 1);

      await proxy.stop();
      const cutAt = Date.now();
      const answered = await watching;
      assert.ok(Date.now() - cutAt < HANG_MS, 'the watcher was answered at the cut, not the watch timeout');
      // It re-reads what is current; with the database gone that read fails, cleanly.
      assert.ok([200, 503].includes(answered.statusCode), answered.body);
      const down = await c.call('GET', `/cloud/games/${gameId}`);
      assert.equal(down.statusCode, 503, down.body);
      assert.equal(down.json<{ code: string }>().code, 'STORE_UNAVAILABLE');

      await proxy.start();
      await until(
        'c reads again',
        10_000,
        async () => (await c.call('GET', `/cloud/games/${gameId}`)).statusCode === 200,
      );
      await until('c listens again', 10_000, () => c.relay?.connected === true);
      const watchingAgain = c.call('GET', `${billingUrl(gameId)}?watch_index=${index}`);
      await until('a watcher waits again', 2_000, () => c.deps.notifier.waiting === 1);
      await choosePlan(b, gameId, 'indie');
      // Heard again: an answer at the watch timeout would carry the old plan.
      assert.equal((await watchingAgain).json<BillingBody>().active_plan, 'indie');
    } finally {
      await c.close();
      await proxy.stop();
    }
  });
});
