import assert from 'node:assert/strict';

/** Polls `check` every `pollMs` until it holds, and fails naming `what` after `ms`. */
export async function until(
  what: string,
  ms: number,
  check: () => boolean | Promise<boolean>,
  pollMs = 5,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
