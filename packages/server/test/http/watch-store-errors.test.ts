import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerErrorHandling } from '../../src/http/errors.js';
import { answerWatchable, withWatch } from '../../src/http/watch.js';
import { ChangeNotifier } from '../../src/lib/change-notifier.js';
import {
  type BillingBody,
  billingUrl,
  choosePlan,
  createBillingGame,
  readBilling,
} from '../helpers/billing.js';
import { describeEscapes, trapEscapes } from '../helpers/escapes.js';
import { startTestService } from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';
import { proxyDatabase } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/until.js';

/** What pg rejects a query with when the server's connection drops under it. */
const connectionLost = () => new Error('Connection terminated unexpectedly');

/** A GET over a real socket; `socket` hands over the request's socket so a test can leave early. */
function get(url: string, onSocket?: (request: http.ClientRequest) => void) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    onSocket?.(request);
  });
}

describe('a store error while watching', () => {
  it('answers every waiter sharing the failed read with 503, one that left included, and nothing escapes', async () => {
    const trap = trapEscapes();
    const notifier = new ChangeNotifier();
    let woken = false;
    let readsAfterWake = 0;
    let failing: ((err: Error) => void) | undefined;
    const load = () => {
      if (!woken) return Promise.resolve({ data: { n: 1 }, version: 1n });
      readsAfterWake++;
      // The shared read after the wake: held open until the test fails it.
      return new Promise<{ data: { n: number }; version: bigint }>((_, reject) => {
        failing = reject;
      });
    };
    const app = Fastify({ logger: false });
    registerErrorHandling(app, 1_000_000);
    const gone = new Set<string>();
    app.get<{ Querystring: { watch_index?: string; who: string } }>('/thing', async (request, reply) => {
      reply.raw.on('close', () => {
        if (!reply.raw.writableEnded) gone.add(request.query.who);
      });
      const result = await answerWatchable(
        reply,
        notifier,
        { key: 'thing', watchIndex: request.query.watch_index, timeoutMs: 30_000 },
        load,
      );
      return withWatch(result);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const base = `${origin}/thing?watch_index=1`;
    try {
      const first = await get(`${origin}/thing?who=first`);
      assert.equal(first.status, 200, first.body);
      let leaving: http.ClientRequest | undefined;
      const staying = ['a', 'b', 'c'].map((who) => get(`${base}&who=${who}`));
      const left = get(`${base}&who=leaver`, (request) => {
        leaving = request;
      }).catch((err: unknown) => err);
      await until('four waiters', 10_000, () => notifier.waiting === 4);

      woken = true;
      notifier.notify('thing');
      await until('the woken waiters share one read', 10_000, () => failing !== undefined);
      // A waiter leaves while the read it joined is still running.
      leaving?.destroy();
      await until('the server saw the waiter leave', 10_000, () => gone.has('leaver'));
      failing?.(connectionLost());

      for (const answer of await Promise.all(staying)) {
        assert.equal(answer.status, 503, answer.body);
        assert.equal(JSON.parse(answer.body).code, 'STORE_UNAVAILABLE');
      }
      assert.ok((await left) instanceof Error, 'the one that left got no answer');
      assert.equal(readsAfterWake, 1, 'one shared read for every woken waiter');
      assert.equal(notifier.waiting, 0);
      // Anything escaping would surface on a later turn of the event loop.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(trap.escaped, [], describeEscapes(trap.escaped));
    } finally {
      trap.release();
      await app.close();
    }
  });
});

describe('watchers on PostgreSQL when the database connection is cut', pgOnly, () => {
  it('answers every watcher with 200 or 503 STORE_UNAVAILABLE, and nothing escapes', async () => {
    const first = await startTestService({ env: { GCM_BILLING_TICK_MS: '0' } });
    const { proxy, url } = await proxyDatabase(first.deps.config.databaseUrl as string);
    const svc = await startTestService({
      clock: first.clock,
      env: { DATABASE_URL: url, GCM_OPERATOR_TOKEN: first.operatorToken },
    });
    const trap = trapEscapes();
    try {
      const games = [await createBillingGame(svc, 'cut-a'), await createBillingGame(svc, 'cut-b')].map(
        (g) => g.gameId,
      );
      // Different data per game, so a waiter answered with another game's billing would show.
      await choosePlan(svc, games[1] as string, 'indie');
      const indexes = new Map<string, string>();
      for (const id of games) indexes.set(id, (await readBilling(svc, id)).watch.index);
      const watch = (id: string) => svc.call('GET', `${billingUrl(id)}?watch_index=${indexes.get(id)}`);
      const waiting = Array.from({ length: 12 }, (_, i) => watch(games[i % 2] as string));
      await until('12 watchers wait', 10_000, () => svc.deps.notifier.waiting === 12);
      // And some still on their first read when the connection goes.
      const reading = Array.from({ length: 4 }, (_, i) => watch(games[i % 2] as string));

      await proxy.stop();
      const answers = await Promise.all([...waiting, ...reading]);
      for (const answer of answers) {
        if (answer.statusCode === 200) continue;
        assert.equal(answer.statusCode, 503, answer.body);
        assert.equal(answer.json<{ code: string }>().code, 'STORE_UNAVAILABLE');
      }
      // Waiters answered at a wake read their own game's billing, not another's.
      for (const [i, answer] of answers.entries()) {
        if (answer.statusCode !== 200) continue;
        const id = games[i % 2] as string;
        assert.equal(answer.json<BillingBody>().watch.index, indexes.get(id));
        assert.equal(answer.json<BillingBody>().active_plan, id === games[0] ? 'trial' : 'indie');
      }

      await proxy.start();
      await until('the service reads again', 30_000, async () => {
        const res = await svc.call('GET', billingUrl(games[0] as string));
        return res.statusCode === 200;
      });
      await until('it listens again', 30_000, () => svc.relay?.connected === true);
      assert.deepEqual(trap.escaped, [], describeEscapes(trap.escaped));
    } finally {
      trap.release();
      await svc.close();
      await proxy.stop();
      await first.close();
    }
  });
});
