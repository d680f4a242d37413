import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../errors.js';
import type { ChangeNotifier } from '../lib/change-notifier.js';

/** Interface 2.6: the version of the returned data, as an opaque decimal string. */
export const WatchSchema = Type.Object({
  index: Type.String({ description: 'pass as watch_index to wait for the next change' }),
});

export const WatchQuery = {
  watch_index: Type.Optional(
    Type.String({ description: 'block until the data changes from this index (at most the watch timeout)' }),
  ),
};

/** A non-negative decimal integer, or a clear 400; undefined when the client did not ask to wait. */
export function parseWatchIndex(raw: string | undefined): bigint | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,19}$/.test(raw)) {
    throw errors.badQuery('query parameter "watch_index" must be a watch.index returned earlier (digits)', {
      field: 'watch_index',
    });
  }
  return BigInt(raw);
}

/**
 * Resolves when the client goes away before its answer was sent (the response closes unfinished), so its
 * waiter is freed at once rather than at the timeout.
 */
function clientGone(reply: FastifyReply): { gone: Promise<void>; dispose(): void } {
  let onClose: () => void = () => {};
  const gone = new Promise<void>((resolve) => {
    onClose = () => {
      if (!reply.raw.writableEnded) resolve();
    };
  });
  reply.raw.once('close', onClose);
  return { gone, dispose: () => reply.raw.off('close', onClose) };
}

/**
 * The one way a watchable endpoint answers. `load` reads the resource and its version. Without
 * watch_index, or with one that is not the current version, it answers at once; with the current version
 * it waits for a change of `key`, the client leaving, shutdown, or `timeoutMs`, then answers with what is
 * current. The waiter is subscribed before the first read, so a change between read and wait is not lost.
 */
export async function answerWatchable<T>(
  reply: FastifyReply,
  notifier: ChangeNotifier,
  options: { key: string; watchIndex: string | undefined; timeoutMs: number },
  load: () => Promise<{ data: T; version: bigint }>,
): Promise<{ data: T; version: bigint }> {
  const wanted = parseWatchIndex(options.watchIndex);
  if (wanted === undefined) return load();
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const subscription = notifier.subscribe(options.key);
    let current: { data: T; version: bigint };
    try {
      current = await load();
    } catch (err) {
      subscription.cancel();
      throw err;
    }
    const remaining = deadline - Date.now();
    if (current.version !== wanted || remaining <= 0) {
      subscription.cancel();
      return current;
    }
    const client = clientGone(reply);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      subscription.changed.then(() => 'changed' as const),
      client.gone.then(() => 'gone' as const),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), remaining);
      }),
    ]);
    clearTimeout(timer);
    client.dispose();
    subscription.cancel();
    // Gone: nobody reads the answer, but one cheap read keeps the control flow simple; the timeout and
    // shutdown answer with the current data (200), as 2.6 asks.
    if (outcome !== 'changed') return load();
  }
}

/** The body shape of a watchable answer: the data, plus `watch.index`. */
export function withWatch<T extends object>(result: { data: T; version: bigint }) {
  return { ...result.data, watch: { index: result.version.toString() } };
}
