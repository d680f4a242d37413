import type { Readable } from 'node:stream';

/**
 * What the service asks of an orchestrator to run lobbies, and nothing more: every driver (`docker` for one
 * engine per region, `swarm` for a cluster, `agones` designed) implements this, and one contract test suite
 * (test/runtime/driver-contract.ts) runs against each. The reconciler (modules/runtime) holds the rules —
 * how many lobbies, where, when to stop them — and drives any orchestrator through this seam alone.
 *
 * Ground floor: imports no module, like lib/ and db/.
 */

/** Labels every lobby's container carries: what lets a restarted service adopt what runs. */
export const LOBBY_LABELS = {
  lobby: 'gcm.lobby_id',
  namespace: 'gcm.namespace_id',
  version: 'gcm.version_id',
  gameMode: 'gcm.game_mode',
  region: 'gcm.region',
  /** Which service's lobbies these are: one engine may be shared by two services (or two test files). */
  owner: 'gcm.owner',
} as const;

export type LobbyLabels = Readonly<Record<string, string>>;

/** A build archive (`docker save` or OCI layout tar) in blob storage, as the build record describes it. */
export interface ImageArchive {
  buildId: string;
  /** Bytes the build record says the archive has; a different count fails the load. */
  size: number;
  /** Lower-case hex sha256 the build record says; a different digest fails the load. */
  sha256: string;
  open(): Promise<Readable>;
}

export interface LobbyPort {
  /** The config's port name: the lobby gets `PORT_<name>` with the port it listens on. */
  name: string;
  protocol: 'tcp' | 'udp';
  /** Where the server listens inside the container (host mode: equals hostPort). */
  containerPort: number;
  /** Where players reach it on the host. */
  hostPort: number;
  /** host mode with a port_range: the whole range is the lobby's, hostPort is its first port. */
  hostPortEnd?: number;
}

export interface LobbyLimits {
  /** CPU in billionths of a core (Docker's NanoCpus). */
  nanoCpus: number;
  memoryBytes: number;
  pids: number;
}

export interface LobbySpec {
  lobbyId: string;
  region: string;
  /** The image reference `ensureImage` answered for this build on this region's host. */
  image: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  networkMode: 'host' | 'bridge';
  ports: readonly LobbyPort[];
  limits: LobbyLimits;
  readOnlyRootFs: boolean;
  labels: LobbyLabels;
  /**
   * The grace period its stops give it (GCM_LOBBY_STOP_GRACE). An orchestrator that fixes it when the lobby
   * starts (swarm) uses this one; the docker driver takes stop's.
   */
  stopGraceSeconds?: number;
}

export type LobbyRunState = 'running' | 'exited';

/** One lobby the orchestrator knows, as `list` sees it. */
export interface RunningLobby {
  /** The orchestrator's own id (a container id for docker). */
  handle: string;
  region: string;
  labels: LobbyLabels;
  state: LobbyRunState;
  exitCode?: number;
  oomKilled?: boolean;
  /** Why an exited lobby ended when the orchestrator knows better than its exit code: `node-lost`. */
  reason?: string;
  /** The address players reach it by, when the orchestrator places it on a machine of its choice (swarm). */
  address?: string;
}

export type RuntimeEvent =
  | { type: 'started'; handle: string; region: string; labels: LobbyLabels; address?: string }
  | {
      type: 'exited';
      handle: string;
      region: string;
      labels: LobbyLabels;
      exitCode: number;
      oomKilled: boolean;
    }
  /** The orchestrator forgot it (`removed`), or lost it with its machine (`node-lost`): no exit code is known. */
  | { type: 'gone'; handle: string; region: string; labels: LobbyLabels; reason: string };

export interface OutputLine {
  stream: 'stdout' | 'stderr';
  /** Milliseconds since the epoch, the orchestrator's own timestamp. */
  ts: number;
  /**
   * The line's bytes as printed (any bytes, not only UTF-8), without its newline; at most 16 KiB: a longer
   * line is cut and ends with the contract's LINE_CUT_MARK.
   */
  bytes: Buffer;
}

export interface LobbyStats {
  /**
   * CPU in use over the moment before the sample (the orchestrator's own two reads), in billionths of a
   * core: a figure for a lobby's first sample. Later ones are the rate between two samples' `cpuUsageNs`.
   */
  nanoCpus: number;
  /** CPU time the lobby has used since it started, in nanoseconds, when the orchestrator tells it. */
  cpuUsageNs?: number;
  /** When the orchestrator read the sample, milliseconds since the epoch. */
  readMs?: number;
  memoryBytes: number;
  memoryLimitBytes: number;
  rxBytes: number;
  txBytes: number;
}

/** A region's host: where lobbies of that region run, and how many it takes. */
export interface RuntimeHost {
  /** Stable id of the host (for docker, its DOCKER_HOST); capacity is counted per host. */
  id: string;
  regions: readonly string[];
  capacity: number;
  /**
   * Why the host cannot run lobbies now, in words for the studio ("no ready node is labelled
   * gcm.region=eu"); undefined when it can, or when the driver does not know yet (before its first read).
   */
  problem?: string;
}

/**
 * One machine lobbies run on, as the orchestrator reports it: an engine of the `docker` driver, a node of the
 * swarm. The operator's view (GET /cloud/admin/runtime, `gcm-server runtime status`) lists them by region.
 */
export interface RuntimeNode {
  /** The orchestrator's id of the machine (the DOCKER_HOST of a docker engine, a swarm node id). */
  id: string;
  /** Its host name, as the engine reports it. */
  name: string;
  /** Where it is reached: the engine's DOCKER_HOST, a node's address in the swarm. */
  address: string;
  /** The regions whose lobbies it runs (a swarm node's `gcm.region` label; none: it runs no lobby). */
  regions: readonly string[];
  role: 'engine' | 'manager' | 'worker';
  /** ready: it takes lobbies; down: it does not answer (or the swarm lost it); unknown: not told yet. */
  state: 'ready' | 'down' | 'unknown';
  /** Whether the orchestrator places new lobbies there (drain: it also moves the running ones off). */
  availability: 'active' | 'pause' | 'drain';
  /** The machine's CPU and memory, as its engine reports them (0 when it does not answer). */
  nanoCpus: number;
  memoryBytes: number;
  /** Lobbies most it takes (GCM_RUNTIME_MAX_LOBBIES_PER_HOST). */
  capacity: number;
  /** This service's lobbies the orchestrator runs there now. */
  lobbies: number;
  /**
   * Those lobbies by region, when the machine serves several (an engine of the docker driver may); absent:
   * they are all of its regions' (the operator's view then counts them in each).
   */
  lobbiesByRegion?: Readonly<Record<string, number>>;
  engineVersion?: string;
  /** Why it is down or not ready, in the orchestrator's words. */
  message?: string;
  /** What its engine's disk holds, when the driver reaches that engine (the docker driver's, the manager's). */
  disk?: EngineDisk;
}

/**
 * An engine's disk as the engine itself counts it (GET /system/df), and the part of it that is build images
 * this service loaded there, which the image garbage collector keeps within GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES.
 */
export interface EngineDisk {
  /** Every image's layers, shared layers once (the engine's LayersSize). */
  imagesBytes: number;
  /** What containers wrote on top of their images. */
  containersBytes: number;
  buildCacheBytes: number;
  volumesBytes: number;
  /** Build images this service loaded there and keeps (its own tags say so). */
  serviceImages: number;
  /** Their sizes summed (each image whole: layers they share are counted in each). */
  serviceImagesBytes: number;
  /** GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES, when set: past it, no further build is loaded there. */
  budgetBytes?: number;
}

/** What one garbage collection did on one host's engine. */
export interface ImageCollection {
  hostId: string;
  /** Images removed from the engine, and the bytes they held (each image's size). */
  removed: number;
  freedBytes: number;
  /** Images no version needs that stay: a container still uses them, or another party tagged them too. */
  kept: number;
  /** The engine did not answer: nothing was removed there. */
  problem?: string;
  /** Nothing failed, but something stays that the operator may want gone (a registry that refuses deletes). */
  note?: string;
  /**
   * The entry is a registry's (the swarm's build repository): `removed` counts manifests deleted, `freedBytes`
   * is 0 (the registry frees blobs only in its own garbage-collect), and no engine's disk changed.
   */
  registry?: true;
}

export interface Subscription {
  close(): void;
}

export interface RuntimeDriver {
  readonly kind: 'docker' | 'swarm' | 'agones';
  hosts(): readonly RuntimeHost[];
  /** Every machine lobbies may run on, with how many of the lobbies carrying `labels` run there. */
  nodes(labels: LobbyLabels): Promise<RuntimeNode[]>;
  /**
   * Makes the archive's image present where the region's lobbies run, once per host (later calls answer
   * from what is loaded). Checks size and sha256 while streaming; answers the reference to start it by.
   * Throws ImageLoadError when the archive is not the build or not a loadable image.
   */
  ensureImage(region: string, archive: ImageArchive): Promise<{ image: string }>;
  /**
   * Creates and starts the lobby; answers the handle. Throws when the host refuses. `onCreated` is told the
   * handle once the lobby exists and before it runs, so a lobby that calls back at once (ready, players)
   * already has its handle on record; when `onCreated` throws, nothing stays behind and start throws it.
   */
  start(spec: LobbySpec, onCreated?: (handle: string) => Promise<void>): Promise<{ handle: string }>;
  /**
   * SIGTERM, then SIGKILL after graceSeconds; answers once it has exited (or was already gone), and removes
   * it. Idempotent. It removes the lobby only once every `output` follower of it has read to the end (or
   * after a few seconds), so what a server prints while it stops is captured.
   */
  stop(region: string, handle: string, graceSeconds: number): Promise<void>;
  /** Every lobby carrying all of `labels`, running or exited-but-not-removed, on every host. */
  list(labels: LobbyLabels): Promise<RunningLobby[]>;
  /**
   * Events of lobbies carrying all of `labels`, from now on, on every host. A dropped connection to a host
   * is retried; the reconciler's periodic pass covers what happened while it was down.
   */
  events(labels: LobbyLabels, onEvent: (event: RuntimeEvent) => void): Subscription;
  /**
   * The lobby's output, from its start (or `sinceMs`), followed until it exits when `follow`: in batches (the
   * lines each read from the engine finished, never empty), because a lobby that floods its output sends
   * hundreds of thousands of lines a second and a promise per line would cost the service's event loop more
   * than the lines.
   */
  output(
    region: string,
    handle: string,
    options: { follow: boolean; sinceMs?: number; signal?: AbortSignal },
  ): AsyncIterable<OutputLine[]>;
  stats(region: string, handle: string): Promise<LobbyStats | undefined>;
  /**
   * Removes, on every host, the build images this service loaded whose archive sha256 is not in `keep`:
   * with the tags their archives brought, never an image (or tag) the service cannot prove it made. An
   * image ensured in the last `graceMs`, or used by a container, stays. Answers what it did per host.
   */
  collectImages(keep: ReadonlySet<string>, options: { graceMs: number }): Promise<ImageCollection[]>;
  close(): Promise<void>;
}

/**
 * The host already holds GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES of this service's build images: the archive is
 * not loaded (it is the host that is full, not the archive that is wrong).
 */
export class ImageBudgetError extends Error {
  override readonly name = 'ImageBudgetError';
}

/** The archive is not the build it claims to be, or not an image the orchestrator can load. */
export class ImageLoadError extends Error {
  override readonly name = 'ImageLoadError';
}
