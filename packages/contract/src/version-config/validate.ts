/**
 * The rules of games.versions.validateGameVersion (4.10). Pure: a schema-valid configuration and the facts
 * of its game in, every error found out, in a stable order (display name, cdn, captcha, game modes sorted
 * by name). No I/O and no Node APIs, so the same code can run in a CLI or a browser; it never makes a
 * network call, not even for verification urls.
 */
import type { ValidationErrorItem } from '../errors.js';
import { checkDisplayName, NAME_ID, NAME_ID_MAX_LENGTH } from '../names.js';
import { type ResolvedContainer, type ResolveFacts, resolveGameMode } from './resolve.js';
import type {
  CaptchaConfigType,
  CdnConfigType,
  MatchmakerConfig,
  VerificationConfig,
  VersionConfig,
} from './schema.js';

export interface ValidateFacts extends ResolveFacts {
  /** Display names of the game's other versions. */
  readonly existingDisplayNames: readonly string[];
  /** Whether the operator lets this game use network_mode `host`. */
  readonly hostNetworkingEnabled: boolean;
  /**
   * The completed builds of the game among the image_ids the config names; undefined skips the check (a
   * CLI validating offline has no list of builds).
   */
  readonly buildIds?: ReadonlySet<string> | undefined;
}

/** Every image_id the configuration names, for the caller to look up before validating. */
export function imageIdsOf(config: VersionConfig): string[] {
  const mm = config.matchmaker;
  if (mm === null || mm === undefined) return [];
  const runtimes = [
    mm.container,
    mm.docker,
    ...Object.values(mm.game_modes ?? {}).flatMap((g) => [g.container, g.docker]),
  ];
  return [
    ...new Set(
      runtimes.map((r) => r?.image_id).filter((id): id is string => typeof id === 'string' && id !== ''),
    ),
  ];
}

export const VERSION_DISPLAY_NAME_MAX_BYTES = 128;
export const TIERS = [
  'basic-4d1',
  'basic-2d1',
  'basic-1d1',
  'basic-1d2',
  'basic-1d4',
  'basic-1d8',
  'basic-1d16',
] as const;

/** Variables the service sets in every lobby container; a version may not set them itself. */
export const RESERVED_ENV_KEYS = [
  'LOBBY_ID',
  'LOBBY_TOKEN',
  'LOBBY_GROUP_ID',
  'LOBBY_GROUP_NAME_ID',
  'LOBBY_REGION_ID',
  'LOBBY_REGION_NAME_ID',
  'NAMESPACE_ID',
  'NAMESPACE_NAME_ID',
  'VERSION_ID',
  'VERSION_DISPLAY_NAME',
  'GAME_MODE_NAME_ID',
  'MAX_PLAYERS_NORMAL',
  'MAX_PLAYERS_DIRECT',
  'MAX_PLAYERS_PARTY',
  'GCM_API_URL',
] as const;

export const LIMITS = {
  cdnRoutes: 32,
  cdnRoutePriority: 100,
  cdnMiddlewares: 32,
  cdnHeaders: 32,
  cdnHeaderName: 512,
  cdnHeaderValue: 1024,
  captchaRequestsBeforeReverify: 600,
  captchaVerificationTtlMs: 43_200_000,
  captchaASiteKey: 36,
  captchaASecretKey: 42,
  captchaBSiteKey: 30,
  captchaBSecretKey: 40,
  gameModes: 32,
  gameModeName: 64,
  players: 256,
  idleLobbiesMin: 16,
  idleLobbiesMax: 32,
  args: 64,
  argLength: 512,
  envVars: 64,
  envKey: 64,
  envValue: 512,
  ports: 16,
  proxiedRangeMin: 26_000,
  proxiedRangeMax: 31_999,
  verificationHeaders: 32,
} as const;

type Path = string[];
const star = (key: string) => `*${key}*`;

export function validateVersion(
  input: { display_name: string; config: VersionConfig },
  facts: ValidateFacts,
): ValidationErrorItem[] {
  const out: Path[] = [];
  const nameErrors = checkDisplayName(input.display_name, VERSION_DISPLAY_NAME_MAX_BYTES);
  out.push(...nameErrors.map((e) => e.path));
  if (nameErrors.length === 0 && facts.existingDisplayNames.includes(input.display_name)) {
    out.push(['display-name', 'not-unique']);
  }
  const { cdn, matchmaker } = input.config;
  if (cdn !== null && cdn !== undefined) checkCdn(cdn, out);
  if (matchmaker !== null && matchmaker !== undefined) checkMatchmaker(matchmaker, facts, out);
  return out.map((path) => ({ path }));
}

/** A `**` segment must stand alone: `a/**` and `**` match, `a**` and `**.js` are malformed. */
function isValidGlob(glob: string): boolean {
  if (glob === '') return false;
  return glob.split('/').every((segment) => !segment.includes('**') || segment === '**');
}

function checkCdn(cdn: CdnConfigType, out: Path[]): void {
  const base = ['config', 'cdn'];
  if (cdn.site_id === null || cdn.site_id === undefined || cdn.site_id === '') {
    out.push([...base, 'no-site-id']);
  }
  const routes = cdn.routes ?? [];
  if (routes.length > LIMITS.cdnRoutes) out.push([...base, 'routes-meta', 'too-many']);
  const globs = new Set<string>();
  routes.forEach((route, i) => {
    const rp = [...base, 'routes', String(i)];
    if (!isValidGlob(route.glob)) out.push([...rp, 'glob', 'invalid']);
    else if (globs.has(route.glob)) out.push([...rp, 'glob', 'not-unique']);
    globs.add(route.glob);
    if (route.priority > LIMITS.cdnRoutePriority) out.push([...rp, 'priority', 'too-high']);
    if (route.middlewares.length > LIMITS.cdnMiddlewares) out.push([...rp, 'middlewares-meta', 'too-many']);
    let customHeadersSeen = false;
    route.middlewares.forEach((middleware, j) => {
      const custom = middleware.kind.custom_headers;
      if (custom === null || custom === undefined) return;
      const mp = [...rp, 'middlewares', String(j)];
      if (customHeadersSeen) out.push([...mp, 'not-unique']);
      customHeadersSeen = true;
      const hp = [...mp, 'custom-headers'];
      if (custom.headers.length > LIMITS.cdnHeaders) out.push([...hp, 'headers-meta', 'too-many']);
      custom.headers.forEach((header, k) => {
        const kp = [...hp, 'headers', String(k)];
        if (header.name === '') out.push([...kp, 'name', 'invalid']);
        else if (header.name.length > LIMITS.cdnHeaderName) out.push([...kp, 'name', 'too-long']);
        if (header.value.length > LIMITS.cdnHeaderValue) out.push([...kp, 'value', 'too-long']);
      });
    });
  });
}

function checkKey(
  out: Path[],
  path: Path,
  value: string | null | undefined,
  max: number,
  missing?: 'required',
): void {
  if (value === null || value === undefined) {
    if (missing !== undefined) out.push([...path, missing]);
  } else if (value === '') out.push([...path, 'too-short']);
  else if (value.length > max) out.push([...path, 'too-long']);
}

function checkCaptcha(captcha: CaptchaConfigType, out: Path[]): void {
  const cp = ['config', 'matchmaker', 'captcha'];
  const bounded = (value: number, max: number, name: string) => {
    if (value < 0) out.push([...cp, name, 'too-low']);
    else if (value > max) out.push([...cp, name, 'too-high']);
  };
  bounded(captcha.requests_before_reverify, LIMITS.captchaRequestsBeforeReverify, 'requests-before-reverify');
  bounded(captcha.verification_ttl, LIMITS.captchaVerificationTtlMs, 'verification-ttl');
  const a = captcha.captcha_provider_a ?? undefined;
  const b = captcha.captcha_provider_b ?? undefined;
  if (a === undefined && b === undefined) out.push(['config', 'matchmaker', 'captcha-meta', 'must-have-one']);
  if (a !== undefined) {
    const ap = [...cp, 'captcha-provider-a'];
    checkKey(out, [...ap, 'site-key'], a.site_key, LIMITS.captchaASiteKey, 'required');
    checkKey(out, [...ap, 'secret-key'], a.secret_key, LIMITS.captchaASecretKey, 'required');
  }
  if (b !== undefined) {
    const bp = [...cp, 'captcha-provider-b'];
    checkKey(out, [...bp, 'site-key'], b.site_key, LIMITS.captchaBSiteKey);
    checkKey(out, [...bp, 'secret-key'], b.secret_key, LIMITS.captchaBSecretKey);
  }
}

const GAME_MODE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function checkMatchmaker(mm: MatchmakerConfig, facts: ValidateFacts, out: Path[]): void {
  if (mm.captcha !== null && mm.captcha !== undefined) checkCaptcha(mm.captcha, out);
  const gameModes = mm.game_modes ?? {};
  const names = Object.keys(gameModes).sort();
  const meta = ['config', 'matchmaker', 'game-modes-meta'];
  if (names.length === 0) out.push([...meta, 'too-few']);
  if (names.length > LIMITS.gameModes) out.push([...meta, 'too-many']);
  for (const name of names) {
    const P = ['config', 'matchmaker', 'game-modes', star(name)];
    if (!GAME_MODE_NAME.test(name) || name.startsWith('-') || name.endsWith('-')) {
      out.push([...P, 'name-id-invalid']);
    }
    const gm = resolveGameMode(mm, gameModes[name] ?? {}, facts);
    for (const [key, value] of [
      ['max-players-normal', gm.max_players],
      ['max-players-direct', gm.max_players_direct],
      ['max-players-party', gm.max_players_party],
    ] as const) {
      if (value < 1) out.push([...P, 'player-counts', key, 'too-low']);
      else if (value > LIMITS.players) out.push([...P, 'player-counts', key, 'too-high']);
    }
    for (const [region, settings] of Object.entries(gm.regions)) {
      const rp = [...P, 'regions', star(region)];
      if (!facts.regions.includes(region)) out.push([...rp, 'invalid']);
      if (!(TIERS as readonly string[]).includes(settings.tier)) out.push([...rp, 'tier-name-id-invalid']);
      const { min, max } = settings.idle_lobbies;
      const ip = [...rp, 'idle-lobbies'];
      if (min > max) out.push([...ip, 'min-gt-max']);
      if (min < 0) out.push([...ip, 'min-too-low']);
      else if (min > LIMITS.idleLobbiesMin) out.push([...ip, 'min-too-high']);
      if (max < 0) out.push([...ip, 'max-too-low']);
      else if (max > LIMITS.idleLobbiesMax) out.push([...ip, 'max-too-high']);
    }
    if (gm.container === undefined) out.push([...P, 'no-runtime']);
    else checkRuntime(gm.container, P, facts, out);
    for (const kind of ['find', 'join', 'create'] as const) {
      const verification = gm.actions[kind].verification;
      if (verification !== undefined) {
        checkVerification(verification, [...P, `${kind}-config`, 'verification-config'], out);
      }
    }
  }
}

/** `game-port` → `GAME_PORT`, as the label appears in the variables the service injects. */
function envLabel(label: string): string {
  return label.toUpperCase().replace(/-/g, '_');
}

function reservedKeys(container: ResolvedContainer): Set<string> {
  const keys = new Set<string>(RESERVED_ENV_KEYS);
  for (const [label, port] of Object.entries(container.ports)) {
    if (port.port !== undefined) keys.add(`PORT_${envLabel(label)}`);
    if (port.port_range !== undefined) {
      keys.add(`PORT_RANGE_${envLabel(label)}_MIN`);
      keys.add(`PORT_RANGE_${envLabel(label)}_MAX`);
    }
  }
  return keys;
}

const BAD_ENV_KEY = /[=\s\0]/;

function checkRuntime(container: ResolvedContainer, P: Path, facts: ValidateFacts, out: Path[]): void {
  if (container.image_id === undefined || container.image_id === '') out.push([...P, 'no-build']);
  else if (facts.buildIds !== undefined && !facts.buildIds.has(container.image_id)) {
    out.push([...P, 'build-not-found']);
  }

  if (container.args.length > LIMITS.args) out.push([...P, 'args-too-many']);
  const args = new Set<string>();
  container.args.forEach((arg, i) => {
    const ap = [...P, 'args', String(i)];
    if (arg === '') out.push([...ap, 'invalid']);
    else if (arg.length > LIMITS.argLength) out.push([...ap, 'too-long']);
    else if (args.has(arg)) out.push([...ap, 'not-unique']);
    args.add(arg);
  });

  const env = container.env;
  const keys = Object.keys(env).sort();
  if (keys.length > LIMITS.envVars) out.push([...P, 'env-vars-too-many']);
  const reserved = reservedKeys(container);
  for (const key of keys) {
    const ep = [...P, 'env-vars', star(key)];
    if (key === '' || BAD_ENV_KEY.test(key)) out.push([...ep, 'key', 'invalid']);
    else if (key.length > LIMITS.envKey) out.push([...ep, 'key', 'too-long']);
    else if (reserved.has(key)) out.push([...ep, 'key', 'conflicts-with-default']);
    const value = env[key] ?? '';
    if (value === '' || value.includes('\0')) out.push([...ep, 'value', 'invalid']);
    else if (value.length > LIMITS.envValue) out.push([...ep, 'value', 'too-long']);
  }

  if (container.network_mode === 'host' && !facts.hostNetworkingEnabled) {
    out.push([...P, 'host-networking-disabled']);
    return;
  }
  checkPorts(container, P, out);
}

function isNameId(label: string): boolean {
  return label.length >= 1 && label.length <= NAME_ID_MAX_LENGTH && NAME_ID.test(label);
}

function checkPorts(container: ResolvedContainer, P: Path, out: Path[]): void {
  const labels = Object.keys(container.ports).sort();
  if (labels.length > LIMITS.ports) out.push([...P, 'ports-too-many']);
  const host = container.network_mode === 'host';
  const numbers = new Set<string>();
  const ranges: { protocol: string; min: number; max: number }[] = [];
  for (const label of labels) {
    const port = container.ports[label];
    if (port === undefined) continue;
    const pp = [...P, 'ports', star(label)];
    if (!isNameId(label)) out.push([...pp, 'label-invalid']);
    if (port.port !== undefined) {
      const key = `${port.port}/${port.protocol}`;
      if (numbers.has(key)) out.push([...pp, 'port-protocol-not-unique']);
      numbers.add(key);
    }
    const range = port.port_range;
    if (port.port !== undefined && range !== undefined) out.push([...pp, 'duplicate-port-and-port-range']);
    if (port.port === undefined && range === undefined) out.push([...pp, 'missing-port-and-port-range']);
    if (port.port !== undefined && (port.port < 1 || port.port > 65_535)) {
      out.push([...pp, 'port-out-of-range']);
    }
    if (range !== undefined) {
      if (port.proxy === 'game_guard') out.push([...pp, 'unsupported-port-range']);
      if (range.min > range.max) out.push([...pp, 'range-min-gt-max']);
      if (range.min < LIMITS.proxiedRangeMin || range.max > LIMITS.proxiedRangeMax) {
        out.push([...pp, 'port-out-of-range']);
      } else if (
        range.min <= range.max &&
        ranges.some((r) => r.protocol === port.protocol && r.min <= range.max && range.min <= r.max)
      ) {
        out.push([...pp, 'ranges-overlap']);
      }
      ranges.push({ protocol: port.protocol, min: range.min, max: range.max });
    }
    if ((range !== undefined || port.proxy === 'none') && !host) out.push([...pp, 'needs-host-network']);
    if (host && port.proxy === 'none' && port.port !== undefined)
      out.push([...pp, 'unsupported-target-port']);
    if (host && port.proxy === 'none' && ['http', 'https', 'tcp_tls'].includes(port.protocol)) {
      out.push([...pp, 'needs-game-guard']);
    }
  }
}

// RFC 7230: a header name is a token; a value is tab, visible ASCII, space or obs-text, never CR, LF or NUL.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function checkVerification(verification: VerificationConfig, base: Path, out: Path[]): void {
  const urlError = checkVerificationUrl(verification.url);
  if (urlError !== undefined) out.push([...base, 'url', urlError]);
  const names = Object.keys(verification.headers).sort();
  if (names.length > LIMITS.verificationHeaders) out.push([...base, 'headers-meta', 'too-many']);
  for (const name of names) {
    const hp = [...base, 'headers', star(name)];
    if (!HEADER_NAME.test(name)) out.push([...hp, 'invalid-name']);
    if (!HEADER_VALUE.test(verification.headers[name] ?? '')) out.push([...hp, 'invalid-value']);
  }
}

function checkVerificationUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'invalid';
  }
  if (url.hostname === '') return 'no-host';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'invalid-scheme';
  if (isInternalHost(url.hostname)) return 'invalid-ip';
  return undefined;
}

/**
 * Hosts a verification request must never reach: loopback, private, link-local, unspecified and shared
 * (carrier-grade NAT) addresses, `localhost` and mDNS `.local` names. URL parsing has already turned every
 * spelling of an IPv4 address (hex, octal, short forms) into dotted decimal.
 */
function isInternalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host === 'local' || host.endsWith('.local')) {
    return true;
  }
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (v4 !== null) return isInternalIpv4(v4.slice(1, 5).map(Number));
  if (host.startsWith('[') && host.endsWith(']')) return isInternalIpv6(host.slice(1, -1));
  return false;
}

function isInternalIpv4([a = 0, b = 0]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

function isInternalIpv6(address: string): boolean {
  if (address === '::' || address === '::1') return true;
  // IPv4-mapped (::ffff:7f00:1 once serialized): judge the embedded IPv4 address.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (mapped !== null) {
    const high = Number.parseInt(mapped[1] ?? '0', 16);
    return isInternalIpv4([high >> 8, high & 0xff]);
  }
  const first = Number.parseInt(address.split(':')[0] || '0', 16);
  // fc00::/7 unique local, fe80::/10 link-local.
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}
