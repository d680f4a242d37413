import { createHash, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { LATEST_MIGRATION } from '../db/migrations/index.js';
import type { Db } from '../db/open-db.js';
import { errors, type NotReadyReason } from '../errors.js';
import type { Metrics } from '../lib/metrics.js';
import { routeOptions } from './route-options.js';
import type { TypedApp } from './typed-app.js';

/** A readiness answer is reused this long: probes from every balancer cost one query a second at most. */
export const READY_CACHE_MS = 1_000;
/** A store that has not answered the probe in this long is as good as unreachable. */
export const READY_PROBE_TIMEOUT_MS = 2_000;

/**
 * Whether this instance should get traffic: not shutting down, its store answering, and every migration it
 * knows applied (a newer instance may have applied more; that is fine). The store is asked with one
 * primary-key read of Kysely's migration table, and the answer is shared for READY_CACHE_MS.
 */
export class Readiness {
  private closing = false;
  private pending: Promise<NotReadyReason | undefined> | undefined;
  private last: { at: number; answer: NotReadyReason | undefined } | undefined;

  /** `probe`: true when the store answers with every migration applied, false when some are missing. */
  constructor(
    private readonly probe: () => Promise<boolean>,
    private readonly timeoutMs = READY_PROBE_TIMEOUT_MS,
  ) {}

  /** Readiness over `db`: the newest migration this build knows is recorded there. */
  static overStore(db: Db): Readiness {
    return new Readiness(async () => {
      const { rows } = await sql<{ ok: number }>`
        select 1 as ok from kysely_migration where name = ${LATEST_MIGRATION}`.execute(db);
      return rows.length > 0;
    });
  }

  /** Shutdown began: from now on every check answers `shutting_down`. */
  close(): void {
    this.closing = true;
  }

  get shuttingDown(): boolean {
    return this.closing;
  }

  /** Undefined when ready; otherwise why not. */
  async check(): Promise<NotReadyReason | undefined> {
    if (this.closing) return 'shutting_down';
    const now = performance.now();
    if (this.last !== undefined && now - this.last.at < READY_CACHE_MS) return this.last.answer;
    this.pending ??= this.run().finally(() => {
      this.pending = undefined;
    });
    const answer = await this.pending;
    return this.closing ? 'shutting_down' : answer;
  }

  private async run(): Promise<NotReadyReason | undefined> {
    const at = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
    });
    let answer: NotReadyReason | undefined;
    try {
      const done = await Promise.race([this.probe(), timedOut]);
      answer = done === 'timeout' ? 'store_unavailable' : done ? undefined : 'migrations_pending';
    } catch {
      answer = 'store_unavailable';
    } finally {
      clearTimeout(timer);
    }
    this.last = { at, answer };
    return answer;
  }
}

/** Whether `authorization` is `Bearer <token>`, compared in constant time (hashes of equal length). */
export function bearerMatches(token: string, authorization: string | undefined): boolean {
  const given = /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

export interface OperationsEndpoints {
  readiness: Readiness;
  metrics: Metrics;
  /** GCM_METRICS_TOKEN: the bearer token /metrics asks for; unset, the main port has no /metrics. */
  metricsToken: string | undefined;
}

const Alive = Type.Object({ status: Type.Literal('ok') });
const Ready = Type.Object({ status: Type.Literal('ready') });
const MetricsText = Type.Unsafe<string>({
  description: 'Prometheus text exposition format 0.0.4',
  content: { 'text/plain': { schema: { type: 'string' } } },
});

/**
 * Probes and metrics: outside the interface (hidden from the document), answered to anyone without a token
 * check, counted by no rate limit and written to no access log (logLevel silent): a balancer polling every
 * second must neither fill the log nor use up a limit, and the answers cost one cached query at most.
 * /metrics asks for its own token, and is not served on this port at all when none is set.
 */
export function healthRoutes(app: TypedApp, ops: OperationsEndpoints): void {
  const quiet = { logLevel: 'silent' } as const;
  app.get(
    '/healthz',
    {
      ...routeOptions(
        {
          operationId: 'health.getLiveness',
          auth: 'public',
          limit: 'none',
          summary: 'Whether the process is alive (it answers); never asks the store',
          tag: 'health',
          internal: true,
        },
        { response: { 200: Alive } },
      ),
      ...quiet,
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      ...routeOptions(
        {
          operationId: 'health.getReadiness',
          auth: 'public',
          limit: 'none',
          summary:
            'Whether this instance should get traffic: store reachable, migrations applied, not shutting down',
          tag: 'health',
          internal: true,
        },
        { response: { 200: Ready } },
      ),
      ...quiet,
    },
    async () => {
      const reason = await ops.readiness.check();
      if (reason !== undefined) throw errors.serviceUnavailable(reason);
      return { status: 'ready' as const };
    },
  );

  app.get(
    '/metrics',
    {
      ...routeOptions(
        {
          operationId: 'metrics.getMetrics',
          auth: 'public',
          limit: 'none',
          summary: 'Prometheus metrics of this instance; needs GCM_METRICS_TOKEN as a bearer token',
          tag: 'health',
          internal: true,
        },
        { response: { 200: MetricsText } },
      ),
      ...quiet,
    },
    async (request, reply) => {
      const token = ops.metricsToken;
      if (token === undefined) throw errors.metricsNotServed();
      if (!bearerMatches(token, request.headers.authorization)) {
        throw errors.metricsUnauthorized();
      }
      return reply.type(ops.metrics.contentType).send(await ops.metrics.render());
    },
  );
}
