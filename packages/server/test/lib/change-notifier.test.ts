import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChangeNotifier } from '../../src/lib/change-notifier.js';
import { describeEscapes, trapEscapes } from '../helpers/escapes.js';

describe('change notifier', () => {
  it('wakes every waiter of a key, and only them, and counts them', async () => {
    const notifier = new ChangeNotifier();
    const a = [notifier.subscribe('a'), notifier.subscribe('a')];
    const b = notifier.subscribe('b');
    assert.equal(notifier.waiting, 3);
    notifier.notify('a');
    assert.equal(notifier.waiting, 1);
    await Promise.all(a.map((s) => s.changed));
    let bWoken = false;
    void b.changed.then(() => {
      bWoken = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(bWoken, false);
    b.cancel();
    b.cancel();
    assert.equal(notifier.waiting, 0);
  });

  it('lets the waiters woken by one notification share one read, and a later one read again', async () => {
    const notifier = new ChangeNotifier();
    let reads = 0;
    const load = async () => ++reads;
    const first = [notifier.subscribe('k'), notifier.subscribe('k'), notifier.subscribe('k')];
    notifier.notify('k');
    const wakes = await Promise.all(first.map((s) => s.changed));
    assert.deepEqual(await Promise.all(wakes.map((w) => w.share(load))), [1, 1, 1]);
    // Once the shared read has begun, a late waiter could miss a change it cannot see: it reads itself.
    assert.equal(await wakes[0]?.share(load), 2);
    const later = notifier.subscribe('k');
    notifier.notify('k');
    assert.equal(await (await later.changed).share(load), 3);
  });

  it('shares a read only among waiters of one key when waking every key at once', async () => {
    const notifier = new ChangeNotifier();
    const waiting = [notifier.subscribe('a'), notifier.subscribe('b')];
    notifier.wakeAll(true);
    const [wakeA, wakeB] = await Promise.all(waiting.map((s) => s.changed));
    assert.ok(wakeA?.final && wakeB?.final);
    const [a, b] = await Promise.all([wakeA?.share(async () => 'a'), wakeB?.share(async () => 'b')]);
    assert.deepEqual([a, b], ['a', 'b'], "a waiter of b is not answered with a's data");
  });

  it('rejects every waiter sharing a read whose load throws, even synchronously, and nothing escapes', async () => {
    const trap = trapEscapes();
    try {
      const notifier = new ChangeNotifier();
      const waiting = [notifier.subscribe('k'), notifier.subscribe('k')];
      notifier.notify('k');
      const wakes = await Promise.all(waiting.map((s) => s.changed));
      const load = (): Promise<number> => {
        throw new Error('Connection terminated unexpectedly');
      };
      const results = await Promise.allSettled(wakes.map((w) => w.share(load)));
      assert.deepEqual(
        results.map((r) => r.status),
        ['rejected', 'rejected'],
      );
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(trap.escaped, [], describeEscapes(trap.escaped));
    } finally {
      trap.release();
    }
  });

  it('at close wakes every waiter and resolves later subscriptions at once', async () => {
    const notifier = new ChangeNotifier();
    const waiting = [notifier.subscribe('a'), notifier.subscribe('b')];
    notifier.close();
    assert.equal(notifier.closed, true);
    assert.equal(notifier.waiting, 0);
    await Promise.all(waiting.map((s) => s.changed));
    await notifier.subscribe('c').changed;
    assert.equal(notifier.waiting, 0);
  });
});
