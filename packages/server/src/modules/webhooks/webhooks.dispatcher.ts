import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { WEBHOOK_ATTEMPTS_MAX, WEBHOOK_SIGNATURE_HEADER, type WebhookAttempt } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { toTimestamp } from '../../lib/clock.js';
import { postOnce } from '../../lib/outbound-post.js';
import * as repo from './webhooks.repository.js';

/** Endpoints with pending deliveries one pass looks at, at most; the next pass goes on from there. */
const ENDPOINTS_PER_PASS = 1024;
/** Endpoints whose due deliveries one query reads (a part of the statement each). */
const ENDPOINTS_PER_QUERY = 64;
/** Requests in flight at once from this instance, shared by every endpoint. */
const SLOTS = 32;
/**
 * Requests in flight at once to one endpoint: a receiver that hangs holds this many slots and delays only
 * its own endpoint's deliveries.
 */
const ENDPOINT_SLOTS = 2;
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
/** The attempt's error when the service stops before the receiver answered; it is retried as any other. */
const STOPPING = 'cut short: the service is stopping';

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
 * One POST (lib/outbound-post.ts: redirects not followed, so a receiver cannot bounce the service to another
 * host; internal addresses refused both as literals and as what a name resolves to).
 */
async function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  allowInternal: boolean,
  stopping: AbortSignal,
): Promise<Outcome> {
  const outcome = await postOnce(url, body, headers, {
    allowInternal,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    maxBodyBytes: RESPONSE_BYTES_MAX,
    signal: stopping,
  });
  if (outcome.status === null) return { error: outcome.error };
  const after = retryAfter(outcome.headers['retry-after']);
  return { status: outcome.status, ...(after === undefined ? {} : { retryAfterS: after }) };
}

type Due = Awaited<ReturnType<typeof repo.dueDeliveries>>[number];

async function attempt(deps: Deps, delivery: Due, stopping: AbortSignal): Promise<void> {
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
          stopping,
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
 * Sends due deliveries, each from its claim to its recorded attempt, without a pass waiting for them: a pass
 * (the `webhook-delivery` job, on one instance at a time) only tops the requests in flight up to SLOTS,
 * ENDPOINT_SLOTS per endpoint, and returns. So a receiver that hangs for the whole timeout holds its own
 * endpoint's slots and nobody else's, and the next pass, a poll later, sends what other endpoints have due.
 * Free slots go round robin over the endpoints with something due, those with the fewest requests in flight
 * first: an endpoint with nothing in flight is served before a busy one gets another slot, and each
 * endpoint's own deliveries go oldest first.
 *
 * A delivery is claimed before it is sent, so even two instances at a lease hand-over send it once, and one
 * cut short by a crash is sent again later: at least once. Order per resource is the due query's: a
 * delivery is due only once no earlier one of its resource to its endpoint is pending.
 */
export class WebhookDispatcher {
  /** Requests in flight (or being claimed) per endpoint id; an endpoint with none has no entry. */
  private readonly busy = new Map<string, number>();
  private readonly sending = new Set<Promise<void>>();
  /** Attempts that failed to be recorded since the last pass, reported by the next one. */
  private failures: unknown[] = [];
  private readonly stopping = new AbortController();
  /** The endpoint a delivery was last started to: the next pass begins its round after it. */
  private lastServed = '';

  constructor(private readonly deps: Deps) {}

  /** One pass of the job: starts what is due into the free slots; answers how many it started. */
  async pass(): Promise<number> {
    const reported = this.failures;
    this.failures = [];
    let started = 0;
    if (!this.stopping.signal.aborted && this.sending.size < SLOTS) started = await this.fill();
    if (reported.length > 0) {
      throw new AggregateError(reported, `${reported.length} delivery record(s) failed`);
    }
    return started;
  }

  /**
   * Round robin over the endpoints with pending deliveries, from the one after the last served, those with
   * nothing in flight first: a group of them at a time, until the free slots are taken or every endpoint
   * has been asked.
   */
  private async fill(): Promise<number> {
    const { db, clock } = this.deps;
    const pending = await repo.endpointsWithPending(db, ENDPOINTS_PER_PASS);
    const after = this.lastServed;
    const turn = [...pending.filter((id) => id > after), ...pending.filter((id) => id <= after)];
    const enabled = await repo.enabledEndpoints(db, turn);
    const open = turn.filter((id) => enabled.has(id) && this.load(id) < ENDPOINT_SLOTS);
    // Stable: round-robin order within each load.
    open.sort((x, y) => this.load(x) - this.load(y));
    let started = 0;
    for (let from = 0; from < open.length && this.sending.size < SLOTS; from += ENDPOINTS_PER_QUERY) {
      const group = open.slice(from, from + ENDPOINTS_PER_QUERY);
      const due = await repo.dueDeliveries(
        db,
        clock.now(),
        new Map(group.map((id) => [id, ENDPOINT_SLOTS - this.load(id)])),
      );
      const byEndpoint = new Map<string, Due[]>();
      for (const delivery of due) {
        byEndpoint.set(delivery.webhook_id, [...(byEndpoint.get(delivery.webhook_id) ?? []), delivery]);
      }
      // One delivery per endpoint in each round, in the group's order, until the slots run out.
      let last = -1;
      for (let round = 0; round < ENDPOINT_SLOTS; round++) {
        group.forEach((id, index) => {
          const delivery = byEndpoint.get(id)?.[round];
          if (delivery === undefined || this.sending.size >= SLOTS) return;
          this.send(delivery);
          last = Math.max(last, index);
          started++;
        });
      }
      if (last >= 0) this.lastServed = group[last] as string;
    }
    return started;
  }

  private load(webhookId: string): number {
    return this.busy.get(webhookId) ?? 0;
  }

  /**
   * Cuts every request in flight short (each recorded as a failed attempt, retried later), waits for them,
   * and answers the failures no pass has reported.
   */
  async stop(): Promise<unknown[]> {
    this.stopping.abort(new Error(STOPPING));
    await Promise.all(this.sending);
    const left = this.failures;
    this.failures = [];
    return left;
  }

  private send(delivery: Due): void {
    // A pass still reading when stop() began must not start what stop() no longer waits for: its claim
    // would outlive the store it was recorded in and hold the delivery back for CLAIM_MS after a restart.
    if (this.stopping.signal.aborted) return;
    const endpoint = delivery.webhook_id;
    this.busy.set(endpoint, (this.busy.get(endpoint) ?? 0) + 1);
    const sent: Promise<void> = attempt(this.deps, delivery, this.stopping.signal)
      .catch((err: unknown) => {
        this.failures.push(err);
      })
      .finally(() => {
        this.sending.delete(sent);
        const left = (this.busy.get(endpoint) ?? 1) - 1;
        if (left > 0) this.busy.set(endpoint, left);
        else this.busy.delete(endpoint);
      });
    this.sending.add(sent);
  }
}
