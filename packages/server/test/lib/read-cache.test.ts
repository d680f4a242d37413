import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReadCache } from '../../src/lib/read-cache.js';

describe('ReadCache', () => {
  it('loads once, then serves the kept value until it is invalidated', async () => {
    const cache = new ReadCache<string, number>({ enabled: true, maxEntries: 10 });
    let loads = 0;
    const load = async () => ++loads;
    assert.equal(await cache.get('k', load), 1);
    assert.equal(await cache.get('k', load), 1);
    cache.invalidate('k');
    assert.equal(await cache.get('k', load), 2);
  });

  it('does not keep a value whose load began before an invalidation', async () => {
    const cache = new ReadCache<string, string>({ enabled: true, maxEntries: 10 });
    let release: (value: string) => void = () => {};
    const slow = cache.get('k', () => new Promise<string>((resolve) => (release = resolve)));
    // A write commits and invalidates while the read is still loading the old row.
    cache.invalidate('k');
    release('old row');
    assert.equal(await slow, 'old row');
    assert.equal(cache.peek('k'), undefined, 'the old row must not be pinned in the cache');
    assert.equal(await cache.get('k', async () => 'new row'), 'new row');
  });

  it('keeps nothing for a missing row or a failed load', async () => {
    const cache = new ReadCache<string, string>({ enabled: true, maxEntries: 10 });
    assert.equal(await cache.get('k', async () => undefined), undefined);
    await assert.rejects(
      cache.get('k', async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(cache.size, 0);
  });

  it('drops every matching entry at once, and keeps no load that began before', async () => {
    const cache = new ReadCache<string, string>({ enabled: true, maxEntries: 10 });
    for (const key of ['g1/a', 'g1/b', 'g2/a']) await cache.get(key, async () => `${key} old`);
    let release: (value: string) => void = () => {};
    const slow = cache.get('g1/c', () => new Promise<string>((resolve) => (release = resolve)));
    cache.invalidateWhere((key) => key.startsWith('g1/'));
    release('g1/c old');
    await slow;
    assert.deepEqual(
      ['g1/a', 'g1/b', 'g1/c', 'g2/a'].map((k) => cache.peek(k)),
      [undefined, undefined, undefined, 'g2/a old'],
    );
  });

  it('evicts the oldest entry beyond maxEntries', async () => {
    const cache = new ReadCache<number, number>({ enabled: true, maxEntries: 3 });
    for (let i = 0; i < 5; i++) await cache.get(i, async () => i * 10);
    assert.equal(cache.size, 3);
    assert.equal(cache.peek(0), undefined);
    assert.equal(cache.peek(4), 40);
  });

  it('when disabled, loads every time and keeps nothing', async () => {
    const cache = new ReadCache<string, number>({ enabled: false, maxEntries: 10 });
    let loads = 0;
    await cache.get('k', async () => ++loads);
    await cache.get('k', async () => ++loads);
    assert.equal(loads, 2);
    assert.equal(cache.size, 0);
  });

  it('serves nothing while not trusted, and keeps what it loads meanwhile for when trust returns', async () => {
    let trusted = false;
    const cache = new ReadCache<string, number>({
      enabled: true,
      maxEntries: 10,
      trust: { trusted: () => trusted },
    });
    let loads = 0;
    const load = async () => ++loads;
    assert.equal(await cache.get('k', load), 1);
    assert.equal(await cache.get('k', load), 2, 'an untrusted cache reads the store every time');
    assert.equal(cache.peek('k'), undefined);
    trusted = true;
    assert.equal(await cache.get('k', load), 2, 'the freshest load is served once trusted');
  });

  it('drops an entry older than maxAgeMs, and everything on clear', async () => {
    const cache = new ReadCache<string, number>({ enabled: true, maxEntries: 10, maxAgeMs: 30 });
    let loads = 0;
    const load = async () => ++loads;
    assert.equal(await cache.get('k', load), 1);
    assert.equal(await cache.get('k', load), 1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(await cache.get('k', load), 2, 'an entry past its age is loaded again');
    let release: (value: number) => void = () => {};
    const slow = cache.get('s', () => new Promise<number>((resolve) => (release = resolve)));
    cache.clear();
    release(9);
    await slow;
    assert.equal(cache.size, 0, 'clear drops every entry, and keeps no load that began before it');
  });
});
