import assert from 'node:assert/strict';

/**
 * A bound that only a hang reaches: half the 40 s watch timeout, so an answer later than this waited for the
 * timeout, however loaded the machine. Not a speed: how fast things happen is `npm run bench`'s to say.
 */
export const HANG_MS = 20_000;

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
