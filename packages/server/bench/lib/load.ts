import autocannon from 'autocannon';

export interface LoadOptions {
  /** What the table calls this row. */
  target: string;
  /** Several URLs (instances of one service): the connections are dealt out among them in turn. */
  url: string | readonly string[];
  headers?: Record<string, string>;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: string;
  /** Requests each connection sends in turn (see autocannon's `requests`), instead of one fixed request. */
  requests?: autocannon.Request[];
  connections: number;
  pipelining: number;
  durationSec: number;
  /** Seconds of load whose figures are thrown away before the measured run; 0 for none. */
  warmupSec: number;
}

export interface LoadResult {
  target: string;
  /** Mean of the per-second request counts, as autocannon reports it. */
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  totalRequests: number;
  /** Socket errors and timeouts (a timeout counts in both), in the warm-up and the measured run. */
  errors: number;
  timeouts: number;
  /** Responses with a status other than 2xx, in the warm-up and the measured run. */
  non2xx: number;
  statusCodes: Record<string, number>;
}

const active = new Set<autocannon.Instance>();
let aborted = false;

/** Stops every load in progress and refuses new ones (SIGINT): a scenario then fails instead of going on. */
export function abortLoads(): void {
  aborted = true;
  for (const instance of active) instance.stop();
}

function runOnce(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    if (aborted) {
      reject(new Error('the benchmark was interrupted'));
      return;
    }
    const instance = autocannon(options, (err, result) => {
      active.delete(instance);
      if (aborted) reject(new Error('the benchmark was interrupted'));
      else if (err !== null) reject(err);
      else resolve(result);
    });
    active.add(instance);
  });
}

function statusCounts(result: autocannon.Result, into: Record<string, number>): void {
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) {
    into[code] = (into[code] ?? 0) + count;
  }
}

/** A warm-up, then the measured run, against one URL with autocannon. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const base: autocannon.Options = {
    url: typeof options.url === 'string' ? options.url : [...options.url],
    method: options.method ?? 'GET',
    connections: options.connections,
    pipelining: options.pipelining,
    title: options.target,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.requests === undefined ? {} : { requests: options.requests }),
  };
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let timeouts = 0;
  let non2xx = 0;
  if (options.warmupSec > 0) {
    const warmup = await runOnce({ ...base, duration: options.warmupSec });
    errors += warmup.errors;
    timeouts += warmup.timeouts;
    non2xx += warmup.non2xx;
    statusCounts(warmup, statusCodes);
  }
  const result = await runOnce({ ...base, duration: options.durationSec });
  statusCounts(result, statusCodes);
  return {
    target: options.target,
    requestsPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    totalRequests: result.requests.total,
    errors: errors + result.errors,
    timeouts: timeouts + result.timeouts,
    non2xx: non2xx + result.non2xx,
    statusCodes,
  };
}
