import type { Deps, LobbyPlacementRequest, LobbyPlacementResult, LobbyRuntime } from '../../deps.js';
import { Slots } from '../../lib/slots.js';
import {
  ImageBudgetError,
  type ImageCollection,
  ImageLoadError,
  LOBBY_LABELS,
  type RunningLobby,
  type RuntimeDriver,
  type RuntimeEvent,
  type RuntimeHost,
  type RuntimeNode,
  type Subscription,
} from '../../runtime/driver.js';
import { archiveDigestsOf, findBuildArchive, hashBuildArchive } from '../builds/builds.service.js';
import { recordRuntimeStop, tellCreated } from '../lobby-logs/lobby-logs.service.js';
import { requestStop } from './lobby-control.repository.js';
import { findLatest } from './lobby-resources.repository.js';
import { ResourceSampler } from './resource-sampler.js';
import * as repo from './runtime.repository.js';
import {
  buildsOfVersion,
  failedByReason,
  limitsOf,
  namespaceConfig,
  placeLobby,
  type Wish,
  wishesOf,
} from './runtime.service.js';

type Log = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void;

/** The output capture as the reconciler drives it: told of every lobby that runs, stopped with the lease. */
export interface OutputFollower {
  /** Resolves once the lobby's log is being read (an exited lobby may then be removed). */
  follow(lobby: { namespaceId: string; lobbyId: string; region: string; handle: string }): Promise<void>;
  stopAll(): Promise<void>;
  close(): Promise<void>;
}

/** Containers started at once by one pass: the engine serializes much of the work anyway. */
const START_CONCURRENCY = 8;
/** After a build failed to load on a host, no lobby of it starts there for this long, doubling to the cap. */
const IMAGE_BACKOFF_MS = 60_000;
const IMAGE_BACKOFF_MAX_MS = 3_600_000;
/** How long a stop waits for the engine's exit event, which carries the exit code, after the stop answered. */
const EXIT_EVENT_WAIT_MS = 3_000;
/** A wake is a pass this soon: wakes that arrive meanwhile share it. */
const WAKE_DELAY_MS = 20;

const keyOf = (namespaceId: string, lobbyId: string) => `${namespaceId} ${lobbyId}`;
const labelKey = (labels: Readonly<Record<string, string>>) => {
  const ns = labels[LOBBY_LABELS.namespace];
  const lobby = labels[LOBBY_LABELS.lobby];
  return ns === undefined || lobby === undefined ? undefined : keyOf(ns, lobby);
};

/**
 * Makes what runs match what each namespace's version asks (docs/runtime.md "The reconciler"): a pass reads
 * every live lobby row and every container carrying this service's owner label, settles the difference
 * (containers no row knows are stopped, rows whose container is gone are recorded stopped), applies ready
 * timeouts and rollouts, stops what was asked to stop, and starts lobbies until each game mode × region has
 * idle_lobbies.min idle or starting, within lobby_count_max and each host's capacity. A second pass with
 * nothing changed starts and stops nothing. Passes run one at a time in this process and, on PostgreSQL,
 * only while this instance holds the reconciler's job lease.
 */
export class Reconciler implements LobbyRuntime {
  readonly kind: 'docker' | 'swarm';
  private subscription: Subscription | undefined;
  private chain: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Images loading, per host and build: concurrent starts share one load. */
  private readonly images = new Map<string, Promise<string>>();
  /**
   * Images loaded, per host and build, as recorded in runtime_images. A start still asks the driver each
   * time, which checks the image is there: the image collector (this instance's or another's) may have
   * removed it since.
   */
  private readonly loaded = new Map<string, string>();
  /** Builds whose archive digest is not recorded yet: their lobbies wait for it (a pass is woken then). */
  private readonly awaitingDigest = new Set<string>();
  private readonly imageBackoff = new Map<
    string,
    { until: number; delayMs: number; reason: string; budget: boolean }
  >();
  /** Exit codes the engine reported, per handle, for a stop that waits for its code. */
  private readonly exits = new Map<string, number>();
  private readonly exitWaiters = new Map<string, () => void>();
  /** Events being recorded: stop() waits for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly startSlots = new Slots(START_CONCURRENCY);
  /** Each running lobby's resource use, read from the engine under the same lease as the passes. */
  readonly sampler: ResourceSampler;

  constructor(
    private readonly deps: Deps,
    private readonly driver: RuntimeDriver,
    private readonly options: {
      /** This service's owner label value (runtime.service.ts ownerOf). */
      owner: string;
      /** Takes or renews the reconciler's job lease; false while another instance holds it. */
      lease: () => Promise<boolean>;
      log: Log;
      /** Captures what lobbies print (modules/lobby-output), on the instance that holds the lease. */
      output?: OutputFollower;
    },
  ) {
    this.kind = driver.kind === 'swarm' ? 'swarm' : 'docker';
    this.sampler = new ResourceSampler(deps, driver, { lease: options.lease, log: options.log });
  }

  /** Follows the engine's events: an exit is recorded at once and wakes a pass. */
  start(): void {
    this.subscription = this.driver.events({ [LOBBY_LABELS.owner]: this.options.owner }, (event) => {
      const handling = this.onEvent(event).catch((err: unknown) =>
        this.options.log('error', { err, event: event.type }, 'recording a runtime event failed'),
      );
      this.inFlight.add(handling);
      void handling.finally(() => this.inFlight.delete(handling));
    });
    this.sampler.start();
  }

  /** The machines lobbies run on, with this service's lobbies there (the operator's view). */
  nodes(): Promise<RuntimeNode[]> {
    return this.driver.nodes({ [LOBBY_LABELS.owner]: this.options.owner });
  }

  wake(_namespaceId?: string): void {
    // One pass covers every namespace: a pass per namespace would read the same containers again.
    if (this.closed || this.wakeTimer !== undefined) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.pass().catch((err: unknown) => this.options.log('error', { err }, 'a reconciler pass failed'));
    }, WAKE_DELAY_MS);
  }

  /**
   * A lobby for players, now (find's auto-create, create): placed like a pass places one (lobby_count_max,
   * the host's capacity, its ports, under the placement lock), with the player's slot in the same
   * transaction, then started by this instance at once, not at the next pass (which may be another
   * instance's on PostgreSQL). A start that fails records the lobby stopped and failed, which its waiting
   * player reads. Its row has no handle until its container is created, which a pass leaves alone.
   */
  async placeNow(request: LobbyPlacementRequest): Promise<LobbyPlacementResult> {
    if (this.closed) return { placed: false, why: 'no-runtime' };
    const ns = await namespaceConfig(this.deps, request.namespaceId);
    const base =
      ns === undefined
        ? undefined
        : wishesOf(ns, this.regions()).find(
            (w) => w.gameMode === request.gameMode && w.region === request.region,
          );
    const host = this.hostOf(request.region);
    if (ns === undefined || base === undefined || host === undefined)
      return { placed: false, why: 'not-run' };
    const backoff = this.imageBackoff.get(`${host.id} ${base.buildId}`);
    if (backoff !== undefined && this.deps.clock.now() < backoff.until)
      return { placed: false, why: 'image' };
    const max = request.maxPlayers;
    const wish: Wish =
      max === undefined
        ? base
        : {
            ...base,
            maxPlayers: {
              normal: Math.min(max, base.maxPlayers.normal),
              direct: Math.min(max, base.maxPlayers.direct),
              party: Math.min(max, base.maxPlayers.party),
            },
          };
    const placed = await placeLobby(this.deps, wish, host, ns.mm_lobby_count_max, this.options.owner, {
      ...(request.publicity === undefined ? {} : { publicity: request.publicity }),
      tagsJson: request.tagsJson ?? null,
      lobbyConfigJson: request.lobbyConfigJson ?? null,
      within: request.within,
    });
    if (!placed.placed) return placed;
    const starting = this.startPlaced(wish, host, placed.row, placed.spec).catch((err: unknown) =>
      this.options.log(
        'error',
        { err, lobby_id: placed.row.lobby_id },
        'starting a lobby for players failed',
      ),
    );
    this.inFlight.add(starting);
    void starting.finally(() => this.inFlight.delete(starting));
    return { placed: true, lobbyId: placed.row.lobby_id };
  }

  /**
   * Starts a lobby placeNow placed. A build whose archive digest is not recorded yet (a large upload is
   * hashed in the background, and builds from before digests were recorded have none) is hashed first,
   * joining a hashing already under way: a pass skips such a build until its digest is in, but this lobby
   * has a player waiting, whose ready wait bounds the answer meanwhile. The wait is outside the start slots,
   * so a long hash does not hold back other lobbies' starts; a hash that fails (the file gone) fails the
   * lobby as a load would.
   */
  private async startPlaced(
    wish: Wish,
    host: RuntimeHost,
    row: repo.NewRuntimeLobby,
    spec: Omit<Parameters<RuntimeDriver['start']>[0], 'image'>,
  ): Promise<void> {
    const imageKey = `${host.id} ${wish.buildId}`;
    if (!this.loaded.has(imageKey)) {
      try {
        const archive = await findBuildArchive(this.deps, wish.gameId, wish.buildId);
        if (archive?.sha256 === null) {
          await hashBuildArchive(this.deps, wish.gameId, wish.buildId);
          // A hash longer than the lobby's ready timeout: the pass has ended the row, so nothing starts.
          const live = await repo.findLiveLobby(this.deps.db, wish.namespaceId, row.lobby_id);
          if (live?.run_state !== 'starting') return;
        }
      } catch (err) {
        await this.failPlaced(wish, row, this.noteImageFailure(imageKey, err));
        return;
      }
    }
    await this.startSlots.run(async () => {
      let image: string;
      try {
        image = await this.ensureImage(wish, host);
        this.imageBackoff.delete(imageKey);
      } catch (err) {
        await this.failPlaced(wish, row, this.noteImageFailure(imageKey, err));
        return;
      }
      await this.launch(wish, row, { ...spec, image });
    });
  }

  /**
   * A build that failed to load on a host: no lobby of it starts there (a pass's nor find's, which says
   * `image`) until the back-off ends, so a bad build is not a stream of failing lobbies. Answers the stop
   * reason of the lobby that says why.
   */
  private noteImageFailure(imageKey: string, err: unknown): string {
    const reason = `image: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
    this.images.delete(imageKey);
    this.loaded.delete(imageKey);
    const now = this.deps.clock.now();
    const backoff = this.imageBackoff.get(imageKey);
    // Starts that shared the failed load (a pass's and a find's) double the back-off once, not each.
    if (backoff !== undefined && now < backoff.until) return reason;
    const delayMs = Math.min((backoff?.delayMs ?? IMAGE_BACKOFF_MS / 2) * 2, IMAGE_BACKOFF_MAX_MS);
    this.imageBackoff.set(imageKey, {
      until: now + delayMs,
      delayMs,
      reason,
      budget: err instanceof ImageBudgetError,
    });
    return reason;
  }

  /** Records a placed lobby that gets no container stopped and failed (its lobby.created, then lobby.failed). */
  private async failPlaced(wish: Wish, placed: repo.NewRuntimeLobby, reason: string): Promise<void> {
    await requestStop(this.deps.db, wish.namespaceId, placed.lobby_id, this.deps.clock.now(), reason);
    await tellCreated(this.deps, wish.gameId, placed);
    const row = await repo.findLiveLobby(this.deps.db, wish.namespaceId, placed.lobby_id);
    if (row !== undefined) await this.recordStop(row, { exitCode: null, failed: true, reason }, wish.gameId);
  }

  /** A pass soon after any already running: calls while one waits share it. */
  pass(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    const next = this.chain.then(() => {
      this.queued = undefined;
      return this.closed ? undefined : this.runPass();
    });
    this.queued = next;
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Stops following events and waits for the pass in progress; what runs keeps running (a restart adopts it). */
  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.wakeTimer);
    this.subscription?.close();
    await this.sampler.stop();
    await this.chain;
    await Promise.all([...this.inFlight]);
    await this.options.output?.close();
    await this.driver.close();
  }

  regionProblems(): Readonly<Record<string, string>> {
    const problems: Record<string, string> = {};
    for (const region of this.deps.config.regions) {
      const problem = this.hostOf(region)?.problem;
      if (problem !== undefined) problems[region] = problem;
    }
    return problems;
  }

  private hostOf(region: string): RuntimeHost | undefined {
    return this.driver.hosts().find((host) => host.regions.includes(region));
  }

  /**
   * Records where players reach the lobby, when the orchestrator chose its machine (swarm) and that is not on
   * record yet: a lobby may call ready before the event that says where it runs is read, and the players it
   * is ready for need the address.
   */
  async locate(namespaceId: string, lobbyId: string): Promise<void> {
    if (this.driver.kind !== 'swarm') return;
    const row = await repo.findLiveLobby(this.deps.db, namespaceId, lobbyId);
    if (row === undefined || row.public_host !== null) return;
    try {
      const [lobby] = await this.driver.list({
        [LOBBY_LABELS.owner]: this.options.owner,
        [LOBBY_LABELS.lobby]: lobbyId,
      });
      if (lobby?.address !== undefined) {
        await repo.recordPublicHost(this.deps.db, namespaceId, lobbyId, lobby.address);
      }
    } catch (err) {
      // The lobby is ready all the same; its started event or the next pass records the address.
      this.options.log('warn', { err, lobby_id: lobbyId }, 'asking the swarm where a lobby runs failed');
    }
  }

  private async onEvent(event: RuntimeEvent): Promise<void> {
    if (event.type === 'started') {
      const namespaceId = event.labels[LOBBY_LABELS.namespace];
      const lobbyId = event.labels[LOBBY_LABELS.lobby];
      if (event.address !== undefined && namespaceId !== undefined && lobbyId !== undefined) {
        await repo.recordPublicHost(this.deps.db, namespaceId, lobbyId, event.address);
      }
      return;
    }
    if (event.type === 'exited') {
      this.exits.set(event.handle, event.exitCode);
      this.exitWaiters.get(event.handle)?.();
    }
    const namespaceId = event.labels[LOBBY_LABELS.namespace];
    const lobbyId = event.labels[LOBBY_LABELS.lobby];
    if (namespaceId === undefined || lobbyId === undefined) return;
    const row = await repo.findLiveLobby(this.deps.db, namespaceId, lobbyId);
    if (row === undefined || (row.runtime_handle !== null && row.runtime_handle !== event.handle)) return;
    const asked = row.run_state === 'stopping';
    if (event.type === 'exited') {
      const recorded = await this.recordStop(row, {
        exitCode: event.exitCode,
        failed: asked ? failedByReason(row.stop_reason) : event.exitCode !== 0 || event.oomKilled,
        reason: event.oomKilled ? 'out-of-memory' : 'exited',
      });
      if (recorded && event.oomKilled) await this.warnOutOfMemory(row, event.exitCode);
      // Exited is not removed: the pass removes what no live row knows, but this one is known to be done.
      if (!asked) await this.driver.stop(event.region, event.handle, 0);
    } else {
      await this.recordStop(row, {
        exitCode: this.exits.get(event.handle) ?? null,
        failed: asked ? failedByReason(row.stop_reason) : true,
        // A machine the orchestrator lost took the lobby with it (swarm); otherwise it was removed by someone.
        reason: event.reason === 'node-lost' ? 'node-lost' : 'lost',
      });
    }
    this.wake(namespaceId);
  }

  private async followOutput(namespaceId: string, lobbyId: string, c: { region: string; handle: string }) {
    await this.options.output
      ?.follow({ namespaceId, lobbyId, region: c.region, handle: c.handle })
      .catch((err: unknown) =>
        this.options.log('warn', { err, lobby_id: lobbyId }, 'capturing output failed'),
      );
  }

  private async recordStop(
    row: repo.LobbyRow,
    stop: { exitCode: number | null; failed: boolean; reason: string },
    gameId?: string,
  ): Promise<boolean> {
    const game =
      gameId ?? (await repo.gamesOfNamespaces(this.deps.db, [row.namespace_id])).get(row.namespace_id);
    if (game === undefined) return false;
    const recorded = await recordRuntimeStop(this.deps, game, row, { ts: this.deps.clock.now(), ...stop });
    if (recorded && stop.failed) {
      this.options.log(
        'warn',
        { lobby_id: row.lobby_id, namespace_id: row.namespace_id, exit_code: stop.exitCode },
        `lobby failed: ${row.stop_reason ?? stop.reason}`,
      );
    }
    return recorded;
  }

  /**
   * The operator's line for a lobby the kernel killed for its memory (the engine's OOM flag): the limit it
   * ran into is the one the sampler last read from the engine, else its tier's.
   */
  private async warnOutOfMemory(row: repo.LobbyRow, exitCode: number | null): Promise<void> {
    let limit =
      this.sampler.latest(row.namespace_id, row.lobby_id)?.memory_limit_bytes ??
      (await findLatest(this.deps.db, row.namespace_id, row.lobby_id))?.memory_limit_bytes;
    if (limit === undefined) {
      const ns = await namespaceConfig(this.deps, row.namespace_id);
      const wish =
        ns === undefined
          ? undefined
          : wishesOf(ns, this.regions()).find(
              (w) => w.gameMode === row.lobby_group_name_id && w.region === row.region_id,
            );
      if (wish !== undefined) limit = limitsOf(wish.tier).memoryBytes;
    }
    this.options.log(
      'warn',
      {
        lobby_id: row.lobby_id,
        namespace_id: row.namespace_id,
        memory_limit_bytes: limit ?? null,
        exit_code: exitCode,
      },
      `lobby killed for exceeding its memory limit${limit === undefined ? '' : ` of ${limit} bytes`}`,
    );
  }

  private async runPass(): Promise<void> {
    if (!(await this.options.lease())) {
      // Another instance acts now, and captures output: two captures of one lobby would store it twice.
      await this.options.output?.stopAll();
      return;
    }
    const { db, clock } = this.deps;
    const now = clock.now();
    const containers = await this.driver.list({ [LOBBY_LABELS.owner]: this.options.owner });
    let rows = await repo.liveLobbies(db);
    const wishes = await repo.namespaceWishes(db);
    const namespaces = new Map(wishes.map((w) => [w.namespace_id, w]));
    const games = new Map(wishes.map((w) => [w.namespace_id, w.game_id]));
    const orphans = [...new Set(rows.map((r) => r.namespace_id))].filter((ns) => !games.has(ns));
    for (const [ns, game] of await repo.gamesOfNamespaces(db, orphans)) games.set(ns, game);
    const gameOf = (row: repo.LobbyRow) => games.get(row.namespace_id);

    // 1. What runs against what the rows say.
    const byKey = new Map(rows.map((r) => [keyOf(r.namespace_id, r.lobby_id), r]));
    const running = new Map<string, RunningLobby>();
    const removals: Promise<void>[] = [];
    for (const c of containers) {
      const key = labelKey(c.labels);
      const row = key === undefined ? undefined : byKey.get(key);
      if (row === undefined) {
        // No live row knows it: a lobby recorded stopped, or a row purged with its namespace.
        removals.push(this.driver.stop(c.region, c.handle, this.graceSeconds()));
        continue;
      }
      // Every lobby that runs (or exited and is not removed yet) is captured; an exited one is read to the end
      // before its removal, which waits for this reader.
      await this.followOutput(row.namespace_id, row.lobby_id, c);
      if (c.state === 'exited') {
        // It ended while no event reached us (the service was down).
        const asked = row.run_state === 'stopping';
        const recorded = await this.recordStop(
          row,
          {
            exitCode: c.exitCode ?? null,
            failed: asked ? failedByReason(row.stop_reason) : (c.exitCode ?? 1) !== 0 || c.oomKilled === true,
            reason: c.reason ?? (c.oomKilled === true ? 'out-of-memory' : 'exited'),
          },
          gameOf(row),
        );
        if (recorded && c.oomKilled === true) await this.warnOutOfMemory(row, c.exitCode ?? null);
        removals.push(this.driver.stop(c.region, c.handle, 0));
        continue;
      }
      running.set(key as string, c);
      if (c.address !== undefined && row.public_host !== c.address) {
        await repo.recordPublicHost(db, row.namespace_id, row.lobby_id, c.address);
      }
      if (row.runtime_handle === null) {
        // Started, but the service stopped before it wrote the handle down: adopt it.
        await repo.recordStarted(db, row.namespace_id, row.lobby_id, c.handle, now);
        row.runtime_handle = c.handle;
      }
    }
    const missing: repo.LobbyRow[] = [];
    for (const row of rows) {
      const key = keyOf(row.namespace_id, row.lobby_id);
      // A row with no handle and no container never got its container (the service stopped in between):
      // its ready timeout ends it. One with a handle had a container, which the engine no longer has.
      if (running.has(key) || row.runtime_handle === null || row.run_state === 'stopping') continue;
      if (containers.some((c) => labelKey(c.labels) === key)) continue;
      missing.push(row);
    }
    if (missing.length > 0) {
      // The rows were read after the containers were listed, so a lobby created in between has its handle
      // but was not listed: only one missing from a list taken after the rows is lost.
      const listedAfter = new Set(
        (await this.driver.list({ [LOBBY_LABELS.owner]: this.options.owner })).map((c) => labelKey(c.labels)),
      );
      for (const row of missing) {
        if (listedAfter.has(keyOf(row.namespace_id, row.lobby_id))) continue;
        await requestStop(db, row.namespace_id, row.lobby_id, now, 'lost');
      }
    }

    // 2. Timeouts, rollouts, namespaces gone.
    for (const row of rows) {
      if (row.run_state !== 'starting' && row.run_state !== 'ready') continue;
      const ns = namespaces.get(row.namespace_id);
      const busy = row.run_state === 'ready' && ((row.player_count ?? 0) > 0 || row.is_closed === 1);
      let reason: string | undefined;
      if (ns === undefined) reason = 'namespace-deleted';
      else if (row.run_state === 'starting' && (row.ready_deadline_ts ?? Number.POSITIVE_INFINITY) <= now) {
        reason = 'ready-timeout';
      } else if (row.version_id !== ns.version_id) {
        if (!busy) reason = 'rollout';
        else {
          // The drain counts from the first pass that found it draining, not from the namespace's update_ts,
          // which any later edit of the namespace moves.
          let since = row.drain_started_ts;
          if (since === null) {
            since = now;
            await repo.setDrainStart(db, row.namespace_id, row.lobby_id, now);
          }
          if (now >= since + this.deps.config.runtime.drainTimeoutMs) reason = 'drain-timeout';
        }
      } else if (row.drain_started_ts !== null) {
        // Its version is the namespace's again (a switch back): a later rollout starts a new drain.
        await repo.setDrainStart(db, row.namespace_id, row.lobby_id, null);
      }
      if (reason !== undefined) await requestStop(db, row.namespace_id, row.lobby_id, now, reason);
    }

    // 3. Surplus idle lobbies, newest first: the oldest have shown they run.
    rows = await repo.liveLobbies(db);
    const wanted = wishes.flatMap((ns) => wishesOf(ns, this.regions()));
    for (const wish of wanted) {
      const idle = this.groupOf(rows, wish)
        .filter((r) => r.run_state === 'ready' && (r.player_count ?? 0) === 0 && r.is_closed !== 1)
        .sort((a, b) => b.create_ts - a.create_ts || (a.lobby_id < b.lobby_id ? 1 : -1));
      for (const row of idle.slice(0, Math.max(0, idle.length - wish.idle.max))) {
        await requestStop(db, row.namespace_id, row.lobby_id, now, 'idle-surplus');
      }
    }

    // 4. Everything asked to stop.
    rows = await repo.liveLobbies(db);
    await Promise.all(
      rows
        .filter((r) => r.run_state === 'stopping')
        .map((row) => this.stopLobby(row, running.get(keyOf(row.namespace_id, row.lobby_id)), gameOf(row))),
    );
    await Promise.all(removals.map((p) => p.catch((err: unknown) => this.warnRemoval(err))));

    // 5. Starts, up to each min.
    rows = await repo.liveLobbies(db);
    const starts: Promise<void>[] = [];
    for (const wish of wanted) {
      const group = this.groupOf(rows, wish);
      const idle = group.filter(
        (r) => r.run_state === 'ready' && (r.player_count ?? 0) === 0 && r.is_closed !== 1,
      ).length;
      const starting = group.filter((r) => r.run_state === 'starting').length;
      const need = wish.idle.min - idle - starting;
      if (need <= 0) continue;
      const ns = namespaces.get(wish.namespaceId);
      if (ns === undefined) continue;
      await this.startLobbies(wish, need, ns.mm_lobby_count_max, starts);
    }
    await Promise.all(starts);
  }

  private groupOf(rows: readonly repo.LobbyRow[], wish: Wish): repo.LobbyRow[] {
    return rows.filter(
      (r) =>
        r.namespace_id === wish.namespaceId &&
        r.version_id === wish.versionId &&
        r.lobby_group_name_id === wish.gameMode &&
        r.region_id === wish.region,
    );
  }

  private regions(): string[] {
    const hosted = new Set(this.driver.hosts().flatMap((h) => h.regions));
    return this.deps.config.regions.filter((r) => hosted.has(r));
  }

  private graceSeconds(): number {
    return Math.ceil(this.deps.config.runtime.stopGraceMs / 1000);
  }

  private warnRemoval(err: unknown): void {
    this.options.log('warn', { err }, 'removing a container failed; the next pass tries again');
  }

  /** SIGTERM, SIGKILL after the grace period, then the row's stop with the exit code the engine reported. */
  private async stopLobby(
    row: repo.LobbyRow,
    container: RunningLobby | undefined,
    gameId: string | undefined,
  ): Promise<void> {
    const handle = row.runtime_handle;
    if (container !== undefined && handle !== null) {
      const exited = this.exitOf(handle);
      try {
        await this.driver.stop(container.region, handle, this.graceSeconds());
      } catch (err) {
        this.warnRemoval(err);
        return;
      }
      await exited;
    }
    await this.recordStop(
      row,
      {
        exitCode: handle === null ? null : (this.exits.get(handle) ?? null),
        failed: failedByReason(row.stop_reason),
        reason: row.stop_reason ?? 'stopped',
      },
      gameId,
    );
  }

  /** Resolves once the engine reported `handle`'s exit, or after EXIT_EVENT_WAIT_MS. */
  private exitOf(handle: string): Promise<void> {
    if (this.exits.has(handle)) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, EXIT_EVENT_WAIT_MS);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.exitWaiters.delete(handle);
        resolve();
      }
      this.exitWaiters.set(handle, done);
    });
  }

  private async startLobbies(
    wish: Wish,
    need: number,
    lobbyCountMax: number,
    starts: Promise<void>[],
  ): Promise<void> {
    const host = this.hostOf(wish.region);
    if (host === undefined) return;
    const imageKey = `${host.id} ${wish.buildId}`;
    const backoff = this.imageBackoff.get(imageKey);
    if (backoff !== undefined && this.deps.clock.now() < backoff.until) return;
    if (!this.loaded.has(imageKey) && !(await this.digestRecorded(wish))) return;
    let image: string;
    try {
      image = await this.ensureImage(wish, host);
      this.imageBackoff.delete(imageKey);
    } catch (err) {
      const reason = this.noteImageFailure(imageKey, err);
      // One lobby says why in the log (and its lobby.failed webhook); none of this build starts until the
      // back-off ends.
      const placed = await placeLobby(this.deps, wish, host, lobbyCountMax, this.options.owner);
      if (placed.placed) await this.failPlaced(wish, placed.row, reason);
      if (!(err instanceof ImageLoadError)) {
        this.options.log('warn', { err, build_id: wish.buildId, host: host.id }, 'loading a build failed');
      }
      return;
    }
    for (let i = 0; i < need; i++) {
      const placed = await placeLobby(this.deps, wish, host, lobbyCountMax, this.options.owner);
      if (!placed.placed) return;
      starts.push(this.startSlots.run(() => this.launch(wish, placed.row, { ...placed.spec, image })));
    }
  }

  private async launch(
    wish: Wish,
    row: repo.NewRuntimeLobby,
    spec: Parameters<RuntimeDriver['start']>[0],
  ): Promise<void> {
    await tellCreated(this.deps, wish.gameId, row);
    try {
      // Recorded before the container runs: a lobby may call ready within milliseconds, and whoever reads
      // it then (its output, its stop) needs the handle.
      const { handle } = await this.driver.start(spec, (handle) =>
        repo.recordStarted(this.deps.db, row.namespace_id, row.lobby_id, handle, this.deps.clock.now()),
      );
      await this.followOutput(row.namespace_id, row.lobby_id, { region: spec.region, handle });
    } catch (err) {
      const reason = `start: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
      this.options.log('warn', { err, lobby_id: row.lobby_id }, 'starting a lobby failed');
      const live = await repo.findLiveLobby(this.deps.db, row.namespace_id, row.lobby_id);
      if (live !== undefined)
        await this.recordStop(live, { exitCode: null, failed: true, reason }, wish.gameId);
    }
  }

  /**
   * Whether the build's archive digest is recorded, which its load is checked against. Completing a build
   * hashes it in the background; a build completed before digests were recorded (or whose hash was cut
   * short by a stop) is hashed now, once, by the builds module. Meanwhile its lobbies wait: none is placed,
   * the log says so once, and a pass is woken when the digest is in.
   */
  private async digestRecorded(wish: Wish): Promise<boolean> {
    const archive = await findBuildArchive(this.deps, wish.gameId, wish.buildId);
    // No such build: ensureImage says so, as a failed lobby.
    if (archive === undefined || archive.sha256 !== null) return true;
    if (!this.awaitingDigest.has(wish.buildId)) {
      this.awaitingDigest.add(wish.buildId);
      this.options.log(
        'info',
        { build_id: wish.buildId, namespace_id: wish.namespaceId },
        "waiting for the build's archive digest before loading it",
      );
      hashBuildArchive(this.deps, wish.gameId, wish.buildId)
        .then(
          () => this.wake(wish.namespaceId),
          // Not woken: the periodic pass tries again, so a store that fails is not read in a loop.
          (err: unknown) =>
            this.options.log('warn', { err, build_id: wish.buildId }, "hashing a build's archive failed"),
        )
        .finally(() => this.awaitingDigest.delete(wish.buildId));
    }
    return false;
  }

  /**
   * Makes the build's image present on the host (the driver loads it once and answers later calls after a
   * check that it is still there); concurrent starts share one call.
   */
  private ensureImage(wish: Wish, host: RuntimeHost): Promise<string> {
    const key = `${host.id} ${wish.buildId}`;
    const inFlight = this.images.get(key);
    if (inFlight !== undefined) return inFlight;
    const loading = (async () => {
      const archive = await findBuildArchive(this.deps, wish.gameId, wish.buildId);
      if (archive === undefined) throw new ImageLoadError(`build ${wish.buildId} is not a completed build`);
      if (archive.sha256 === null)
        throw new Error(`build ${wish.buildId}'s archive digest is not recorded yet`);
      // The digest recorded when the upload completed: an archive changed in blob storage since is refused.
      const { image } = await this.driver.ensureImage(wish.region, {
        buildId: wish.buildId,
        size: archive.size,
        sha256: archive.sha256,
        open: archive.open,
      });
      if (this.loaded.get(key) !== image) {
        await repo.recordImage(this.deps.db, {
          host_id: host.id,
          build_id: wish.buildId,
          image,
          loaded_ts: this.deps.clock.now(),
        });
        this.loaded.set(key, image);
      }
      return image;
    })();
    this.images.set(key, loading);
    const settled = () => {
      if (this.images.get(key) === loading) this.images.delete(key);
    };
    loading.then(settled, settled);
    return loading;
  }

  /**
   * One pass of the image collector (docs/runtime.md "Build images"): every host's build images that no
   * live version needs are removed. Kept: each live namespace's current and previous version's builds, those
   * of every lobby that runs or is about to, and any a start asked for within GCM_RUNTIME_IMAGE_GC_GRACE.
   * Room freed ends the back-off of builds refused for the image budget.
   */
  async collectImages(): Promise<ImageCollection[]> {
    const { deps } = this;
    const versions = await repo.versionsInUse(deps.db);
    const keep = await archiveDigestsOf(
      deps,
      versions.flatMap((v) => buildsOfVersion(v.config_json, deps.config.regions)),
    );
    const done = await this.driver.collectImages(keep, { graceMs: deps.config.runtime.imageGcGraceMs });
    for (const host of done) {
      if (host.problem !== undefined) {
        this.options.log('warn', { host: host.hostId, err: host.problem }, 'collecting build images failed');
      } else if (host.note !== undefined) {
        this.options.log(
          'info',
          { host: host.hostId, removed: host.removed, kept: host.kept, note: host.note },
          'collecting build images left some behind',
        );
      } else if (host.removed > 0 || host.kept > 0) {
        this.options.log(
          'info',
          { host: host.hostId, removed: host.removed, freed_bytes: host.freedBytes, kept: host.kept },
          'removed build images no live version needs',
        );
      }
    }
    if (done.some((host) => host.removed > 0 && host.registry !== true)) {
      let cleared = false;
      for (const [key, backoff] of this.imageBackoff) {
        if (!backoff.budget) continue;
        this.imageBackoff.delete(key);
        cleared = true;
      }
      if (cleared) this.wake();
    }
    return done;
  }
}
