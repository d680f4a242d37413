import type { FastifyReply } from 'fastify';
import { errors } from '../errors.js';
import type { ChangeNotifier, Subscription, Wake } from '../lib/change-notifier.js';

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

type WaitOutcome = Wake | 'gone' | 'timeout';

/**
 * Waits for the first of: a change of the key (or shutdown), the client leaving (its response closes
 * unfinished, so the waiter is freed at once rather than at the timeout), the timeout. One promise and a
 * few closures per waiter, since thousands wait at once. A client that left while the data was being read
 * has already had its 'close' event, hence the `destroyed` check.
 */
function waitForChange(subscription: Subscription, reply: FastifyReply, ms: number): Promise<WaitOutcome> {
  const res = reply.raw;
  return new Promise<WaitOutcome>((resolve) => {
    const finish = (outcome: WaitOutcome) => {
      clearTimeout(timer);
      res.off('close', onClose);
      subscription.cancel();
      resolve(outcome);
    };
    const onClose = () => {
      if (!res.writableEnded) finish('gone');
    };
    const timer = setTimeout(finish, ms, 'timeout');
    res.on('close', onClose);
    void subscription.changed.then(finish);
    if (res.destroyed && !res.writableEnded) finish('gone');
  });
}

/**
 * The one way a watchable endpoint answers. `load` reads the resource and its version. Without
 * watch_index, or with one that is not the current version, it answers at once; with the current version
 * it waits for a change of `key`, the client leaving, shutdown, or `timeoutMs`, then answers with what is
 * current. A notification that changed nothing (same version) waits again for what is left of the timeout.
 * After a notification, the waiters it woke share one read (see Wake): `load` must read the same data for
 * every request watching `key`.
 */
export async function answerWatchable<T>(
  reply: FastifyReply,
  notifier: ChangeNotifier,
  options: { key: string; watchIndex: string | undefined; timeoutMs: number },
  load: () => Promise<{ data: T; version: bigint }>,
): Promise<{ data: T; version: bigint }> {
  const wanted = parseWatchIndex(options.watchIndex);
  if (wanted === undefined) return load();
  return answerWhen(
    reply,
    notifier,
    { key: options.key, timeoutMs: options.timeoutMs, shareReads: true },
    load,
    (current) => current.version !== wanted,
  );
}

/**
 * Reads with `load` until `settled` holds of what it read, waiting between reads for a change of `key`;
 * answers what it read last when `settled` holds, or at the client leaving, shutdown, or `timeoutMs`. The
 * waiter is subscribed before each read, so a change between read and wait is not lost. `shareReads`: the
 * waiters one notification wakes share one read (see Wake), which is sound only when `load` reads the same
 * data for every request watching `key`; a read that depends on the request (a log read from its own
 * position) reads for itself.
 */
export async function answerWhen<T>(
  reply: FastifyReply,
  notifier: ChangeNotifier,
  options: { key: string; timeoutMs: number; shareReads: boolean },
  load: () => Promise<T>,
  settled: (current: T) => boolean,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let woken: Wake | undefined;
  for (;;) {
    const subscription = notifier.subscribe(options.key);
    let current: T;
    try {
      current = await (woken === undefined || !options.shareReads ? load() : woken.share(load));
    } catch (err) {
      subscription.cancel();
      throw err;
    }
    const remaining = deadline - Date.now();
    // Closed: shutdown answers every waiter with what is current (a closed notifier resolves every
    // subscription at once, so waiting again would spin).
    // A final wake (the change feed from other instances was lost) also answers with what is current.
    if (settled(current) || remaining <= 0 || notifier.closed || woken?.final === true) {
      subscription.cancel();
      return current;
    }
    const outcome = await waitForChange(
      subscription,
      reply,
      Math.min(remaining, notifier.waitCapMs ?? remaining),
    );
    // Gone: nobody reads the answer. Timeout: 200 with the current data, as 2.6 asks; nothing was
    // notified, so the data in hand is current (and watchers that started together, as they do after a
    // change, time out together without a read each).
    if (outcome === 'gone' || outcome === 'timeout') return current;
    woken = outcome;
  }
}

/** The body shape of a watchable answer: the data, plus `watch.index`. */
export function withWatch<T extends object>(result: { data: T; version: bigint }) {
  return { ...result.data, watch: { index: result.version.toString() } };
}
