/**
 * games.versions.validateGameVersion (4.10) and the rules of a game version's configuration (2.9, issue 3),
 * through HTTP: a table with one case (or more) for every error path, each built from a valid base with one
 * thing changed so the expected error set is exact; then a large valid config created and read back as
 * given and resolved, schema-level refusals (API_BAD_BODY), auth, regions and the host-networking flag.
 * Every validation here runs in a worker thread (GCM_VALIDATE_INLINE_MAX_BYTES=0), as large configurations'
 * do: the table doubles as the proof that the workers answer what the event loop would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { configShapeErrors } from '@gcm/contract';
import type { LightMyRequestResponse } from 'fastify';
import { startListening, withNamedBuilds } from '../helpers/listening.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

type Obj = Record<string, unknown>;
type Path = string[];

interface ErrorBody {
  code: string;
  message: string;
  ray_id: string;
  metadata?: { errors?: ErrorItem[]; field?: string | null };
}

interface ErrorItem {
  path: Path;
  message: string;
}

interface VersionFull {
  version_id: string;
  display_name: string;
  create_ts: string;
  config: Obj;
}

interface ResolvedGameMode {
  max_players: number;
  max_players_direct: number;
  max_players_party: number;
  tier: string;
  listable: boolean;
  taggable: boolean;
  allow_dynamic_max_players: boolean;
  idle_lobbies: { min: number; max: number };
  regions: Record<string, { tier: string; idle_lobbies: { min: number; max: number } }>;
  container: {
    image_id?: string;
    args?: string[];
    env: Record<string, string>;
    network_mode: string;
    ports: Record<string, Obj & { protocol: string; proxy: string }>;
  };
  docker?: unknown;
  actions: Record<string, Obj>;
}

interface ResolvedConfig extends Obj {
  matchmaker: Obj & { game_modes: Record<string, ResolvedGameMode> };
}

const UNKNOWN_ID = '0190a0a0-0000-7000-8000-00000000c0de';
const THROUGH_POOL = { GCM_VALIDATE_INLINE_MAX_BYTES: '0' };
const DEFAULT_REGIONS = ['lnd-atl', 'lnd-fra', 'lnd-sfo', 'lnd-sin'];
const RESERVED_ENV_KEYS = [
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
];

// ---------------------------------------------------------------------------------------------------------
// Builders: every one starts from a valid config, so a case changes exactly one thing.
// ---------------------------------------------------------------------------------------------------------

const IMG = 'img-1';
/** Image ids the cases use; each is a real completed build of the game it is sent to (withNamedBuilds). */
const NAMED_BUILDS = [IMG, 'img-base', 'img-ranked', 'img-host'] as const;
const DISPLAY_NAME = 'candidate';

/** P of the issue: the path prefix of a game mode's errors. */
const P = (gm = 'default'): Path => ['config', 'matchmaker', 'game-modes', `*${gm}*`];
const CDN: Path = ['config', 'cdn'];
const CAPTCHA: Path = ['config', 'matchmaker', 'captcha'];
const META: Path = ['config', 'matchmaker', 'game-modes-meta'];

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** One game mode "default" with a runtime; `gm` members replace or add to it, `mm` adds top-level keys. */
function gmConfig(gm: Obj = {}, mm: Obj = {}): Obj {
  return { matchmaker: { ...mm, game_modes: { default: { container: { image_id: IMG }, ...gm } } } };
}

/** The game mode's container with `container` members added. */
function withContainer(container: Obj, gm: Obj = {}, mm: Obj = {}): Obj {
  return gmConfig({ ...gm, container: { image_id: IMG, ...container } }, mm);
}

const withPorts = (ports: Obj) => withContainer({ ports });
const hostPorts = (ports: Obj) => withContainer({ network_mode: 'host', ports });
const withEnv = (env: Obj, container: Obj = {}) => withContainer({ ...container, env });
const withArgs = (args: unknown[]) => withContainer({ args });

/** Game modes that take their runtime from the top-level matchmaker. */
function topRuntime(gameModes: Obj, container: Obj = {}, mm: Obj = {}): Obj {
  return { matchmaker: { ...mm, container: { image_id: IMG, ...container }, game_modes: gameModes } };
}

const VALID_CAPTCHA = {
  requests_before_reverify: 15,
  verification_ttl: 3_600_000,
  captcha_provider_a: { site_key: 'site-a', secret_key: 'secret-a' },
};
/** A captcha with members replaced; `undefined` members disappear in JSON. */
const withCaptcha = (captcha: Obj) => gmConfig({}, { captcha: { ...VALID_CAPTCHA, ...captcha } });

const route = (glob: string, extra: Obj = {}): Obj => ({ glob, priority: 0, middlewares: [], ...extra });
const customHeaders = (headers: Obj[]): Obj => ({ kind: { custom_headers: { headers } } });
const header = (name: string, value = 'v'): Obj => ({ name, value });
const withCdn = (cdn: Obj) => ({ cdn: { site_id: 'site-1', ...cdn } });
const withRoutes = (routes: Obj[]) => withCdn({ routes });

const VERIFY_URL = 'https://verify.example.com/check';
function withVerification(kind: 'find' | 'join' | 'create', verification: Obj): Obj {
  return gmConfig({
    actions: { [kind]: { enabled: true, verification: { url: VERIFY_URL, headers: {}, ...verification } } },
  });
}
const vpath = (kind: 'find' | 'join' | 'create', ...rest: string[]): Path => [
  ...P(),
  `${kind}-config`,
  'verification-config',
  ...rest,
];

// ---------------------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------------------

interface Case {
  name: string;
  input: { display_name: string; config: Obj };
  expected: Path[];
  /** Validate against the game whose host networking the operator enabled. */
  host?: boolean;
}

const input = (config: Obj, display_name = DISPLAY_NAME) => ({ display_name, config });
function c(
  name: string,
  config: Obj,
  expected: Path[],
  opts: { host?: boolean; display_name?: string } = {},
) {
  return { name, input: input(config, opts.display_name), expected, host: opts.host ?? false } satisfies Case;
}

const cases: Case[] = [
  // --- valid baselines ---------------------------------------------------------------------------------
  c('config {} is valid', {}, []),
  c(
    'every top-level key null is valid',
    { cdn: null, engine: null, kv: null, matchmaker: null, scripts: null },
    [],
  ),
  c('a CDN-only version (no matchmaker) is valid', withRoutes([route('/**')]), []),
  c(
    'scripts, kv and engine are accepted',
    { scripts: { a: 'b' }, kv: {}, engine: { engine_c: { game_module: 'g' } } },
    [],
  ),
  c('a minimal game mode with its own container is valid', gmConfig(), []),
  c('a game mode taking the top-level container is valid', topRuntime({ default: {} }), []),
  c(
    'docker is an alias of container in a game mode',
    { matchmaker: { game_modes: { default: { docker: { image_id: IMG } } } } },
    [],
  ),
  c(
    'docker is an alias of container at the top level',
    { matchmaker: { docker: { image_id: IMG }, game_modes: { default: {} } } },
    [],
  ),
  c(
    'container null and docker set is not "both"',
    { matchmaker: { game_modes: { default: { container: null, docker: { image_id: IMG } } } } },
    [],
  ),
  c(
    'optional game mode fields null mean unset',
    {
      matchmaker: {
        captcha: null,
        container: null,
        docker: null,
        idle_lobbies: null,
        max_players: null,
        max_players_direct: null,
        max_players_party: null,
        regions: null,
        tier: null,
        game_modes: {
          default: {
            actions: { create: null, find: null, join: null },
            allow_dynamic_max_players: null,
            container: { image_id: IMG, args: null, env: null, network_mode: null, ports: null },
            docker: null,
            idle_lobbies: null,
            listable: null,
            max_players: null,
            max_players_direct: null,
            max_players_party: null,
            regions: null,
            taggable: null,
            tier: null,
          },
        },
      },
    },
    [],
  ),
  c(
    'a port with null optional members is valid',
    withPorts({ game: { port: 7777, protocol: null, proxy: null, port_range: null, dev_port: null } }),
    [],
  ),
  c('display name of 128 bytes is valid', {}, [], { display_name: 'a'.repeat(128) }),

  // --- display name --------------------------------------------------------------------------------------
  c('display name empty', {}, [['display-name', 'too-short']], { display_name: '' }),
  c('display name 129 bytes', {}, [['display-name', 'too-long']], { display_name: 'a'.repeat(129) }),
  c('display name 43 × 日 (129 bytes)', {}, [['display-name', 'too-long']], {
    display_name: '日'.repeat(43),
  }),
  c('display name leading space', {}, [['display-name', 'invalid']], { display_name: ' v2' }),
  c('display name double space', {}, [['display-name', 'invalid']], { display_name: 'v  2' }),
  c('display name with a tab', {}, [['display-name', 'invalid']], { display_name: 'v\t2' }),
  c('display name of an existing version', {}, [['display-name', 'not-unique']], { display_name: 'v1' }),

  // --- cdn ---------------------------------------------------------------------------------------------
  c('cdn without site_id', { cdn: { routes: [] } }, [[...CDN, 'no-site-id']]),
  c('cdn with site_id null', { cdn: { site_id: null } }, [[...CDN, 'no-site-id']]),
  c(
    'cdn 32 routes, priority 100, 32 headers, name 512, value 1024 are valid',
    withRoutes([
      ...range(31).map((i) => route(`/r${i}/*`)),
      route('/last/**', {
        priority: 100,
        middlewares: [
          { kind: {} },
          customHeaders([
            header('n'.repeat(512), 'v'.repeat(1024)),
            ...range(31).map((i) => header(`x-h${i}`)),
          ]),
        ],
      }),
    ]),
    [],
  ),
  c(
    'cdn globs: `**` alone as a segment is valid',
    withRoutes([route('**'), route('/a/**'), route('/a/**/b'), route('/*.js')]),
    [],
  ),
  c('cdn 33 routes', withRoutes(range(33).map((i) => route(`/r${i}/*`))), [
    [...CDN, 'routes-meta', 'too-many'],
  ]),
  c('cdn empty glob', withRoutes([route('/a'), route('')]), [[...CDN, 'routes', '1', 'glob', 'invalid']]),
  c('cdn glob `/a**`', withRoutes([route('/a**')]), [[...CDN, 'routes', '0', 'glob', 'invalid']]),
  c('cdn glob `/**.js`', withRoutes([route('/**.js')]), [[...CDN, 'routes', '0', 'glob', 'invalid']]),
  c('cdn repeated glob', withRoutes([route('/a/*'), route('/b'), route('/a/*')]), [
    [...CDN, 'routes', '2', 'glob', 'not-unique'],
  ]),
  c('cdn priority 101', withRoutes([route('/a'), route('/b', { priority: 101 })]), [
    [...CDN, 'routes', '1', 'priority', 'too-high'],
  ]),
  c('cdn 33 middlewares', withRoutes([route('/a', { middlewares: range(33).map(() => ({ kind: {} })) })]), [
    [...CDN, 'routes', '0', 'middlewares-meta', 'too-many'],
  ]),
  c(
    'cdn second custom_headers middleware',
    withRoutes([route('/a', { middlewares: [customHeaders([]), { kind: {} }, customHeaders([])] })]),
    [[...CDN, 'routes', '0', 'middlewares', '2', 'not-unique']],
  ),
  c(
    'cdn 33 headers',
    withRoutes([route('/a', { middlewares: [customHeaders(range(33).map((i) => header(`x-h${i}`)))] })]),
    [[...CDN, 'routes', '0', 'middlewares', '0', 'custom-headers', 'headers-meta', 'too-many']],
  ),
  c(
    'cdn empty header name (route 1, middleware 1, header 1)',
    withRoutes([
      route('/a'),
      route('/b', { middlewares: [{ kind: {} }, customHeaders([header('x-ok'), header('')])] }),
    ]),
    [[...CDN, 'routes', '1', 'middlewares', '1', 'custom-headers', 'headers', '1', 'name', 'invalid']],
  ),
  c(
    'cdn header name of 513',
    withRoutes([route('/a', { middlewares: [customHeaders([header('n'.repeat(513))])] })]),
    [[...CDN, 'routes', '0', 'middlewares', '0', 'custom-headers', 'headers', '0', 'name', 'too-long']],
  ),
  c(
    'cdn header value of 1025',
    withRoutes([route('/a', { middlewares: [customHeaders([header('x-a', 'v'.repeat(1025))])] })]),
    [[...CDN, 'routes', '0', 'middlewares', '0', 'custom-headers', 'headers', '0', 'value', 'too-long']],
  ),

  // --- captcha -------------------------------------------------------------------------------------------
  c('captcha with provider a is valid', withCaptcha({}), []),
  c(
    'captcha at its limits with both providers is valid',
    withCaptcha({
      requests_before_reverify: 600,
      verification_ttl: 43_200_000,
      captcha_provider_a: { site_key: 's'.repeat(36), secret_key: 'k'.repeat(42) },
      captcha_provider_b: { site_key: 's'.repeat(30), secret_key: 'k'.repeat(40) },
    }),
    [],
  ),
  c(
    'captcha provider b alone is valid',
    withCaptcha({ captcha_provider_a: undefined, captcha_provider_b: { site_key: 's', secret_key: 'k' } }),
    [],
  ),
  c('captcha requests_before_reverify 601', withCaptcha({ requests_before_reverify: 601 }), [
    [...CAPTCHA, 'requests-before-reverify', 'too-high'],
  ]),
  c('captcha verification_ttl 43,200,001', withCaptcha({ verification_ttl: 43_200_001 }), [
    [...CAPTCHA, 'verification-ttl', 'too-high'],
  ]),
  c('captcha requests_before_reverify -1', withCaptcha({ requests_before_reverify: -1 }), [
    [...CAPTCHA, 'requests-before-reverify', 'too-low'],
  ]),
  c('captcha verification_ttl -1', withCaptcha({ verification_ttl: -1 }), [
    [...CAPTCHA, 'verification-ttl', 'too-low'],
  ]),
  c('captcha without providers', withCaptcha({ captcha_provider_a: undefined }), [
    ['config', 'matchmaker', 'captcha-meta', 'must-have-one'],
  ]),
  c('captcha with both providers null', withCaptcha({ captcha_provider_a: null, captcha_provider_b: null }), [
    ['config', 'matchmaker', 'captcha-meta', 'must-have-one'],
  ]),
  c('captcha provider a without site_key', withCaptcha({ captcha_provider_a: { secret_key: 'k' } }), [
    [...CAPTCHA, 'captcha-provider-a', 'site-key', 'required'],
  ]),
  c(
    'captcha provider a site_key null',
    withCaptcha({ captcha_provider_a: { site_key: null, secret_key: 'k' } }),
    [[...CAPTCHA, 'captcha-provider-a', 'site-key', 'required']],
  ),
  c(
    'captcha provider a site_key empty',
    withCaptcha({ captcha_provider_a: { site_key: '', secret_key: 'k' } }),
    [[...CAPTCHA, 'captcha-provider-a', 'site-key', 'too-short']],
  ),
  c(
    'captcha provider a site_key of 37',
    withCaptcha({ captcha_provider_a: { site_key: 's'.repeat(37), secret_key: 'k' } }),
    [[...CAPTCHA, 'captcha-provider-a', 'site-key', 'too-long']],
  ),
  c('captcha provider a without secret_key', withCaptcha({ captcha_provider_a: { site_key: 's' } }), [
    [...CAPTCHA, 'captcha-provider-a', 'secret-key', 'required'],
  ]),
  c(
    'captcha provider a secret_key empty',
    withCaptcha({ captcha_provider_a: { site_key: 's', secret_key: '' } }),
    [[...CAPTCHA, 'captcha-provider-a', 'secret-key', 'too-short']],
  ),
  c(
    'captcha provider a secret_key of 43',
    withCaptcha({ captcha_provider_a: { site_key: 's', secret_key: 'k'.repeat(43) } }),
    [[...CAPTCHA, 'captcha-provider-a', 'secret-key', 'too-long']],
  ),
  c('captcha provider a empty object', withCaptcha({ captcha_provider_a: {} }), [
    [...CAPTCHA, 'captcha-provider-a', 'site-key', 'required'],
    [...CAPTCHA, 'captcha-provider-a', 'secret-key', 'required'],
  ]),
  c(
    'captcha provider b site_key empty',
    withCaptcha({ captcha_provider_b: { site_key: '', secret_key: 'k' } }),
    [[...CAPTCHA, 'captcha-provider-b', 'site-key', 'too-short']],
  ),
  c(
    'captcha provider b site_key of 31',
    withCaptcha({ captcha_provider_b: { site_key: 's'.repeat(31), secret_key: 'k' } }),
    [[...CAPTCHA, 'captcha-provider-b', 'site-key', 'too-long']],
  ),
  c(
    'captcha provider b secret_key empty',
    withCaptcha({ captcha_provider_b: { site_key: 's', secret_key: '' } }),
    [[...CAPTCHA, 'captcha-provider-b', 'secret-key', 'too-short']],
  ),
  c(
    'captcha provider b secret_key of 41',
    withCaptcha({ captcha_provider_b: { site_key: 's', secret_key: 'k'.repeat(41) } }),
    [[...CAPTCHA, 'captcha-provider-b', 'secret-key', 'too-long']],
  ),

  // --- game modes ----------------------------------------------------------------------------------------
  c('matchmaker {} has too few game modes', { matchmaker: {} }, [[...META, 'too-few']]),
  c('matchmaker with empty game_modes', { matchmaker: { game_modes: {} } }, [[...META, 'too-few']]),
  c('matchmaker with game_modes null', { matchmaker: { game_modes: null } }, [[...META, 'too-few']]),
  c('matchmaker with only a container', { matchmaker: { container: { image_id: IMG } } }, [
    [...META, 'too-few'],
  ]),
  c('32 game modes are valid', topRuntime(Object.fromEntries(range(32).map((i) => [`gm-${i}`, {}]))), []),
  c('33 game modes', topRuntime(Object.fromEntries(range(33).map((i) => [`gm-${i}`, {}]))), [
    [...META, 'too-many'],
  ]),
  c(
    'game mode names A_b-1, _x and 64 characters are valid',
    topRuntime({ 'A_b-1': {}, _x: {}, ['g'.repeat(64)]: {} }),
    [],
  ),
  ...['-lead', 'trail-', 'has space', 'dot.name', 'ünï', '', 'g'.repeat(65)].map((name) =>
    c(
      `game mode name ${JSON.stringify(name.length > 20 ? `${name.slice(0, 3)}…(${name.length})` : name)}`,
      topRuntime({ [name]: {} }),
      [[...P(name), 'name-id-invalid']],
    ),
  ),

  // --- player counts -------------------------------------------------------------------------------------
  c(
    'player counts 1 and 256 are valid',
    gmConfig({ max_players: 256, max_players_direct: 1, max_players_party: 1 }),
    [],
  ),
  c(
    'max_players 0 with direct and party set',
    gmConfig({ max_players: 0, max_players_direct: 8, max_players_party: 8 }),
    [[...P(), 'player-counts', 'max-players-normal', 'too-low']],
  ),
  // Direct and party follow max_players where they are not written: one problem, where it was written.
  c('max_players 0 alone: direct and party follow it', gmConfig({ max_players: 0 }), [
    [...P(), 'player-counts', 'max-players-normal', 'too-low'],
  ]),
  c('top-level max_players 0 alone', gmConfig({}, { max_players: 0 }), [
    [...P(), 'player-counts', 'max-players-normal', 'too-low'],
  ]),
  c(
    'max_players 0 with a top-level direct count: that one is written, so it is checked',
    gmConfig({ max_players: 0 }, { max_players_direct: 300 }),
    [
      [...P(), 'player-counts', 'max-players-normal', 'too-low'],
      [...P(), 'player-counts', 'max-players-direct', 'too-high'],
    ],
  ),
  c('max_players_direct 0', gmConfig({ max_players_direct: 0 }), [
    [...P(), 'player-counts', 'max-players-direct', 'too-low'],
  ]),
  c('max_players_party 0', gmConfig({ max_players_party: 0 }), [
    [...P(), 'player-counts', 'max-players-party', 'too-low'],
  ]),
  c('max_players -1', gmConfig({ max_players: -1, max_players_direct: 8, max_players_party: 8 }), [
    [...P(), 'player-counts', 'max-players-normal', 'too-low'],
  ]),
  c(
    'max_players 257 with direct and party set',
    gmConfig({ max_players: 257, max_players_direct: 8, max_players_party: 8 }),
    [[...P(), 'player-counts', 'max-players-normal', 'too-high']],
  ),
  c('max_players 257 alone: direct and party follow it', gmConfig({ max_players: 257 }), [
    [...P(), 'player-counts', 'max-players-normal', 'too-high'],
  ]),
  c('max_players_direct 257', gmConfig({ max_players_direct: 257 }), [
    [...P(), 'player-counts', 'max-players-direct', 'too-high'],
  ]),
  c('max_players_party 257', gmConfig({ max_players_party: 257 }), [
    [...P(), 'player-counts', 'max-players-party', 'too-high'],
  ]),
  c(
    'top-level max_players_direct 300 falls through to the game mode',
    gmConfig({}, { max_players_direct: 300 }),
    [[...P(), 'player-counts', 'max-players-direct', 'too-high']],
  ),
  c(
    'top-level max_players 0 is overridden by the game mode',
    gmConfig({ max_players: 8 }, { max_players: 0 }),
    [],
  ),

  // --- regions -------------------------------------------------------------------------------------------
  c(
    'every configured region with every tier is valid',
    gmConfig({
      regions: {
        'lnd-atl': { tier: 'basic-4d1' },
        'lnd-fra': { tier: 'basic-2d1', idle_lobbies: { min: 16, max: 32 } },
        'lnd-sfo': { tier: 'basic-1d16', idle_lobbies: { min: 0, max: 0 } },
        'lnd-sin': {},
      },
    }),
    [],
  ),
  ...['basic-1d1', 'basic-1d2', 'basic-1d4', 'basic-1d8'].map((tier) =>
    c(`tier ${tier} on the game mode is valid`, gmConfig({ tier, regions: { 'lnd-atl': {} } }), []),
  ),
  c('unknown region in the game mode', gmConfig({ regions: { 'lnd-atl': {}, 'mars-1': {} } }), [
    [...P(), 'regions', '*mars-1*', 'invalid'],
  ]),
  c('unknown region at the top level, none in the game mode', gmConfig({}, { regions: { 'mars-1': {} } }), [
    [...P(), 'regions', '*mars-1*', 'invalid'],
  ]),
  c(
    'the game mode regions replace the top-level ones',
    gmConfig({ regions: { 'lnd-atl': {} } }, { regions: { 'mars-1': {} } }),
    [],
  ),
  c('unknown tier in a region', gmConfig({ regions: { 'lnd-atl': { tier: 'basic-3d1' } } }), [
    [...P(), 'regions', '*lnd-atl*', 'tier-name-id-invalid'],
  ]),
  c(
    'unknown tier on the game mode applies to its regions',
    gmConfig({ tier: 'gold', regions: { 'lnd-atl': {} } }),
    [[...P(), 'regions', '*lnd-atl*', 'tier-name-id-invalid']],
  ),
  c(
    'a region tier overrides a bad game mode tier',
    gmConfig({ tier: 'gold', regions: { 'lnd-atl': { tier: 'basic-1d1' } } }),
    [],
  ),
  c(
    'unknown top-level tier with no regions anywhere: every configured region',
    gmConfig({}, { tier: 'gold' }),
    DEFAULT_REGIONS.map((r) => [...P(), 'regions', `*${r}*`, 'tier-name-id-invalid']),
  ),
  c('unknown region with unknown tier', gmConfig({ regions: { 'mars-1': { tier: 'x' } } }), [
    [...P(), 'regions', '*mars-1*', 'invalid'],
    [...P(), 'regions', '*mars-1*', 'tier-name-id-invalid'],
  ]),
  c(
    'region idle_lobbies min > max',
    gmConfig({ regions: { 'lnd-atl': { idle_lobbies: { min: 3, max: 2 } } } }),
    [[...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'min-gt-max']],
  ),
  c(
    'region idle_lobbies min 17',
    gmConfig({ regions: { 'lnd-atl': { idle_lobbies: { min: 17, max: 20 } } } }),
    [[...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'min-too-high']],
  ),
  c(
    'region idle_lobbies max 33',
    gmConfig({ regions: { 'lnd-atl': { idle_lobbies: { min: 0, max: 33 } } } }),
    [[...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'max-too-high']],
  ),
  c(
    'region idle_lobbies min 20 > max 10',
    gmConfig({ regions: { 'lnd-atl': { idle_lobbies: { min: 20, max: 10 } } } }),
    [
      [...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'min-gt-max'],
      [...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'min-too-high'],
    ],
  ),
  c(
    'region idle_lobbies min -1',
    gmConfig({ regions: { 'lnd-atl': { idle_lobbies: { min: -1, max: 2 } } } }),
    [[...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'min-too-low']],
  ),
  c(
    'region idle_lobbies min -3 max -1',
    gmConfig({ regions: { 'lnd-atl': { idle_lobbies: { min: -3, max: -1 } } } }),
    [
      [...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'min-too-low'],
      [...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'max-too-low'],
    ],
  ),
  c(
    'game mode idle_lobbies apply to its regions',
    gmConfig({ idle_lobbies: { min: 17, max: 20 }, regions: { 'lnd-atl': {} } }),
    [[...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'min-too-high']],
  ),
  c(
    'top-level idle_lobbies apply to game mode regions',
    gmConfig({ regions: { 'lnd-atl': {} } }, { idle_lobbies: { min: 0, max: 33 } }),
    [[...P(), 'regions', '*lnd-atl*', 'idle-lobbies', 'max-too-high']],
  ),
  c(
    'region idle_lobbies override bad game mode ones',
    gmConfig({
      idle_lobbies: { min: 17, max: 20 },
      regions: { 'lnd-atl': { idle_lobbies: { min: 0, max: 2 } } },
    }),
    [],
  ),

  // --- runtime -------------------------------------------------------------------------------------------
  c('no runtime anywhere', { matchmaker: { game_modes: { default: {} } } }, [[...P(), 'no-runtime']]),
  c('container without image_id', { matchmaker: { game_modes: { default: { container: {} } } } }, [
    [...P(), 'no-build'],
  ]),
  c('container with image_id null', withContainer({ image_id: null }), [[...P(), 'no-build']]),
  c('docker without image_id', { matchmaker: { game_modes: { default: { docker: {} } } } }, [
    [...P(), 'no-build'],
  ]),
  c('top-level container without image_id', topRuntime({ default: {} }, { image_id: undefined }), [
    [...P(), 'no-build'],
  ]),
  c(
    'a game mode container replaces the top-level one whole (image_id not inherited)',
    topRuntime({ default: { container: { args: ['--x'] } } }),
    [[...P(), 'no-build']],
  ),

  // --- args ----------------------------------------------------------------------------------------------
  c(
    '64 args, one of 512 characters, are valid',
    withArgs([...range(63).map((i) => `a${i}`), 'x'.repeat(512)]),
    [],
  ),
  c('65 args', withArgs(range(65).map((i) => `a${i}`)), [[...P(), 'args-too-many']]),
  c('empty arg', withArgs(['a', '']), [[...P(), 'args', '1', 'invalid']]),
  c('arg of 513', withArgs(['a', 'x'.repeat(513)]), [[...P(), 'args', '1', 'too-long']]),
  c('repeated arg', withArgs(['a', 'b', 'a']), [[...P(), 'args', '2', 'not-unique']]),
  c('top-level args are checked in each game mode', topRuntime({ a: {}, b: {} }, { args: ['x', ''] }), [
    [...P('a'), 'args', '1', 'invalid'],
    [...P('b'), 'args', '1', 'invalid'],
  ]),

  // --- env -----------------------------------------------------------------------------------------------
  c(
    '64 env vars with a 64-character key and a 512-character value are valid',
    withEnv({
      ...Object.fromEntries(range(62).map((i) => [`E${i}`, 'v'])),
      ['K'.repeat(64)]: 'v',
      LONG: 'v'.repeat(512),
    }),
    [],
  ),
  c('65 env vars', withEnv(Object.fromEntries(range(65).map((i) => [`E${i}`, 'v']))), [
    [...P(), 'env-vars-too-many'],
  ]),
  c('empty env key', withEnv({ A: 'a', '': 'x' }), [[...P(), 'env-vars', '**', 'key', 'invalid']]),
  c('env key of 65', withEnv({ ['K'.repeat(65)]: 'x' }), [
    [...P(), 'env-vars', `*${'K'.repeat(65)}*`, 'key', 'too-long'],
  ]),
  c('empty env value', withEnv({ A: '' }), [[...P(), 'env-vars', '*A*', 'value', 'invalid']]),
  c('env value of 513', withEnv({ A: 'v'.repeat(513) }), [[...P(), 'env-vars', '*A*', 'value', 'too-long']]),
  // Control characters never reach the rules: the body itself is refused (see the schema-level refusals).
  ...['A=B', 'A B', ' A'].map((key) =>
    c(`env key ${JSON.stringify(key)}`, withEnv({ [key]: 'x' }), [
      [...P(), 'env-vars', `*${key}*`, 'key', 'invalid'],
    ]),
  ),
  ...RESERVED_ENV_KEYS.map((key) =>
    c(`reserved env key ${key}`, withEnv({ OK: 'x', [key]: 'x' }), [
      [...P(), 'env-vars', `*${key}*`, 'key', 'conflicts-with-default'],
    ]),
  ),
  c(
    'PORT_<LABEL> of a numbered port',
    withEnv({ PORT_GAME: '1' }, { ports: { game: { port: 7777, protocol: 'udp' } } }),
    [[...P(), 'env-vars', '*PORT_GAME*', 'key', 'conflicts-with-default']],
  ),
  c(
    'PORT_<LABEL> upper-cases the label and turns - into _',
    withEnv({ PORT_GAME_UDP: '1' }, { ports: { 'game-udp': { port: 7777, protocol: 'udp' } } }),
    [[...P(), 'env-vars', '*PORT_GAME_UDP*', 'key', 'conflicts-with-default']],
  ),
  c(
    'PORT_<LABEL> of a label no port has is free',
    withEnv({ PORT_OTHER: '1' }, { ports: { game: { port: 7777, protocol: 'udp' } } }),
    [],
  ),
  c(
    'PORT_RANGE_<LABEL>_MIN/_MAX of a numbered port are free',
    withEnv(
      { PORT_RANGE_GAME_MIN: '1', PORT_RANGE_GAME_MAX: '2' },
      { ports: { game: { port: 7777, protocol: 'udp' } } },
    ),
    [],
  ),
  c(
    'PORT_RANGE_<LABEL>_MIN and _MAX of a port with a range',
    withEnv(
      { PORT_RANGE_GAME_UDP_MIN: '1', PORT_RANGE_GAME_UDP_MAX: '2' },
      {
        network_mode: 'host',
        ports: { 'game-udp': { port_range: { min: 26000, max: 26010 }, protocol: 'udp', proxy: 'none' } },
      },
    ),
    [
      [...P(), 'env-vars', '*PORT_RANGE_GAME_UDP_MIN*', 'key', 'conflicts-with-default'],
      [...P(), 'env-vars', '*PORT_RANGE_GAME_UDP_MAX*', 'key', 'conflicts-with-default'],
    ],
    { host: true },
  ),
  c(
    'PORT_<LABEL> of a port with only a range is free',
    withEnv(
      { PORT_GAME_UDP: '1' },
      {
        network_mode: 'host',
        ports: { 'game-udp': { port_range: { min: 26000, max: 26010 }, protocol: 'udp', proxy: 'none' } },
      },
    ),
    [],
    { host: true },
  ),
  c(
    'top-level env with a reserved key, in each game mode',
    topRuntime({ a: {}, b: {} }, { env: { LOBBY_ID: 'x' } }),
    [
      [...P('a'), 'env-vars', '*LOBBY_ID*', 'key', 'conflicts-with-default'],
      [...P('b'), 'env-vars', '*LOBBY_ID*', 'key', 'conflicts-with-default'],
    ],
  ),
  c(
    'env is merged: the game mode value wins over a bad top-level one',
    topRuntime({ default: { container: { image_id: IMG, env: { A: 'x' } } } }, { env: { A: '' } }),
    [],
  ),
  c(
    'env is merged: a bad top-level value stays under a game mode container',
    topRuntime({ default: { container: { image_id: IMG, env: { A: 'x' } } } }, { env: { B: '' } }),
    [[...P(), 'env-vars', '*B*', 'value', 'invalid']],
  ),

  // --- host networking -----------------------------------------------------------------------------------
  c(
    'network_mode host while the game may not: no port errors at all',
    withContainer({
      network_mode: 'host',
      ports: {
        Bad_Label: { port_range: { min: 10, max: 5 } },
        missing: {},
        dup: { port: 7777, port_range: { min: 26000, max: 26010 }, protocol: 'https', proxy: 'none' },
        ...Object.fromEntries(range(17).map((i) => [`p${i}`, { port: 7000 }])),
      },
    }),
    [[...P(), 'host-networking-disabled']],
  ),
  c(
    'network_mode host at the top level while the game may not',
    topRuntime({ a: {}, b: {} }, { network_mode: 'host' }),
    [
      [...P('a'), 'host-networking-disabled'],
      [...P('b'), 'host-networking-disabled'],
    ],
  ),
  c(
    'network_mode host when the operator allows it',
    hostPorts({ game: { port_range: { min: 26000, max: 26010 }, protocol: 'udp', proxy: 'none' } }),
    [],
    { host: true },
  ),
  c('network_mode bridge explicitly', withContainer({ network_mode: 'bridge' }), []),

  // --- ports ---------------------------------------------------------------------------------------------
  c(
    '16 ports with every protocol, port 1 and 65535 are valid',
    withPorts({
      ...Object.fromEntries(range(11).map((i) => [`p${i}`, { port: 7000 + i, protocol: 'udp' }])),
      web: { port: 1, protocol: 'http' },
      secure: { port: 65535, protocol: 'https', proxy: 'game_guard' },
      tcp: { port: 7000, protocol: 'tcp' },
      tls: { port: 7000, protocol: 'tcp_tls' },
      def: { port: 7000 },
    }),
    [],
  ),
  c(
    '17 ports',
    withPorts(Object.fromEntries(range(17).map((i) => [`p${i}`, { port: 7000 + i, protocol: 'udp' }]))),
    [[...P(), 'ports-too-many']],
  ),
  ...['Game', 'game_1', '-game', 'game-', 'a--b', 'p'.repeat(17), 'a b'].map((label) =>
    c(
      `port label ${JSON.stringify(label)}`,
      withPorts({ ok: { port: 7000, protocol: 'udp' }, [label]: { port: 7777, protocol: 'udp' } }),
      [[...P(), 'ports', `*${label}*`, 'label-invalid']],
    ),
  ),
  c(
    'same port number and protocol twice (reported on the later label)',
    withPorts({ b: { port: 7777, protocol: 'udp' }, a: { port: 7777, protocol: 'udp' } }),
    [[...P(), 'ports', '*b*', 'port-protocol-not-unique']],
  ),
  c(
    'same port number with the default protocol and https',
    withPorts({ a: { port: 8080 }, b: { port: 8080, protocol: 'https' } }),
    [[...P(), 'ports', '*b*', 'port-protocol-not-unique']],
  ),
  c(
    'same port number, other protocol, is valid',
    withPorts({ a: { port: 7777, protocol: 'udp' }, b: { port: 7777, protocol: 'tcp' } }),
    [],
  ),
  c(
    'port and port_range (host)',
    hostPorts({ game: { port: 7777, port_range: { min: 26000, max: 26010 }, protocol: 'udp' } }),
    [
      [...P(), 'ports', '*game*', 'duplicate-port-and-port-range'],
      [...P(), 'ports', '*game*', 'unsupported-port-range'],
    ],
    { host: true },
  ),
  c('neither port nor port_range', withPorts({ game: { protocol: 'udp' } }), [
    [...P(), 'ports', '*game*', 'missing-port-and-port-range'],
  ]),
  c('empty port object', withPorts({ game: {} }), [
    [...P(), 'ports', '*game*', 'missing-port-and-port-range'],
  ]),
  c(
    'port_range with the default proxy (host)',
    hostPorts({ game: { port_range: { min: 26000, max: 26010 }, protocol: 'udp' } }),
    [[...P(), 'ports', '*game*', 'unsupported-port-range']],
    { host: true },
  ),
  c(
    'port_range with proxy game_guard (host)',
    hostPorts({ game: { port_range: { min: 26000, max: 26010 }, protocol: 'udp', proxy: 'game_guard' } }),
    [[...P(), 'ports', '*game*', 'unsupported-port-range']],
    { host: true },
  ),
  c(
    'port_range min > max (host)',
    hostPorts({ game: { port_range: { min: 26010, max: 26000 }, protocol: 'udp', proxy: 'none' } }),
    [[...P(), 'ports', '*game*', 'range-min-gt-max']],
    { host: true },
  ),
  c(
    'port_range 26000-31999 is valid (host)',
    hostPorts({ game: { port_range: { min: 26000, max: 31999 }, protocol: 'udp', proxy: 'none' } }),
    [],
    { host: true },
  ),
  c(
    'port_range starting at 25999 (host)',
    hostPorts({ game: { port_range: { min: 25999, max: 26010 }, protocol: 'udp', proxy: 'none' } }),
    [[...P(), 'ports', '*game*', 'port-out-of-range']],
    { host: true },
  ),
  c(
    'port_range ending at 32000 (host)',
    hostPorts({ game: { port_range: { min: 31990, max: 32000 }, protocol: 'udp', proxy: 'none' } }),
    [[...P(), 'ports', '*game*', 'port-out-of-range']],
    { host: true },
  ),
  c(
    'overlapping ranges of one protocol (reported on the later label)',
    hostPorts({
      z: { port_range: { min: 26000, max: 26010 }, protocol: 'udp', proxy: 'none' },
      a: { port_range: { min: 26005, max: 26020 }, protocol: 'udp', proxy: 'none' },
    }),
    [[...P(), 'ports', '*z*', 'ranges-overlap']],
    { host: true },
  ),
  c(
    'adjacent ranges of one protocol are valid',
    hostPorts({
      a: { port_range: { min: 26000, max: 26010 }, protocol: 'udp', proxy: 'none' },
      b: { port_range: { min: 26011, max: 26020 }, protocol: 'udp', proxy: 'none' },
    }),
    [],
    { host: true },
  ),
  c(
    'overlapping ranges of two protocols are valid',
    hostPorts({
      a: { port_range: { min: 26000, max: 26010 }, protocol: 'udp', proxy: 'none' },
      b: { port_range: { min: 26005, max: 26020 }, protocol: 'tcp', proxy: 'none' },
    }),
    [],
    { host: true },
  ),
  c('proxy none without host network', withPorts({ game: { port: 7777, protocol: 'udp', proxy: 'none' } }), [
    [...P(), 'ports', '*game*', 'needs-host-network'],
  ]),
  c(
    'port_range (proxy none) without host network',
    withPorts({ game: { port_range: { min: 26000, max: 26010 }, protocol: 'udp', proxy: 'none' } }),
    [[...P(), 'ports', '*game*', 'needs-host-network']],
  ),
  c(
    'port_range (default proxy) without host network',
    withPorts({ game: { port_range: { min: 26000, max: 26010 }, protocol: 'udp' } }),
    [
      [...P(), 'ports', '*game*', 'unsupported-port-range'],
      [...P(), 'ports', '*game*', 'needs-host-network'],
    ],
  ),
  c(
    'host network, proxy none, port number',
    hostPorts({ game: { port: 7777, protocol: 'udp', proxy: 'none' } }),
    [[...P(), 'ports', '*game*', 'unsupported-target-port']],
    { host: true },
  ),
  c(
    'host network, proxied port number is valid',
    hostPorts({ game: { port: 7777, protocol: 'udp' }, web: { port: 80, protocol: 'http' } }),
    [],
    { host: true },
  ),
  ...['http', 'https', 'tcp_tls'].map((protocol) =>
    c(
      `host network, proxy none, protocol ${protocol}`,
      hostPorts({ game: { port_range: { min: 26000, max: 26010 }, protocol, proxy: 'none' } }),
      [[...P(), 'ports', '*game*', 'needs-game-guard']],
      { host: true },
    ),
  ),
  c(
    'host network, proxy none, default protocol (https)',
    hostPorts({ game: { port_range: { min: 26000, max: 26010 }, proxy: 'none' } }),
    [[...P(), 'ports', '*game*', 'needs-game-guard']],
    { host: true },
  ),
  c(
    'host network, proxy none, http with a port number',
    hostPorts({ web: { port: 8080, protocol: 'http', proxy: 'none' } }),
    [
      [...P(), 'ports', '*web*', 'unsupported-target-port'],
      [...P(), 'ports', '*web*', 'needs-game-guard'],
    ],
    { host: true },
  ),
  ...[0, -1, 65536].map((port) =>
    c(`port number ${port}`, withPorts({ game: { port, protocol: 'udp' } }), [
      [...P(), 'ports', '*game*', 'port-out-of-range'],
    ]),
  ),

  // --- actions verification ------------------------------------------------------------------------------
  c(
    'actions without verification are valid',
    gmConfig({
      actions: {
        find: { enabled: false },
        join: { enabled: true },
        create: { enabled: true, enable_private: false, enable_public: true },
      },
    }),
    [],
  ),
  ...[
    'https://verify.example.com/check?x=1',
    'http://93.184.216.34/',
    'https://8.8.8.8:8443/v',
    'http://[2001:4860:4860::8888]/',
    // Public addresses just outside each internal range, and names that only look local.
    'http://1.0.0.1/',
    'http://11.0.0.1/',
    'http://9.255.255.255/',
    'http://126.255.255.255/',
    'http://128.0.0.1/',
    'http://169.253.1.1/',
    'http://169.255.1.1/',
    'http://168.254.1.1/',
    'http://172.15.255.255/',
    'http://172.32.0.1/',
    'http://171.16.0.1/',
    'http://192.167.1.1/',
    'http://192.169.1.1/',
    'http://193.168.1.1/',
    'http://100.63.255.255/',
    'http://100.128.0.1/',
    'http://99.64.0.1/',
    'http://101.100.0.1/',
    'http://10.0.0.1.nip.example/',
    'http://[::2]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[::ffff:ac0f:1]/',
    'http://[fbff::1]/',
    'http://[fec0::1]/',
    'http://[fe00::1]/',
    'http://notlocalhost.example/',
    'http://localhost.example.com/',
    'http://local.example.com/',
    'http://mylocal/',
    // Names that begin like an internal IPv6 prefix once their first character is dropped.
    'http://xfd00.example/',
    'http://afe80.example/',
  ].map((url) => c(`verification url ${url} is valid`, withVerification('find', { url }), [])),
  ...(
    [
      ['not a url', 'invalid'],
      ['', 'invalid'],
      ['https://', 'invalid'],
      ['//verify.example.com/x', 'invalid'],
      ['mailto:a@b.c', 'no-host'],
      ['file:///x', 'no-host'],
      ['ftp://example.com', 'invalid-scheme'],
      ['ws://example.com/socket', 'invalid-scheme'],
      ['ftp://127.0.0.1/', 'invalid-scheme'],
      ['http://127.0.0.1/', 'invalid-ip'],
      ['http://127.1.2.3:8080/', 'invalid-ip'],
      ['http://10.1.2.3/', 'invalid-ip'],
      ['http://172.16.0.1/', 'invalid-ip'],
      ['http://172.31.255.254/', 'invalid-ip'],
      ['http://192.168.1.1/', 'invalid-ip'],
      ['http://169.254.169.254/latest/meta-data', 'invalid-ip'],
      ['http://localhost:8080/', 'invalid-ip'],
      ['http://LOCALHOST/', 'invalid-ip'],
      ['http://printer.local/', 'invalid-ip'],
      ['http://[::1]/', 'invalid-ip'],
      ['http://[fe80::1]/', 'invalid-ip'],
      ['http://[fd00::1]/', 'invalid-ip'],
      ['http://0x7f.0.0.1/', 'invalid-ip'],
      // Each internal range at its edges (0.0.0.0/8, 10/8, 127/8, 169.254/16, 172.16/12, 192.168/16,
      // 100.64/10), IPv4-mapped IPv6 of them, fc00::/7 and fe80::/10 at both ends, and local names.
      ['http://0.0.0.0/', 'invalid-ip'],
      ['http://0.1.2.3/', 'invalid-ip'],
      ['http://10.0.0.0/', 'invalid-ip'],
      ['http://10.255.255.255/', 'invalid-ip'],
      ['http://127.255.255.255/', 'invalid-ip'],
      ['http://169.254.0.1/', 'invalid-ip'],
      ['http://172.16.0.0/', 'invalid-ip'],
      ['http://172.31.255.255/', 'invalid-ip'],
      ['http://192.168.0.1/', 'invalid-ip'],
      ['http://192.168.255.255/', 'invalid-ip'],
      ['http://100.64.0.1/', 'invalid-ip'],
      ['http://100.127.255.255/', 'invalid-ip'],
      ['http://100.100.100.200/', 'invalid-ip'],
      ['http://[::]/', 'invalid-ip'],
      ['http://[::ffff:127.0.0.1]/', 'invalid-ip'],
      ['http://[::ffff:a00:1]/', 'invalid-ip'],
      ['http://[::ffff:6440:1]/', 'invalid-ip'],
      ['http://[::ffff:0:1]/', 'invalid-ip'],
      ['http://[::ffff:a9fe:a9fe]/', 'invalid-ip'],
      ['http://[::ffff:ac10:1]/', 'invalid-ip'],
      ['http://[::ffff:c0a8:101]/', 'invalid-ip'],
      ['http://[fc00::1]/', 'invalid-ip'],
      ['http://[fdff:ffff::1]/', 'invalid-ip'],
      ['http://[fe80::1:2]/', 'invalid-ip'],
      ['http://[febf::1]/', 'invalid-ip'],
      ['http://x.localhost/', 'invalid-ip'],
      ['http://local/', 'invalid-ip'],
      ['http://localhost./', 'invalid-ip'],
      ['http://Printer.Local./', 'invalid-ip'],
    ] as const
  ).map(([url, reason]) =>
    c(`find verification url ${JSON.stringify(url)}`, withVerification('find', { url }), [
      vpath('find', 'url', reason),
    ]),
  ),
  c('join verification url invalid', withVerification('join', { url: 'nope' }), [
    vpath('join', 'url', 'invalid'),
  ]),
  c('create verification url invalid-ip', withVerification('create', { url: 'https://192.168.0.10/v' }), [
    vpath('create', 'url', 'invalid-ip'),
  ]),
  c(
    '32 verification headers, tab and Latin-1 in a value are valid',
    withVerification('find', {
      headers: {
        ...Object.fromEntries(range(31).map((i) => [`x-h${i}`, 'v'])),
        'X-Odd': 'caf\u00e9 \ttab ~!',
      },
    }),
    [],
  ),
  c(
    '33 verification headers',
    withVerification('create', { headers: Object.fromEntries(range(33).map((i) => [`x-h${i}`, 'v'])) }),
    [vpath('create', 'headers-meta', 'too-many')],
  ),
  c(
    'verification header name with a space',
    withVerification('join', { headers: { 'X-Ok': 'v', 'X Bad': 'v' } }),
    [vpath('join', 'headers', '*X Bad*', 'invalid-name')],
  ),
  ...['', 'X:Y', 'X(1)', 'Ünï'].map((name) =>
    c(
      `verification header name ${JSON.stringify(name)}`,
      withVerification('find', { headers: { [name]: 'v' } }),
      [vpath('find', 'headers', `*${name}*`, 'invalid-name')],
    ),
  ),
  ...['a\r\nb', 'a\nb'].map((value) =>
    c(
      `verification header value ${JSON.stringify(value)}`,
      withVerification('create', { headers: { 'X-Ok': value } }),
      [vpath('create', 'headers', '*X-Ok*', 'invalid-value')],
    ),
  ),

  // --- unknown keys (issue 12): reported with their place, never silently ignored --------------------------
  c(
    'a misspelt game_modes is an unknown key, and leaves the matchmaker without game modes',
    { matchmaker: { game_mode: { default: { container: { image_id: IMG } } } } },
    [
      ['config', 'matchmaker', '*game_mode*', 'unknown-key'],
      [...META, 'too-few'],
    ],
  ),
  c('an unknown top-level key', { ...gmConfig(), matchmker: {} }, [['config', '*matchmker*', 'unknown-key']]),
  c('an unknown key in a game mode', gmConfig({ max_player: 8 }), [[...P(), '*max_player*', 'unknown-key']]),
  c('an unknown key in a container', withContainer({ imageid: IMG }), [
    [...P(), 'container', '*imageid*', 'unknown-key'],
  ]),
  c('an unknown key in a port', withPorts({ game: { port: 7777, protcol: 'udp' } }), [
    [...P(), 'container', 'ports', '*game*', '*protcol*', 'unknown-key'],
  ]),
  c('an unknown key in a cdn route', withRoutes([route('/**', { priorty: 1 })]), [
    ['config', 'cdn', 'routes', '0', '*priorty*', 'unknown-key'],
  ]),
  c(
    'an unknown key in a captcha provider',
    withCaptcha({ captcha_provider_a: { site_key: 'a', secret_key: 'b', x: 1 } }),
    [['config', 'matchmaker', 'captcha', 'captcha-provider-a', '*x*', 'unknown-key']],
  ),
  c('an unknown key in a region', gmConfig({ regions: { 'lnd-atl': { teir: 'basic-1d1' } } }), [
    [...P(), 'regions', '*lnd-atl*', '*teir*', 'unknown-key'],
  ]),
  c('an unknown key in a verification', withVerification('find', { header: {} }), [
    [...P(), 'actions', 'find', 'verification', '*header*', 'unknown-key'],
  ]),
  c(
    'an unknown key of the docker alias',
    gmConfig({ container: undefined, docker: { image_id: IMG, ports: {}, extra: 1 } }),
    [[...P(), 'docker', '*extra*', 'unknown-key']],
  ),
  c('object prototype names are unknown keys like any other', gmConfig({ constructor: 1, toString: 'x' }), [
    [...P(), '*constructor*', 'unknown-key'],
    [...P(), '*toString*', 'unknown-key'],
  ]),
  c(
    'objects the interface leaves open take any key: kv, the engine objects',
    {
      ...gmConfig(),
      kv: { anything: { goes: [1, 2] } },
      engine: { custom: { a: 1 }, html5: { b: {} }, engine_c: { game_module: 'g', other: true } },
    },
    [],
  ),
  c(
    'user-chosen map keys are not unknown keys',
    withEnv({ ANY_NAME: 'v' }, { build_args: { WHATEVER: '1' } }),
    [],
  ),
];

// ---------------------------------------------------------------------------------------------------------
// The large valid config
// ---------------------------------------------------------------------------------------------------------

const VERIFY = {
  url: 'https://verify.example.com/lobby-check',
  headers: { 'X-Api-Key': 'secret-123', Authorization: 'Bearer abc.def' },
};

const BIG_CONFIG = {
  scripts: { start: 'node server.js', build: 'tsc -p .' },
  kv: {},
  engine: { html5: {}, engine_c: { game_module: 'game' } },
  cdn: {
    build_command: 'npm run build',
    build_output: 'dist',
    build_env: { NODE_ENV: 'production' },
    site_id: 'site-0001',
    routes: [
      { glob: '/**', priority: 0, middlewares: [] },
      {
        glob: '/assets/**',
        priority: 50,
        middlewares: [
          customHeaders([
            header('cache-control', 'public, max-age=31536000, immutable'),
            header('x-content-type-options', 'nosniff'),
          ]),
        ],
      },
      {
        glob: '/index.html',
        priority: 100,
        middlewares: [customHeaders([header('cache-control', 'no-cache')])],
      },
    ],
  },
  matchmaker: {
    dev_hostname: 'localhost',
    captcha: {
      requests_before_reverify: 15,
      verification_ttl: 3_600_000,
      captcha_provider_a: { site_key: 'site-key-a', secret_key: 'secret-key-a' },
      captcha_provider_b: { site_key: 'site-key-b', secret_key: 'secret-key-b' },
    },
    regions: { 'lnd-atl': { tier: 'basic-2d1' }, 'lnd-fra': { idle_lobbies: { min: 1, max: 4 } } },
    docker: {
      image_id: 'img-base',
      args: ['--mode', 'normal'],
      env: { SHARED: 'top', OVERRIDE: 'top' },
      ports: { default: { port: 8080 } },
      dockerfile: 'Dockerfile',
      image: 'my-game:latest',
      build_args: { VERSION: '1' },
    },
    game_modes: {
      casual: {},
      ranked: {
        max_players: 10,
        max_players_party: 5,
        tier: 'basic-2d1',
        listable: false,
        taggable: true,
        idle_lobbies: { min: 1, max: 3 },
        regions: { 'lnd-sfo': {}, 'lnd-sin': { tier: 'basic-1d4', idle_lobbies: { min: 2, max: 8 } } },
        docker: {
          image_id: 'img-ranked',
          args: ['--ranked'],
          env: { OVERRIDE: 'game-mode', RANKED: '1' },
          ports: {
            game: { port: 7777, protocol: 'udp' },
            web: { port: 80, protocol: 'http' },
            secure: { port: 8443, protocol: 'https', proxy: 'game_guard' },
            stream: { port: 9000, protocol: 'tcp_tls' },
          },
        },
        actions: {
          find: { enabled: true, verification: VERIFY },
          join: { enabled: false },
          create: { enabled: true, enable_public: true, verification: VERIFY },
        },
      },
      'sandbox-host': {
        max_players: 256,
        max_players_direct: 1,
        allow_dynamic_max_players: true,
        container: {
          image_id: 'img-host',
          network_mode: 'host',
          env: { SANDBOX: 'yes', PORT_GAME_UDP: 'free: the port has a range only' },
          ports: {
            'game-udp': {
              port_range: { min: 26000, max: 26999 },
              protocol: 'udp',
              proxy: 'none',
              dev_port_range: { min: 7000, max: 7999 },
              dev_protocol: 'udp',
            },
            'game-tcp': { port_range: { min: 27000, max: 27010 }, protocol: 'tcp', proxy: 'none' },
            admin: { port: 9090, dev_port: 9090 },
          },
        },
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------------------------------------

function assertError(res: LightMyRequestResponse, status: number, code: string): ErrorBody {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<ErrorBody>();
  assert.equal(body.code, code, res.body);
  assert.equal(typeof body.message, 'string');
  assert.equal(body.ray_id, res.headers['x-ray-id']);
  return body;
}

/** 400 API_BAD_BODY whose message names `field`. */
function assertBadBody(res: LightMyRequestResponse, field: string): void {
  const body = assertError(res, 400, 'API_BAD_BODY');
  assert.ok(body.message.includes(field), `message "${body.message}" names ${field}`);
}

const keyOf = (p: Path) => JSON.stringify(p);
const sortedKeys = (paths: Path[]) => paths.map(keyOf).sort();

/**
 * The error items of a validate answer. Every item, of every case of the table and every other test, is
 * checked to carry a sentence beside its path: a non-empty message that is not the path itself.
 */
function itemsOf(res: LightMyRequestResponse): ErrorItem[] {
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json<{ errors: ErrorItem[] }>();
  assert.ok(Array.isArray(body.errors), res.body);
  for (const e of body.errors) {
    assert.deepEqual(Object.keys(e).sort(), ['message', 'path'], res.body);
    assert.ok(Array.isArray(e.path) && e.path.every((s) => typeof s === 'string'), res.body);
    assert.equal(typeof e.message, 'string', res.body);
    assert.ok(e.message.trim().length > 10, `message of ${e.path.join('.')}: ${JSON.stringify(e.message)}`);
    assert.notEqual(e.message, e.path.join('.'));
  }
  return body.errors;
}

function errorsOf(res: LightMyRequestResponse): Path[] {
  return itemsOf(res).map((e) => e.path);
}

/** The message of the one item at `path`. */
function messageAt(items: ErrorItem[], path: Path): string {
  const found = items.filter((e) => keyOf(e.path) === keyOf(path));
  assert.equal(found.length, 1, `one item at ${path.join('.')}: ${JSON.stringify(items)}`);
  return found[0]?.message ?? '';
}

// ---------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------

describe('version config validation (4.10, 2.9)', () => {
  let svc: TestService;
  /** Host networking off (the default); has version "v1". */
  let game: Awaited<ReturnType<typeof createGameFixture>>;
  /** Host networking enabled by the operator; has version "v1". */
  let hostGame: Awaited<ReturnType<typeof createGameFixture>>;
  let other: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    svc = withNamedBuilds((await startListening({ env: THROUGH_POOL })).svc, NAMED_BUILDS);
    game = await createGameFixture(svc, 'vv-game');
    hostGame = await createGameFixture(svc, 'vv-host');
    other = await createGameFixture(svc, 'vv-other');
    const res = await svc.call('PUT', `/cloud/games/${hostGame.gameId}/host-networking`, {
      body: { enabled: true },
    });
    assert.equal(res.statusCode, 204, res.body);
  });
  after(async () => {
    await svc.close();
  });

  const validate = (gameId: string, body: unknown, token?: string | null) =>
    svc.call('POST', `/cloud/games/${gameId}/versions/validate`, {
      body,
      ...(token === undefined ? {} : { token }),
    });
  const create = (gameId: string, body: unknown, token?: string | null) =>
    svc.call('POST', `/cloud/games/${gameId}/versions`, { body, ...(token === undefined ? {} : { token }) });

  async function versionIds(gameId: string): Promise<string[]> {
    const res = await svc.call('GET', `/cloud/games/${gameId}`);
    assert.equal(res.statusCode, 200, res.body);
    return res
      .json<{ game: { versions: { version_id: string }[] } }>()
      .game.versions.map((v) => v.version_id);
  }

  async function getVersion(gameId: string, versionId: string, query = ''): Promise<VersionFull> {
    const res = await svc.call('GET', `/cloud/games/${gameId}/versions/${versionId}${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ version: VersionFull }>().version;
  }

  describe('the table', () => {
    it('has a case for every error path of the issue', () => {
      const seen = new Set(cases.flatMap((k) => k.expected.map((p) => p[p.length - 1])));
      for (const reason of [
        'too-short',
        'too-long',
        'invalid',
        'not-unique',
        'no-site-id',
        'too-many',
        'too-high',
        'must-have-one',
        'required',
        'too-few',
        'name-id-invalid',
        'too-low',
        'tier-name-id-invalid',
        'min-gt-max',
        'min-too-high',
        'max-too-high',
        'min-too-low',
        'max-too-low',
        'no-runtime',
        'no-build',
        'args-too-many',
        'env-vars-too-many',
        'conflicts-with-default',
        'host-networking-disabled',
        'ports-too-many',
        'label-invalid',
        'port-protocol-not-unique',
        'duplicate-port-and-port-range',
        'missing-port-and-port-range',
        'unsupported-port-range',
        'range-min-gt-max',
        'port-out-of-range',
        'ranges-overlap',
        'needs-host-network',
        'unsupported-target-port',
        'needs-game-guard',
        'invalid-scheme',
        'no-host',
        'invalid-ip',
        'invalid-name',
        'invalid-value',
        'unknown-key',
      ]) {
        assert.ok(seen.has(reason), `no case ends in ${reason}`);
      }
      assert.equal(new Set(cases.map((k) => k.name)).size, cases.length, 'case names are unique');
    });

    for (const k of cases) {
      it(`${k.name} → ${k.expected.length === 0 ? 'no errors' : k.expected.map((p) => p.join('.')).join(', ')}`, async () => {
        const res = await validate(k.host ? hostGame.gameId : game.gameId, k.input);
        assert.deepEqual(sortedKeys(errorsOf(res)), sortedKeys(k.expected), res.body);
      });
    }

    it("create refuses every erroneous case with the case's expected errors, and creates nothing", async () => {
      const beforeIds = {
        [game.gameId]: await versionIds(game.gameId),
        [hostGame.gameId]: await versionIds(hostGame.gameId),
      };
      for (const k of cases.filter((x) => x.expected.length > 0)) {
        const gameId = k.host ? hostGame.gameId : game.gameId;
        const res = await create(gameId, k.input);
        const body = assertError(res, 400, 'VALIDATION_ERROR');
        // Against the table, not against validate's answer: both run one validator, so comparing the two
        // would pass whatever that validator got wrong.
        const refused = body.metadata?.errors ?? [];
        assert.deepEqual(sortedKeys(refused.map((e) => e.path)), sortedKeys(k.expected), k.name);
        // And as validate answers it (same items, same order): one rule set for both operations.
        assert.deepEqual(refused, itemsOf(await validate(gameId, k.input)), k.name);
        for (const { path, message } of refused) {
          assert.ok(
            body.message.includes(`${path.join('.')}: ${message}`),
            `${k.name}: message "${body.message}" names ${path.join('.')} with its sentence`,
          );
        }
      }
      assert.deepEqual(await versionIds(game.gameId), beforeIds[game.gameId]);
      assert.deepEqual(await versionIds(hostGame.gameId), beforeIds[hostGame.gameId]);
    });
  });

  describe('order', () => {
    it('reports game modes sorted by name', async () => {
      const config = {
        matchmaker: {
          game_modes: {
            zeta: { container: {} },
            alpha: { container: {} },
            mid: {},
            beta: { container: { image_id: IMG } },
          },
        },
      };
      const got = errorsOf(await validate(game.gameId, input(config)));
      assert.deepEqual(got, [
        [...P('alpha'), 'no-build'],
        [...P('mid'), 'no-runtime'],
        [...P('zeta'), 'no-build'],
      ]);
    });

    /** Errors from every section, one per documented group, so the expected order is fully decided. */
    const ORDERED = {
      display_name: '',
      config: {
        cdn: { routes: [] },
        matchmaker: {
          captcha: { ...VALID_CAPTCHA, requests_before_reverify: 601 },
          container: { image_id: IMG },
          game_modes: {
            ...Object.fromEntries(range(32).map((i) => [`m${String(i).padStart(2, '0')}`, {}])),
            'x-': {
              max_players: 300,
              max_players_direct: 8,
              max_players_party: 8,
              regions: { 'lnd-sfo': { tier: 'gold' }, 'lnd-atl': { idle_lobbies: { min: 3, max: 2 } } },
              container: {
                args: [''],
                env: { A: '' },
                ports: { b: {}, a: { port: 7777, protocol: 'udp', proxy: 'none' } },
              },
              actions: {
                create: { enabled: true, verification: { url: 'x', headers: {} } },
                join: { enabled: true, verification: { url: 'x', headers: {} } },
                find: { enabled: true, verification: { url: 'x', headers: {} } },
              },
            },
          },
        },
      },
    };
    const X = P('x-');
    const ORDERED_EXPECTED: Path[] = [
      ['display-name', 'too-short'],
      ['config', 'cdn', 'no-site-id'],
      [...CAPTCHA, 'requests-before-reverify', 'too-high'],
      [...META, 'too-many'],
      [...X, 'name-id-invalid'],
      [...X, 'player-counts', 'max-players-normal', 'too-high'],
      [...X, 'regions', '*lnd-atl*', 'idle-lobbies', 'min-gt-max'],
      [...X, 'regions', '*lnd-sfo*', 'tier-name-id-invalid'],
      [...X, 'no-build'],
      [...X, 'args', '0', 'invalid'],
      [...X, 'env-vars', '*A*', 'value', 'invalid'],
      [...X, 'ports', '*a*', 'needs-host-network'],
      [...X, 'ports', '*b*', 'missing-port-and-port-range'],
      [...X, 'find-config', 'verification-config', 'url', 'invalid'],
      [...X, 'join-config', 'verification-config', 'url', 'invalid'],
      [...X, 'create-config', 'verification-config', 'url', 'invalid'],
    ];

    it('reports sections and the checks of a game mode in the documented order', async () => {
      assert.deepEqual(errorsOf(await validate(game.gameId, ORDERED)), ORDERED_EXPECTED);
    });

    it('gives the identical array for the same input twice', async () => {
      const first = errorsOf(await validate(game.gameId, ORDERED));
      const second = errorsOf(await validate(game.gameId, structuredClone(ORDERED)));
      assert.ok(first.length > 10);
      assert.deepEqual(second, first);
    });

    it('host-networking-disabled comes after env and before nothing of the ports', async () => {
      const config = withContainer(
        { network_mode: 'host', env: { A: '' }, ports: { x: {} } },
        { max_players: 0, max_players_direct: 1, max_players_party: 1 },
      );
      assert.deepEqual(errorsOf(await validate(game.gameId, input(config))), [
        [...P(), 'player-counts', 'max-players-normal', 'too-low'],
        [...P(), 'env-vars', '*A*', 'value', 'invalid'],
        [...P(), 'host-networking-disabled'],
      ]);
    });
  });

  describe('build-not-found: image_id must name a completed build of this game', () => {
    it("refuses another game's build, an unknown id and a build never completed", async () => {
      const buildNotFound = [[...P(), 'build-not-found']];
      const named = async (image_id: string) =>
        errorsOf(await validate(game.gameId, { display_name: 'bnf', config: withContainer({ image_id }) }));
      assert.deepEqual(await named(IMG), [], 'the game’s own completed build');
      // Make sure the other game has its named builds, then borrow one of them.
      assert.equal((await validate(other.gameId, { display_name: 'x', config: gmConfig() })).statusCode, 200);
      const othersBuild = await svc.deps.db
        .selectFrom('builds')
        .select('build_id')
        .where('game_id', '=', other.gameId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(await named(othersBuild.build_id), buildNotFound);
      assert.deepEqual(await named('0190a0a0-0000-7000-8000-00000000b1d0'), buildNotFound);
      const pending = await svc.call(
        'POST',
        `/games/${game.gameId}/environments/${game.namespaceId}/builds/prepare`,
        {
          body: { name: 'never completed', image_file: { path: 'x.tar', content_length: 10 } },
        },
      );
      assert.equal(pending.statusCode, 200, pending.body);
      assert.deepEqual(await named(pending.json<{ build_id: string }>().build_id), buildNotFound);
    });
  });

  describe('messages: each error names its rule and limit', () => {
    const messageOf = async (config: Obj, path: Path, display_name = DISPLAY_NAME) =>
      messageAt(itemsOf(await validate(game.gameId, input(config, display_name))), path);

    it('player counts: the field, the value and the limit', async () => {
      // max_players 300 alone is one problem: the direct and party counts it implies were never written.
      assert.equal(itemsOf(await validate(game.gameId, input(gmConfig({ max_players: 300 })))).length, 1);
      assert.equal(
        await messageOf(gmConfig({ max_players: 300 }), [
          ...P(),
          'player-counts',
          'max-players-normal',
          'too-high',
        ]),
        'game mode "default": max_players is 300; at most 256',
      );
      assert.equal(
        await messageOf(gmConfig({ max_players_party: 0 }), [
          ...P(),
          'player-counts',
          'max-players-party',
          'too-low',
        ]),
        'game mode "default": max_players_party is 0; at least 1',
      );
    });

    it('display name, cdn and captcha limits', async () => {
      assert.equal(
        await messageOf(gmConfig(), ['display-name', 'too-long'], 'x'.repeat(130)),
        'display_name is 130 bytes of UTF-8; at most 128',
      );
      assert.equal(
        await messageOf(withRoutes([route('/**', { priority: 101 })]), [
          ...CDN,
          'routes',
          '0',
          'priority',
          'too-high',
        ]),
        'config.cdn.routes.0.priority is 101; at most 100',
      );
      assert.equal(
        await messageOf(withCaptcha({ verification_ttl: 43_200_001 }), [
          ...CAPTCHA,
          'verification-ttl',
          'too-high',
        ]),
        'config.matchmaker.captcha.verification_ttl is 43200001; at most 43200000 ms (12 hours)',
      );
    });

    it('env, ports and regions say what is allowed', async () => {
      assert.match(
        await messageOf(withEnv({ LOBBY_ID: 'x' }), [
          ...P(),
          'env-vars',
          '*LOBBY_ID*',
          'key',
          'conflicts-with-default',
        ]),
        /"LOBBY_ID" is set by the service in every lobby/,
      );
      assert.equal(
        await messageOf(withPorts({ game: { port: 70000 } }), [
          ...P(),
          'ports',
          '*game*',
          'port-out-of-range',
        ]),
        'game mode "default": port "game": port is 70000; between 1 and 65535',
      );
      const region = await messageOf(gmConfig({ regions: { 'mars-1': {} } }), [
        ...P(),
        'regions',
        '*mars-1*',
        'invalid',
      ]);
      for (const r of DEFAULT_REGIONS) assert.ok(region.includes(r), region);
    });

    it('missing prerequisites say what to create first', async () => {
      assert.match(
        await messageOf(withContainer({ image_id: UNKNOWN_ID }), [...P(), 'build-not-found']),
        /is not a completed build of this game; upload a build first \(POST .*builds\/prepare/,
      );
      assert.match(
        await messageOf(gmConfig({ container: {} }), [...P(), 'no-build']),
        /has no image_id; upload a build/,
      );
      assert.match(
        await messageOf({ matchmaker: { game_modes: { default: {} } } }, [...P(), 'no-runtime']),
        /no runtime/,
      );
      assert.match(await messageOf({ matchmaker: {} }, [...META, 'too-few']), /needs at least one/);
    });
  });

  describe('unknown keys', () => {
    /** Keys under which the keys are the user's (maps), and objects the interface leaves open. */
    const MAPS = new Set(['scripts', 'build_env', 'build_args', 'env', 'regions', 'game_modes', 'ports']);
    const OPEN = new Set([
      'kv',
      'engine.custom',
      'engine.engine_a',
      'engine.html5',
      'engine.engine_b',
      'engine.engine_c',
    ]);

    /** Every object of `config` that has a fixed set of keys, with its wire path and its error path. */
    function fixedObjects(node: unknown, wire: string[], kebab: Path, out: [string[], Path][]) {
      if (Array.isArray(node)) {
        node.forEach((item, i) => {
          fixedObjects(item, [...wire, String(i)], [...kebab, String(i)], out);
        });
        return;
      }
      if (typeof node !== 'object' || node === null || OPEN.has(wire.join('.'))) return;
      const parent = wire[wire.length - 1] ?? '';
      // A verification's headers are a map too (a CDN middleware's are a list).
      const isMap = MAPS.has(parent) || (parent === 'headers' && wire[wire.length - 2] === 'verification');
      if (!isMap) out.push([wire, kebab]);
      for (const [key, value] of Object.entries(node)) {
        const segment = isMap ? `*${key}*` : key.replace(/_/g, '-');
        fixedObjects(value, [...wire, key], [...kebab, segment], out);
      }
    }

    it('an extra key in any fixed-shape object of the large config is reported there, and only there', async () => {
      const objects: [string[], Path][] = [];
      fixedObjects(BIG_CONFIG, [], ['config'], objects);
      assert.ok(objects.length > 30, `${objects.length} objects`);
      for (const [wire, kebab] of objects) {
        // Through JSON, not structuredClone: that keeps the one VERIFY object shared by two actions.
        const config = JSON.parse(JSON.stringify(BIG_CONFIG)) as Obj;
        let target: Obj = config;
        for (const key of wire) target = target[key] as Obj;
        target.zz_unknown = 1;
        const items = itemsOf(await validate(hostGame.gameId, input(config, 'Big Release 3.0')));
        const where = ['config', ...wire].join('.');
        assert.deepEqual(
          items.map((e) => e.path),
          [[...kebab, '*zz_unknown*', 'unknown-key']],
          where,
        );
        assert.match(
          items[0]?.message ?? '',
          new RegExp(`^unknown key "zz_unknown" in ${where.replace(/\./g, '\\.')}; `),
        );
      }
    });

    it('suggests the key a typo meant, else lists the keys the place takes', async () => {
      const items = itemsOf(await validate(game.gameId, input({ matchmaker: { game_mode: {} } })));
      assert.equal(
        messageAt(items, ['config', 'matchmaker', '*game_mode*', 'unknown-key']),
        'unknown key "game_mode" in config.matchmaker; did you mean "game_modes"?',
      );
      const dashed = itemsOf(await validate(game.gameId, input(withContainer({ 'image-id': IMG }))));
      assert.match(
        messageAt(dashed, [...P(), 'container', '*image-id*', 'unknown-key']),
        /did you mean "image_id"\?$/,
      );
      const far = itemsOf(await validate(game.gameId, input({ ...gmConfig(), lobbies: {} })));
      assert.equal(
        messageAt(far, ['config', '*lobbies*', 'unknown-key']),
        'unknown key "lobbies" in config; the keys it takes are cdn, engine, kv, matchmaker, scripts',
      );
    });

    it('create refuses a config with an unknown key; a stored config never holds one', async () => {
      const body = input({ ...gmConfig(), matchmaker: { game_mode: gmConfig().matchmaker } }, 'typo version');
      const res = await create(game.gameId, body);
      const err = assertError(res, 400, 'VALIDATION_ERROR');
      assert.ok(err.message.includes('config.matchmaker.*game_mode*.unknown-key: unknown key'), err.message);
    });
  });

  describe('display name uniqueness', () => {
    it('is not-unique once a version of the game has it, in this game only', async () => {
      const body = input(gmConfig(), 'Season 7');
      assert.deepEqual(errorsOf(await validate(game.gameId, body)), []);
      const created = await create(game.gameId, body);
      assert.equal(created.statusCode, 200, created.body);
      assert.deepEqual(errorsOf(await validate(game.gameId, body)), [['display-name', 'not-unique']]);
      assert.deepEqual(errorsOf(await validate(other.gameId, body)), []);
      const again = await create(game.gameId, body);
      const err = assertError(again, 400, 'VALIDATION_ERROR');
      assert.deepEqual(err.metadata?.errors, [
        {
          path: ['display-name', 'not-unique'],
          message:
            'display_name "Season 7" is taken by another version of this game; ' +
            'version display names are unique within a game',
        },
      ]);
      assert.ok(err.message.includes('display-name.not-unique'), err.message);
    });
  });

  describe('create runs the validator', () => {
    it('refuses with 400 VALIDATION_ERROR, errors in metadata identical to validate, message naming each path', async () => {
      const body = input(
        withContainer(
          { args: ['', 'a'], env: { LOBBY_ID: 'x' }, ports: { game: {} } },
          { regions: { 'mars-1': {} } },
        ),
        'refused version',
      );
      const items = itemsOf(await validate(game.gameId, body));
      const validated = items.map((e) => e.path);
      assert.deepEqual(
        sortedKeys(validated),
        sortedKeys([
          [...P(), 'regions', '*mars-1*', 'invalid'],
          [...P(), 'args', '0', 'invalid'],
          [...P(), 'env-vars', '*LOBBY_ID*', 'key', 'conflicts-with-default'],
          [...P(), 'ports', '*game*', 'missing-port-and-port-range'],
        ]),
      );
      const beforeIds = await versionIds(game.gameId);
      const res = await create(game.gameId, body);
      const err = assertError(res, 400, 'VALIDATION_ERROR');
      assert.deepEqual(err.metadata?.errors, items);
      for (const p of validated)
        assert.ok(err.message.includes(p.join('.')), `${err.message} names ${p.join('.')}`);
      assert.deepEqual(await versionIds(game.gameId), beforeIds);
      // Nothing was stored under that display name either.
      assert.deepEqual(errorsOf(await validate(game.gameId, input(gmConfig(), 'refused version'))), []);
    });

    it('accepts a valid config and stores it as given', async () => {
      const config = gmConfig({ max_players: 12 });
      const res = await create(game.gameId, input(config, 'accepted version'));
      assert.equal(res.statusCode, 200, res.body);
      const { version_id } = res.json<{ version_id: string }>();
      assert.ok((await versionIds(game.gameId)).includes(version_id));
      assert.deepEqual((await getVersion(game.gameId, version_id)).config, config);
    });
  });

  describe('a large valid config', () => {
    let versionId: string;
    let resolved: ResolvedConfig;

    before(async () => {
      const body = input(BIG_CONFIG, 'Big Release 1.0');
      const res = await create(hostGame.gameId, body);
      assert.equal(res.statusCode, 200, res.body);
      versionId = res.json<{ version_id: string }>().version_id;
      resolved = (await getVersion(hostGame.gameId, versionId, '?resolved=true')).config as ResolvedConfig;
    });

    it('validates with no errors (on a game allowed host networking)', async () => {
      assert.deepEqual(errorsOf(await validate(hostGame.gameId, input(BIG_CONFIG, 'Big Release 2.0'))), []);
    });

    it('is refused on a game not allowed host networking, for the host game mode only', async () => {
      assert.deepEqual(errorsOf(await validate(game.gameId, input(BIG_CONFIG, 'Big Release 2.0'))), [
        [...P('sandbox-host'), 'host-networking-disabled'],
      ]);
    });

    it('reads back as given, and the same with ?resolved=false', async () => {
      const given = await getVersion(hostGame.gameId, versionId);
      assert.equal(given.version_id, versionId);
      assert.equal(given.display_name, 'Big Release 1.0');
      assert.deepEqual(given.config, BIG_CONFIG);
      const notResolved = await getVersion(hostGame.gameId, versionId, '?resolved=false');
      assert.deepEqual(notResolved, given);
    });

    it('resolved: same version fields, keys outside the game modes unchanged', async () => {
      const res = await svc.call(
        'GET',
        `/cloud/games/${hostGame.gameId}/versions/${versionId}?resolved=true`,
      );
      const version = res.json<{ version: VersionFull }>().version;
      const given = await getVersion(hostGame.gameId, versionId);
      assert.equal(version.version_id, versionId);
      assert.equal(version.display_name, given.display_name);
      assert.equal(version.create_ts, given.create_ts);
      for (const key of ['scripts', 'kv', 'engine', 'cdn'] as const) {
        assert.deepEqual(resolved[key], BIG_CONFIG[key], key);
      }
      for (const key of ['dev_hostname', 'captcha', 'regions'] as const) {
        assert.deepEqual(resolved.matchmaker[key], BIG_CONFIG.matchmaker[key], `matchmaker.${key}`);
      }
      assert.deepEqual(Object.keys(resolved.matchmaker.game_modes).sort(), [
        'casual',
        'ranked',
        'sandbox-host',
      ]);
    });

    it('resolved: the top-level runtime is folded into the game modes, not shown on its own', () => {
      // Every game mode carries its resolved `container`; repeating the top-level one beside them would
      // show a runtime no lobby runs with as given.
      assert.equal(resolved.matchmaker.docker, undefined);
      assert.equal(resolved.matchmaker.container, undefined);
      const casual = resolved.matchmaker.game_modes.casual;
      assert.deepEqual(casual?.container?.args, BIG_CONFIG.matchmaker.docker.args);
    });

    it('resolved: every game mode has exactly the documented keys, container and never docker', () => {
      for (const [name, gm] of Object.entries(resolved.matchmaker.game_modes)) {
        assert.deepEqual(
          Object.keys(gm).sort(),
          [
            'actions',
            'allow_dynamic_max_players',
            'container',
            'idle_lobbies',
            'listable',
            'max_players',
            'max_players_direct',
            'max_players_party',
            'regions',
            'taggable',
            'tier',
          ],
          name,
        );
        assert.equal(gm.docker, undefined, name);
        for (const region of Object.values(gm.regions)) {
          assert.equal(typeof region.tier, 'string');
          assert.equal(typeof region.idle_lobbies.min, 'number');
          assert.equal(typeof region.idle_lobbies.max, 'number');
        }
      }
    });

    it('resolved: a game mode with nothing set takes the top level, then the defaults', () => {
      const gm = resolved.matchmaker.game_modes.casual!;
      assert.equal(gm.max_players, 32);
      assert.equal(gm.max_players_direct, 32);
      assert.equal(gm.max_players_party, 32);
      assert.equal(gm.tier, 'basic-1d1');
      assert.equal(gm.listable, true);
      assert.equal(gm.taggable, false);
      assert.equal(gm.allow_dynamic_max_players, false);
      assert.deepEqual(gm.idle_lobbies, { min: 0, max: 2 });
      assert.deepEqual(gm.regions, {
        'lnd-atl': { tier: 'basic-2d1', idle_lobbies: { min: 0, max: 2 } },
        'lnd-fra': { tier: 'basic-1d1', idle_lobbies: { min: 1, max: 4 } },
      });
      // The top-level runtime was sent as `docker`: resolved under `container`.
      assert.equal(gm.container.image_id, 'img-base');
      assert.deepEqual(gm.container.args, ['--mode', 'normal']);
      assert.deepEqual(gm.container.env, { SHARED: 'top', OVERRIDE: 'top' });
      assert.equal(gm.container.network_mode, 'bridge');
      assert.deepEqual(Object.keys(gm.container.ports), ['default']);
      assert.equal(gm.container.ports.default!.port, 8080);
      assert.equal(gm.container.ports.default!.protocol, 'https');
      assert.equal(gm.container.ports.default!.proxy, 'game_guard');
      assert.deepEqual(gm.actions, {
        find: { enabled: true },
        join: { enabled: true },
        create: { enabled: false, enable_private: true, enable_public: false },
      });
    });

    it('resolved: a game mode with its own values, docker alias, env merged with the game mode winning', () => {
      const gm = resolved.matchmaker.game_modes.ranked!;
      assert.equal(gm.max_players, 10);
      assert.equal(gm.max_players_direct, 10);
      assert.equal(gm.max_players_party, 5);
      assert.equal(gm.tier, 'basic-2d1');
      assert.equal(gm.listable, false);
      assert.equal(gm.taggable, true);
      assert.deepEqual(gm.idle_lobbies, { min: 1, max: 3 });
      assert.deepEqual(gm.regions, {
        'lnd-sfo': { tier: 'basic-2d1', idle_lobbies: { min: 1, max: 3 } },
        'lnd-sin': { tier: 'basic-1d4', idle_lobbies: { min: 2, max: 8 } },
      });
      assert.equal(gm.container.image_id, 'img-ranked');
      assert.deepEqual(gm.container.args, ['--ranked']);
      assert.deepEqual(gm.container.env, { SHARED: 'top', OVERRIDE: 'game-mode', RANKED: '1' });
      assert.equal(gm.container.network_mode, 'bridge');
      // The game mode's ports replace the top-level ones whole.
      assert.deepEqual(Object.keys(gm.container.ports).sort(), ['game', 'secure', 'stream', 'web']);
      assert.deepEqual(
        Object.fromEntries(
          Object.entries(gm.container.ports).map(([l, p]) => [l, [p.port, p.protocol, p.proxy]]),
        ),
        {
          game: [7777, 'udp', 'game_guard'],
          web: [80, 'http', 'game_guard'],
          secure: [8443, 'https', 'game_guard'],
          stream: [9000, 'tcp_tls', 'game_guard'],
        },
      );
      assert.deepEqual(gm.actions, {
        find: { enabled: true, verification: VERIFY },
        join: { enabled: false },
        create: { enabled: true, enable_private: true, enable_public: true, verification: VERIFY },
      });
    });

    it('resolved: the host game mode, top-level regions used when it has none', () => {
      const gm = resolved.matchmaker.game_modes['sandbox-host']!;
      assert.equal(gm.max_players, 256);
      assert.equal(gm.max_players_direct, 1);
      assert.equal(gm.max_players_party, 256);
      assert.equal(gm.allow_dynamic_max_players, true);
      assert.deepEqual(gm.regions, resolved.matchmaker.game_modes.casual!.regions);
      assert.equal(gm.container.network_mode, 'host');
      assert.deepEqual(gm.container.env, {
        SHARED: 'top',
        OVERRIDE: 'top',
        SANDBOX: 'yes',
        PORT_GAME_UDP: 'free: the port has a range only',
      });
      const udp = gm.container.ports['game-udp']!;
      assert.deepEqual(udp.port_range, { min: 26000, max: 26999 });
      assert.equal(udp.protocol, 'udp');
      assert.equal(udp.proxy, 'none');
      const admin = gm.container.ports.admin!;
      assert.equal(admin.port, 9090);
      assert.equal(admin.protocol, 'https');
      assert.equal(admin.proxy, 'game_guard');
    });
  });

  describe('resolved view', () => {
    it('gives a game mode with no regions anywhere every configured region', async () => {
      const res = await create(game.gameId, input(topRuntime({ default: {} }), 'all regions'));
      assert.equal(res.statusCode, 200, res.body);
      const v = await getVersion(
        game.gameId,
        res.json<{ version_id: string }>().version_id,
        '?resolved=true',
      );
      const gm = (v.config as ResolvedConfig).matchmaker.game_modes.default!;
      assert.deepEqual(
        gm.regions,
        Object.fromEntries(
          DEFAULT_REGIONS.map((r) => [r, { tier: 'basic-1d1', idle_lobbies: { min: 0, max: 2 } }]),
        ),
      );
      assert.equal(gm.container.image_id, IMG);
    });

    it('refuses resolved values other than true and false with 400 API_BAD_QUERY', async () => {
      for (const value of ['yes', '1', 'TRUE', '']) {
        const res = await svc.call(
          'GET',
          `/cloud/games/${game.gameId}/versions/${game.versionId}?resolved=${value}`,
        );
        const err = assertError(res, 400, 'API_BAD_QUERY');
        assert.ok(err.message.includes('resolved'), err.message);
      }
    });
  });

  describe('schema-level refusals: 400 API_BAD_BODY naming the field', () => {
    const GM = 'config.matchmaker.game_modes.default';
    const badBodies: { name: string; body: unknown; field: string }[] = [
      // Control characters: one rule for every body, before any rule of the validator runs.
      ...['A\tB', 'A\nB', 'A\0B'].map((key) => ({
        name: `env key ${JSON.stringify(key)}`,
        body: input(withEnv({ [key]: 'x' })),
        field: `${GM}.container.env`,
      })),
      ...['a\0b', 'a\x7fb', 'a\u0085b'].map((value) => ({
        name: `verification header value ${JSON.stringify(value)}`,
        body: input(withVerification('create', { headers: { 'X-Ok': value } })),
        field: `${GM}.actions.create.verification.headers.X-Ok`,
      })),
      {
        name: 'kv nested 33 deep',
        body: { display_name: 'x', config: { kv: JSON.parse(`${'{"a":'.repeat(31)}1${'}'.repeat(31)}`) } },
        field: 'nested deeper than 32 levels',
      },
      { name: 'display_name a number', body: { display_name: 5, config: {} }, field: 'display_name' },
      { name: 'display_name missing', body: { config: {} }, field: 'display_name' },
      { name: 'config missing', body: { display_name: 'x' }, field: 'config' },
      { name: 'config an array', body: input([] as unknown as Obj), field: 'config' },
      { name: 'config a string', body: input('x' as unknown as Obj), field: 'config' },
      {
        name: 'max_players a string',
        body: input({ matchmaker: { max_players: 'ten' } }),
        field: 'config.matchmaker.max_players',
      },
      {
        name: 'max_players "10"',
        body: input({ matchmaker: { max_players: '10' } }),
        field: 'config.matchmaker.max_players',
      },
      {
        name: 'max_players 1.5',
        body: input({ matchmaker: { max_players: 1.5 } }),
        field: 'config.matchmaker.max_players',
      },
      { name: 'listable a string', body: input(gmConfig({ listable: 'yes' })), field: `${GM}.listable` },
      { name: 'routes an object', body: input({ cdn: { routes: {} } }), field: 'config.cdn.routes' },
      { name: 'site_id a number', body: input({ cdn: { site_id: 1 } }), field: 'config.cdn.site_id' },
      {
        name: 'route without glob',
        body: input({ cdn: { routes: [{ priority: 0, middlewares: [] }] } }),
        field: 'config.cdn.routes.0.glob',
      },
      { name: 'env value a number', body: input(withEnv({ A: 1 })), field: `${GM}.container.env.A` },
      { name: 'args not strings', body: input(withArgs([1])), field: `${GM}.container.args.0` },
      {
        name: 'enabled missing in find',
        body: input(gmConfig({ actions: { find: {} } })),
        field: `${GM}.actions.find.enabled`,
      },
      {
        name: 'captcha without verification_ttl',
        body: input(gmConfig({}, { captcha: { requests_before_reverify: 1, captcha_provider_a: {} } })),
        field: 'config.matchmaker.captcha.verification_ttl',
      },
      {
        name: 'provider b without site_key',
        body: input(withCaptcha({ captcha_provider_b: { secret_key: 'k' } })),
        field: 'config.matchmaker.captcha.captcha_provider_b.site_key',
      },
      {
        name: 'protocol sctp',
        body: input(withPorts({ game: { port: 1, protocol: 'sctp' } })),
        field: `${GM}.container.ports.game.protocol`,
      },
      {
        name: 'proxy nginx',
        body: input(withPorts({ game: { port: 1, proxy: 'nginx' } })),
        field: `${GM}.container.ports.game.proxy`,
      },
      {
        name: 'network_mode none',
        body: input(withContainer({ network_mode: 'none' })),
        field: `${GM}.container.network_mode`,
      },
      // Negative numbers in u32 fields.
      {
        name: 'route priority -1',
        body: input(withRoutes([route('/a', { priority: -1 })])),
        field: 'config.cdn.routes.0.priority',
      },
      {
        name: 'port_range.min -1',
        body: input(hostPorts({ g: { port_range: { min: -1, max: 5 } } })),
        field: `${GM}.container.ports.g.port_range.min`,
      },
      {
        name: 'port_range.max -1',
        body: input(hostPorts({ g: { port_range: { min: 0, max: -1 } } })),
        field: `${GM}.container.ports.g.port_range.max`,
      },
      {
        name: 'dev_port_range.min -1',
        body: input(withPorts({ g: { port: 1, dev_port_range: { min: -1, max: 5 } } })),
        field: `${GM}.container.ports.g.dev_port_range.min`,
      },
      {
        name: 'dev_port_range.max -1',
        body: input(withPorts({ g: { port: 1, dev_port_range: { min: 0, max: -1 } } })),
        field: `${GM}.container.ports.g.dev_port_range.max`,
      },
      // Beyond 32 bit.
      {
        name: 'route priority 2^32',
        body: input(withRoutes([route('/a', { priority: 4_294_967_296 })])),
        field: 'config.cdn.routes.0.priority',
      },
      {
        name: 'port_range.max 2^32',
        body: input(hostPorts({ g: { port_range: { min: 0, max: 4_294_967_296 } } })),
        field: `${GM}.container.ports.g.port_range.max`,
      },
      {
        name: 'max_players 2^31',
        body: input(gmConfig({ max_players: 2_147_483_648 })),
        field: `${GM}.max_players`,
      },
      {
        name: 'max_players -2^31-1',
        body: input(gmConfig({ max_players: -2_147_483_649 })),
        field: `${GM}.max_players`,
      },
      {
        name: 'port 2^31',
        body: input(withPorts({ g: { port: 2_147_483_648 } })),
        field: `${GM}.container.ports.g.port`,
      },
      {
        name: 'dev_port 2^31',
        body: input(withPorts({ g: { port: 1, dev_port: 2_147_483_648 } })),
        field: `${GM}.container.ports.g.dev_port`,
      },
      {
        name: 'idle_lobbies.min -2^31-1',
        body: input(gmConfig({}, { idle_lobbies: { min: -2_147_483_649, max: 1 } })),
        field: 'config.matchmaker.idle_lobbies.min',
      },
      {
        name: 'region idle_lobbies.max 2^31',
        body: input(gmConfig({ regions: { 'lnd-atl': { idle_lobbies: { min: 0, max: 2_147_483_648 } } } })),
        field: `${GM}.regions.lnd-atl.idle_lobbies.max`,
      },
      {
        name: 'verification_ttl 2^31',
        body: input(withCaptcha({ verification_ttl: 2_147_483_648 })),
        field: 'config.matchmaker.captcha.verification_ttl',
      },
      {
        name: 'requests_before_reverify 1e20',
        body: input(withCaptcha({ requests_before_reverify: 1e20 })),
        field: 'config.matchmaker.captcha.requests_before_reverify',
      },
    ];

    for (const k of badBodies) {
      it(`validate: ${k.name} → names ${k.field}`, async () => {
        assertBadBody(await validate(game.gameId, k.body), k.field);
      });
    }

    it('a value outside a list of choices is told the choices and the value given', async () => {
      const messageFor = async (body: unknown) =>
        assertError(await validate(game.gameId, body), 400, 'API_BAD_BODY').message;
      assert.equal(
        await messageFor(input(withPorts({ game: { port: 1, protocol: 'udpp' } }))),
        `body field "${GM}.container.ports.game.protocol" must be one of http, https, tcp, tcp_tls, udp; got "udpp"`,
      );
      assert.equal(
        await messageFor(input(withContainer({ network_mode: 'none' }))),
        `body field "${GM}.container.network_mode" must be one of bridge, host; got "none"`,
      );
      assert.equal(
        await messageFor(input(withPorts({ game: { port: 1, proxy: 7 } }))),
        `body field "${GM}.container.ports.game.proxy" must be one of none, game_guard; got 7`,
      );
    });

    it('the offline validator (CLI, dashboard) words a bad choice as the service does', () => {
      const config = withPorts({ game: { port: 1, protocol: 'udpp' } });
      assert.deepEqual(configShapeErrors(config), [
        {
          path: ['config', 'matchmaker', 'game_modes', 'default', 'container', 'ports', 'game', 'protocol'],
          message:
            'matchmaker.game_modes.default.container.ports.game.protocol must be one of ' +
            'http, https, tcp, tcp_tls, udp; got "udpp"',
        },
      ]);
    });

    it('accepts the extremes of the 32-bit ranges as far as the schema goes', async () => {
      const res = await validate(
        game.gameId,
        input({
          ...withRoutes([route('/a', { priority: 4_294_967_295 })]),
          matchmaker: { max_players: -2_147_483_648, max_players_direct: 2_147_483_647 },
        }),
      );
      assert.equal(res.statusCode, 200, res.body);
    });

    it('create refuses a bad body too, and creates nothing', async () => {
      const beforeIds = await versionIds(game.gameId);
      assertBadBody(
        await create(game.gameId, input(gmConfig({ max_players: 'ten' }), 'bad body')),
        `${GM}.max_players`,
      );
      assertBadBody(
        await create(game.gameId, input(withRoutes([route('/a', { priority: -1 })]), 'bad body')),
        'config.cdn.routes.0.priority',
      );
      assert.deepEqual(await versionIds(game.gameId), beforeIds);
    });

    it('refuses both container and docker at config.matchmaker', async () => {
      const body = input({
        matchmaker: { container: { image_id: IMG }, docker: { image_id: IMG }, game_modes: { default: {} } },
      });
      assertBadBody(await validate(game.gameId, body), 'config.matchmaker');
      const beforeIds = await versionIds(game.gameId);
      assertBadBody(await create(game.gameId, body), 'config.matchmaker');
      assert.deepEqual(await versionIds(game.gameId), beforeIds);
    });

    it('refuses both container and docker in one game mode, naming it', async () => {
      const body = input({
        matchmaker: {
          game_modes: {
            ok: { container: { image_id: IMG } },
            twice: { container: { image_id: IMG }, docker: {} },
          },
        },
      });
      assertBadBody(await validate(game.gameId, body), 'config.matchmaker.game_modes.twice');
      assertBadBody(await create(game.gameId, body), 'config.matchmaker.game_modes.twice');
    });

    it('refuses a malformed docker alias like a malformed container', async () => {
      assertBadBody(
        await validate(
          game.gameId,
          input({ matchmaker: { game_modes: { default: { docker: { image_id: 5 } } } } }),
        ),
        `${GM}.docker.image_id`,
      );
    });
  });

  describe('auth', () => {
    const body = input(gmConfig(), 'auth check');

    it('validate: no token 401, bad token 401', async () => {
      assertError(await validate(game.gameId, body, null), 401, 'API_UNAUTHORIZED');
      assertError(await validate(game.gameId, body, 'not-a-token'), 401, 'API_UNAUTHORIZED');
    });

    it("validate: the game's own cloud token may, another game's gets 403 API_FORBIDDEN", async () => {
      assert.deepEqual(errorsOf(await validate(game.gameId, body, game.cloudToken)), []);
      const res = await validate(game.gameId, body, other.cloudToken);
      const err = assertError(res, 403, 'API_FORBIDDEN');
      assert.ok(!JSON.stringify(err).includes('display-name'));
    });

    it("create: another game's cloud token gets 403 and nothing is created", async () => {
      const beforeIds = await versionIds(game.gameId);
      assertError(await create(game.gameId, body, other.cloudToken), 403, 'API_FORBIDDEN');
      assertError(await create(game.gameId, body, null), 401, 'API_UNAUTHORIZED');
      assert.deepEqual(await versionIds(game.gameId), beforeIds);
    });

    it('validate: unknown game 404 GAME_NOT_FOUND', async () => {
      assertError(await validate(UNKNOWN_ID, body), 404, 'GAME_NOT_FOUND');
    });
  });

  describe('GET /cloud/regions', () => {
    it('lists the default regions to the operator and to any cloud token, region_id = name_id', async () => {
      for (const token of [undefined, game.cloudToken, other.cloudToken]) {
        const res = await svc.call('GET', '/cloud/regions', token === undefined ? {} : { token });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), {
          regions: DEFAULT_REGIONS.map((r) => ({ region_id: r, name_id: r })),
        });
      }
    });

    it('needs a valid token', async () => {
      assertError(await svc.call('GET', '/cloud/regions', { token: null }), 401, 'API_UNAUTHORIZED');
      assertError(await svc.call('GET', '/cloud/regions', { token: 'garbage' }), 401, 'API_UNAUTHORIZED');
    });
  });

  describe('PUT /cloud/games/{game_id}/host-networking', () => {
    it('is off by default, the operator turns it on and off (204), GET game shows it', async () => {
      const f = await createGameFixture(svc, 'vv-hostflag');
      const flag = async () => {
        const res = await svc.call('GET', `/cloud/games/${f.gameId}`);
        assert.equal(res.statusCode, 200, res.body);
        return res.json<{ game: { host_networking_enabled: unknown } }>().game.host_networking_enabled;
      };
      const hostInput = input(
        hostPorts({ g: { port_range: { min: 26000, max: 26010 }, protocol: 'udp', proxy: 'none' } }),
      );
      assert.equal(await flag(), false);
      assert.deepEqual(errorsOf(await validate(f.gameId, hostInput)), [[...P(), 'host-networking-disabled']]);

      for (const enabled of [true, true, false, true]) {
        const res = await svc.call('PUT', `/cloud/games/${f.gameId}/host-networking`, { body: { enabled } });
        assert.equal(res.statusCode, 204, res.body);
        assert.equal(res.body, '');
        assert.equal(await flag(), enabled);
      }
      assert.deepEqual(errorsOf(await validate(f.gameId, hostInput)), []);
      // The flag of one game is not another's.
      assert.deepEqual(errorsOf(await validate(game.gameId, hostInput)), [
        [...P(), 'host-networking-disabled'],
      ]);
    });

    it('a cloud token gets 403 API_FORBIDDEN, even for its own game, and the flag stays', async () => {
      const res = await svc.call('PUT', `/cloud/games/${game.gameId}/host-networking`, {
        token: game.cloudToken,
        body: { enabled: true },
      });
      assertError(res, 403, 'API_FORBIDDEN');
      const g = await svc.call('GET', `/cloud/games/${game.gameId}`);
      assert.equal(
        g.json<{ game: { host_networking_enabled: boolean } }>().game.host_networking_enabled,
        false,
      );
      assertError(
        await svc.call('PUT', `/cloud/games/${game.gameId}/host-networking`, {
          token: null,
          body: { enabled: true },
        }),
        401,
        'API_UNAUTHORIZED',
      );
    });

    it('unknown game 404 GAME_NOT_FOUND', async () => {
      const res = await svc.call('PUT', `/cloud/games/${UNKNOWN_ID}/host-networking`, {
        body: { enabled: true },
      });
      assertError(res, 404, 'GAME_NOT_FOUND');
    });

    it('non-boolean or missing enabled: 400 API_BAD_BODY naming enabled', async () => {
      for (const body of [{ enabled: 'yes' }, { enabled: 1 }, { enabled: null }, {}]) {
        const res = await svc.call('PUT', `/cloud/games/${game.gameId}/host-networking`, { body });
        assertBadBody(res, 'enabled');
      }
    });
  });
});

describe('version config validation with GCM_REGIONS', () => {
  let svc: TestService;
  let game: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    svc = withNamedBuilds(
      (await startListening({ env: { ...THROUGH_POOL, GCM_REGIONS: 'a-1,b-2' } })).svc,
      NAMED_BUILDS,
    );
    game = await createGameFixture(svc, 'vv-regions');
  });
  after(async () => {
    await svc.close();
  });

  it('GET /cloud/regions lists the configured regions', async () => {
    const res = await svc.call('GET', '/cloud/regions', { token: game.cloudToken });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      regions: [
        { region_id: 'a-1', name_id: 'a-1' },
        { region_id: 'b-2', name_id: 'b-2' },
      ],
    });
  });

  it('validates region names against the configured list', async () => {
    const res = await svc.call('POST', `/cloud/games/${game.gameId}/versions/validate`, {
      body: input(gmConfig({ regions: { 'a-1': {}, 'lnd-atl': {} } })),
    });
    assert.deepEqual(errorsOf(res), [[...P(), 'regions', '*lnd-atl*', 'invalid']]);
  });

  it('resolves a game mode without regions to every configured region', async () => {
    const created = await svc.call('POST', `/cloud/games/${game.gameId}/versions`, {
      body: input(gmConfig({ tier: 'basic-1d2' }), 'regions v2'),
    });
    assert.equal(created.statusCode, 200, created.body);
    const { version_id } = created.json<{ version_id: string }>();
    const res = await svc.call('GET', `/cloud/games/${game.gameId}/versions/${version_id}?resolved=true`);
    assert.equal(res.statusCode, 200, res.body);
    const gm = res.json<{ version: { config: ResolvedConfig } }>().version.config.matchmaker.game_modes
      .default!;
    assert.deepEqual(gm.regions, {
      'a-1': { tier: 'basic-1d2', idle_lobbies: { min: 0, max: 2 } },
      'b-2': { tier: 'basic-1d2', idle_lobbies: { min: 0, max: 2 } },
    });
  });
});
