import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChangeNotifier } from '../../src/lib/change-notifier.js';

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
