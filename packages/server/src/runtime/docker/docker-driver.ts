import { setTimeout as sleep } from 'node:timers/promises';
import {
  type EngineDisk,
  type ImageArchive,
  ImageBudgetError,
  type ImageCollection,
  LOBBY_LABELS,
  type LobbyLabels,
  type LobbySpec,
  type LobbyStats,
  type OutputLine,
  type RunningLobby,
  type RuntimeDriver,
  type RuntimeEvent,
  type RuntimeHost,
  type RuntimeNode,
  type Subscription,
} from '../driver.js';
import { OutputFollowers } from '../output-followers.js';
import { DockerEngine, DockerEngineError, type DockerTls, jsonLines } from './engine.js';
import { collectOn, engineDisk, loadClaimed, OVER_BUDGET_PROBLEM, serially } from './image-gc.js';
import { inspectImage } from './image-load.js';
import { readEngineLog } from './log-frames.js';

/** One engine and the regions whose lobbies run on it. */
export interface DockerHostConfig {
  /** DOCKER_HOST of the engine: unix:///path or tcp://host:port. Also the host's id. */
  dockerHost: string;
  regions: readonly string[];
  /** Lobbies the host takes at most (the reconciler counts them). */
  capacity: number;
}

export interface DockerDriverOptions {
  hosts: readonly DockerHostConfig[];
  /** DOCKER_TLS_VERIFY / DOCKER_CERT_PATH (`dockerTlsFromEnv`), for tcp:// hosts. */
  tls?: DockerTls;
  /** The size each container's engine-side log (the `local` driver) may reach before the engine rotates it (one older file kept). */
  logMaxSize?: string;
  /** The tmpfs a read-only container gets at /tmp (it counts against the container's memory). */
  tmpSize?: string;
  /** Told when a host's event stream drops or cannot be opened (it is retried): for the service's log. */
  onWarning?: (message: string) => void;
  /**
   * This service's owner label value (runtime.service.ts ownerOf): the images it loads are tagged as its,
   * which is all the image collector ever removes. Unset: `default`.
   */
  owner?: string;
  /** GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES: bytes of this service's build images one engine may hold. */
  imageDiskBudgetBytes?: number;
  /** GCM_BUILD_MAX_UNPACKED_BYTES: the most a build archive may unpack to. */
  maxUnpackedBytes?: number;
}

/**
 * Groups a region → DOCKER_HOST map (GCM_RUNTIME_HOSTS) into hosts: regions on one engine share it and its
 * capacity.
 */
export function dockerHostsFromRegions(
  regionHosts: Readonly<Record<string, string>>,
  capacity: number,
): DockerHostConfig[] {
  const byHost = new Map<string, string[]>();
  for (const [region, dockerHost] of Object.entries(regionHosts)) {
    byHost.set(dockerHost, [...(byHost.get(dockerHost) ?? []), region]);
  }
  return [...byHost].map(([dockerHost, regions]) => ({ dockerHost, regions, capacity }));
}

/** Attributes of a container event that are not the container's labels. */
const EVENT_NOT_LABELS = new Set(['name', 'image', 'exitCode', 'signal', 'execDuration']);
const EVENT_BACKOFF_MS = { first: 250, max: 10_000 };
/** What a stop may take beyond its grace period before the call gives up: the engine's own kill and reap. */
const STOP_SLACK_MS = 30_000;

interface ContainerSummary {
  Id: string;
  Labels?: Record<string, string> | null;
  State?: string;
  Status?: string;
}

interface ContainerInspect {
  Id: string;
  Config?: { Labels?: Record<string, string> | null };
  State?: { Status?: string; Running?: boolean; ExitCode?: number; OOMKilled?: boolean };
}

interface EngineEvent {
  Type?: string;
  Action?: string;
  time?: number;
  timeNano?: number;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
}

interface EngineInfo {
  Name?: string;
  NCPU?: number;
  MemTotal?: number;
  ServerVersion?: string;
}

export interface StatsSample {
  read?: string;
  preread?: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number } };
  precpu_stats?: { cpu_usage?: { total_usage?: number } };
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number }>;
}

interface Host extends RuntimeHost {
  engine: DockerEngine;
  /** The engine has its bridge network (checked once, at the first bridge-mode start). */
  bridgeChecked: boolean;
  /** The last load refused for the image budget said this; a collection that frees enough clears it. */
  budgetProblem?: string;
}

/** The `docker` driver: each region's lobbies are containers on one Docker engine, reached over its API. */
export class DockerDriver implements RuntimeDriver {
  readonly kind = 'docker' as const;
  private readonly hostList: Host[];
  private readonly byRegion = new Map<string, Host>();
  /** host id + archive sha256 → the loaded image id (or the load under way, which concurrent starts share). */
  private readonly images = new Map<string, Promise<{ image: string }>>();
  private readonly subscriptions = new Set<Subscription>();
  /** The output followers reading each lobby now: a stop removes the container once they have read all. */
  private readonly followers = new OutputFollowers();
  private readonly logMaxSize: string;
  private readonly tmpSize: string;
  private readonly warn: (message: string) => void;
  private readonly owner: string;
  private readonly budgetBytes: number | undefined;
  /** host id + archive sha256 → when a start last asked for its image: the collector leaves it that long. */
  private readonly lastEnsured = new Map<string, number>();

  constructor(private readonly options: DockerDriverOptions) {
    this.warn = options.onWarning ?? (() => {});
    this.owner = options.owner ?? 'default';
    this.budgetBytes = options.imageDiskBudgetBytes;
    this.logMaxSize = options.logMaxSize ?? '10m';
    this.tmpSize = options.tmpSize ?? '64m';
    this.hostList = options.hosts.map((host) => ({
      id: host.dockerHost,
      regions: [...host.regions],
      capacity: host.capacity,
      engine: new DockerEngine(host.dockerHost, options.tls),
      bridgeChecked: false,
    }));
    for (const host of this.hostList) {
      for (const region of host.regions) {
        const other = this.byRegion.get(region);
        if (other !== undefined) {
          throw new Error(`region ${region} is on two Docker hosts: ${other.id} and ${host.id}`);
        }
        this.byRegion.set(region, host);
      }
    }
  }

  hosts(): readonly RuntimeHost[] {
    return this.hostList.map(({ id, regions, capacity, budgetProblem }) => ({
      id,
      regions,
      capacity,
      ...(budgetProblem === undefined ? {} : { problem: budgetProblem }),
    }));
  }

  /** Each engine as a node: what its /info says, and how many of the lobbies carrying `labels` run there. */
  async nodes(labels: LobbyLabels): Promise<RuntimeNode[]> {
    return Promise.all(
      this.hostList.map(async (host): Promise<RuntimeNode> => {
        const base = {
          id: host.id,
          address: host.id,
          regions: [...host.regions],
          role: 'engine' as const,
          availability: 'active' as const,
          capacity: host.capacity,
        };
        try {
          const [info, lobbies, disk] = await Promise.all([
            host.engine.json<EngineInfo>({ method: 'GET', path: '/info', idleTimeoutMs: 10_000 }),
            this.listOn(host, labels),
            // The figure is the view's, not a condition of it: an engine slow to sum its disk is still ready.
            engineDisk(host.engine, this.owner, this.budgetBytes).catch(
              (): EngineDisk | undefined => undefined,
            ),
          ]);
          const running = lobbies.filter((lobby) => lobby.state === 'running');
          const lobbiesByRegion: Record<string, number> = Object.fromEntries(host.regions.map((r) => [r, 0]));
          for (const lobby of running)
            lobbiesByRegion[lobby.region] = (lobbiesByRegion[lobby.region] ?? 0) + 1;
          return {
            ...base,
            name: info?.Name ?? host.id,
            state: 'ready',
            nanoCpus: (info?.NCPU ?? 0) * 1e9,
            memoryBytes: info?.MemTotal ?? 0,
            lobbies: running.length,
            lobbiesByRegion,
            ...(info?.ServerVersion === undefined ? {} : { engineVersion: info.ServerVersion }),
            ...(disk === undefined ? {} : { disk }),
          };
        } catch (err) {
          return {
            ...base,
            name: host.id,
            state: 'down',
            nanoCpus: 0,
            memoryBytes: 0,
            lobbies: 0,
            message: (err as Error).message,
          };
        }
      }),
    );
  }

  /** Whether every host's engine answers; throws naming the first that does not. */
  async ping(): Promise<void> {
    await Promise.all(this.hostList.map((host) => host.engine.ping()));
  }

  async ensureImage(region: string, archive: ImageArchive): Promise<{ image: string }> {
    const host = this.hostFor(region);
    const key = `${host.id}\n${archive.sha256.toLowerCase()}`;
    this.lastEnsured.set(key, Date.now());
    const known = this.images.get(key);
    if (known !== undefined) {
      // A load under way is shared, its failure too.
      const answer = await known;
      // Someone may have pruned it on the engine since: then it is loaded again.
      if (await this.imageExists(host, answer.image)) return answer;
      if (this.images.get(key) === known) this.images.delete(key);
    }
    const loading = this.loadOnce(host, archive);
    this.images.set(key, loading);
    loading.catch(() => {
      if (this.images.get(key) === loading) this.images.delete(key);
    });
    return loading;
  }

  async start(spec: LobbySpec, onCreated?: (handle: string) => Promise<void>): Promise<{ handle: string }> {
    const host = this.hostFor(spec.region);
    if (spec.networkMode === 'bridge') await this.checkBridge(host);
    const name = `gcm-${spec.lobbyId}`;
    const created = await host.engine
      .json<{ Id: string }>({
        method: 'POST',
        path: '/containers/create',
        query: { name },
        body: this.containerBody(spec),
      })
      .catch(async (err: unknown) => {
        // A start that was cut short after the create (the service stopped, the answer was lost): the container
        // is this lobby's, so starting it again is taking up that attempt.
        if (!(err instanceof DockerEngineError) || err.status !== 409) throw err;
        const existing = await this.inspect(host, name);
        if (
          existing === undefined ||
          existing.Config?.Labels?.[LOBBY_LABELS.lobby] !== spec.labels[LOBBY_LABELS.lobby]
        ) {
          throw err;
        }
        return { Id: existing.Id };
      });
    const id = created?.Id;
    if (id === undefined)
      throw new DockerEngineError(`POST /containers/create on ${host.id}: no container id`);
    try {
      await onCreated?.(id);
      await host.engine.json({ method: 'POST', path: `/containers/${id}/start` });
    } catch (err) {
      // Nothing may stay behind a failed start (or a handle that could not be recorded): a container that is
      // not running holds the lobby's name.
      await host.engine
        .json({ method: 'DELETE', path: `/containers/${id}`, query: { force: true } }, [404, 409])
        .catch(() => undefined);
      throw err;
    }
    return { handle: id };
  }

  async stop(region: string, handle: string, graceSeconds: number): Promise<void> {
    const host = this.hostFor(region);
    const grace = Math.max(0, Math.ceil(graceSeconds));
    // 304: it had stopped already; 404: it is gone.
    await host.engine.json(
      {
        method: 'POST',
        path: `/containers/${encodeURIComponent(handle)}/stop`,
        query: { t: grace },
        idleTimeoutMs: grace * 1000 + STOP_SLACK_MS,
      },
      [404],
    );
    // Removing the container ends its log stream wherever the reader is: what it printed last (on its
    // SIGTERM, say) would never be read. Its followers reach the end of the log on their own once it exited.
    await this.followers.drained(handle);
    // 409: another call is removing it already.
    await host.engine.json(
      { method: 'DELETE', path: `/containers/${encodeURIComponent(handle)}`, query: { force: true } },
      [404, 409],
    );
  }

  async list(labels: LobbyLabels): Promise<RunningLobby[]> {
    const perHost = await Promise.all(this.hostList.map((host) => this.listOn(host, labels)));
    return perHost.flat();
  }

  events(labels: LobbyLabels, onEvent: (event: RuntimeEvent) => void): Subscription {
    const controller = new AbortController();
    const subscription: Subscription = {
      close: () => {
        controller.abort();
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    for (const host of this.hostList) void this.followEvents(host, labels, onEvent, controller.signal);
    return subscription;
  }

  output(
    region: string,
    handle: string,
    options: { follow: boolean; sinceMs?: number; signal?: AbortSignal },
  ): AsyncIterable<OutputLine[]> {
    return this.followers.track(handle, options.follow, this.readLog(region, handle, options));
  }

  private readLog(
    region: string,
    handle: string,
    options: { follow: boolean; sinceMs?: number; signal?: AbortSignal },
  ): AsyncIterable<OutputLine[]> {
    const host = this.hostFor(region);
    return readEngineLog(host.engine, `/containers/${encodeURIComponent(handle)}/logs`, options);
  }

  async stats(region: string, handle: string): Promise<LobbyStats | undefined> {
    const host = this.hostFor(region);
    const sample = await host.engine.json<StatsSample>(
      { method: 'GET', path: `/containers/${encodeURIComponent(handle)}/stats`, query: { stream: false } },
      [404, 409],
    );
    return sample === undefined ? undefined : toStats(sample);
  }

  async collectImages(keep: ReadonlySet<string>, options: { graceMs: number }): Promise<ImageCollection[]> {
    const since = Date.now() - options.graceMs;
    return Promise.all(
      this.hostList.map(async (host): Promise<ImageCollection> => {
        const recent = (sha: string) => (this.lastEnsured.get(`${host.id}\n${sha}`) ?? 0) >= since;
        try {
          const done = await serially(host.engine, () =>
            collectOn(host.engine, this.owner, (sha) => keep.has(sha) || recent(sha)),
          );
          // Found again by a later start: ensureImage checks the image is still there, else loads it.
          for (const sha of done.dropped) this.images.delete(`${host.id}\n${sha}`);
          if (host.budgetProblem !== undefined) {
            const disk = await engineDisk(host.engine, this.owner, this.budgetBytes);
            if (disk.serviceImagesBytes < (this.budgetBytes ?? Number.POSITIVE_INFINITY)) {
              host.budgetProblem = undefined;
            }
          }
          return { hostId: host.id, removed: done.removed, freedBytes: done.freedBytes, kept: done.kept };
        } catch (err) {
          return { hostId: host.id, removed: 0, freedBytes: 0, kept: 0, problem: (err as Error).message };
        }
      }),
    );
  }

  async close(): Promise<void> {
    for (const subscription of [...this.subscriptions]) subscription.close();
    for (const host of this.hostList) host.engine.close();
  }

  private hostFor(region: string): Host {
    const host = this.byRegion.get(region);
    if (host === undefined) throw new Error(`no Docker host runs region ${region}`);
    return host;
  }

  /**
   * An engine without its bridge network (dockerd --bridge=none) still starts a bridge-mode container, with no
   * network and none of its ports published: a lobby no player could reach. Refused before it starts.
   */
  private async checkBridge(host: Host): Promise<void> {
    if (host.bridgeChecked) return;
    const bridge = await host.engine.json({ method: 'GET', path: '/networks/bridge' }, [404]);
    if (bridge === undefined) {
      throw new DockerEngineError(
        `the Docker engine at ${host.id} has no bridge network (dockerd runs with --bridge=none?): a bridge-mode lobby would have no reachable port there; use network_mode host, or give the engine its bridge`,
      );
    }
    host.bridgeChecked = true;
  }

  private async loadOnce(host: Host, archive: ImageArchive): Promise<{ image: string }> {
    try {
      const image = await loadClaimed(host.engine, archive, {
        owner: this.owner,
        budgetBytes: this.budgetBytes,
        load:
          this.options.maxUnpackedBytes === undefined
            ? {}
            : { maxUnpackedBytes: this.options.maxUnpackedBytes },
      });
      return { image };
    } catch (err) {
      // The studio's rollout shows a host's problem: a full host says so until a collection frees it.
      if (err instanceof ImageBudgetError) host.budgetProblem = OVER_BUDGET_PROBLEM;
      throw err;
    }
  }

  private async imageExists(host: Host, id: string): Promise<boolean> {
    return (await inspectImage(host.engine, id)) !== undefined;
  }

  private inspect(host: Host, idOrName: string): Promise<ContainerInspect | undefined> {
    return host.engine.json<ContainerInspect>(
      { method: 'GET', path: `/containers/${encodeURIComponent(idOrName)}/json` },
      [404],
    );
  }

  private containerBody(spec: LobbySpec): Record<string, unknown> {
    const labels: Record<string, string> = { [LOBBY_LABELS.region]: spec.region, ...spec.labels };
    const bridge = spec.networkMode === 'bridge';
    const exposed: Record<string, object> = {};
    const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
    if (bridge) {
      for (const port of spec.ports) {
        const key = `${port.containerPort}/${port.protocol}`;
        exposed[key] = {};
        // Every address of the host, as players reach it from outside.
        bindings[key] = [{ HostIp: '', HostPort: String(port.hostPort) }];
      }
    }
    return {
      Image: spec.image,
      // Empty args keep the image's own CMD.
      Cmd: spec.args.length > 0 ? [...spec.args] : undefined,
      Env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
      Labels: labels,
      ExposedPorts: bridge ? exposed : undefined,
      HostConfig: {
        NetworkMode: spec.networkMode,
        PortBindings: bridge ? bindings : undefined,
        NanoCpus: spec.limits.nanoCpus,
        Memory: spec.limits.memoryBytes,
        // Equal to Memory: no swap on top of the tier's memory.
        MemorySwap: spec.limits.memoryBytes,
        PidsLimit: spec.limits.pids,
        ReadonlyRootfs: spec.readOnlyRootFs,
        // A server on a read-only root may still write temporary files; the tmpfs counts against its memory.
        Tmpfs: spec.readOnlyRootFs ? { '/tmp': `rw,nosuid,nodev,size=${this.tmpSize}` } : undefined,
        SecurityOpt: ['no-new-privileges'],
        CapDrop: ['ALL'],
        Privileged: false,
        Binds: [],
        RestartPolicy: { Name: 'no' },
        // A chatty server cannot fill the host's disk: the engine keeps at most two files of this size.
        // `local`, not json-file: it keeps a line's bytes as printed (JSON would turn bytes that are not UTF-8
        // into U+FFFD), compressed, in files the engine rotates.
        LogConfig: { Type: 'local', Config: { 'max-size': this.logMaxSize, 'max-file': '2' } },
      },
    };
  }

  private async listOn(host: Host, labels: LobbyLabels): Promise<RunningLobby[]> {
    const containers =
      (await host.engine.json<ContainerSummary[]>({
        method: 'GET',
        path: '/containers/json',
        query: { all: true, filters: JSON.stringify({ label: labelFilter(labels) }) },
      })) ?? [];
    const lobbies = await Promise.all(
      containers.map(async (container): Promise<RunningLobby | undefined> => {
        const own = container.Labels ?? {};
        const region = own[LOBBY_LABELS.region] ?? (host.regions[0] as string);
        if (
          container.State === 'running' ||
          container.State === 'created' ||
          container.State === 'restarting'
        ) {
          return { handle: container.Id, region, labels: own, state: 'running' };
        }
        if (container.State === 'removing') return undefined;
        // The list says "Exited (3) 5 seconds ago" at best; an inspect says the code and whether memory ran out.
        const inspected = await this.inspect(host, container.Id);
        if (inspected === undefined) return undefined;
        if (inspected.State?.Running === true)
          return { handle: container.Id, region, labels: own, state: 'running' };
        return {
          handle: container.Id,
          region,
          labels: own,
          state: 'exited',
          exitCode: inspected.State?.ExitCode ?? -1,
          oomKilled: inspected.State?.OOMKilled === true,
        };
      }),
    );
    return lobbies.filter((lobby) => lobby !== undefined);
  }

  /**
   * Follows one engine's container events until `signal` aborts, reconnecting with backoff and asking for
   * what happened since the last event seen (the engine keeps recent events), so a short drop loses nothing.
   */
  private async followEvents(
    host: Host,
    labels: LobbyLabels,
    onEvent: (event: RuntimeEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let backoff = EVENT_BACKOFF_MS.first;
    let lastNano: number | undefined;
    const seenAtLast = new Set<string>();
    const oomKilled = new Set<string>();
    while (!signal.aborted) {
      try {
        const filters = {
          type: ['container'],
          event: ['start', 'die', 'oom', 'destroy'],
          label: labelFilter(labels),
        };
        const response = await host.engine.open({
          method: 'GET',
          path: '/events',
          query: {
            filters: JSON.stringify(filters),
            since: lastNano === undefined ? undefined : (lastNano / 1e9).toFixed(9),
          },
          follow: true,
          signal,
        });
        backoff = EVENT_BACKOFF_MS.first;
        for await (const raw of jsonLines(response)) {
          const event = raw as EngineEvent;
          const id = event.Actor?.ID;
          if (id === undefined || event.Type !== 'container') continue;
          const nano = event.timeNano ?? (event.time ?? 0) * 1e9;
          const key = `${id} ${event.Action}`;
          // `since` repeats the events of the last instant seen.
          if (lastNano !== undefined && (nano < lastNano || (nano === lastNano && seenAtLast.has(key))))
            continue;
          if (nano !== lastNano) seenAtLast.clear();
          lastNano = nano;
          seenAtLast.add(key);
          const converted = await this.toRuntimeEvent(host, event, id, oomKilled);
          if (converted !== undefined && !signal.aborted) onEvent(converted);
        }
        if (!signal.aborted)
          this.warn(`the event stream of the Docker engine at ${host.id} ended; reconnecting`);
      } catch (err) {
        if (!signal.aborted) {
          this.warn(
            `the event stream of the Docker engine at ${host.id} failed: ${(err as Error).message}; retrying in ${backoff} ms`,
          );
        }
      }
      if (signal.aborted) return;
      await sleep(backoff, undefined, { signal }).catch(() => undefined);
      backoff = Math.min(backoff * 2, EVENT_BACKOFF_MS.max);
    }
  }

  private async toRuntimeEvent(
    host: Host,
    event: EngineEvent,
    id: string,
    oomKilled: Set<string>,
  ): Promise<RuntimeEvent | undefined> {
    const attributes = event.Actor?.Attributes ?? {};
    const labels = Object.fromEntries(
      Object.entries(attributes).filter(([key]) => !EVENT_NOT_LABELS.has(key)),
    );
    const region = labels[LOBBY_LABELS.region] ?? (host.regions[0] as string);
    switch (event.Action) {
      case 'start':
        return { type: 'started', handle: id, region, labels };
      case 'oom':
        oomKilled.add(id);
        return undefined;
      case 'die': {
        const exitCode = Number(attributes.exitCode ?? -1);
        let oom = oomKilled.has(id);
        if (!oom) {
          const inspected = await this.inspect(host, id).catch(() => undefined);
          oom = inspected?.State?.OOMKilled === true;
        }
        return { type: 'exited', handle: id, region, labels, exitCode, oomKilled: oom };
      }
      case 'destroy':
        oomKilled.delete(id);
        return { type: 'gone', handle: id, region, labels, reason: 'removed' };
      default:
        return undefined;
    }
  }
}

function labelFilter(labels: LobbyLabels): string[] {
  return Object.entries(labels).map(([key, value]) => `${key}=${value}`);
}

/** A stats answer of the engine as a LobbyStats (the swarm driver reads its nodes' engines alike). */
export function toStats(sample: StatsSample): LobbyStats | undefined {
  const memory = sample.memory_stats;
  if (memory?.usage === undefined) return undefined;
  const cpu = sample.cpu_stats?.cpu_usage?.total_usage ?? 0;
  const previousCpu = sample.precpu_stats?.cpu_usage?.total_usage ?? 0;
  const wallMs = Date.parse(sample.read ?? '') - Date.parse(sample.preread ?? '');
  const nanoCpus =
    previousCpu > 0 && Number.isFinite(wallMs) && wallMs > 0
      ? Math.round(((cpu - previousCpu) / (wallMs * 1e6)) * 1e9)
      : 0;
  // What docker stats shows: the page cache the kernel can reclaim is not the server's (cgroup v1, then v2).
  const cache = memory.stats?.total_inactive_file ?? memory.stats?.inactive_file ?? 0;
  let rxBytes = 0;
  let txBytes = 0;
  for (const network of Object.values(sample.networks ?? {})) {
    rxBytes += network.rx_bytes ?? 0;
    txBytes += network.tx_bytes ?? 0;
  }
  const readMs = Date.parse(sample.read ?? '');
  return {
    nanoCpus,
    cpuUsageNs: cpu,
    ...(Number.isFinite(readMs) ? { readMs } : {}),
    memoryBytes: Math.max(0, memory.usage - cache),
    memoryLimitBytes: memory.limit ?? 0,
    rxBytes,
    txBytes,
  };
}
