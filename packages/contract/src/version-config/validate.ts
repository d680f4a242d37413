/**
 * The rules of games.versions.validateGameVersion (4.10). Pure: a schema-valid configuration and the facts
 * of its game in, every error found out, in a stable order (display name, cdn, captcha, game modes sorted
 * by name). No I/O and no Node APIs, so the same code can run in a CLI or a browser; it never makes a
 * network call, not even for verification urls.
 */
import type { ValidationErrorItem } from '../errors.js';
import { checkDisplayName, NAME_ID, NAME_ID_MAX_LENGTH, NAME_ID_RULE, quote } from '../names.js';
import { type ResolvedContainer, type ResolveFacts, resolveGameMode } from './resolve.js';
import type {
  CaptchaConfigType,
  CdnConfigType,
  MatchmakerConfig,
  VerificationConfig,
  VersionConfig,
} from './schema.js';
import { unknownConfigKeys } from './unknown-keys.js';

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
type Out = ValidationErrorItem[];
const star = (key: string) => `*${key}*`;
const add = (out: Out, path: Path, message: string) => {
  out.push({ path, message });
};
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function validateVersion(
  input: { display_name: string; config: VersionConfig },
  facts: ValidateFacts,
): ValidationErrorItem[] {
  const out: Out = checkDisplayName(input.display_name, VERSION_DISPLAY_NAME_MAX_BYTES);
  if (out.length === 0 && facts.existingDisplayNames.includes(input.display_name)) {
    add(
      out,
      ['display-name', 'not-unique'],
      `display_name ${quote(input.display_name)} is taken by another version of this game; ` +
        'version display names are unique within a game',
    );
  }
  out.push(...unknownConfigKeys(input.config));
  const { cdn, matchmaker } = input.config;
  if (cdn !== null && cdn !== undefined) checkCdn(cdn, out);
  if (matchmaker !== null && matchmaker !== undefined) checkMatchmaker(matchmaker, facts, out);
  return out;
}

/** A `**` segment must stand alone: `a/**` and `**` match, `a**` and `**.js` are malformed. */
function isValidGlob(glob: string): boolean {
  if (glob === '') return false;
  return glob.split('/').every((segment) => !segment.includes('**') || segment === '**');
}

function checkCdn(cdn: CdnConfigType, out: Out): void {
  const base = ['config', 'cdn'];
  if (cdn.site_id === null || cdn.site_id === undefined || cdn.site_id === '') {
    add(out, [...base, 'no-site-id'], 'config.cdn needs a site_id (the CDN site the version serves)');
  }
  const routes = cdn.routes ?? [];
  if (routes.length > LIMITS.cdnRoutes) {
    add(
      out,
      [...base, 'routes-meta', 'too-many'],
      `config.cdn.routes has ${routes.length} routes; at most ${LIMITS.cdnRoutes}`,
    );
  }
  const globs = new Set<string>();
  routes.forEach((route, i) => {
    const rp = [...base, 'routes', String(i)];
    const at = `config.cdn.routes.${i}`;
    if (!isValidGlob(route.glob)) {
      add(
        out,
        [...rp, 'glob', 'invalid'],
        route.glob === ''
          ? `${at}.glob is empty; give a path pattern such as "/**" or "/assets/*.js"`
          : `${at}.glob ${quote(route.glob)} is malformed: "**" must be a whole path segment ("a/**", not "a**")`,
      );
    } else if (globs.has(route.glob)) {
      add(
        out,
        [...rp, 'glob', 'not-unique'],
        `${at}.glob ${quote(route.glob)} is the glob of an earlier route too; each route needs its own glob`,
      );
    }
    globs.add(route.glob);
    if (route.priority > LIMITS.cdnRoutePriority) {
      add(
        out,
        [...rp, 'priority', 'too-high'],
        `${at}.priority is ${route.priority}; at most ${LIMITS.cdnRoutePriority}`,
      );
    }
    if (route.middlewares.length > LIMITS.cdnMiddlewares) {
      add(
        out,
        [...rp, 'middlewares-meta', 'too-many'],
        `${at}.middlewares has ${route.middlewares.length} middlewares; at most ${LIMITS.cdnMiddlewares}`,
      );
    }
    let customHeadersSeen = false;
    route.middlewares.forEach((middleware, j) => {
      const custom = middleware.kind.custom_headers;
      if (custom === null || custom === undefined) return;
      const mp = [...rp, 'middlewares', String(j)];
      const mat = `${at}.middlewares.${j}`;
      if (customHeadersSeen) {
        add(
          out,
          [...mp, 'not-unique'],
          `${mat} is a second custom_headers middleware; a route has at most one (merge their headers)`,
        );
      }
      customHeadersSeen = true;
      const hp = [...mp, 'custom-headers'];
      const hat = `${mat}.kind.custom_headers.headers`;
      if (custom.headers.length > LIMITS.cdnHeaders) {
        add(
          out,
          [...hp, 'headers-meta', 'too-many'],
          `${hat} has ${custom.headers.length} headers; at most ${LIMITS.cdnHeaders}`,
        );
      }
      custom.headers.forEach((header, k) => {
        const kp = [...hp, 'headers', String(k)];
        if (header.name === '') add(out, [...kp, 'name', 'invalid'], `${hat}.${k}.name is empty`);
        else if (header.name.length > LIMITS.cdnHeaderName) {
          add(
            out,
            [...kp, 'name', 'too-long'],
            `${hat}.${k}.name is ${header.name.length} characters; at most ${LIMITS.cdnHeaderName}`,
          );
        }
        if (header.value.length > LIMITS.cdnHeaderValue) {
          add(
            out,
            [...kp, 'value', 'too-long'],
            `${hat}.${k}.value is ${header.value.length} characters; at most ${LIMITS.cdnHeaderValue}`,
          );
        }
      });
    });
  });
}

function checkKey(
  out: Out,
  path: Path,
  field: string,
  value: string | null | undefined,
  max: number,
  missing?: 'required',
): void {
  if (value === null || value === undefined) {
    if (missing !== undefined) add(out, [...path, missing], `${field} must be set`);
  } else if (value === '')
    add(out, [...path, 'too-short'], `${field} is empty; it needs 1 to ${max} characters`);
  else if (value.length > max) {
    add(out, [...path, 'too-long'], `${field} is ${value.length} characters; at most ${max}`);
  }
}

function checkCaptcha(captcha: CaptchaConfigType, out: Out): void {
  const cp = ['config', 'matchmaker', 'captcha'];
  const at = 'config.matchmaker.captcha';
  const bounded = (value: number, max: number, name: string, unit: string) => {
    const field = `${at}.${name.replace(/-/g, '_')}`;
    if (value < 0) add(out, [...cp, name, 'too-low'], `${field} is ${value}; at least 0`);
    else if (value > max) add(out, [...cp, name, 'too-high'], `${field} is ${value}; at most ${max}${unit}`);
  };
  bounded(
    captcha.requests_before_reverify,
    LIMITS.captchaRequestsBeforeReverify,
    'requests-before-reverify',
    '',
  );
  bounded(captcha.verification_ttl, LIMITS.captchaVerificationTtlMs, 'verification-ttl', ' ms (12 hours)');
  const a = captcha.captcha_provider_a ?? undefined;
  const b = captcha.captcha_provider_b ?? undefined;
  if (a === undefined && b === undefined) {
    add(
      out,
      ['config', 'matchmaker', 'captcha-meta', 'must-have-one'],
      `${at} needs a provider: set captcha_provider_a or captcha_provider_b`,
    );
  }
  if (a !== undefined) {
    const ap = [...cp, 'captcha-provider-a'];
    const aat = `${at}.captcha_provider_a`;
    checkKey(out, [...ap, 'site-key'], `${aat}.site_key`, a.site_key, LIMITS.captchaASiteKey, 'required');
    checkKey(
      out,
      [...ap, 'secret-key'],
      `${aat}.secret_key`,
      a.secret_key,
      LIMITS.captchaASecretKey,
      'required',
    );
  }
  if (b !== undefined) {
    const bp = [...cp, 'captcha-provider-b'];
    const bat = `${at}.captcha_provider_b`;
    checkKey(out, [...bp, 'site-key'], `${bat}.site_key`, b.site_key, LIMITS.captchaBSiteKey);
    checkKey(out, [...bp, 'secret-key'], `${bat}.secret_key`, b.secret_key, LIMITS.captchaBSecretKey);
  }
}

const GAME_MODE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const PLAYER_COUNTS = [
  ['max-players-normal', 'max_players'],
  ['max-players-direct', 'max_players_direct'],
  ['max-players-party', 'max_players_party'],
] as const;

function checkMatchmaker(mm: MatchmakerConfig, facts: ValidateFacts, out: Out): void {
  if (mm.captcha !== null && mm.captcha !== undefined) checkCaptcha(mm.captcha, out);
  const gameModes = mm.game_modes ?? {};
  const names = Object.keys(gameModes).sort();
  const meta = ['config', 'matchmaker', 'game-modes-meta'];
  if (names.length === 0) {
    add(
      out,
      [...meta, 'too-few'],
      'config.matchmaker.game_modes has no game mode; a matchmaker needs at least one ' +
        '(such as "default": {"container": {"image_id": "<build id>"}})',
    );
  }
  if (names.length > LIMITS.gameModes) {
    add(
      out,
      [...meta, 'too-many'],
      `config.matchmaker.game_modes has ${names.length} game modes; at most ${LIMITS.gameModes}`,
    );
  }
  for (const name of names) {
    const P = ['config', 'matchmaker', 'game-modes', star(name)];
    const gmAt = `game mode ${quote(name)}`;
    if (!GAME_MODE_NAME.test(name) || name.startsWith('-') || name.endsWith('-')) {
      add(
        out,
        [...P, 'name-id-invalid'],
        `${gmAt}: a game mode name needs 1 to 64 of A-Z, a-z, 0-9, "_" and "-", with no "-" at either end`,
      );
    }
    const own = gameModes[name] ?? {};
    const gm = resolveGameMode(mm, own, facts);
    for (const [key, field] of PLAYER_COUNTS) {
      // Direct and party counts nobody wrote are max_players' own value: its one problem, said once there.
      const written = own[field] ?? mm[field];
      if (field !== 'max_players' && (written === null || written === undefined)) continue;
      const value = gm[field];
      if (value < 1)
        add(out, [...P, 'player-counts', key, 'too-low'], `${gmAt}: ${field} is ${value}; at least 1`);
      else if (value > LIMITS.players) {
        add(
          out,
          [...P, 'player-counts', key, 'too-high'],
          `${gmAt}: ${field} is ${value}; at most ${LIMITS.players}`,
        );
      }
    }
    for (const [region, settings] of Object.entries(gm.regions)) {
      const rp = [...P, 'regions', star(region)];
      const rAt = `${gmAt}, region ${quote(region)}`;
      if (!facts.regions.includes(region)) {
        add(
          out,
          [...rp, 'invalid'],
          `${rAt} is not a region of this service; ${
            facts.regions.length === 0 ? 'it offers none' : `the regions are ${facts.regions.join(', ')}`
          } (GET /cloud/regions)`,
        );
      }
      if (!(TIERS as readonly string[]).includes(settings.tier)) {
        add(
          out,
          [...rp, 'tier-name-id-invalid'],
          `${rAt}: tier ${quote(settings.tier)} is not a tier; the tiers are ${TIERS.join(', ')}`,
        );
      }
      const { min, max } = settings.idle_lobbies;
      const ip = [...rp, 'idle-lobbies'];
      if (min > max) {
        add(
          out,
          [...ip, 'min-gt-max'],
          `${rAt}: idle_lobbies.min (${min}) is greater than idle_lobbies.max (${max})`,
        );
      }
      if (min < 0) add(out, [...ip, 'min-too-low'], `${rAt}: idle_lobbies.min is ${min}; at least 0`);
      else if (min > LIMITS.idleLobbiesMin) {
        add(
          out,
          [...ip, 'min-too-high'],
          `${rAt}: idle_lobbies.min is ${min}; at most ${LIMITS.idleLobbiesMin}`,
        );
      }
      if (max < 0) add(out, [...ip, 'max-too-low'], `${rAt}: idle_lobbies.max is ${max}; at least 0`);
      else if (max > LIMITS.idleLobbiesMax) {
        add(
          out,
          [...ip, 'max-too-high'],
          `${rAt}: idle_lobbies.max is ${max}; at most ${LIMITS.idleLobbiesMax}`,
        );
      }
    }
    if (gm.container === undefined) {
      add(
        out,
        [...P, 'no-runtime'],
        `${gmAt} has no runtime: set its container, or config.matchmaker.container for every game mode`,
      );
    } else checkRuntime(gm.container, P, gmAt, facts, out);
    for (const kind of ['find', 'join', 'create'] as const) {
      const verification = gm.actions[kind].verification;
      if (verification !== undefined) {
        checkVerification(
          verification,
          [...P, `${kind}-config`, 'verification-config'],
          `${gmAt}: actions.${kind}.verification`,
          out,
        );
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

/** How to get a build id, for every message that needs one (a client may say it in its own terms). */
export const BUILD_HOW_TO =
  'upload a build first (POST /games/{game_id}/environments/{environment_id}/builds/prepare, PUT the ' +
  'file, then .../builds/{build_id}/complete) and use its build id';

function checkRuntime(
  container: ResolvedContainer,
  P: Path,
  gmAt: string,
  facts: ValidateFacts,
  out: Out,
): void {
  if (container.image_id === undefined || container.image_id === '') {
    add(out, [...P, 'no-build'], `${gmAt}: its container has no image_id; ${BUILD_HOW_TO}`);
  } else if (facts.buildIds !== undefined && !facts.buildIds.has(container.image_id)) {
    add(
      out,
      [...P, 'build-not-found'],
      `${gmAt}: image_id ${quote(container.image_id)} is not a completed build of this game; ${BUILD_HOW_TO}`,
    );
  }

  if (container.args.length > LIMITS.args) {
    add(
      out,
      [...P, 'args-too-many'],
      `${gmAt}: container.args has ${container.args.length} args; at most ${LIMITS.args}`,
    );
  }
  const args = new Set<string>();
  container.args.forEach((arg, i) => {
    const ap = [...P, 'args', String(i)];
    if (arg === '') add(out, [...ap, 'invalid'], `${gmAt}: container.args.${i} is empty`);
    else if (arg.length > LIMITS.argLength) {
      add(
        out,
        [...ap, 'too-long'],
        `${gmAt}: container.args.${i} is ${arg.length} characters; at most ${LIMITS.argLength}`,
      );
    } else if (args.has(arg)) {
      add(
        out,
        [...ap, 'not-unique'],
        `${gmAt}: container.args.${i} ${quote(arg)} repeats an earlier argument`,
      );
    }
    args.add(arg);
  });

  const env = container.env;
  const keys = Object.keys(env).sort();
  if (keys.length > LIMITS.envVars) {
    add(
      out,
      [...P, 'env-vars-too-many'],
      `${gmAt}: container.env has ${plural(keys.length, 'variable')}; at most ${LIMITS.envVars}`,
    );
  }
  const reserved = reservedKeys(container);
  for (const key of keys) {
    const ep = [...P, 'env-vars', star(key)];
    const eAt = `${gmAt}: environment variable ${quote(key)}`;
    if (key === '' || BAD_ENV_KEY.test(key)) {
      add(
        out,
        [...ep, 'key', 'invalid'],
        `${eAt}: a name must be non-empty, without "=", white space or NUL`,
      );
    } else if (key.length > LIMITS.envKey) {
      add(
        out,
        [...ep, 'key', 'too-long'],
        `${eAt}: the name is ${key.length} characters; at most ${LIMITS.envKey}`,
      );
    } else if (reserved.has(key)) {
      add(
        out,
        [...ep, 'key', 'conflicts-with-default'],
        `${eAt} is set by the service in every lobby; choose another name`,
      );
    }
    const value = env[key] ?? '';
    if (value === '' || value.includes('\0')) {
      add(out, [...ep, 'value', 'invalid'], `${eAt}: the value is empty or holds NUL`);
    } else if (value.length > LIMITS.envValue) {
      add(
        out,
        [...ep, 'value', 'too-long'],
        `${eAt}: the value is ${value.length} characters; at most ${LIMITS.envValue}`,
      );
    }
  }

  if (container.network_mode === 'host' && !facts.hostNetworkingEnabled) {
    add(
      out,
      [...P, 'host-networking-disabled'],
      `${gmAt}: network_mode "host" is not enabled for this game; the operator enables it ` +
        '(PUT /cloud/games/{game_id}/host-networking), or use "bridge"',
    );
    return;
  }
  checkPorts(container, P, gmAt, out);
}

function isNameId(label: string): boolean {
  return label.length >= 1 && label.length <= NAME_ID_MAX_LENGTH && NAME_ID.test(label);
}

function checkPorts(container: ResolvedContainer, P: Path, gmAt: string, out: Out): void {
  const labels = Object.keys(container.ports).sort();
  if (labels.length > LIMITS.ports) {
    add(
      out,
      [...P, 'ports-too-many'],
      `${gmAt}: container.ports has ${labels.length} ports; at most ${LIMITS.ports}`,
    );
  }
  const host = container.network_mode === 'host';
  const numbers = new Set<string>();
  const ranges: { protocol: string; min: number; max: number }[] = [];
  for (const label of labels) {
    const port = container.ports[label];
    if (port === undefined) continue;
    const pp = [...P, 'ports', star(label)];
    const pAt = `${gmAt}: port ${quote(label)}`;
    if (!isNameId(label)) {
      add(
        out,
        [...pp, 'label-invalid'],
        `${pAt}: a port label is 1 to ${NAME_ID_MAX_LENGTH} characters and ${NAME_ID_RULE}`,
      );
    }
    if (port.port !== undefined) {
      const key = `${port.port}/${port.protocol}`;
      if (numbers.has(key)) {
        add(
          out,
          [...pp, 'port-protocol-not-unique'],
          `${pAt}: port ${key} is also the port of another label`,
        );
      }
      numbers.add(key);
    }
    const range = port.port_range;
    if (port.port !== undefined && range !== undefined) {
      add(out, [...pp, 'duplicate-port-and-port-range'], `${pAt} has both port and port_range; set one`);
    }
    if (port.port === undefined && range === undefined) {
      add(out, [...pp, 'missing-port-and-port-range'], `${pAt} has neither port nor port_range; set one`);
    }
    if (port.port !== undefined && (port.port < 1 || port.port > 65_535)) {
      add(out, [...pp, 'port-out-of-range'], `${pAt}: port is ${port.port}; between 1 and 65535`);
    }
    if (range !== undefined) {
      const span = `${range.min}-${range.max}`;
      if (port.proxy === 'game_guard') {
        add(
          out,
          [...pp, 'unsupported-port-range'],
          `${pAt}: a port_range cannot go through proxy "game_guard"; set proxy "none"`,
        );
      }
      if (range.min > range.max) {
        add(
          out,
          [...pp, 'range-min-gt-max'],
          `${pAt}: port_range.min (${range.min}) is greater than port_range.max (${range.max})`,
        );
      }
      if (range.min < LIMITS.proxiedRangeMin || range.max > LIMITS.proxiedRangeMax) {
        add(
          out,
          [...pp, 'port-out-of-range'],
          `${pAt}: port_range ${span} is outside ${LIMITS.proxiedRangeMin}-${LIMITS.proxiedRangeMax}`,
        );
      } else if (
        range.min <= range.max &&
        ranges.some((r) => r.protocol === port.protocol && r.min <= range.max && range.min <= r.max)
      ) {
        add(
          out,
          [...pp, 'ranges-overlap'],
          `${pAt}: port_range ${span} overlaps the range of another ${port.protocol} port`,
        );
      }
      ranges.push({ protocol: port.protocol, min: range.min, max: range.max });
    }
    if ((range !== undefined || port.proxy === 'none') && !host) {
      add(
        out,
        [...pp, 'needs-host-network'],
        `${pAt}: a port_range or proxy "none" needs network_mode "host"`,
      );
    }
    if (host && port.proxy === 'none' && port.port !== undefined) {
      add(
        out,
        [...pp, 'unsupported-target-port'],
        `${pAt}: with network_mode "host" and proxy "none" a port takes no port number; use port_range`,
      );
    }
    if (host && port.proxy === 'none' && ['http', 'https', 'tcp_tls'].includes(port.protocol)) {
      add(
        out,
        [...pp, 'needs-game-guard'],
        `${pAt}: protocol ${port.protocol} needs proxy "game_guard" (only tcp and udp may use "none")`,
      );
    }
  }
}

// RFC 7230: a header name is a token; a value is tab, visible ASCII, space or obs-text, never CR, LF or NUL.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function checkVerification(verification: VerificationConfig, base: Path, vAt: string, out: Out): void {
  const urlError = checkVerificationUrl(verification.url);
  if (urlError !== undefined) {
    add(out, [...base, 'url', urlError], `${vAt}.url ${quote(verification.url)} ${URL_PROBLEMS[urlError]}`);
  }
  const names = Object.keys(verification.headers).sort();
  if (names.length > LIMITS.verificationHeaders) {
    add(
      out,
      [...base, 'headers-meta', 'too-many'],
      `${vAt}.headers has ${names.length} headers; at most ${LIMITS.verificationHeaders}`,
    );
  }
  for (const name of names) {
    const hp = [...base, 'headers', star(name)];
    if (!HEADER_NAME.test(name)) {
      add(
        out,
        [...hp, 'invalid-name'],
        `${vAt}.headers: ${quote(name)} is not an HTTP header name (a token)`,
      );
    }
    if (!HEADER_VALUE.test(verification.headers[name] ?? '')) {
      add(
        out,
        [...hp, 'invalid-value'],
        `${vAt}.headers: the value of ${quote(name)} holds a control character (CR, LF, NUL…)`,
      );
    }
  }
}

const URL_PROBLEMS = {
  invalid: 'is not an absolute URL',
  'no-host': 'has no host',
  'invalid-scheme': 'must be http or https',
  'invalid-ip': 'points at an internal host (loopback, private, link-local, localhost or .local)',
} as const;

function checkVerificationUrl(raw: string): keyof typeof URL_PROBLEMS | undefined {
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
