import { ApiError, NetworkError } from './errors.js';

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  baseMs: number;
  maxMs: number;
}

/**
 * Enough to ride out a restarting service or a store's brief 503s (about a minute of waiting in all at the
 * default cap) without hiding an outage from CI for long.
 */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseMs: 500, maxMs: 20_000 };

/** The most a Retry-After is honoured for: a proxy asking for an hour should fail the run, not stall it. */
const RETRY_AFTER_MAX_MS = 120_000;

/** A failed try, and whether (and after how long, if the server said) another may succeed. */
export class TransientError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * Full jitter (a random wait between 0 and the exponential cap): many CI jobs failing at the same moment
 * then spread their retries out instead of returning together.
 */
export function backoffMs(attempt: number, policy: RetryPolicy): number {
  const cap = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  return Math.round(Math.random() * cap);
}

/** `Retry-After` as seconds or as an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), RETRY_AFTER_MAX_MS);
}

/** What the JSON API's refusals mean for a retry: a 5xx, a 429 or a network failure may pass next time. */
export function isTransientApiError(err: unknown): boolean {
  if (err instanceof NetworkError || err instanceof TransientError) return true;
  if (err instanceof ApiError) {
    return err.status >= 500 || err.status === 429 || err.code === 'IDEMPOTENCY_KEY_IN_USE';
  }
  return false;
}

/** node:timers/promises' sleep, but in a browser too: the SDK runs in both. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, it fails with an error `transient` does not accept, or the tries run
 * out. A TransientError's Retry-After wins over the backoff when it is longer. Retry only what is safe to
 * repeat: a read, a PUT, or a write sent with an `Idempotency-Key` that stays the same for every try.
 */
export async function withRetries<T>(
  attempt: (index: number) => Promise<T>,
  options: {
    policy?: RetryPolicy;
    transient?: (err: unknown) => boolean;
    signal?: AbortSignal;
    onRetry?: (err: unknown, waitMs: number, index: number) => void;
  } = {},
): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY;
  const transient = options.transient ?? isTransientApiError;
  for (let index = 0; ; index++) {
    try {
      return await attempt(index);
    } catch (err) {
      if (options.signal?.aborted || index + 1 >= policy.attempts || !transient(err)) throw err;
      const asked = err instanceof TransientError ? err.retryAfterMs : undefined;
      const waitMs = Math.max(asked ?? 0, backoffMs(index, policy));
      options.onRetry?.(err, waitMs, index);
      await sleep(waitMs, options.signal);
    }
  }
}
