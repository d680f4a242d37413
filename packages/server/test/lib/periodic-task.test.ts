import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PeriodicTask } from '../../src/lib/periodic-task.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (at most 5 s) for a condition, so a slow machine only makes the test slower. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await sleep(2);
  }
}

describe('PeriodicTask', () => {
  it('runs on its interval, never two runs at once, and stop waits for the run in progress', async () => {
    let runs = 0;
    let running = 0;
    let overlapped = false;
    let finished = 0;
    const task = new PeriodicTask(
      async () => {
        runs++;
        running++;
        if (running > 1) overlapped = true;
        await sleep(25);
        running--;
        finished++;
      },
      () => {},
    );
    task.start(5);
    await until(() => runs >= 3);
    await task.stop();
    assert.equal(overlapped, false);
    assert.equal(finished, runs, 'stop resolved after the last run finished');
    await sleep(30);
    assert.equal(runs, finished, 'no run after stop');
  });

  it('reports a failing run and keeps going', async () => {
    const failures: unknown[] = [];
    let runs = 0;
    const task = new PeriodicTask(
      async () => {
        runs++;
        throw new Error('boom');
      },
      (err) => failures.push(err),
    );
    task.start(5);
    await until(() => failures.length >= 2);
    await task.stop();
    assert.equal(failures.length, runs);
  });
});
