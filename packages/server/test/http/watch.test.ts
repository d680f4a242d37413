import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import {
  type BillingBody,
  billingUrl,
  choosePlan,
  createBillingGame,
  readBilling,
  waitForWaiters,
} from '../helpers/billing.js';
import { startListening } from '../helpers/listening.js';
import type { TestService } from '../helpers/service.js';
import { HANG_MS } from '../helpers/until.js';

/** watch_index (2.6), through the billing endpoint, over real sockets. */
describe('watch_index', () => {
  let svc: TestService;
  let publicUrl: string;
  let gameId: string;
  let token: string;
  let games = 0;

  before(async () => {
    ({ svc, publicUrl } = await startListening({ env: { GCM_BILLING_TICK_MS: '0' } }));
    ({ gameId, token } = await createBillingGame(svc, 'watch'));
  });
  after(async () => {
    await svc.close();
  });

  function watch(watchIndex: string | undefined, init: RequestInit = {}, target = publicUrl) {
    const query = watchIndex === undefined ? '' : `?watch_index=${encodeURIComponent(watchIndex)}`;
    return fetch(`${target}${billingUrl(gameId)}${query}`, {
      ...init,
      headers: { authorization: `Bearer ${token}` },
    });
  }

  async function timed(request: Promise<Response>) {
    const start = performance.now();
    const res = await request;
    const body = (await res.json()) as BillingBody;
    return { res, body, ms: performance.now() - start };
  }

  it('answers at once without watch_index', async () => {
    const { res, body, ms } = await timed(watch(undefined));
    assert.equal(res.status, 200);
    assert.equal(body.active_plan, 'trial');
    // Opaque (interface 2.6): a string to pass back, whatever it looks like.
    assert.equal(typeof body.watch.index, 'string');
    assert.notEqual(body.watch.index, '');
    assert.ok(ms < HANG_MS, `did not wait: ${ms} ms`);
  });

  it('blocks on the current index and wakes on a plan change, long before the timeout', async () => {
    const current = await readBilling(svc, gameId);
    const waiting = watch(current.watch.index);
    await waitForWaiters(svc, 1);
    await choosePlan(svc, gameId, current.plan === 'indie' ? 'studio' : 'indie');
    const res = await waiting;
    const body = (await res.json()) as BillingBody;
    // Woken by the change: an answer at the watch timeout would carry the old plan and index.
    assert.equal(res.status, 200);
    assert.notEqual(body.plan, current.plan);
    assert.notEqual(body.watch.index, current.watch.index);
    assert.equal(svc.deps.notifier.waiting, 0);
  });

  it('answers at once for an older index', async () => {
    const older = (await readBilling(svc, gameId)).watch.index;
    await choosePlan(svc, gameId, (await readBilling(svc, gameId)).plan === 'studio' ? 'indie' : 'studio');
    const current = await readBilling(svc, gameId);
    assert.notEqual(current.watch.index, older);
    const { res, body, ms } = await timed(watch(older));
    assert.equal(res.status, 200);
    assert.equal(body.watch.index, current.watch.index);
    assert.ok(ms < HANG_MS, `did not wait: ${ms} ms`);
  });

  it('refuses a watch_index that is not a decimal index with API_BAD_QUERY', async () => {
    for (const bad of ['abc', '-1', '1.5', '', '0x10', '12345678901234567890']) {
      const res = await watch(bad);
      const body = (await res.json()) as { code: string };
      assert.equal(res.status, 400, bad);
      assert.equal(body.code, 'API_BAD_QUERY', bad);
    }
    assert.equal(svc.deps.notifier.waiting, 0);
  });

  it('frees the waiter of a client that disconnects', async () => {
    const current = await readBilling(svc, gameId);
    const abort = new AbortController();
    const waiting = watch(current.watch.index, { signal: abort.signal });
    await waitForWaiters(svc, 1);
    abort.abort();
    await assert.rejects(waiting, { name: 'AbortError' });
    await waitForWaiters(svc, 0, 500);
  });

  it('answers 200 with the same data and index after the watch timeout', async () => {
    const short = await startListening({ env: { GCM_WATCH_TIMEOUT_MS: '300', GCM_BILLING_TICK_MS: '0' } });
    try {
      games += 1;
      const game = await createBillingGame(short.svc, `timeout-${games}`);
      const current = await readBilling(short.svc, game.gameId);
      const start = performance.now();
      const res = await fetch(
        `${short.publicUrl}${billingUrl(game.gameId)}?watch_index=${current.watch.index}`,
        {
          headers: { authorization: `Bearer ${game.token}` },
        },
      );
      const body = (await res.json()) as BillingBody;
      const ms = performance.now() - start;
      assert.equal(res.status, 200);
      assert.deepEqual(body, current);
      // Not before its 300 ms timeout (timers never fire early), and at it rather than never.
      assert.ok(ms >= 295, `answered after ${ms.toFixed(1)} ms`);
      assert.ok(ms < HANG_MS, `answered after ${ms.toFixed(1)} ms`);
      assert.equal(short.svc.deps.notifier.waiting, 0);
    } finally {
      await short.svc.close();
    }
  });

  it('answers every waiter with 200 at shutdown, and closes connections that sent nothing', async () => {
    const doomed = await startListening({ env: { GCM_BILLING_TICK_MS: '0' } });
    const game = await createBillingGame(doomed.svc, 'shutdown');
    const current = await readBilling(doomed.svc, game.gameId);
    const waiters = Array.from({ length: 3 }, () =>
      fetch(`${doomed.publicUrl}${billingUrl(game.gameId)}?watch_index=${current.watch.index}`, {
        headers: { authorization: `Bearer ${game.token}` },
      }),
    );
    await waitForWaiters(doomed.svc, 3);
    // A connection that never sends a request (a browser's preconnect) must not hold shutdown up either.
    const silent = net.connect(Number(new URL(doomed.publicUrl).port), '127.0.0.1');
    await once(silent, 'connect');
    const start = performance.now();
    await doomed.svc.close();
    const ms = performance.now() - start;
    for (const res of await Promise.all(waiters)) {
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), current);
    }
    // The watch timeout is 40 s: closing must not wait for it.
    assert.ok(ms < HANG_MS, `close took ${ms.toFixed(1)} ms`);
    assert.ok(silent.destroyed || (await once(silent, 'close')));
  });
});
