import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type StatsSample, toStats } from '../docker/docker-driver.js';
import { DockerEngine, DockerEngineError, type DockerTls, jsonLines } from '../docker/engine.js';
import {
  claimedArchives,
  collectOn,
  engineDisk,
  loadClaimed,
  type RepositoryImage,
  removeRepositoryNames,
  repositoryImages,
  serially,
} from '../docker/image-gc.js';
import { tagImage } from '../docker/image-load.js';
import { readEngineLog } from '../docker/log-frames.js';
import {
  type EngineDisk,
  type ImageArchive,
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
import { RegistryRepository } from './registry-api.js';

/** The node label that says which region a node serves. */
export const REGION_NODE_LABEL = 'gcm.region';
/** A node label with the address players reach the node's lobbies by (else the node's swarm address). */
export const PUBLIC_HOST_NODE_LABEL = 'gcm.public_host';
/** A node label with the DOCKER_HOST of the node's own engine: where a lobby's stats and OOM flag are read. */
export const ENGINE_NODE_LABEL = 'gcm.engine';

export interface RegistryConfig {
  /** host[:port][/path]: builds are pushed as `<address>/gcm-builds:<archive sha256>`. */
  address: string;
  username?: string;
  password?: string;
}

export interface SwarmDriverOptions {
  /** DOCKER_HOST of a manager of the swarm. */
  managerHost: string;
  tls?: DockerTls;
  /** The service's regions (GCM_REGIONS): each is served by the nodes labelled with it. */
  regions: readonly string[];
  /** Lobbies one node takes at most (GCM_RUNTIME_MAX_LOBBIES_PER_HOST). */
  capacityPerNode: number;
  registry: RegistryConfig;
  /** The size each lobby's engine-side log (the `local` driver) may reach before the engine rotates it. */
  logMaxSize?: string;
  /** The tmpfs a read-only lobby gets at /tmp. */
  tmpSize?: string;
  /** How often the tasks' states are read (swarm has no task events): 500 ms unless set. */
  pollMs?: number;
  onWarning?: (message: string) => void;
  /** This service's owner label value: the images it loads into the manager's engine are tagged as its. */
  owner?: string;
  /** GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES: bytes of this service's build images the manager's engine may hold. */
  imageDiskBudgetBytes?: number;
  /** GCM_BUILD_MAX_UNPACKED_BYTES: the most a build archive may unpack to. */
  maxUnpackedBytes?: number;
}

/** The repository, under the registry's address, that builds are pushed to (tag: the archive's sha256). */
const BUILD_REPOSITORY = 'gcm-builds';
/** Added to a lobby's placement to stop it: no node has it, so the stop-first update's new task never runs. */
const STOPPED_CONSTRAINT = 'node.labels.gcm.stopped==true';
const STOP_SLACK_MS = 30_000;
const DEFAULT_GRACE_SECONDS = 10;
const POLL_BACKOFF_MAX_MS = 10_000;
/** A task in one of these will not run again. */
const ENDED_STATES = new Set(['complete', 'shutdown', 'failed', 'rejected', 'remove', 'orphaned']);

interface Service {
  ID: string;
  Version?: { Index?: number };
  CreatedAt?: string;
  Spec: ServiceSpec;
}

interface ServiceSpec {
  Name?: string;
  Labels?: Record<string, string> | null;
  TaskTemplate?: {
    ContainerSpec?: Record<string, unknown>;
    Placement?: { Constraints?: string[] | null };
    ForceUpdate?: number;
  } & Record<string, unknown>;
  Mode?: { Replicated?: { Replicas?: number } };
  UpdateConfig?: Record<string, unknown>;
}

interface Task {
  ID: string;
  ServiceID?: string;
  NodeID?: string;
  CreatedAt?: string;
  DesiredState?: string;
  Status?: {
    State?: string;
    Err?: string;
    ContainerStatus?: { ContainerID?: string; ExitCode?: number };
  };
}

interface SwarmNode {
  ID: string;
  Description?: {
    Hostname?: string;
    Resources?: { NanoCPUs?: number; MemoryBytes?: number };
    Engine?: { EngineVersion?: string };
  };
  Spec?: { Labels?: Record<string, string> | null; Role?: string; Availability?: string };
  Status?: { State?: string; Addr?: string; Message?: string };
  ManagerStatus?: { Addr?: string };
}

/** The registry's builds, as a collection sees them (registryBuilds). */
interface RegistryBuilds {
  /** Manifest digests some build still needs. */
  needed: ReadonlySet<string>;
  /** Manifest digests no build needs → the registry's tags naming them. */
  drop: ReadonlyMap<string, string[]>;
  /** Every digest the registry's tags name. */
  live: ReadonlySet<string>;
  /** Whether a tag names a build that is needed. */
  keptTag(tag: string): boolean;
}

/** What one read of the swarm says of one of our lobbies. */
interface LobbyView {
  service: Service;
  /** The lobby's own task: the first of its service (a stop adds a second that never runs). */
  task: Task | undefined;
  node: SwarmNode | undefined;
  lobby: RunningLobby;
}

/**
 * The `swarm` driver: each lobby is a Swarm service of one task, placed by the swarm on a node whose
 * `gcm.region` label is the lobby's region, within the tier's reservations (docs/runtime.md "On a Docker
 * Swarm"). A `replicated` service of one replica with restart policy none, not a `replicated-job`: Docker
 * 20.10 (Debian's) leaves a removed job's task running (moby/moby#44312), and a job cannot be stopped with
 * its grace period while keeping its exit code. A stop is a stop-first forced update to a placement no node
 * has: the swarm shuts the task down with the grace period it was started with, the task keeps its exit
 * code, and the replacement never runs; then the service is removed.
 *
 * Swarm has no task events, so the driver reads the tasks every `pollMs` and answers their changes as
 * events. Output is the service's log, which the manager gathers from the node.
 */
export class SwarmDriver implements RuntimeDriver {
  readonly kind = 'swarm' as const;
  private readonly manager: DockerEngine;
  private readonly options: SwarmDriverOptions;
  private readonly pollMs: number;
  private readonly warn: (message: string) => void;
  private readonly images = new Map<string, Promise<{ image: string }>>();
  /** archive sha256 → when a start last asked for its image: the collector leaves it that long. */
  private readonly lastEnsured = new Map<string, number>();
  private readonly followers = new OutputFollowers();
  private readonly subscriptions = new Set<Subscription>();
  /** Per event subscription, who waits for its next read of the tasks (see afterNextPoll). */
  private readonly pollWaiters = new Set<{ waiting: (() => void)[] }>();
  /** Engines of nodes that name one (gcm.engine), and the manager's own node's: for stats and OOM flags. */
  private readonly nodeEngines = new Map<string, DockerEngine>();
  private nodeList: SwarmNode[] = [];
  /** Whether the nodes were ever read: before that, hosts() knows of no problem (nor capacity). */
  private nodesRead = false;
  /** The last read of the nodes failed: what hosts() says until one succeeds. */
  private nodeReadFailed = false;
  private selfNodeId: Promise<string | undefined> | undefined;
  private readonly logMaxSize: string;
  private readonly tmpSize: string;

  constructor(options: SwarmDriverOptions) {
    this.options = options;
    this.manager = new DockerEngine(options.managerHost, options.tls);
    this.pollMs = options.pollMs ?? 500;
    this.warn = options.onWarning ?? (() => {});
    this.logMaxSize = options.logMaxSize ?? '10m';
    this.tmpSize = options.tmpSize ?? '64m';
  }

  /**
   * A host per region: its capacity is that of its ready, active nodes, as last read; its problem says why
   * none takes lobbies (nothing before the first read: not knowing is not a problem to report).
   */
  hosts(): readonly RuntimeHost[] {
    return this.options.regions.map((region) => {
      const serving = this.nodeList.filter((n) => servesRegion(n, region));
      const ready = serving.filter(takesLobbies).length;
      const problem = !this.nodesRead
        ? undefined
        : this.nodeReadFailed
          ? "the swarm's manager did not answer the last read of its nodes"
          : ready > 0
            ? undefined
            : noReadyNode(region, serving);
      return {
        id: `swarm:${region}`,
        regions: [region],
        capacity: ready * this.options.capacityPerNode,
        ...(problem === undefined ? {} : { problem }),
      };
    });
  }

  /** Whether the manager answers and is a manager of a swarm; throws saying what is wrong. */
  async ping(): Promise<void> {
    await this.manager.ping();
    await this.readNodes();
  }

  async nodes(labels: LobbyLabels): Promise<RuntimeNode[]> {
    const [nodes, views, self, disk] = await Promise.all([
      this.readNodes(),
      this.views(labels),
      this.selfNode().catch(() => undefined),
      // Builds are loaded into the manager's engine (then pushed): its disk is the one the budget guards.
      engineDisk(this.manager, this.owner(), this.options.imageDiskBudgetBytes).catch(
        (): EngineDisk | undefined => undefined,
      ),
    ]);
    return nodes.map((node) => {
      const regions = this.options.regions.filter((region) => servesRegion(node, region));
      const state = node.Status?.State;
      const availability = node.Spec?.Availability;
      return {
        id: node.ID,
        name: node.Description?.Hostname ?? node.ID,
        address: node.Status?.Addr ?? '',
        regions,
        role: node.Spec?.Role === 'manager' ? 'manager' : 'worker',
        state:
          state === 'ready' ? 'ready' : state === 'down' || state === 'disconnected' ? 'down' : 'unknown',
        availability: availability === 'drain' ? 'drain' : availability === 'pause' ? 'pause' : 'active',
        nanoCpus: node.Description?.Resources?.NanoCPUs ?? 0,
        memoryBytes: node.Description?.Resources?.MemoryBytes ?? 0,
        capacity: regions.length > 0 ? this.options.capacityPerNode : 0,
        lobbies: views.filter((v) => v.node?.ID === node.ID && v.lobby.state === 'running').length,
        ...(node.Description?.Engine?.EngineVersion === undefined
          ? {}
          : { engineVersion: node.Description.Engine.EngineVersion }),
        ...(node.Status?.Message === undefined || node.Status.Message === ''
          ? {}
          : { message: node.Status.Message }),
        ...(disk !== undefined && node.ID === self ? { disk } : {}),
      };
    });
  }

  /**
   * Loads the archive into the manager's engine and pushes it to the registry, once per archive (the
   * registry is every region's): answers the image by digest, so every node runs the same bytes. The image is
   * the id the service read in the archive (loadArchive), and a digest is taken only where the manager's engine
   * recorded pushing that very image under it: a build pushed before is found without pushing it again (its
   * archive is read again, not loaded), and never by a registry tag alone.
   */
  async ensureImage(_region: string, archive: ImageArchive): Promise<{ image: string }> {
    const key = archive.sha256.toLowerCase();
    this.lastEnsured.set(key, Date.now());
    const known = this.images.get(key);
    if (known !== undefined) return known;
    const pushing = this.pushOnce(archive);
    this.images.set(key, pushing);
    pushing.catch(() => {
      if (this.images.get(key) === pushing) this.images.delete(key);
    });
    return pushing;
  }

  async start(spec: LobbySpec, onCreated?: (handle: string) => Promise<void>): Promise<{ handle: string }> {
    const name = `gcm-${spec.lobbyId}`;
    const created = await this.manager
      .json<{ ID?: string }>({
        method: 'POST',
        path: '/services/create',
        body: this.serviceSpec(spec, name),
        headers: { 'X-Registry-Auth': this.registryAuth() },
      })
      .catch(async (err: unknown) => {
        // A start cut short after the create (the service stopped, the answer was lost): the service is this
        // lobby's, so starting it again takes up that attempt.
        if (!(err instanceof DockerEngineError) || err.status !== 409) throw err;
        const existing = await this.service(name);
        if (existing?.Spec.Labels?.[LOBBY_LABELS.lobby] !== spec.labels[LOBBY_LABELS.lobby]) throw err;
        return { ID: existing?.ID };
      });
    const id = created?.ID;
    if (id === undefined)
      throw new DockerEngineError(`POST /services/create on ${this.manager.dockerHost}: no id`);
    try {
      await onCreated?.(id);
      // Created with no replica, so that the handle is on record before the task runs: now it may.
      await this.updateService(id, (s) => {
        s.Mode = { Replicated: { Replicas: 1 } };
      });
    } catch (err) {
      await this.manager.json({ method: 'DELETE', path: `/services/${id}` }, [404]).catch(() => undefined);
      throw err;
    }
    return { handle: id };
  }

  async stop(_region: string, handle: string, graceSeconds: number): Promise<void> {
    const service = await this.service(handle);
    if (service === undefined) return;
    const task = lobbyTask(await this.tasks([service.ID]));
    const node =
      task?.NodeID === undefined ? undefined : (await this.readNodes()).find((n) => n.ID === task.NodeID);
    // A node that does not answer never reports its task's end: the service is removed without waiting,
    // and the container goes when that engine comes back (it stops what its previous run left).
    const unreachable = node !== undefined && node.Status?.State !== 'ready';
    const constraints = service.Spec.TaskTemplate?.Placement?.Constraints ?? [];
    if (task !== undefined && !unreachable && !ended(task) && !constraints.includes(STOPPED_CONSTRAINT)) {
      await this.updateService(service.ID, (s) => {
        const template = s.TaskTemplate ?? {};
        template.Placement = {
          ...template.Placement,
          Constraints: [...(template.Placement?.Constraints ?? []), STOPPED_CONSTRAINT],
        };
        template.ForceUpdate = (template.ForceUpdate ?? 0) + 1;
        s.TaskTemplate = template;
        s.UpdateConfig = { Parallelism: 1, Order: 'stop-first', FailureAction: 'continue' };
      });
    }
    if (task !== undefined && !unreachable) {
      // The task keeps the grace period it started with; the call's is the longest this waits beyond it.
      const grace = Math.max(graceSeconds, this.startedGrace(service));
      await this.untilEnded(service.ID, task.ID, grace * 1000 + STOP_SLACK_MS);
    }
    // Every subscription reads the ended task before the service goes: its exit code is told, not lost.
    await this.afterNextPoll();
    // Removing the service removes the container, and ends its log wherever the reader is.
    await this.followers.drained(handle);
    await this.manager.json({ method: 'DELETE', path: `/services/${encodeURIComponent(handle)}` }, [404]);
  }

  async list(labels: LobbyLabels): Promise<RunningLobby[]> {
    return (await this.views(labels)).map((view) => view.lobby);
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
    void this.pollEvents(labels, onEvent, controller.signal);
    return subscription;
  }

  output(
    _region: string,
    handle: string,
    options: { follow: boolean; sinceMs?: number; signal?: AbortSignal },
  ): AsyncIterable<OutputLine[]> {
    return this.followers.track(handle, options.follow, this.readOutput(handle, options));
  }

  async stats(_region: string, handle: string): Promise<LobbyStats | undefined> {
    const task = lobbyTask(await this.tasks([handle]).catch(() => []));
    const container = task?.Status?.ContainerStatus?.ContainerID;
    if (task === undefined || ended(task) || container === undefined || container === '') return undefined;
    const engine = await this.engineOf(task.NodeID);
    if (engine === undefined) return undefined;
    const sample = await engine.json<StatsSample>(
      { method: 'GET', path: `/containers/${encodeURIComponent(container)}/stats`, query: { stream: false } },
      [404, 409],
    );
    return sample === undefined ? undefined : toStats(sample);
  }

  /**
   * Removes what builds no live version needs left on the swarm (docs/runtime.md "Build images"): the
   * manager's copies (loaded there to be pushed), the copies each node pulled, and the registry's manifests.
   * A build is needed while this service keeps it (`keep`, or a start asked for it within the grace) or any
   * service sharing the manager still claims it there: the registry and the nodes are every such service's.
   * One entry per engine and one for the registry, each with its own problem.
   */
  async collectImages(keep: ReadonlySet<string>, options: { graceMs: number }): Promise<ImageCollection[]> {
    const since = Date.now() - options.graceMs;
    const kept = (sha: string) => keep.has(sha) || (this.lastEnsured.get(sha) ?? 0) >= since;
    const hostId = this.options.managerHost;
    const manager: ImageCollection = { hostId, removed: 0, freedBytes: 0, kept: 0 };
    try {
      const done = await serially(this.manager, () =>
        collectOn(this.manager, this.owner(), kept, [this.buildRepository()]),
      );
      // Its manifest may go below: a later start pushes the build again rather than name a digest gone.
      for (const sha of done.dropped) this.images.delete(sha);
      Object.assign(manager, { removed: done.removed, freedBytes: done.freedBytes, kept: done.kept });
    } catch (err) {
      return [{ ...manager, problem: (err as Error).message }];
    }
    const registry: ImageCollection = {
      hostId: this.buildRepository(),
      removed: 0,
      freedBytes: 0,
      kept: 0,
      registry: true,
    };
    const engines = await this.collectedEngines().catch((err: Error) => err);
    if (engines instanceof Error) {
      return [manager, { ...registry, problem: `reading the swarm's nodes failed: ${engines.message}` }];
    }
    let builds: Awaited<ReturnType<SwarmDriver['registryBuilds']>>;
    try {
      builds = await this.registryBuilds(kept);
    } catch (err) {
      // Which digests are needed is not known: no node copy nor manifest goes.
      return [manager, { ...registry, problem: (err as Error).message }];
    }
    const nodes = await Promise.all(
      engines.map(async ({ hostId: id, engine, problem }): Promise<ImageCollection> => {
        const entry = { hostId: id, removed: 0, freedBytes: 0, kept: 0 };
        if (engine === undefined) return { ...entry, problem: problem ?? 'no engine' };
        try {
          const sweep = () => this.collectPulled(engine, builds);
          return { ...entry, ...(await (engine === this.manager ? serially(engine, sweep) : sweep())) };
        } catch (err) {
          return { ...entry, problem: (err as Error).message };
        }
      }),
    );
    const selfEntry = nodes.find((n) => n.hostId === hostId);
    if (selfEntry !== undefined) {
      // The manager's node: its pulled copies are added to what collectOn removed there.
      manager.removed += selfEntry.removed;
      manager.freedBytes += selfEntry.freedBytes;
      manager.kept += selfEntry.kept;
      if (selfEntry.problem !== undefined) manager.problem = selfEntry.problem;
    }
    try {
      Object.assign(registry, await this.deleteManifests(builds));
    } catch (err) {
      registry.problem = (err as Error).message;
    }
    return [manager, ...nodes.filter((n) => n !== selfEntry), registry];
  }

  async close(): Promise<void> {
    for (const subscription of [...this.subscriptions]) subscription.close();
    this.manager.close();
    for (const engine of this.nodeEngines.values()) engine.close();
  }

  private serviceSpec(spec: LobbySpec, name: string): ServiceSpec & Record<string, unknown> {
    const labels: Record<string, string> = { [LOBBY_LABELS.region]: spec.region, ...spec.labels };
    const host = spec.networkMode === 'host';
    const grace = spec.stopGraceSeconds ?? DEFAULT_GRACE_SECONDS;
    return {
      Name: name,
      Labels: labels,
      TaskTemplate: {
        ContainerSpec: {
          Image: spec.image,
          // Empty args keep the image's own CMD.
          Args: spec.args.length > 0 ? [...spec.args] : undefined,
          Env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
          Labels: labels,
          ReadOnly: spec.readOnlyRootFs,
          // A server on a read-only root may still write temporary files; the tmpfs counts against its memory.
          Mounts: spec.readOnlyRootFs
            ? [{ Type: 'tmpfs', Target: '/tmp', TmpfsOptions: { SizeBytes: parseSize(this.tmpSize) } }]
            : [],
          StopGracePeriod: Math.max(0, Math.ceil(grace)) * 1e9,
          CapabilityDrop: ['ALL'],
        },
        Resources: {
          // Reserved as well as limited: the swarm places a lobby only where the tier still fits.
          Limits: {
            NanoCPUs: spec.limits.nanoCpus,
            MemoryBytes: spec.limits.memoryBytes,
            Pids: spec.limits.pids,
          },
          Reservations: { NanoCPUs: spec.limits.nanoCpus, MemoryBytes: spec.limits.memoryBytes },
        },
        RestartPolicy: { Condition: 'none', MaxAttempts: 0 },
        Placement: { Constraints: [`node.labels.${REGION_NODE_LABEL}==${spec.region}`] },
        Networks: host ? [{ Target: 'host' }] : undefined,
        LogDriver: { Name: 'local', Options: { 'max-size': this.logMaxSize, 'max-file': '2' } },
      },
      Mode: { Replicated: { Replicas: 0 } },
      UpdateConfig: { Parallelism: 1, Order: 'stop-first', FailureAction: 'continue' },
      EndpointSpec: host
        ? undefined
        : {
            // Published on the node the lobby runs on, not through the swarm's routing mesh: each lobby is
            // one server, and players reach that node.
            Ports: spec.ports.map((port) => ({
              Protocol: port.protocol,
              TargetPort: port.containerPort,
              PublishedPort: port.hostPort,
              PublishMode: 'host',
            })),
          },
    };
  }

  private startedGrace(service: Service): number {
    const ns = service.Spec.TaskTemplate?.ContainerSpec?.StopGracePeriod;
    return typeof ns === 'number' ? ns / 1e9 : DEFAULT_GRACE_SECONDS;
  }

  /**
   * X-Registry-Auth: base64url JSON with its `=` padding. dockerd 20.10 decodes it with Go's padded
   * URL encoding and, when that fails, goes on with no credentials at all: Node's 'base64url' leaves the
   * padding off, which would lose the credentials for one length in three.
   */
  private registryAuth(): string {
    const { username, password, address } = this.options.registry;
    const serveraddress = address.split('/')[0];
    const auth = username === undefined ? { serveraddress } : { username, password, serveraddress };
    return Buffer.from(JSON.stringify(auth)).toString('base64').replaceAll('+', '-').replaceAll('/', '_');
  }

  private async pushOnce(archive: ImageArchive): Promise<{ image: string }> {
    const sha256 = archive.sha256.toLowerCase();
    const repository = this.buildRepository();
    const auth = { 'X-Registry-Auth': this.registryAuth() };
    const imageId = await loadClaimed(this.manager, archive, {
      owner: this.owner(),
      budgetBytes: this.options.imageDiskBudgetBytes,
      extraRepos: [repository],
      load:
        this.options.maxUnpackedBytes === undefined
          ? {}
          : { maxUnpackedBytes: this.options.maxUnpackedBytes },
    });
    const pushed = await this.manager
      .json<{ Descriptor?: { digest?: string } }>({
        method: 'GET',
        path: `/distribution/${repository}:${sha256}/json`,
        headers: auth,
      })
      .catch(() => undefined);
    const known = pushed?.Descriptor?.digest;
    if (known !== undefined && (await this.repoDigests(imageId)).includes(`${repository}@${known}`)) {
      return { image: `${repository}@${known}` };
    }
    await tagImage(this.manager, imageId, `${repository}:${sha256}`);
    let response: http.IncomingMessage;
    const failed = (why: string) =>
      new Error(
        `build ${archive.buildId}: pushing it to the registry ${this.options.registry.address} failed: ${why}`,
      );
    try {
      response = await this.manager.open({
        method: 'POST',
        path: `/images/${repository}/push`,
        query: { tag: sha256 },
        headers: auth,
        idleTimeoutMs: 10 * 60_000,
      });
    } catch (err) {
      throw failed((err as Error).message);
    }
    let digest: string | undefined;
    for await (const message of jsonLines(response)) {
      const { error, aux } = message as { error?: unknown; aux?: { Digest?: unknown } };
      if (typeof error === 'string') throw failed(error);
      if (typeof aux?.Digest === 'string') digest = aux.Digest;
    }
    if (digest === undefined) throw failed('the engine named no digest for the pushed image');
    // The push went by name: it is the build only if the engine recorded that digest for the image read.
    if (!(await this.repoDigests(imageId)).includes(`${repository}@${digest}`)) {
      throw failed(
        `the registry received another image than the ${imageId} read in its archive (its name on the manager was moved meanwhile)`,
      );
    }
    return { image: `${repository}@${digest}` };
  }

  /**
   * The registry's builds, each tag an archive sha256: which digests are needed (a build kept by this
   * service, claimed on the manager by any service, or any tag not the service's own) and which are not.
   * The tags are read before the claims: a build is claimed on the manager before it is pushed, so a tag
   * listed here is never seen unclaimed while its push is under way.
   */
  private async registryBuilds(kept: (sha: string) => boolean): Promise<RegistryBuilds> {
    const repository = this.registryRepository();
    const tags = await repository.tags();
    const digests = new Map<string, string>();
    for (const tag of tags) {
      const digest = await repository.digestOf(tag);
      if (digest !== undefined) digests.set(tag, digest);
    }
    const claimed = await claimedArchives(this.manager);
    const needed = new Set<string>();
    const drop = new Map<string, string[]>();
    for (const [tag, digest] of digests) {
      const ours = /^[0-9a-f]{64}$/.test(tag);
      if (!ours || kept(tag) || claimed.has(tag)) needed.add(digest);
      else drop.set(digest, [...(drop.get(digest) ?? []), tag]);
    }
    // Two builds whose archives hold the same image share a manifest: it stays while either is needed.
    for (const digest of needed) drop.delete(digest);
    return { needed, drop, live: new Set(digests.values()), keptTag: (tag) => kept(tag) || claimed.has(tag) };
  }

  /**
   * Removes from one engine the build copies it pulled that no build needs: an image named in the build
   * repository by a digest or tag of a build not needed, or by a digest the registry no longer holds at all
   * (its manifest went while this engine did not answer). Images the service's loads tag are collectOn's.
   */
  private async collectPulled(
    engine: DockerEngine,
    builds: RegistryBuilds,
  ): Promise<{ removed: number; freedBytes: number; kept: number }> {
    const repository = this.buildRepository();
    const registry = this.registryRepository();
    const unneeded: RepositoryImage[] = [];
    for (const image of await repositoryImages(engine, repository)) {
      if (image.serviceTagged) continue;
      if (image.tags.some((tag) => builds.keptTag(tag) || !/^[0-9a-f]{64}$/.test(tag))) continue;
      if (image.digests.some((digest) => builds.needed.has(digest))) continue;
      if (image.digests.some((digest) => builds.drop.has(digest))) unneeded.push(image);
      else if (image.digests.every((digest) => !builds.live.has(digest))) {
        // Unknown to the registry's tags as read: gone, or pushed since that read (asked again, by digest).
        let gone = true;
        for (const digest of image.digests) gone &&= (await registry.digestOf(digest)) === undefined;
        if (gone) unneeded.push(image);
      }
    }
    return removeRepositoryNames(engine, repository, unneeded);
  }

  /**
   * Deletes the manifests of builds no one needs. A registry that does not delete (405) stops the pass and
   * is said once, as a note: nothing failed, and the operator chooses whether it should.
   */
  private async deleteManifests(
    builds: RegistryBuilds,
  ): Promise<{ removed: number; kept: number; note?: string }> {
    const repository = this.registryRepository();
    let removed = 0;
    for (const [digest, tags] of builds.drop) {
      const done = await repository.deleteManifest(digest);
      if (done === 'refused') {
        return {
          removed,
          kept: builds.drop.size - removed,
          note: `the registry refuses deletes (405: storage.delete.enabled is off): ${builds.drop.size - removed} manifests of builds no version needs stay there`,
        };
      }
      for (const tag of tags) this.images.delete(tag);
      if (done === 'deleted') removed++;
    }
    return { removed, kept: 0 };
  }

  /**
   * The engines whose pulled builds are collected, by host id: the manager's own node is the manager, each
   * other node its gcm.engine; a node without one is reported, for its copies cannot be collected.
   */
  private async collectedEngines(): Promise<{ hostId: string; engine?: DockerEngine; problem?: string }[]> {
    const [nodes, self] = await Promise.all([this.readNodes(), this.selfNode()]);
    return Promise.all(
      nodes.map(async (node) => {
        if (node.ID === self) return { hostId: this.options.managerHost, engine: this.manager };
        const address = node.Spec?.Labels?.[ENGINE_NODE_LABEL];
        const name = node.Description?.Hostname ?? node.ID;
        if (address === undefined) {
          return {
            hostId: `node ${name}`,
            problem: `node ${name} names no engine (label ${ENGINE_NODE_LABEL}): the builds it pulled are not collected`,
          };
        }
        return { hostId: address, engine: await this.engineOf(node.ID) };
      }),
    );
  }

  private registryRepository(): RegistryRepository {
    return new RegistryRepository(this.options.registry, BUILD_REPOSITORY);
  }

  private buildRepository(): string {
    return `${this.options.registry.address}/${BUILD_REPOSITORY}`;
  }

  private owner(): string {
    return this.options.owner ?? 'default';
  }

  /** The manager's own node id. */
  private selfNode(): Promise<string | undefined> {
    this.selfNodeId ??= this.manager
      .json<{ Swarm?: { NodeID?: string } }>({ method: 'GET', path: '/info' })
      .then((info) => info?.Swarm?.NodeID);
    return this.selfNodeId;
  }

  /** The `repository@digest` names the manager's engine recorded for an image it pushed or pulled. */
  private async repoDigests(imageId: string): Promise<string[]> {
    const image = await this.manager.json<{ Id?: string; RepoDigests?: string[] }>(
      { method: 'GET', path: `/images/${imageId}/json` },
      [404],
    );
    return image?.Id === imageId ? (image.RepoDigests ?? []) : [];
  }

  private async readNodes(): Promise<SwarmNode[]> {
    let nodes: SwarmNode[] | undefined;
    try {
      nodes = await this.manager.json<SwarmNode[]>({ method: 'GET', path: '/nodes' });
    } catch (err) {
      this.nodeReadFailed = this.nodesRead;
      throw err;
    }
    this.nodeList = nodes ?? [];
    this.nodesRead = true;
    this.nodeReadFailed = false;
    return this.nodeList;
  }

  private service(idOrName: string): Promise<Service | undefined> {
    return this.manager.json<Service>(
      { method: 'GET', path: `/services/${encodeURIComponent(idOrName)}` },
      [404],
    );
  }

  /** Reads the service and writes it back changed, at the version read (the swarm refuses a stale one). */
  private async updateService(id: string, change: (spec: ServiceSpec) => void): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const service = await this.service(id);
      if (service === undefined) throw new DockerEngineError(`service ${id} is gone`, 404);
      change(service.Spec);
      try {
        await this.manager.json({
          method: 'POST',
          path: `/services/${encodeURIComponent(id)}/update`,
          query: { version: service.Version?.Index ?? 0 },
          body: service.Spec,
          headers: { 'X-Registry-Auth': this.registryAuth() },
        });
        return;
      } catch (err) {
        // "update out of sequence": someone else updated it in between; read it again.
        if (attempt >= 3 || !(err instanceof DockerEngineError) || !/out of sequence/.test(err.message))
          throw err;
      }
    }
  }

  private async tasks(serviceIds?: readonly string[]): Promise<Task[]> {
    const filters = serviceIds === undefined ? undefined : JSON.stringify({ service: serviceIds });
    return (await this.manager.json<Task[]>({ method: 'GET', path: '/tasks', query: { filters } })) ?? [];
  }

  /** Our lobbies carrying `labels`, each with its task and node, in one read of services, tasks and nodes. */
  private async views(labels: LobbyLabels): Promise<LobbyView[]> {
    const filters = JSON.stringify({ label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) });
    const [services, tasks, nodes] = await Promise.all([
      this.manager.json<Service[]>({ method: 'GET', path: '/services', query: { filters } }),
      this.tasks(),
      this.readNodes(),
    ]);
    const byService = new Map<string, Task[]>();
    for (const task of tasks) {
      if (task.ServiceID === undefined) continue;
      byService.set(task.ServiceID, [...(byService.get(task.ServiceID) ?? []), task]);
    }
    const nodeById = new Map(nodes.map((n) => [n.ID, n]));
    return (services ?? []).map((service) => {
      const own = service.Spec.Labels ?? {};
      const region = own[LOBBY_LABELS.region] ?? '';
      const task = lobbyTask(byService.get(service.ID) ?? []);
      const node = task?.NodeID === undefined ? undefined : nodeById.get(task.NodeID);
      const address = node === undefined ? undefined : publicAddress(node);
      const base = { handle: service.ID, region, labels: own, ...(address === undefined ? {} : { address }) };
      let lobby: RunningLobby;
      if (task !== undefined && node !== undefined && lostWith(node) && !stopping(service)) {
        // Drained or dead, the node's tasks are shut down by the swarm, not by us, and never run again
        // (restart policy none): its players lost the lobby with the machine, whatever its exit code.
        lobby = { ...base, state: 'exited', reason: 'node-lost' };
      } else if (task !== undefined && ended(task)) {
        lobby = {
          ...base,
          state: 'exited',
          exitCode: task.Status?.ContainerStatus?.ExitCode ?? -1,
          oomKilled: false,
        };
      } else {
        lobby = { ...base, state: 'running' };
      }
      return { service, task, node, lobby };
    });
  }

  /** Reads the tasks every pollMs and answers what changed as events, until `signal` aborts. */
  private async pollEvents(
    labels: LobbyLabels,
    onEvent: (event: RuntimeEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    /** What was told of each lobby: started, ended (exited or lost). Undefined before the first read. */
    let told:
      | Map<string, { started: boolean; ended: boolean; region: string; labels: LobbyLabels }>
      | undefined;
    let backoff = this.pollMs;
    const waiters = { waiting: [] as (() => void)[] };
    this.pollWaiters.add(waiters);
    signal.addEventListener('abort', () => {
      this.pollWaiters.delete(waiters);
      for (const resolve of waiters.waiting) resolve();
    });
    while (!signal.aborted) {
      // Those who asked before this read began are answered once it is done.
      const answered = waiters.waiting;
      waiters.waiting = [];
      try {
        const views = await this.views(labels);
        const now = new Map<
          string,
          { started: boolean; ended: boolean; region: string; labels: LobbyLabels }
        >();
        for (const view of views) {
          const { lobby } = view;
          const before = told?.get(lobby.handle);
          const state = view.task?.Status?.State;
          const started = before?.started === true || state === 'running' || ended(view.task);
          const over = lobby.state === 'exited';
          now.set(lobby.handle, { started, ended: over, region: lobby.region, labels: lobby.labels });
          if (told === undefined || signal.aborted) continue;
          const event = { handle: lobby.handle, region: lobby.region, labels: lobby.labels };
          if (started && before?.started !== true) {
            onEvent({
              type: 'started',
              ...event,
              ...(lobby.address === undefined ? {} : { address: lobby.address }),
            });
          }
          if (over && before?.ended !== true) {
            if (lobby.reason === 'node-lost') onEvent({ type: 'gone', ...event, reason: 'node-lost' });
            else {
              const oomKilled = await this.oomKilled(view.task);
              onEvent({ type: 'exited', ...event, exitCode: lobby.exitCode ?? -1, oomKilled });
            }
          }
        }
        if (told !== undefined && !signal.aborted) {
          for (const [handle, was] of told) {
            if (!now.has(handle))
              onEvent({ type: 'gone', handle, region: was.region, labels: was.labels, reason: 'removed' });
          }
        }
        told = now;
        backoff = this.pollMs;
      } catch (err) {
        if (!signal.aborted) {
          this.warn(
            `reading the swarm's tasks at ${this.manager.dockerHost} failed: ${(err as Error).message}; retrying in ${backoff} ms`,
          );
        }
        backoff = Math.min(backoff * 2, POLL_BACKOFF_MAX_MS);
      }
      for (const resolve of answered) resolve();
      await sleep(backoff, undefined, { signal }).catch(() => undefined);
    }
  }

  /**
   * Resolves once every event subscription has read the tasks from the start, after this call (a few
   * pollMs at most: a manager that does not answer does not hold a stop for longer).
   */
  private async afterNextPoll(): Promise<void> {
    const reads = [...this.pollWaiters].map(
      (waiters) => new Promise<void>((resolve) => waiters.waiting.push(resolve)),
    );
    if (reads.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(reads),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.pollMs * 4 + 2_000);
      }),
    ]);
    clearTimeout(timer);
  }

  /** The OOM flag of an ended task's container, where its node's engine can be asked. */
  private async oomKilled(task: Task | undefined): Promise<boolean> {
    const container = task?.Status?.ContainerStatus?.ContainerID;
    if (task === undefined || container === undefined || container === '') return false;
    const engine = await this.engineOf(task.NodeID).catch(() => undefined);
    if (engine === undefined) return false;
    const inspected = await engine
      .json<{ State?: { OOMKilled?: boolean } }>(
        { method: 'GET', path: `/containers/${encodeURIComponent(container)}/json` },
        [404],
      )
      .catch(() => undefined);
    return inspected?.State?.OOMKilled === true;
  }

  /** The engine of a node: the manager's for its own node, the node's gcm.engine label's for others. */
  private async engineOf(nodeId: string | undefined): Promise<DockerEngine | undefined> {
    if (nodeId === undefined) return undefined;
    if ((await this.selfNode()) === nodeId) return this.manager;
    const address = this.nodeList.find((n) => n.ID === nodeId)?.Spec?.Labels?.[ENGINE_NODE_LABEL];
    if (address === undefined) return undefined;
    let engine = this.nodeEngines.get(address);
    if (engine === undefined) {
      engine = new DockerEngine(address, this.options.tls);
      this.nodeEngines.set(address, engine);
    }
    return engine;
  }

  /** Waits until the task has ended or its service is gone, reading it every pollMs, at most `timeoutMs`. */
  private async untilEnded(serviceId: string, taskId: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let wait = 50; Date.now() < deadline; wait = Math.min(wait * 2, this.pollMs)) {
      const task = (await this.tasks([serviceId]).catch(() => [])).find((t) => t.ID === taskId);
      if (task === undefined || ended(task)) return;
      await sleep(wait);
    }
    throw new DockerEngineError(`service ${serviceId}: its task did not stop within ${timeoutMs} ms`);
  }

  /**
   * The service's log, demultiplexed. Followed, it ends once the task has ended: the swarm keeps the
   * service's log open past its task's end, so the driver watches the task and, once it ended, reads what
   * the follow had not reached yet without following.
   */
  private async *readOutput(
    handle: string,
    options: { follow: boolean; sinceMs?: number; signal?: AbortSignal },
  ): AsyncIterable<OutputLine[]> {
    let lastTs = options.sinceMs ?? 0;
    let atLastTs = 0;
    const take = (line: OutputLine): boolean => {
      if (line.ts < lastTs || (options.sinceMs !== undefined && line.ts < options.sinceMs)) return false;
      if (line.ts === lastTs && atLastTs > 0) {
        atLastTs--;
        return false;
      }
      return true;
    };
    if (!options.follow) {
      yield* this.readLog(handle, options.sinceMs, false, options.signal);
      return;
    }
    const follow = new AbortController();
    const onAbort = () => follow.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const watching = this.untilTaskEnded(handle, follow.signal).then(() => follow.abort());
    let seenAtLast = 0;
    try {
      for await (const batch of this.readLog(handle, options.sinceMs, true, follow.signal)) {
        for (const line of batch) {
          if (line.ts !== lastTs) seenAtLast = 0;
          lastTs = line.ts;
          seenAtLast++;
        }
        yield batch;
      }
    } finally {
      follow.abort();
      options.signal?.removeEventListener('abort', onAbort);
      await watching.catch(() => undefined);
    }
    if (options.signal?.aborted === true) return;
    // The rest, after the task ended: lines at the last instant read are skipped as many as were yielded.
    atLastTs = seenAtLast;
    for await (const batch of this.readLog(
      handle,
      lastTs > 0 ? lastTs : options.sinceMs,
      false,
      options.signal,
    )) {
      const taken = batch.filter(take);
      if (taken.length > 0) yield taken;
    }
  }

  private async untilTaskEnded(handle: string, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const service = await this.service(handle).catch(() => null);
      if (service === undefined) return;
      if (service !== null) {
        const task = lobbyTask(await this.tasks([handle]).catch(() => []));
        if (task !== undefined && ended(task)) return;
      }
      await sleep(this.pollMs, undefined, { signal }).catch(() => undefined);
    }
  }

  private readLog(
    handle: string,
    sinceMs: number | undefined,
    follow: boolean,
    signal: AbortSignal | undefined,
  ): AsyncIterable<OutputLine[]> {
    return readEngineLog(this.manager, `/services/${encodeURIComponent(handle)}/logs`, {
      follow,
      ...(sinceMs === undefined ? {} : { sinceMs }),
      ...(signal === undefined ? {} : { signal }),
    });
  }
}

function servesRegion(node: SwarmNode, region: string): boolean {
  return node.Spec?.Labels?.[REGION_NODE_LABEL] === region;
}

function takesLobbies(node: SwarmNode): boolean {
  return node.Status?.State === 'ready' && (node.Spec?.Availability ?? 'active') === 'active';
}

/** Nodes named in a region's problem at most: a region may have hundreds. */
const PROBLEM_NODES_MAX = 3;

/** Why no node takes the region's lobbies: none is labelled with it, or each labelled one is not ready. */
function noReadyNode(region: string, serving: readonly SwarmNode[]): string {
  const label = `${REGION_NODE_LABEL}=${region}`;
  if (serving.length === 0) return `no ready node: no node of the swarm is labelled ${label}`;
  const named = serving.slice(0, PROBLEM_NODES_MAX).map((node) => {
    const state = node.Status?.State ?? 'unknown';
    const why = [
      ...(state === 'ready' ? [] : [state]),
      ...((node.Spec?.Availability ?? 'active') === 'active' ? [] : [node.Spec?.Availability]),
    ].join(', ');
    const message =
      state !== 'ready' && node.Status?.Message ? ` (${node.Status.Message.slice(0, 100)})` : '';
    return `${(node.Description?.Hostname ?? node.ID).slice(0, 64)}: ${why}${message}`;
  });
  const more = serving.length > PROBLEM_NODES_MAX ? `, and ${serving.length - PROBLEM_NODES_MAX} more` : '';
  const nodes = serving.length === 1 ? '1 node is' : `${serving.length} nodes are`;
  return `no ready node: ${nodes} labelled ${label}, none ready and active (${named.join('; ')}${more})`;
}

/** A node that is down, or drained (the swarm moves work off it): what ran there is lost. */
function lostWith(node: SwarmNode): boolean {
  const state = node.Status?.State;
  return state === 'down' || state === 'disconnected' || node.Spec?.Availability === 'drain';
}

function publicAddress(node: SwarmNode): string | undefined {
  return node.Spec?.Labels?.[PUBLIC_HOST_NODE_LABEL] ?? node.Status?.Addr;
}

function ended(task: Task | undefined): boolean {
  return task !== undefined && ENDED_STATES.has(task.Status?.State ?? '');
}

function stopping(service: Service): boolean {
  return (service.Spec.TaskTemplate?.Placement?.Constraints ?? []).includes(STOPPED_CONSTRAINT);
}

/** The lobby's own task: the service's first (a stop's update adds one that never runs). */
function lobbyTask(tasks: readonly Task[]): Task | undefined {
  return [...tasks].sort((a, b) => (a.CreatedAt ?? '').localeCompare(b.CreatedAt ?? ''))[0];
}

/** "64m", "1g", "512k" or bytes, as Docker's size options read. */
function parseSize(size: string): number {
  const match = /^(\d+)([kmg]?)b?$/i.exec(size.trim());
  if (match === null) return 64 * 1024 * 1024;
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[
    (match[2] ?? '').toLowerCase() as '' | 'k' | 'm' | 'g'
  ];
  return Number(match[1]) * unit;
}
