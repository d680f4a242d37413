import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RateLimitConfig } from '../config.js';
import type { ConnectionStats, QueryOperation } from '../db/open-db.js';

/** A per-address limit by its RateLimitConfig field (every field but the window). */
export type LimitName = Exclude<keyof RateLimitConfig, 'windowMs'>;

/** The `limit` label of each: the variable's name without GCM_RATE_LIMIT_ / GCM_, lower case. */
export const LIMIT_LABELS: Readonly<Record<LimitName, string>> = {
  authFailures: 'auth_failures',
  deviceLinkStarts: 'device_link_starts',
  deviceLinkReads: 'device_link_reads',
  publicReads: 'public_reads',
  uploadPuts: 'upload_puts',
  pendingDeviceLinks: 'device_link_pending',
  accountCalls: 'account_calls',
  matchmakerPlayerCalls: 'matchmaker_player_calls',
  matchmakerReads: 'matchmaker_reads',
  matchmakerToken: 'matchmaker_token',
};

/** The label of requests no route matched: one series however many paths clients try. */
export const UNMATCHED_ROUTE = 'unmatched';

// From a cached read (well under a millisecond) to a watch request that waited out its timeout (up to 59 s).
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
// A primary-key read on SQLite takes tens of microseconds; a query over a second is an incident.
const QUERY_BUCKETS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5,
];

/** One namespace's running lobbies as the runtime's last stats pass saw them (modules/runtime). */
export interface NamespaceLobbyUse {
  namespaceId: string;
  cpuCores: number;
  memoryBytes: number;
  rxBytes: number;
  txBytes: number;
  lobbies: { starting: number; ready: number; stopping: number };
}

let processRegistry: Registry | undefined;

/**
 * The process's own figures (CPU, memory, event loop lag, GC, file descriptors), collected once per process:
 * they describe the process, not a service instance, and each collection starts an event loop monitor.
 */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The service's Prometheus series, in a registry of its own: tests start many services in one process, and
 * each must count only its own requests. Gauges of state (connections, watchers) are read at scrape time
 * from the sources given to `watch`, so nothing is kept up to date on the hot path.
 */
export class Metrics {
  private readonly registry = new Registry();
  private readonly requests: Histogram<'method' | 'route' | 'status'>;
  private readonly queries: Histogram<'operation'>;
  private readonly jobRuns: Counter<'job'>;
  private readonly jobFailures: Counter<'job'>;
  private readonly jobLastSuccess: Gauge<'job'>;
  private readonly uploadBytes: Counter;
  private readonly refusals: Counter<'limit'>;
  private readonly webhookAttempts: Counter<'result'>;
  private connections: (() => ConnectionStats) | undefined;
  private watchers: (() => number) | undefined;
  private passwordHashes: (() => { running: number; waiting: number }) | undefined;
  private lobbyUse: (() => readonly NamespaceLobbyUse[]) | undefined;

  constructor() {
    const registers = [this.registry];
    this.requests = new Histogram({
      name: 'gcm_http_request_duration_seconds',
      help: 'Time from a request to its answer, by method, route pattern and status (its _count counts requests)',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.queries = new Histogram({
      name: 'gcm_db_query_duration_seconds',
      help: 'Time the store took to run a statement, once it had a connection, by operation',
      labelNames: ['operation'],
      buckets: QUERY_BUCKETS,
      registers,
    });
    // Read when scraped, from the sources `watch` names (nothing to read before it is called).
    const gauge = (name: string, help: string, read: (gauge: Gauge) => void, labelNames: string[] = []) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect() {
          read(this);
        },
      });
    gauge(
      'gcm_db_connections',
      'Connections to the store by state (busy: running a statement or holding a transaction)',
      (g) => {
        const stats = this.connections?.();
        if (stats === undefined) return;
        g.set({ state: 'busy' }, stats.open - stats.idle);
        g.set({ state: 'idle' }, stats.idle);
      },
      ['state'],
    );
    gauge('gcm_db_connections_max', 'The most connections the store pool may open (1 on SQLite)', (g) => {
      const stats = this.connections?.();
      if (stats !== undefined) g.set(stats.max);
    });
    gauge('gcm_db_waiting', 'Callers waiting for a store connection', (g) => {
      const stats = this.connections?.();
      if (stats !== undefined) g.set(stats.waiting);
    });
    gauge('gcm_watch_waiting', 'Requests with a watch_index waiting for a change on this instance', (g) => {
      const waiting = this.watchers?.();
      if (waiting !== undefined) g.set(waiting);
    });
    gauge(
      'gcm_password_hashes',
      'Password hashes (sign-ins, sign-ups, changes) by state',
      (g) => {
        const stats = this.passwordHashes?.();
        if (stats === undefined) return;
        g.set({ state: 'running' }, stats.running);
        g.set({ state: 'waiting' }, stats.waiting);
      },
      ['state'],
    );
    // Per namespace, never per lobby: a series per lobby would grow without bound. Only the instance that
    // samples (the reconciler's lease holder) reports them, so a sum across instances counts each once.
    const perNamespace = (name: string, help: string, value: (use: NamespaceLobbyUse) => number) =>
      gauge(
        name,
        help,
        (g) => {
          g.reset();
          for (const use of this.lobbyUse?.() ?? []) g.set({ namespace_id: use.namespaceId }, value(use));
        },
        ['namespace_id'],
      );
    perNamespace(
      'gcm_lobby_cpu_cores',
      "CPU the namespace's running lobbies use, in cores",
      (u) => u.cpuCores,
    );
    perNamespace(
      'gcm_lobby_memory_bytes',
      "Memory the namespace's running lobbies use (without reclaimable page cache)",
      (u) => u.memoryBytes,
    );
    perNamespace(
      'gcm_lobby_network_receive_bytes',
      "Network bytes the namespace's running lobbies received since each started",
      (u) => u.rxBytes,
    );
    perNamespace(
      'gcm_lobby_network_transmit_bytes',
      "Network bytes the namespace's running lobbies sent since each started",
      (u) => u.txBytes,
    );
    gauge(
      'gcm_lobbies',
      'Lobbies the runtime runs, per namespace and state (starting, ready, stopping)',
      (g) => {
        g.reset();
        for (const use of this.lobbyUse?.() ?? []) {
          for (const [state, n] of Object.entries(use.lobbies)) {
            g.set({ namespace_id: use.namespaceId, state }, n);
          }
        }
      },
      ['namespace_id', 'state'],
    );
    this.jobRuns = new Counter({
      name: 'gcm_background_job_runs_total',
      help: 'Passes of each background job this instance ran (on PostgreSQL: while it held the job)',
      labelNames: ['job'],
      registers,
    });
    this.jobFailures = new Counter({
      name: 'gcm_background_job_failures_total',
      help: 'Passes of each background job that failed (each is logged with the error)',
      labelNames: ['job'],
      registers,
    });
    this.jobLastSuccess = new Gauge({
      name: 'gcm_background_job_last_success_timestamp_seconds',
      help: 'When each background job last finished a pass without error (Unix time; 0: not yet)',
      labelNames: ['job'],
      registers,
    });
    this.uploadBytes = new Counter({
      name: 'gcm_upload_bytes_total',
      help: 'Bytes of upload parts stored through the embedded store’s signed PUT URLs',
      registers,
    });
    this.refusals = new Counter({
      name: 'gcm_rate_limit_refusals_total',
      help: 'Requests refused with 429 by a per-address limit, by limit',
      labelNames: ['limit'],
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'gcm_webhook_attempts_total',
      help: 'Webhook delivery attempts by result: delivered (2xx), retry (will be tried again), failed (given up)',
      labelNames: ['result'],
      registers,
    });
    for (const result of ['delivered', 'retry', 'failed']) this.webhookAttempts.inc({ result }, 0);
    // Every limit's series from the start, so a rate() over it is defined before the first refusal.
    for (const limit of Object.values(LIMIT_LABELS)) this.refusals.inc({ limit }, 0);
  }

  /** Where the gauges read the store's connections and the watchers from, at each scrape. */
  watch(sources: { connections: () => ConnectionStats; watchers: () => number }): void {
    this.connections = sources.connections;
    this.watchers = sources.watchers;
  }

  /** One answered request; `route` is the route's pattern (never the raw path) or UNMATCHED_ROUTE. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe({ method, route, status }, seconds);
  }

  observeQuery(operation: QueryOperation, seconds: number): void {
    this.queries.observe({ operation }, seconds);
  }

  /** A background job known from the start: its series exist at 0 before its first pass. */
  addJob(job: string): void {
    this.jobRuns.inc({ job }, 0);
    this.jobFailures.inc({ job }, 0);
    this.jobLastSuccess.set({ job }, 0);
  }

  /** Where gcm_password_hashes is read from when scraped. */
  watchPasswordHashes(read: () => { running: number; waiting: number }): void {
    this.passwordHashes = read;
  }

  /** Where the per-namespace lobby gauges are read from when scraped (the runtime's stats sampler). */
  watchLobbies(read: () => readonly NamespaceLobbyUse[]): void {
    this.lobbyUse = read;
  }

  jobPassed(job: string, failed: boolean): void {
    this.jobRuns.inc({ job });
    if (failed) this.jobFailures.inc({ job });
    else this.jobLastSuccess.set({ job }, Date.now() / 1000);
  }

  uploadStored(bytes: number): void {
    this.uploadBytes.inc(bytes);
  }

  rateLimited(limit: LimitName): void {
    this.refusals.inc({ limit: LIMIT_LABELS[limit] });
  }

  webhookAttempted(result: 'delivered' | 'retry' | 'failed'): void {
    this.webhookAttempts.inc({ result });
  }

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  /** The text exposition of this service's series and the process's. */
  render(): Promise<string> {
    return Registry.merge([this.registry, processMetrics()]).metrics();
  }
}
