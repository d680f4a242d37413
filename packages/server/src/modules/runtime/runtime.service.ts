import { createHash } from 'node:crypto';
import {
  type ResolvedContainer,
  type ResolvedGameMode,
  resolveVersionConfig,
  runtimeTierOf,
  type VersionConfig,
} from '@gcm/contract';
import type { Db } from '../../db/open-db.js';
import type { Deps } from '../../deps.js';
import { newLobbyToken } from '../../identity/lobby-tokens.js';
import { newId } from '../../lib/ids.js';
import type { ReadCache } from '../../lib/read-cache.js';
import {
  LOBBY_LABELS,
  type LobbyLimits,
  type LobbyPort,
  type LobbySpec,
  type RuntimeHost,
} from '../../runtime/driver.js';
import { type HostTenant, placementVerdict } from './placement-shares.js';
import * as repo from './runtime.repository.js';

// What other modules and the jobs table use of the resource samples (the purge, the retention job).
export { deleteExpiredLobbyResources, purgeLobbyResourcesOf } from './lobby-resources.js';
export type { NamespaceWish } from './runtime.repository.js';
// The operator's view, for its route and `gcm-server runtime status`.
export { getRuntimeView, liveLobbiesByRegion, runtimeView } from './runtime-view.js';

/** What one game mode of a namespace's current version asks in one region. */
export interface Wish {
  namespaceId: string;
  gameId: string;
  versionId: string;
  gameMode: string;
  region: string;
  buildId: string;
  idle: { min: number; max: number };
  tier: string;
  container: ResolvedContainer;
  maxPlayers: { normal: number; direct: number; party: number };
}

/**
 * The game modes × regions a namespace's version runs: those whose container names a build (image_id), in
 * the regions of GCM_REGIONS the runtime has a host for. A config that no longer parses runs nothing.
 */
export function wishesOf(ns: repo.NamespaceWish, regions: readonly string[]): Wish[] {
  const gameModes = gameModesOf(ns, regions);
  const wishes: Wish[] = [];
  for (const [gameMode, gm] of Object.entries(gameModes)) {
    const buildId = gm.container?.image_id;
    if (gm.container === undefined || buildId === undefined || buildId === '') continue;
    for (const [region, settings] of Object.entries(gm.regions)) {
      if (!regions.includes(region)) continue;
      wishes.push({
        namespaceId: ns.namespace_id,
        gameId: ns.game_id,
        versionId: ns.version_id,
        gameMode,
        region,
        buildId,
        idle: settings.idle_lobbies,
        tier: settings.tier,
        container: gm.container,
        maxPlayers: { normal: gm.max_players, direct: gm.max_players_direct, party: gm.max_players_party },
      });
    }
  }
  return wishes;
}

/**
 * One live namespace of a live game with its current version's config (undefined when either is deleted):
 * the one read the reconciler, the matchmaker's regions and find share.
 */
export function namespaceConfig(deps: Deps, namespaceId: string): Promise<repo.NamespaceWish | undefined> {
  return wishCacheOf(deps).get(
    namespaceId,
    async () => (await repo.namespaceWishes(deps.db, namespaceId))[0],
  );
}

/** Namespace configs held at most (a find reads its namespace's on every request). */
const WISH_CACHE_ENTRIES = 10_000;
const wishCaches = new WeakMap<Deps['caches'], ReadCache<string, repo.NamespaceWish>>();

/**
 * The cache of namespace configs: a find read its namespace, game and version config from the store on every
 * request (on PostgreSQL a round trip of its own, beside the one statement that takes the slot). A namespace
 * row changes only through the namespaces module's writes, which invalidate it here (on a shared store,
 * other instances' writes arrive within cache-coherence's bound); a version's config never changes; a
 * game is retired with its namespaces.
 */
function wishCacheOf(deps: Deps): ReadCache<string, repo.NamespaceWish> {
  const known = wishCaches.get(deps.caches);
  if (known !== undefined) return known;
  const cache = deps.caches.newCache<string, repo.NamespaceWish>(WISH_CACHE_ENTRIES);
  deps.caches.listen({
    apply: (invalidation) => {
      if (invalidation.kind === 'namespace') cache.invalidate(invalidation.namespaceId);
      // A game's namespaces are not keyed by game here: a game retired (rare) drops them all.
      else if (invalidation.kind === 'game-namespaces') cache.clear();
    },
    clear: () => cache.clear(),
  });
  wishCaches.set(deps.caches, cache);
  return cache;
}

/** What the matchmaker reads of a version's config: its game modes (resolved) and its captcha. */
interface VersionView {
  gameModes: Record<string, ResolvedGameMode>;
  /** matchmaker.captcha as written (secrets included), or null. */
  captcha: unknown;
}

/** Views by version and region list: a version's config never changes, so each is parsed once. */
const viewByVersion = new Map<string, VersionView>();
const VIEW_CACHE_MAX = 1_000;

/**
 * A namespace's version config as the matchmaker reads it, resolved over `regions` (GCM_REGIONS); empty when
 * the config has no matchmaker or no longer parses. Cached per version id and region list: find reads it per
 * request.
 */
function versionView(ns: repo.NamespaceWish, regions: readonly string[]): VersionView {
  const key = `${ns.version_id} ${regions.join(',')}`;
  const known = viewByVersion.get(key);
  if (known !== undefined) return known;
  let view: VersionView = { gameModes: {}, captcha: null };
  try {
    const config = JSON.parse(ns.config_json) as VersionConfig;
    const resolved = resolveVersionConfig(config, { regions });
    view = {
      gameModes: 'matchmaker' in resolved ? resolved.matchmaker.game_modes : {},
      captcha: (config as { matchmaker?: { captcha?: unknown } }).matchmaker?.captcha ?? null,
    };
  } catch {
    // A config that no longer parses runs nothing and asks no captcha.
  }
  if (viewByVersion.size >= VIEW_CACHE_MAX) viewByVersion.clear();
  viewByVersion.set(key, view);
  return view;
}

/**
 * The builds a version's config names (every game mode's container image_id): the image collector keeps
 * their images. A config that no longer parses names none, as it runs none.
 */
export function buildsOfVersion(configJson: string, regions: readonly string[]): string[] {
  try {
    const resolved = resolveVersionConfig(JSON.parse(configJson) as VersionConfig, { regions });
    if (!('matchmaker' in resolved)) return [];
    return Object.values(resolved.matchmaker.game_modes).flatMap((gm) => {
      const build = gm.container?.image_id;
      return build === undefined || build === '' ? [] : [build];
    });
  } catch {
    return [];
  }
}

/** The game modes of a namespace's version config, resolved over `regions` (versionView). */
export function gameModesOf(
  ns: repo.NamespaceWish,
  regions: readonly string[],
): Record<string, ResolvedGameMode> {
  return versionView(ns, regions).gameModes;
}

/** The version config's matchmaker.captcha (secrets included), or null (versionView). */
export function captchaOf(ns: repo.NamespaceWish, regions: readonly string[]): unknown {
  return versionView(ns, regions).captcha;
}

/** A tier's CPU, memory and process limits; an unknown name (the validator refuses them) gets basic-1d1's. */
export function limitsOf(tierName: string): LobbyLimits {
  const tier = runtimeTierOf(tierName) ?? runtimeTierOf('basic-1d1');
  if (tier === undefined) throw new Error('the tier table has no basic-1d1');
  return {
    nanoCpus: Math.round(tier.cores * 1e9),
    memoryBytes: tier.memory_mib * 1024 * 1024,
    pids: tier.pids,
  };
}

/** `PORT_<label>`: the label upper-cased, dashes as underscores (what the validator reserves). */
export function envLabel(label: string): string {
  return label.toUpperCase().replace(/-/g, '_');
}

/** The ports JSON the lobby row keeps: what players connect to. */
interface StoredPort {
  name: string;
  protocol: 'tcp' | 'udp';
  port: number;
  port_end?: number;
}

function takenPorts(rows: readonly { ports: string | null }[]): Set<number> {
  const taken = new Set<number>();
  for (const row of rows) {
    if (row.ports === null) continue;
    for (const port of JSON.parse(row.ports) as StoredPort[]) {
      for (let p = port.port; p <= (port.port_end ?? port.port); p++) taken.add(p);
    }
  }
  return taken;
}

/**
 * Host ports for a lobby, none of them taken by the host's live lobbies. Host network mode: a free port of
 * the runtime's range per port (the server listens there), or a port_range's whole range, which is the
 * lobby's alone. Bridge: the config's port inside, published on a free port of the range. Undefined when
 * the host has no free port left.
 */
export function allocatePorts(
  container: ResolvedContainer,
  range: { min: number; max: number },
  taken: Set<number>,
): LobbyPort[] | undefined {
  const host = container.network_mode === 'host';
  const ports: LobbyPort[] = [];
  const free = () => {
    for (let p = range.min; p <= range.max; p++) if (!taken.has(p)) return p;
    return undefined;
  };
  for (const name of Object.keys(container.ports).sort()) {
    const config = container.ports[name];
    if (config === undefined) continue;
    const protocol = config.protocol === 'udp' ? 'udp' : 'tcp';
    if (host && config.port_range !== undefined) {
      const { min, max } = config.port_range;
      for (let p = min; p <= max; p++) if (taken.has(p)) return undefined;
      for (let p = min; p <= max; p++) taken.add(p);
      ports.push({ name, protocol, containerPort: min, hostPort: min, hostPortEnd: max });
      continue;
    }
    const hostPort = free();
    if (hostPort === undefined) return undefined;
    taken.add(hostPort);
    ports.push({ name, protocol, containerPort: host ? hostPort : (config.port ?? hostPort), hostPort });
  }
  return ports;
}

/**
 * The container's environment: the config's env, then the service's variables, which always win (a
 * config's GCM_* or PORT_* of its own is ignored: the lobby must be able to trust them).
 */
export function lobbyEnv(
  deps: Deps,
  wish: Wish,
  lobbyId: string,
  token: string,
  ports: readonly LobbyPort[],
  lobbyConfigJson: string | null = null,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(wish.container.env)) {
    if (!key.startsWith('GCM_') && !key.startsWith('PORT_')) env[key] = value;
  }
  Object.assign(env, {
    GCM_API_URL: deps.config.publicUrl,
    GCM_LOBBY_ID: lobbyId,
    GCM_LOBBY_TOKEN: token,
    GCM_NAMESPACE_ID: wish.namespaceId,
    GCM_VERSION_ID: wish.versionId,
    GCM_GAME_MODE: wish.gameMode,
    GCM_REGION: wish.region,
    GCM_MAX_PLAYERS: String(wish.maxPlayers.normal),
    GCM_MAX_PLAYERS_DIRECT: String(wish.maxPlayers.direct),
    GCM_MAX_PLAYERS_PARTY: String(wish.maxPlayers.party),
  });
  if (lobbyConfigJson !== null) {
    // The original's name too, so a server written for it reads its custom lobby's config unchanged.
    env.GCM_LOBBY_CONFIG = lobbyConfigJson;
    env.RIVET_LOBBY_CONFIG = lobbyConfigJson;
  }
  for (const port of ports) {
    // The label as written (`PORT_game`, as the issue and studios' servers name it) and upper-cased (the
    // form the config validator reserves): both, so either reading works.
    env[`PORT_${port.name}`] = String(port.containerPort);
    env[`PORT_${envLabel(port.name)}`] = String(port.containerPort);
    if (port.hostPortEnd !== undefined) {
      env[`PORT_RANGE_${envLabel(port.name)}_MIN`] = String(port.hostPort);
      env[`PORT_RANGE_${envLabel(port.name)}_MAX`] = String(port.hostPortEnd);
    }
  }
  return env;
}

export type Placement =
  | { placed: true; row: repo.NewRuntimeLobby; spec: Omit<LobbySpec, 'image'> }
  | { placed: false; why: 'namespace-full' | 'host-full' | 'host-share' | 'no-ports' };

/** One namespace's idle minimum per region, as the host shares read it. */
interface NamespaceIdleMin {
  namespaceId: string;
  gameId: string;
  idleMin: Record<string, number>;
}

/** How long the idle minimums read for the host shares serve placements before they are read again. */
const IDLE_MINS_TTL_MS = 10_000;
const idleMinCaches = new WeakMap<Deps['caches'], { at: number; read?: Promise<NamespaceIdleMin[]> }>();

/**
 * Every live namespace's game and idle_lobbies.min per region: what the host shares reserve
 * (placement-shares.ts). One read of every namespace's config serves the placements of the next 10 s; a
 * namespace's write (a version deployed) drops it at once, here and, on a shared store, on the other
 * instances within cache-coherence's bound.
 */
function namespaceIdleMins(deps: Deps): Promise<NamespaceIdleMin[]> {
  const caches = deps.caches;
  let entry = idleMinCaches.get(caches);
  if (entry === undefined) {
    const fresh: { at: number; read?: Promise<NamespaceIdleMin[]> } = { at: 0 };
    entry = fresh;
    idleMinCaches.set(caches, fresh);
    const drop = () => {
      fresh.read = undefined;
    };
    caches.listen({
      apply: (invalidation) => {
        if (invalidation.kind === 'namespace' || invalidation.kind === 'game-namespaces') drop();
      },
      clear: drop,
    });
  }
  const now = performance.now();
  if (entry.read !== undefined && now - entry.at < IDLE_MINS_TTL_MS) return entry.read;
  const read = repo.namespaceWishes(deps.db).then((all) =>
    all.map((ns) => {
      const idleMin: Record<string, number> = {};
      for (const wish of wishesOf(ns, deps.config.regions)) {
        idleMin[wish.region] = (idleMin[wish.region] ?? 0) + wish.idle.min;
      }
      return { namespaceId: ns.namespace_id, gameId: ns.game_id, idleMin };
    }),
  );
  const held = entry;
  // A failed read is not kept: the next placement reads again.
  read.catch(() => {
    if (held.read === read) held.read = undefined;
  });
  held.at = now;
  held.read = read;
  return read;
}

/**
 * The tenants of `host` for its shares: each namespace with an idle minimum in a region of the host or a
 * lobby on it. A lobby of a namespace no longer configured (deleted meanwhile) counts as a game of its own.
 */
function hostTenants(
  host: RuntimeHost,
  idleMins: readonly NamespaceIdleMin[],
  onHost: readonly { namespace_id: string }[],
): HostTenant[] {
  const known = new Map(idleMins.map((ns) => [ns.namespaceId, ns]));
  const tenants = new Map<string, HostTenant>();
  const tenantOf = (namespaceId: string): HostTenant => {
    let tenant = tenants.get(namespaceId);
    if (tenant === undefined) {
      const ns = known.get(namespaceId);
      const idleMin = host.regions.reduce((sum, region) => sum + (ns?.idleMin[region] ?? 0), 0);
      tenant = { namespaceId, gameId: ns?.gameId ?? `namespace ${namespaceId}`, live: 0, idleMin };
      tenants.set(namespaceId, tenant);
    }
    return tenant;
  };
  for (const ns of idleMins)
    if (host.regions.some((region) => (ns.idleMin[region] ?? 0) > 0)) tenantOf(ns.namespaceId);
  for (const row of onHost) tenantOf(row.namespace_id).live++;
  return [...tenants.values()];
}

/** What a lobby placed for players (find's auto-create, create) carries beyond its wish. */
export interface PlacementExtras {
  publicity?: 'public' | 'private';
  tagsJson?: string | null;
  /** The custom lobby's lobby_config as JSON: the container gets it as GCM_LOBBY_CONFIG. */
  lobbyConfigJson?: string | null;
  /** Runs in the placement's transaction after the row is in: the player's slot, so both commit or neither. */
  within?: (trx: Db, lobbyId: string) => Promise<void>;
}

/**
 * Inserts a 'starting' lobby row for `wish` on `host` (the protocol: the row before the container), unless
 * that would take the namespace past its lobby_count_max or the host past its capacity, or take free slots
 * the host keeps for other tenants (placement-shares.ts: `host-share`), or the host has no free port. One
 * placement at a time across instances (lockPlacement), so a burst never exceeds a cap.
 */
export async function placeLobby(
  deps: Deps,
  wish: Wish,
  host: RuntimeHost,
  lobbyCountMax: number,
  owner: string,
  extras: PlacementExtras = {},
): Promise<Placement> {
  const { config, clock } = deps;
  // Read before the placement lock: a config read (10 s old at most) needs no lock, the counts below do.
  const idleMins = await namespaceIdleMins(deps);
  return deps.db.transaction().execute(async (trx): Promise<Placement> => {
    await repo.lockPlacement(trx);
    if ((await repo.countLiveInNamespace(trx, wish.namespaceId)) >= lobbyCountMax) {
      return { placed: false, why: 'namespace-full' };
    }
    const onHost = await repo.liveOnHost(trx, host.id);
    const tenants = hostTenants(host, idleMins, onHost);
    const asking = { namespaceId: wish.namespaceId, gameId: wish.gameId };
    const verdict = placementVerdict(host.capacity, onHost.length, tenants, asking);
    if (verdict !== 'ok') return { placed: false, why: verdict };
    const ports = allocatePorts(wish.container, config.runtime.portRange, takenPorts(onHost));
    if (ports === undefined) return { placed: false, why: 'no-ports' };
    const lobbyId = newId();
    const { token, hash } = newLobbyToken();
    const now = clock.now();
    const stored: StoredPort[] = ports.map((p) => ({
      name: p.name,
      protocol: p.protocol,
      port: p.hostPort,
      ...(p.hostPortEnd === undefined ? {} : { port_end: p.hostPortEnd }),
    }));
    const row: repo.NewRuntimeLobby = {
      lobby_id: lobbyId,
      namespace_id: wish.namespaceId,
      lobby_group_name_id: wish.gameMode,
      region_id: wish.region,
      create_ts: now,
      version_id: wish.versionId,
      max_players: wish.maxPlayers.normal,
      max_players_direct: wish.maxPlayers.direct,
      max_players_party: wish.maxPlayers.party,
      token_hash: hash,
      runtime_host: host.id,
      ports: JSON.stringify(stored),
      ready_deadline_ts: now + config.runtime.readyTimeoutMs,
      ...(extras.publicity === undefined ? {} : { publicity: extras.publicity }),
      ...(extras.tagsJson == null ? {} : { tags_json: extras.tagsJson }),
      ...(extras.lobbyConfigJson == null ? {} : { lobby_config_json: extras.lobbyConfigJson }),
    };
    await repo.insertStartingLobby(trx, row);
    await extras.within?.(trx, lobbyId);
    return {
      placed: true,
      row,
      spec: {
        lobbyId,
        region: wish.region,
        args: wish.container.args,
        env: lobbyEnv(deps, wish, lobbyId, token, ports, extras.lobbyConfigJson ?? null),
        networkMode: wish.container.network_mode === 'host' ? 'host' : 'bridge',
        ports,
        limits: limitsOf(wish.tier),
        // Always read-only: the config has no field to ask otherwise; the driver mounts a writable /tmp.
        readOnlyRootFs: true,
        stopGraceSeconds: Math.ceil(deps.config.runtime.stopGraceMs / 1000),
        labels: {
          [LOBBY_LABELS.owner]: owner,
          [LOBBY_LABELS.lobby]: lobbyId,
          [LOBBY_LABELS.namespace]: wish.namespaceId,
          [LOBBY_LABELS.version]: wish.versionId,
          [LOBBY_LABELS.gameMode]: wish.gameMode,
          [LOBBY_LABELS.region]: wish.region,
        },
      },
    };
  });
}

/**
 * Whether a lobby the service itself stopped counts as failed: a ready timeout or an image that would not
 * load did; a studio's stop, a surplus, a rollout or a drain did not, whatever the exit code.
 */
export function failedByReason(reason: string | null): boolean {
  return (
    reason === 'ready-timeout' ||
    reason === 'lost' ||
    reason === 'node-lost' ||
    (reason?.startsWith('image:') ?? false)
  );
}

/**
 * Which service's lobbies these are on a shared engine: the same for every instance of one service (same
 * store), different for two services (or two test files): a hash of where the store is.
 */
export function ownerOf(config: { databaseUrl: string | undefined; dataDir: string }): string {
  return createHash('sha256')
    .update(config.databaseUrl ?? config.dataDir)
    .digest('hex')
    .slice(0, 16);
}
