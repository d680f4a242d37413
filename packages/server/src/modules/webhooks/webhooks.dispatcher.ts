import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WEBHOOK_ATTEMPTS_MAX, WEBHOOK_SIGNATURE_HEADER, type WebhookAttempt } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { toTimestamp } from '../../lib/clock.js';
import { isInternalAddress, publicLookup } from '../../lib/public-address.js';
import * as repo from './webhooks.repository.js';

/** Deliveries one pass takes; the next pass (GCM_WEBHOOK_POLL_MS later) takes more. */
const PASS_BATCH = 64;
/** Requests in flight at once per pass: one slow receiver does not hold every other endpoint up. */
const CONCURRENCY = 8;
/** How long a receiver has to answer, headers and body. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * A claimed delivery is due again this long after its claim if the sender died mid-request: longer than
 * the timeout, so a live sender always records its attempt first.
 */
const CLAIM_MS = 60_000;
/** Of a receiver's answer only this much is read (and thrown away): enough to reuse nothing, bound memory. */
const RESPONSE_BYTES_MAX = 64 * 1024;
/** Seconds after each failed attempt, the first to the eleventh; twelve attempts span about a day. */
const BACKOFF_S = [10, 30, 120, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 28_800];
/** A receiver's Retry-After (429, 503) is honoured up to this. */
const RETRY_AFTER_MAX_S = 3600;

export const USER_AGENT = 'gcm-webhooks/1';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<body>">`, as Stripe signs: the time binds the body. */
export function signature(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

interface Outcome {
  status?: number;
  error?: string;
  retryAfterS?: number;
}

function retryAfter(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,9}$/.test(value.trim())) return undefined;
  return Math.min(Number(value), RETRY_AFTER_MAX_S);
}

/**
 * One POST. Redirects are not followed (a 3xx is a failed attempt): a receiver cannot bounce the service to
 * another host. Internal addresses are refused both as literals and as what a name resolves to.
 */
function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  allowInternal: boolean,
): Promise<Outcome> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!allowInternal && isIP(host) !== 0 && isInternalAddress(host)) {
    return Promise.resolve({ error: `${host} is an internal address` });
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: publicLookup(allowInternal),
        agent: false,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_BYTES_MAX) response.destroy();
        });
        const status = response.statusCode ?? 0;
        const after = retryAfter(response.headers['retry-after']);
        const finish = () => done({ status, ...(after === undefined ? {} : { retryAfterS: after }) });
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`));
    }, DELIVERY_TIMEOUT_MS);
    timer.unref();
    request.on('error', (err: NodeJS.ErrnoException) => {
      done({ error: err.code === undefined ? err.message : `${err.code}: ${err.message}` });
    });
    request.end(body);
  });
}

type Due = Awaited<ReturnType<typeof repo.dueDeliveries>>[number];

async function attempt(deps: Deps, delivery: Due): Promise<void> {
  const now = deps.clock.now();
  const seq = Number(delivery.seq);
  if (!(await repo.claimDelivery(deps.db, seq, Number(delivery.next_attempt_ts), now + CLAIM_MS))) return;
  const url = new URL(delivery.url);
  const { allowHttp, allowInternal } = deps.config.webhooks;
  const started = performance.now();
  const outcome: Outcome =
    url.protocol === 'http:' && !allowHttp
      ? { error: 'http:// endpoints are not allowed (GCM_WEBHOOK_ALLOW_HTTP)' }
      : await post(
          url,
          delivery.payload,
          {
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
            'gcm-webhook-id': delivery.webhook_id,
            'gcm-delivery-id': delivery.delivery_id,
            'gcm-event-id': delivery.event_id,
            'gcm-event': delivery.event_type,
            [WEBHOOK_SIGNATURE_HEADER]: signature(delivery.secret, Math.floor(now / 1000), delivery.payload),
          },
          allowInternal,
        );
  const record: WebhookAttempt = {
    ts: toTimestamp(now),
    ...(outcome.status === undefined ? {} : { status_code: outcome.status }),
    ...(outcome.error === undefined ? {} : { error: outcome.error.slice(0, 300) }),
    duration_ms: Math.round(performance.now() - started),
  };
  const attempts = [...(JSON.parse(delivery.attempts) as WebhookAttempt[]), record];
  const count = Number(delivery.attempt_count) + 1;
  const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  const given = !delivered && count >= WEBHOOK_ATTEMPTS_MAX;
  const finishedAt = deps.clock.now();
  let next = finishedAt;
  if (!delivered && !given) {
    // ±10 % so that the deliveries a receiver's outage failed together do not all come back together.
    const backoff = (BACKOFF_S[count - 1] ?? RETRY_AFTER_MAX_S) * (0.9 + Math.random() * 0.2);
    next = finishedAt + Math.round(Math.max(backoff, outcome.retryAfterS ?? 0) * 1000);
  }
  await repo.recordAttempt(deps.db, seq, {
    state: delivered ? 'delivered' : given ? 'failed' : 'pending',
    attempt_count: count,
    attempts: JSON.stringify(attempts),
    next_attempt_ts: next,
    delivered_ts: delivered ? finishedAt : null,
  });
  deps.metrics.webhookAttempted(delivered ? 'delivered' : given ? 'failed' : 'retry');
}

/**
 * The `webhook-delivery` job's pass: sends what is due, CONCURRENCY at a time, and records each attempt.
 * Run on one instance at a time (its lease); a delivery is claimed before it is sent, so even two passes at
 * a hand-over send it once, and one cut short by a crash is sent again later: at least once.
 */
export async function deliverDue(deps: Deps): Promise<number> {
  const due = await repo.dueDeliveries(deps.db, deps.clock.now(), PASS_BATCH);
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < due.length) {
      const delivery = due[next++] as Due;
      await attempt(deps, delivery).catch((err: unknown) => failures.push(err));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} delivery record(s) failed`);
  return due.length;
}
