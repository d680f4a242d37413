import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Batcher } from '../../src/lib/batcher.js';

describe('Batcher', () => {
  it('answers the calls of one turn with one run, each with its own result, in order', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(async (inputs) => {
      runs.push(inputs);
      return inputs.map((n) => n * 10);
    }, 100);
    const answers = await Promise.all([1, 2, 3].map((n) => batcher.submit(n)));
    assert.deepEqual(answers, [10, 20, 30]);
    assert.deepEqual(runs, [[1, 2, 3]]);
    // A call of a later turn starts a batch of its own.
    assert.equal(await batcher.submit(4), 40);
    assert.deepEqual(runs, [[1, 2, 3], [4]]);
  });

  it('runs at most maxBatch inputs at once', async () => {
    const runs: number[][] = [];
    const batcher = new Batcher<number, number>(async (inputs) => {
      runs.push(inputs);
      return inputs;
    }, 2);
    assert.deepEqual(await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit(n))), [1, 2, 3, 4, 5]);
    assert.deepEqual(runs, [[1, 2], [3, 4], [5]]);
  });

  it('fails every call of a failed run, and one call alone when its own answer fails', async () => {
    const failing = new Batcher<number, number>(async () => {
      throw new Error('store gone');
    }, 10);
    const settled = await Promise.allSettled([failing.submit(1), failing.submit(2)]);
    assert.deepEqual(
      settled.map((s) => s.status),
      ['rejected', 'rejected'],
    );
    const mixed = new Batcher<number, number>(
      async (inputs) => inputs.map((n) => (n === 2 ? Promise.reject(new Error('two')) : n)),
      10,
    );
    const results = await Promise.allSettled([1, 2, 3].map((n) => mixed.submit(n)));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      [1, 'two', 3],
    );
  });
});
