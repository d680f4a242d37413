import type { Insertable } from 'kysely';
import type { LobbyResourceSamplesTable } from '../../db/database.js';
import type { Deps } from '../../deps.js';
import type { NamespaceLobbyUse } from '../../lib/metrics.js';
import { PeriodicTask } from '../../lib/periodic-task.js';
import { Slots } from '../../lib/slots.js';
import type { LobbyStats, RuntimeDriver } from '../../runtime/driver.js';
import * as samples from './lobby-resources.repository.js';
import * as repo from './runtime.repository.js';

type Log = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void;

/** Stats calls at once: the engine answers each after reading the cgroup twice, about a second apart. */
const STATS_CONCURRENCY = 8;
/** Samples a lobby's history keeps (a day at one a minute): the oldest beyond go. */
export const HISTORY_MAX = 1_440;

type SampleRow = Insertable<LobbyResourceSamplesTable>;

interface Held {
  namespaceId: string;
  handle: string;
  row: SampleRow;
  /** The engine's cumulative CPU time and when it was read: the next sample's rate is counted from them. */
  cpuUsageNs: number | undefined;
  readMs: number | undefined;
  /** The history interval this lobby last wrote a history row for. */
  historyTs: number | undefined;
}

/** One namespace's lobbies as the last pass saw them: what Prometheus is told. */
type NamespaceUse = NamespaceLobbyUse;

/**
 * Reads each live lobby's CPU, memory and network use from the engine every GCM_LOBBY_STATS_INTERVAL
 * (docs/runtime.md "Resource use"): the latest sample per lobby is held here (the live view, Prometheus)
 * and written to the store in one statement per pass (another instance, a restart), and one sample per
 * GCM_LOBBY_STATS_HISTORY_INTERVAL joins the lobby's history. Runs with the reconciler, only while this
 * instance holds its lease; passes run one at a time, and a tick while one is running is skipped, so a
 * slow engine never piles calls up.
 */
export class ResourceSampler {
  private readonly held = new Map<string, Held>();
  private usage: NamespaceUse[] = [];
  private running: Promise<void> | undefined;
  private readonly task: PeriodicTask;
  private closed = false;

  constructor(
    private readonly deps: Deps,
    private readonly driver: RuntimeDriver,
    private readonly options: { lease: () => Promise<boolean>; log: Log },
  ) {
    this.task = new PeriodicTask(
      () => this.pass(),
      (err) => options.log('error', { err }, 'a lobby stats pass failed'),
    );
  }

  start(): void {
    this.task.start(this.deps.config.runtime.statsIntervalMs);
  }

  async stop(): Promise<void> {
    this.closed = true;
    await this.task.stop();
    await this.running;
  }

  /** A pass now, or the one already running. */
  pass(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.runPass().finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  /** The latest sample this instance took of the lobby, while it runs. */
  latest(namespaceId: string, lobbyId: string): SampleRow | undefined {
    const held = this.held.get(lobbyId);
    return held?.namespaceId === namespaceId ? held.row : undefined;
  }

  /** Per namespace, the last pass's sums and lobby counts; none while another instance samples. */
  namespaceUse(): readonly NamespaceUse[] {
    return this.usage;
  }

  private async runPass(): Promise<void> {
    if (this.closed) return;
    if (!(await this.options.lease())) {
      // Another instance samples (and reports): what this one holds would go stale.
      this.held.clear();
      this.usage = [];
      return;
    }
    const { db, clock } = this.deps;
    const rows = await repo.liveLobbies(db);
    const slots = new Slots(STATS_CONCURRENCY);
    let failures = 0;
    let firstError: unknown;
    const read = await Promise.all(
      rows.map((row) =>
        slots.run(async () => {
          const handle = row.runtime_handle;
          if (handle === null || this.closed) return undefined;
          try {
            const stats = await this.driver.stats(row.region_id, handle);
            return stats === undefined ? undefined : { row, handle, stats, ts: clock.now() };
          } catch (err) {
            failures++;
            firstError ??= err;
            return undefined;
          }
        }),
      ),
    );
    if (failures > 0) {
      this.options.log(
        'warn',
        { err: firstError, failures },
        "reading lobbies' stats from the engine failed",
      );
    }
    const historyInterval = this.deps.config.runtime.statsHistoryIntervalMs;
    const live = new Set(rows.map((r) => r.lobby_id));
    for (const lobbyId of [...this.held.keys()]) if (!live.has(lobbyId)) this.held.delete(lobbyId);
    const latest: SampleRow[] = [];
    const history: SampleRow[] = [];
    let historyTs = 0;
    for (const sample of read) {
      if (sample === undefined) continue;
      const { row, handle, stats, ts } = sample;
      const before = this.held.get(row.lobby_id);
      const cores = cpuCores(before?.handle === handle ? before : undefined, stats);
      const out: SampleRow = {
        namespace_id: row.namespace_id,
        lobby_id: row.lobby_id,
        ts,
        cpu_millicores: Math.round(cores * 1000),
        memory_bytes: stats.memoryBytes,
        memory_limit_bytes: stats.memoryLimitBytes,
        rx_bytes: stats.rxBytes,
        tx_bytes: stats.txBytes,
      };
      latest.push(out);
      historyTs = Math.floor(ts / historyInterval) * historyInterval;
      const due = before?.historyTs !== historyTs;
      if (due) history.push({ ...out, ts: historyTs });
      this.held.set(row.lobby_id, {
        namespaceId: row.namespace_id,
        handle,
        row: out,
        cpuUsageNs: stats.cpuUsageNs,
        readMs: stats.readMs,
        historyTs: due ? historyTs : before?.historyTs,
      });
    }
    this.usage = usageOf(rows, latest);
    if (latest.length > 0) await samples.upsertLatest(db, latest);
    if (history.length > 0) {
      await samples.addHistory(db, history, historyTs - (HISTORY_MAX - 1) * historyInterval);
    }
  }
}

/**
 * Cores in use: over the whole time since the lobby's previous sample when the engine tells its cumulative
 * CPU time (a burst between two samples counts), else the engine's own figure over its two reads.
 */
function cpuCores(before: Pick<Held, 'cpuUsageNs' | 'readMs'> | undefined, stats: LobbyStats): number {
  if (
    before?.cpuUsageNs !== undefined &&
    before.readMs !== undefined &&
    stats.cpuUsageNs !== undefined &&
    stats.readMs !== undefined &&
    stats.readMs > before.readMs &&
    stats.cpuUsageNs >= before.cpuUsageNs
  ) {
    return (stats.cpuUsageNs - before.cpuUsageNs) / ((stats.readMs - before.readMs) * 1e6);
  }
  return Math.max(0, stats.nanoCpus) / 1e9;
}

function usageOf(rows: readonly repo.LobbyRow[], latest: readonly SampleRow[]): NamespaceUse[] {
  const byNamespace = new Map<string, NamespaceUse>();
  const of = (namespaceId: string) => {
    let use = byNamespace.get(namespaceId);
    if (use === undefined) {
      use = {
        namespaceId,
        cpuCores: 0,
        memoryBytes: 0,
        rxBytes: 0,
        txBytes: 0,
        lobbies: { starting: 0, ready: 0, stopping: 0 },
      };
      byNamespace.set(namespaceId, use);
    }
    return use;
  };
  for (const row of rows) {
    const state = row.run_state;
    if (state === 'starting' || state === 'ready' || state === 'stopping')
      of(row.namespace_id).lobbies[state]++;
  }
  for (const sample of latest) {
    const use = of(sample.namespace_id);
    use.cpuCores += sample.cpu_millicores / 1000;
    use.memoryBytes += sample.memory_bytes;
    use.rxBytes += sample.rx_bytes;
    use.txBytes += sample.tx_bytes;
  }
  return [...byNamespace.values()];
}
