import type { OutputLine } from './driver.js';

/** How long a stop waits for the lobby's output followers to read to the end before it removes the lobby. */
const FOLLOWER_DRAIN_MS = 5_000;

/**
 * The output followers reading each lobby now. Removing a lobby ends its log stream wherever the reader is, so
 * what it printed last (on its SIGTERM, say) would never be read: a driver's stop waits here until they have
 * read to the end (they do on their own once the lobby exited), or for a few seconds at most.
 */
export class OutputFollowers {
  private readonly reading = new Map<string, Set<Promise<void>>>();

  /**
   * Yields `lines` (batches of them, as the driver reads them), counted as a follower of `handle` while `follow`. Counted from the first next(), before the
   * engine answers: a stop that comes while the stream is being opened still waits for it.
   */
  async *track(
    handle: string,
    follow: boolean,
    lines: AsyncIterable<OutputLine[]>,
  ): AsyncIterable<OutputLine[]> {
    let done = () => {};
    const reading = new Promise<void>((resolve) => {
      done = resolve;
    });
    if (follow) {
      let set = this.reading.get(handle);
      if (set === undefined) {
        set = new Set();
        this.reading.set(handle, set);
      }
      set.add(reading);
    }
    try {
      yield* lines;
    } finally {
      done();
      const set = this.reading.get(handle);
      set?.delete(reading);
      if (set?.size === 0) this.reading.delete(handle);
    }
  }

  /** Resolves once every follower of `handle` has read to the end, or after FOLLOWER_DRAIN_MS. */
  async drained(handle: string): Promise<void> {
    const reading = this.reading.get(handle);
    if (reading === undefined || reading.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...reading]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, FOLLOWER_DRAIN_MS);
      }),
    ]);
    clearTimeout(timer);
  }
}
