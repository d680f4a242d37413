import assert from 'node:assert/strict';
import { test } from 'node:test';
import { monotonicMs, TokenBucket, TokenBuckets } from '../../src/lib/token-bucket.js';

test('a bucket starts full, refills at its rate up to its burst, and says how long a refused cost waits', () => {
  let now = 1_000;
  const bucket = new TokenBucket(100, 300, () => now);
  assert.equal(bucket.take(300), 0);
  assert.equal(bucket.take(1), 10, '1 token at 100 a second: 10 ms');
  assert.equal(bucket.take(50), 500);
  now += 250;
  assert.equal(bucket.take(25), 0);
  assert.equal(bucket.take(1), 10, 'nothing was taken by the refused calls');
  now += 60_000;
  assert.equal(bucket.full, true);
  assert.equal(bucket.take(300), 0, 'refilled to the burst, not past it');
  assert.equal(bucket.take(1), 10);
  assert.equal(bucket.take(301), 3_010, 'a cost past the burst is never taken');
});

test('buckets are per key, and past their bound the full ones are forgotten first', () => {
  let now = 0;
  const buckets = new TokenBuckets(1, 2, () => now, 2);
  assert.equal(buckets.take('a', 2), 0);
  assert.equal(buckets.take('a', 1), 1_000);
  assert.equal(buckets.take('b', 2), 0, 'b has its own');
  now += 2_000;
  assert.equal(buckets.take('b', 1), 0);
  // a is full again (it owes nothing), b is not: the third key pushes a out, not b.
  assert.equal(buckets.take('c', 1), 0);
  assert.equal(buckets.size, 2);
  assert.equal(buckets.take('b', 2), 1_000, 'b kept what it owes');
});

test('past their bound the full buckets go wherever they are, then the oldest, and only then', () => {
  let now = 0;
  const buckets = new TokenBuckets(1, 2, () => now, 2);
  // b first, owing; then a, which will be full again: a goes, not the older b.
  assert.equal(buckets.take('b', 2), 0);
  assert.equal(buckets.take('a', 1), 0);
  now += 1_000;
  assert.equal(buckets.take('b', 0), 0);
  assert.equal(buckets.take('c', 2), 0);
  assert.equal(buckets.size, 2);
  assert.equal(buckets.take('b', 2), 1_000, 'b kept what it owes');
  // None full: the oldest (b) goes, and the count stays at the bound.
  assert.equal(buckets.take('d', 2), 0);
  assert.equal(buckets.size, 2);
  assert.equal(buckets.take('c', 2), 2_000, 'c, newer, kept');
  assert.equal(buckets.take('b', 2), 0, 'b was forgotten: full again');
  // Under the bound nothing is forgotten, full or not.
  const roomy = new TokenBuckets(1, 2, () => now, 10);
  assert.equal(roomy.take('x', 0), 0);
  assert.equal(roomy.take('y', 0), 0);
  assert.equal(roomy.size, 2);
});

test('the default clock is monotonic milliseconds', () => {
  const a = monotonicMs();
  assert.equal(typeof a, 'number');
  assert.ok(monotonicMs() >= a);
  assert.equal(new TokenBucket(1, 1).take(1), 0);
});
