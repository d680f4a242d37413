/**
 * Resolves a version configuration into the form the service uses: each game mode with every value decided
 * (its own, else the top-level matchmaker's, else the documented default). Pure: no I/O, no Node APIs, so
 * a CLI or a browser can run it too.
 */
import type {
  ContainerConfig,
  GameModeConfig,
  MatchmakerConfig,
  PortConfig,
  RegionSettings,
  VersionConfig,
} from './schema.js';

export const CONFIG_DEFAULTS = {
  maxPlayers: 32,
  tier: 'basic-1d1',
  networkMode: 'bridge',
  protocol: 'https',
  proxy: 'game_guard',
  listable: true,
  taggable: false,
  allowDynamicMaxPlayers: false,
  idleLobbies: { min: 0, max: 2 },
  createEnablePrivate: true,
  createEnablePublic: false,
} as const;

export interface ResolveFacts {
  /** Region name ids the operator offers; a game mode that names none runs in all of them. */
  readonly regions: readonly string[];
}

type MinMax = { min: number; max: number };
type Verification = { url: string; headers: Record<string, string> };

export interface ResolvedPort {
  port?: number;
  port_range?: MinMax;
  protocol: NonNullable<PortConfig['protocol']>;
  proxy: NonNullable<PortConfig['proxy']>;
  dev_port?: number;
  dev_port_range?: MinMax;
  dev_protocol?: string;
}

export interface ResolvedContainer {
  args: string[];
  env: Record<string, string>;
  image_id?: string;
  network_mode: NonNullable<ContainerConfig['network_mode']>;
  ports: Record<string, ResolvedPort>;
  build_args?: Record<string, string>;
  dockerfile?: string;
  image?: string;
}

export interface ResolvedRegion {
  tier: string;
  idle_lobbies: MinMax;
}

export interface ResolvedGameMode {
  max_players: number;
  max_players_direct: number;
  max_players_party: number;
  tier: string;
  listable: boolean;
  taggable: boolean;
  allow_dynamic_max_players: boolean;
  idle_lobbies: MinMax;
  regions: Record<string, ResolvedRegion>;
  /** Absent when neither the game mode nor the matchmaker has a runtime (a validation error). */
  container?: ResolvedContainer;
  actions: {
    find: { enabled: boolean; verification?: Verification };
    join: { enabled: boolean; verification?: Verification };
    create: {
      enabled: boolean;
      enable_private: boolean;
      enable_public: boolean;
      verification?: Verification;
    };
  };
}

/** The runtime of a matchmaker or game mode under either of its names. */
export function runtimeOf(owner: {
  container?: ContainerConfig | null;
  docker?: ContainerConfig | null;
}): ContainerConfig | undefined {
  return owner.container ?? owner.docker ?? undefined;
}

/**
 * Copies `value` without its null and undefined members: null means "not set" on the wire. Every map of
 * the resolved config is built with Object.fromEntries, which defines own properties: assigning
 * `out[key]` would set the prototype for a key "__proto__" (a config parsed by a CLI or a browser has
 * such own keys) and lose the key.
 */
function compact<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], null> } {
  const kept = Object.entries(value).filter(([, member]) => member !== null && member !== undefined);
  return Object.fromEntries(kept) as { [K in keyof T]: Exclude<T[K], null> };
}

function resolvePort(port: PortConfig): ResolvedPort {
  return {
    ...compact(port),
    protocol: port.protocol ?? CONFIG_DEFAULTS.protocol,
    proxy: port.proxy ?? CONFIG_DEFAULTS.proxy,
  };
}

function resolveContainer(
  top: ContainerConfig | undefined,
  own: ContainerConfig | undefined,
): ResolvedContainer | undefined {
  const base = own ?? top;
  if (base === undefined) return undefined;
  // The game mode's runtime replaces the top-level one whole, except env, merged with the game mode winning.
  const env = own === undefined ? { ...(top?.env ?? {}) } : { ...(top?.env ?? {}), ...(own.env ?? {}) };
  const ports: Record<string, ResolvedPort> = Object.fromEntries(
    Object.entries(base.ports ?? {}).map(([label, port]) => [label, resolvePort(port)]),
  );
  return {
    ...compact(base),
    args: [...(base.args ?? [])],
    env,
    network_mode: base.network_mode ?? CONFIG_DEFAULTS.networkMode,
    ports,
  };
}

function resolveRegions(
  own: Record<string, RegionSettings> | undefined,
  facts: ResolveFacts,
  tier: string,
  idleLobbies: MinMax,
): Record<string, ResolvedRegion> {
  const named = own ?? Object.fromEntries(facts.regions.map((r) => [r, {} as RegionSettings]));
  return Object.fromEntries(
    Object.keys(named)
      .sort()
      .map((name): [string, ResolvedRegion] => {
        const region = named[name] ?? {};
        return [name, { tier: region.tier ?? tier, idle_lobbies: region.idle_lobbies ?? idleLobbies }];
      }),
  );
}

function resolveVerification(v: Verification | null | undefined) {
  return v === null || v === undefined ? {} : { verification: v };
}

export function resolveGameMode(
  mm: MatchmakerConfig,
  gm: GameModeConfig,
  facts: ResolveFacts,
): ResolvedGameMode {
  const maxPlayers = gm.max_players ?? mm.max_players ?? CONFIG_DEFAULTS.maxPlayers;
  const tier = gm.tier ?? mm.tier ?? CONFIG_DEFAULTS.tier;
  const idleLobbies = gm.idle_lobbies ?? mm.idle_lobbies ?? CONFIG_DEFAULTS.idleLobbies;
  const container = resolveContainer(runtimeOf(mm), runtimeOf(gm));
  const actions = gm.actions ?? {};
  const { find, join, create } = actions;
  return {
    max_players: maxPlayers,
    max_players_direct: gm.max_players_direct ?? mm.max_players_direct ?? maxPlayers,
    max_players_party: gm.max_players_party ?? mm.max_players_party ?? maxPlayers,
    tier,
    listable: gm.listable ?? CONFIG_DEFAULTS.listable,
    taggable: gm.taggable ?? CONFIG_DEFAULTS.taggable,
    allow_dynamic_max_players: gm.allow_dynamic_max_players ?? CONFIG_DEFAULTS.allowDynamicMaxPlayers,
    idle_lobbies: { ...idleLobbies },
    regions: resolveRegions(gm.regions ?? mm.regions ?? undefined, facts, tier, idleLobbies),
    ...(container === undefined ? {} : { container }),
    actions: {
      // Find and join stay enabled when unset; create is enabled only when configured.
      find: { enabled: find?.enabled ?? true, ...resolveVerification(find?.verification) },
      join: { enabled: join?.enabled ?? true, ...resolveVerification(join?.verification) },
      create: {
        enabled: create?.enabled ?? false,
        enable_private: create?.enable_private ?? CONFIG_DEFAULTS.createEnablePrivate,
        enable_public: create?.enable_public ?? CONFIG_DEFAULTS.createEnablePublic,
        ...resolveVerification(create?.verification),
      },
    },
  };
}

/**
 * The whole configuration as the service runs it: every game mode resolved, under `container` (never
 * `docker`); the top-level runtime is folded into the game modes and no longer shown on its own.
 */
export function resolveVersionConfig(config: VersionConfig, facts: ResolveFacts) {
  const { matchmaker, ...rest } = compact(config);
  if (matchmaker === undefined) return rest;
  const { container: _container, docker: _docker, game_modes: gameModes, ...mm } = compact(matchmaker);
  const resolved: Record<string, ResolvedGameMode> = Object.fromEntries(
    Object.keys(gameModes ?? {})
      .sort()
      .map((name) => [name, resolveGameMode(matchmaker, gameModes?.[name] ?? {}, facts)]),
  );
  return { ...rest, matchmaker: { ...mm, game_modes: resolved } };
}
