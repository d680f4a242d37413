import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TokenBucket, TokenBuckets } from '../../src/lib/token-bucket.js';

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
