/**
 * Properties of the version config validator (issue 3): random schema-valid configs never make it throw,
 * configs built to satisfy every rule have no errors (also after a JSON round trip), and garbage sent to
 * the validate endpoint never yields a 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type VersionConfig, VersionConfigSchema, validateVersion } from '@gcm/contract';
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';
// Store-independent work (the validator, the worker pool, address and password checks): the SQLite run
// covers it, and the PostgreSQL run would only pay for it twice.
import { sqliteOnly } from '../helpers/stores.js';

type Obj = Record<string, unknown>;
interface Facts {
  regions: string[];
  existingDisplayNames: string[];
  hostNetworkingEnabled: boolean;
}

const I32_MIN = -2_147_483_648;
const I32_MAX = 2_147_483_647;
const U32_MAX = 4_294_967_295;
const TIERS = ['basic-4d1', 'basic-2d1', 'basic-1d1', 'basic-1d2', 'basic-1d4', 'basic-1d8', 'basic-1d16'];
const PROTOCOLS = ['http', 'https', 'tcp', 'tcp_tls', 'udp'] as const;
const REGION_POOL = ['lnd-atl', 'lnd-fra', 'lnd-sfo', 'lnd-sin', 'eu-1', 'us-west-2'];

/** Optional member: absent (record keys are optional), null (unset) or a value. */
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 6 });
const partial = <T extends Obj>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }) =>
  fc.record(model, { requiredKeys: [] });

// ---------------------------------------------------------------------------------------------------------
// (a) Anything the schema accepts
// ---------------------------------------------------------------------------------------------------------

const NASTY = [
  '',
  ' ',
  '-',
  '_',
  '*',
  '**',
  '/**',
  'a**',
  '/**.js',
  'default',
  'lnd-atl',
  'mars-1',
  'basic-1d1',
  'gold',
  'LOBBY_ID',
  'PORT_GAME',
  'PORT_RANGE_GAME_MIN',
  'game',
  'Game',
  'A=B',
  'a\0b',
  'x\r\ny',
  '\t',
  'http://127.0.0.1/',
  'https://verify.example.com/x',
  'mailto:a@b.c',
  'file:///x',
  'ftp://example.com',
  'http://[::1]/',
  'http://[',
  'http://printer.local',
  'X Bad',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'é',
  '日本',
  '🎮',
  '\ud800',
  'x'.repeat(37),
  'x'.repeat(65),
  'x'.repeat(513),
  'x'.repeat(1025),
];

const weirdString = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY), weight: 3 },
  { arbitrary: fc.string({ maxLength: 10 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 10 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }), weight: 1 },
);

const int32 = fc.oneof(
  fc.integer({ min: I32_MIN, max: I32_MAX }),
  fc.constantFrom(0, 1, -1, 2, 16, 17, 32, 33, 100, 101, 256, 257, 600, 601, 65535, 65536),
  fc.constantFrom(25999, 26000, 31999, 32000, 43_200_000, 43_200_001, I32_MIN, I32_MAX),
);
const u32 = fc.oneof(
  fc.integer({ min: 0, max: U32_MAX }),
  fc.constantFrom(0, 1, 100, 101, 25999, 26000, 26010, 31999, 32000, 65535, U32_MAX),
);
const smallSize = { maxKeys: 4 };
const stringMap = fc.dictionary(weirdString, weirdString, smallSize);
/** Sometimes beyond the limits (65 args, 17 ports…), mostly small. */
const someOf = <T>(arb: fc.Arbitrary<T>, big: number) =>
  fc.oneof(
    { arbitrary: fc.array(arb, { maxLength: 4 }), weight: 8 },
    { arbitrary: fc.array(arb, { minLength: big, maxLength: big + 2 }), weight: 1 },
  );
const dictOf = <T>(arb: fc.Arbitrary<T>, big: number) =>
  fc.oneof(
    { arbitrary: fc.dictionary(weirdString, arb, smallSize), weight: 8 },
    {
      arbitrary: fc
        .uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: big, maxLength: big + 2 })
        .chain((keys) =>
          fc
            .tuple(...keys.map(() => arb))
            .map((values) => Object.fromEntries(keys.map((k, i) => [k, values[i]]))),
        ),
      weight: 1,
    },
  );

const minMaxInt = fc.record({ min: int32, max: int32 });
const minMaxU32 = fc.record({ min: u32, max: u32 });

const anyPort = partial({
  dev_port: opt(int32),
  dev_port_range: opt(minMaxU32),
  dev_protocol: opt(weirdString),
  port: opt(int32),
  port_range: opt(minMaxU32),
  protocol: opt(fc.constantFrom(...PROTOCOLS)),
  proxy: opt(fc.constantFrom('none', 'game_guard')),
});

const anyContainer = partial({
  args: opt(someOf(weirdString, 64)),
  build_args: opt(stringMap),
  dockerfile: opt(weirdString),
  env: opt(dictOf(weirdString, 64)),
  image: opt(weirdString),
  image_id: opt(weirdString),
  network_mode: opt(fc.constantFrom('bridge', 'host')),
  ports: opt(dictOf(anyPort, 16)),
});

const anyRegions = fc.dictionary(
  fc.oneof(fc.constantFrom(...REGION_POOL), weirdString),
  partial({ idle_lobbies: opt(minMaxInt), tier: opt(fc.oneof(fc.constantFrom(...TIERS), weirdString)) }),
  smallSize,
);

const anyVerification = fc.record({ url: weirdString, headers: dictOf(weirdString, 32) });
const anyAction = fc.record(
  { enabled: fc.boolean(), verification: opt(anyVerification) },
  { requiredKeys: ['enabled'] },
);
const anyCreate = fc.record(
  {
    enabled: fc.boolean(),
    enable_private: opt(fc.boolean()),
    enable_public: opt(fc.boolean()),
    verification: opt(anyVerification),
  },
  { requiredKeys: ['enabled'] },
);

const anyGameMode = partial({
  actions: opt(partial({ create: opt(anyCreate), find: opt(anyAction), join: opt(anyAction) })),
  allow_dynamic_max_players: opt(fc.boolean()),
  container: opt(anyContainer),
  docker: opt(anyContainer),
  idle_lobbies: opt(minMaxInt),
  listable: opt(fc.boolean()),
  max_players: opt(int32),
  max_players_direct: opt(int32),
  max_players_party: opt(int32),
  regions: opt(anyRegions),
  taggable: opt(fc.boolean()),
  tier: opt(fc.oneof(fc.constantFrom(...TIERS), weirdString)),
});

const anyCaptcha = fc.record(
  {
    captcha_provider_a: opt(partial({ secret_key: opt(weirdString), site_key: opt(weirdString) })),
    captcha_provider_b: opt(fc.record({ secret_key: weirdString, site_key: weirdString })),
    requests_before_reverify: int32,
    verification_ttl: int32,
  },
  { requiredKeys: ['requests_before_reverify', 'verification_ttl'] },
);

const anyMatchmaker = partial({
  captcha: opt(anyCaptcha),
  dev_hostname: opt(weirdString),
  container: opt(anyContainer),
  docker: opt(anyContainer),
  game_modes: opt(dictOf(anyGameMode, 32)),
  idle_lobbies: opt(minMaxInt),
  max_players: opt(int32),
  max_players_direct: opt(int32),
  max_players_party: opt(int32),
  regions: opt(anyRegions),
  tier: opt(fc.oneof(fc.constantFrom(...TIERS), weirdString)),
});

const anyHeader = fc.record({ name: weirdString, value: weirdString });
const anyMiddleware = fc.record({
  kind: partial({ custom_headers: opt(fc.record({ headers: someOf(anyHeader, 32) })) }),
});
const anyRoute = fc.record({ glob: weirdString, priority: u32, middlewares: someOf(anyMiddleware, 32) });
const anyCdn = partial({
  build_command: opt(weirdString),
  build_env: opt(stringMap),
  build_output: opt(weirdString),
  site_id: opt(weirdString),
  routes: opt(someOf(anyRoute, 32)),
});

const anyEngine = partial({
  custom: opt(fc.constant({})),
  engine_a: opt(fc.constant({})),
  html5: opt(fc.constant({})),
  engine_b: opt(fc.constant({})),
  engine_c: opt(fc.record({ game_module: weirdString })),
});

const anyConfig = partial({
  cdn: opt(anyCdn),
  engine: opt(anyEngine),
  kv: opt(fc.constant({})),
  matchmaker: opt(anyMatchmaker),
  scripts: opt(stringMap),
});

const anyFacts: fc.Arbitrary<Facts> = fc.record({
  regions: fc.subarray(REGION_POOL),
  existingDisplayNames: fc.array(weirdString, { maxLength: 3 }),
  hostNetworkingEnabled: fc.boolean(),
});

// ---------------------------------------------------------------------------------------------------------
// (b) Configs built to satisfy every rule
// ---------------------------------------------------------------------------------------------------------

/** Strings of the characters in `chars` (faster to generate than fc.stringMatching). */
const of = (chars: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...chars), minLength: min, maxLength: max });
const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
const ALNUM = `${LOWER}ABCDEFGHIJKLMNOPQRSTUVWXYZ`;
const alnum = (max: number) => of(ALNUM, 1, max);
const validDisplayName = fc.array(alnum(8), { minLength: 1, maxLength: 5 }).map((words) => words.join(' '));
const printable = (min: number, max: number) =>
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    minLength: min,
    maxLength: max,
  });
const headerValue = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    fc.constantFrom('\t', 'é', '\u00ff', '\u0080'),
  ),
  maxLength: 30,
});
const token = of(`${ALNUM}!#$%&'*+.^_\`|~-`, 1, 20);
const nameId = fc
  .tuple(of(LOWER, 1, 6), fc.option(of(LOWER, 1, 4), { nil: undefined }))
  .map(([head, tail]) => (tail === undefined ? head : `${head}-${tail}`));
const gameModeName = fc
  .tuple(
    of(`${ALNUM}_`, 1, 1),
    fc.option(fc.tuple(of(`${ALNUM}_-`, 0, 10), of(`${ALNUM}_`, 1, 1)), { nil: undefined }),
  )
  .map(([first, rest]) => (rest === undefined ? first : `${first}${rest[0]}${rest[1]}`));
const players = fc.integer({ min: 1, max: 256 });
const idleLobbies = fc
  .integer({ min: 0, max: 16 })
  .chain((min) => fc.integer({ min, max: 32 }).map((max) => ({ min, max })));
const tier = fc.constantFrom(...TIERS);

const globSegment = fc.oneof(
  fc.constant('**'),
  fc.constant('*'),
  of(`${LOWER}._-`, 1, 6),
  fc.tuple(of(LOWER, 0, 3), of(`${LOWER}.`, 0, 3)).map(([a, b]) => `${a}*${b}`),
);
const glob = fc
  .array(globSegment, { minLength: 1, maxLength: 4 })
  .map((segments) => `/${segments.join('/')}`);
const validCdn = fc.record(
  {
    build_command: opt(printable(0, 20)),
    build_output: opt(printable(0, 10)),
    site_id: of(`${LOWER}-`, 1, 20),
    routes: opt(
      fc.uniqueArray(glob, { maxLength: 5 }).chain((globs) =>
        fc.tuple(
          ...globs.map((g) =>
            fc.record({
              glob: fc.constant(g),
              priority: fc.integer({ min: 0, max: 100 }),
              middlewares: fc
                .tuple(
                  fc.array(fc.constant({ kind: {} }), { maxLength: 3 }),
                  fc.option(
                    fc.array(fc.record({ name: printable(1, 20), value: printable(0, 40) }), {
                      maxLength: 5,
                    }),
                    { nil: undefined },
                  ),
                  fc.nat(3),
                )
                .map(([plain, headers, at]) => {
                  const out: Obj[] = [...plain];
                  if (headers !== undefined) {
                    out.splice(Math.min(at, out.length), 0, { kind: { custom_headers: { headers } } });
                  }
                  return out;
                }),
            }),
          ),
        ),
      ),
    ),
  },
  { requiredKeys: ['site_id'] },
);

const providerA = fc.record({ site_key: alnum(36), secret_key: alnum(42) });
const providerB = fc.record({ site_key: alnum(30), secret_key: alnum(40) });
const validCaptcha = fc
  .record({
    requests_before_reverify: fc.integer({ min: 0, max: 600 }),
    verification_ttl: fc.integer({ min: 0, max: 43_200_000 }),
    providers: fc.oneof(
      providerA.map((a) => ({ captcha_provider_a: a })),
      providerB.map((b) => ({ captcha_provider_b: b })),
      fc.record({ captcha_provider_a: providerA, captcha_provider_b: providerB }),
      providerA.map((a) => ({ captcha_provider_a: a, captcha_provider_b: null })),
    ),
  })
  .map(({ providers, ...rest }) => ({ ...rest, ...providers }));

const PUBLIC_URLS = [
  'https://verify.example.com/lobby',
  'http://93.184.216.34/check',
  'https://api.example.org:8443/v1/verify?game=1',
  'https://8.8.8.8/',
  'http://[2001:4860:4860::8888]/x',
];
const validVerification = fc.record({
  url: fc.constantFrom(...PUBLIC_URLS),
  headers: fc.dictionary(token, headerValue, { maxKeys: 3 }),
});
const validAction = fc.record(
  { enabled: fc.boolean(), verification: opt(validVerification) },
  { requiredKeys: ['enabled'] },
);
const validActions = partial({
  find: opt(validAction),
  join: opt(validAction),
  create: opt(
    fc.record(
      {
        enabled: fc.boolean(),
        enable_private: opt(fc.boolean()),
        enable_public: opt(fc.boolean()),
        verification: opt(validVerification),
      },
      { requiredKeys: ['enabled'] },
    ),
  ),
});

const validEnv = fc.dictionary(
  of('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_', 1, 20).map((k) => `APP_${k}`),
  printable(1, 40),
  { maxKeys: 6 },
);
const validArgs = fc.uniqueArray(printable(1, 30), { maxLength: 5 });

/** Ports without network_mode host: proxied (game_guard), numbered, each (number, protocol) once. */
const bridgePorts = fc.uniqueArray(nameId, { maxLength: 4 }).chain((labels) =>
  fc
    .tuple(
      fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), {
        minLength: labels.length,
        maxLength: labels.length,
      }),
      fc.tuple(
        ...labels.map(() =>
          partial({
            protocol: opt(fc.constantFrom(...PROTOCOLS)),
            proxy: opt(fc.constant('game_guard' as const)),
          }),
        ),
      ),
    )
    .map(([numbers, rest]) =>
      Object.fromEntries(labels.map((l, i) => [l, { port: numbers[i], ...rest[i] }])),
    ),
);

/** Ports with network_mode host: proxied numbered ports, or unproxied udp/tcp ranges in disjoint slots. */
const hostPorts = fc.uniqueArray(nameId, { maxLength: 4 }).chain((labels) =>
  fc
    .tuple(
      fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), {
        minLength: labels.length,
        maxLength: labels.length,
      }),
      fc.tuple(
        ...labels.map(() =>
          fc.record({
            ranged: fc.boolean(),
            protocol: fc.constantFrom(...PROTOCOLS),
            rangeProtocol: fc.constantFrom('udp', 'tcp'),
            offset: fc.integer({ min: 0, max: 100 }),
            length: fc.integer({ min: 0, max: 300 }),
          }),
        ),
      ),
    )
    .map(([numbers, picks]) =>
      Object.fromEntries(
        labels.map((label, i) => {
          const p = picks[i]!;
          if (!p.ranged) return [label, { port: numbers[i], protocol: p.protocol, proxy: 'game_guard' }];
          const min = 26_000 + i * 500 + p.offset;
          return [
            label,
            { port_range: { min, max: min + p.length }, protocol: p.rangeProtocol, proxy: 'none' },
          ];
        }),
      ),
    ),
);

const validContainer = (hostAllowed: boolean) =>
  fc
    .record({
      image_id: of(LOWER, 1, 8).map((id) => `img-${id}`),
      host: hostAllowed ? fc.boolean() : fc.constant(false),
      explicitBridge: fc.boolean(),
      args: opt(validArgs),
      env: opt(validEnv),
      cli: partial({ dockerfile: printable(1, 10), image: printable(1, 10) }),
    })
    .chain(({ host, explicitBridge, cli, ...rest }) =>
      (host ? hostPorts : bridgePorts).map((ports) => ({
        ...rest,
        ...cli,
        ...(host ? { network_mode: 'host' } : explicitBridge ? { network_mode: 'bridge' } : {}),
        ports,
      })),
    );

/** Puts a runtime under `container`, or under its alias `docker`. */
const runtimeKey = fc.constantFrom('container', 'docker');

function validRegions(facts: Facts) {
  return fc
    .subarray(facts.regions)
    .chain((names) =>
      fc
        .tuple(...names.map(() => partial({ tier: opt(tier), idle_lobbies: opt(idleLobbies) })))
        .map((settings) => Object.fromEntries(names.map((n, i) => [n, settings[i]]))),
    );
}

function validConfig(facts: Facts) {
  const gameModeBase = partial({
    actions: opt(validActions),
    allow_dynamic_max_players: opt(fc.boolean()),
    idle_lobbies: opt(idleLobbies),
    listable: opt(fc.boolean()),
    max_players: opt(players),
    max_players_direct: opt(players),
    max_players_party: opt(players),
    regions: opt(validRegions(facts)),
    taggable: opt(fc.boolean()),
    tier: opt(tier),
  });
  const matchmakerBase = partial({
    captcha: opt(validCaptcha),
    dev_hostname: opt(printable(1, 20)),
    idle_lobbies: opt(idleLobbies),
    max_players: opt(players),
    max_players_direct: opt(players),
    max_players_party: opt(players),
    regions: opt(validRegions(facts)),
    tier: opt(tier),
  });
  const matchmaker = fc
    .record({
      base: matchmakerBase,
      // With a top-level runtime a game mode may leave its own out; without one every game mode needs one.
      top: fc.option(fc.tuple(runtimeKey, validContainer(facts.hostNetworkingEnabled)), { nil: undefined }),
      names: fc.uniqueArray(gameModeName, { minLength: 1, maxLength: 4 }),
    })
    .chain(({ base, top, names }) =>
      fc
        .tuple(
          ...names.map(() =>
            fc.tuple(
              gameModeBase,
              top === undefined
                ? fc.tuple(runtimeKey, validContainer(facts.hostNetworkingEnabled))
                : fc.option(fc.tuple(runtimeKey, validContainer(facts.hostNetworkingEnabled)), {
                    nil: undefined,
                  }),
            ),
          ),
        )
        .map((modes) => ({
          ...base,
          ...(top === undefined ? {} : { [top[0]]: top[1] }),
          game_modes: Object.fromEntries(
            names.map((name, i) => {
              const [gm, runtime] = modes[i]!;
              return [name, runtime === undefined ? gm : { ...gm, [runtime[0]]: runtime[1] }];
            }),
          ),
        })),
    );
  return partial({
    cdn: opt(validCdn),
    engine: opt(fc.constant({ html5: {}, engine_c: { game_module: 'game' } })),
    kv: opt(fc.constant({})),
    matchmaker: opt(matchmaker),
    scripts: opt(fc.dictionary(printable(1, 10), printable(0, 20), { maxKeys: 3 })),
  });
}

const validFacts: fc.Arbitrary<Facts> = fc.record({
  regions: fc.subarray(REGION_POOL, { minLength: 1 }),
  existingDisplayNames: fc.array(validDisplayName, { maxLength: 3 }),
  hostNetworkingEnabled: fc.boolean(),
});

const validCase = validFacts.chain((facts) =>
  fc
    .record({ display_name: validDisplayName, config: validConfig(facts) })
    .filter((input) => !facts.existingDisplayNames.includes(input.display_name))
    .map((input) => ({ facts, input })),
);

// ---------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------

function run(input: { display_name: string; config: unknown }, facts: Facts) {
  return validateVersion({ display_name: input.display_name, config: input.config as VersionConfig }, facts);
}

function assertErrorList(result: unknown): asserts result is { path: string[]; message: string }[] {
  assert.ok(Array.isArray(result), 'an array');
  for (const item of result as unknown[]) {
    assert.equal(typeof item, 'object');
    assert.notEqual(item, null);
    const { path, message } = item as { path?: unknown; message?: unknown };
    assert.ok(Array.isArray(path) && path.length > 0, `path of ${JSON.stringify(item)}`);
    for (const segment of path) assert.equal(typeof segment, 'string');
    // Every entry explains itself: a sentence, not an echo of the path.
    assert.ok(
      typeof message === 'string' && message.trim().length > 10,
      `message of ${JSON.stringify(item)}`,
    );
    assert.notEqual(message, path.join('.'));
    assert.ok(
      path[0] === 'display-name' || path[0] === 'config',
      `path starts at the input: ${path.join('.')}`,
    );
  }
}

/** Every path to a member of `value`, arrays included. */
function memberPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value as Obj);
  return entries.flatMap(([key, member]) => [[...prefix, key], ...memberPaths(member, [...prefix, key])]);
}

/** Whether the UTF-16 code unit at `i` of `text` is half of a surrogate pair missing its other half. */
function unpairedSurrogate(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    return !(next >= 0xdc00 && next <= 0xdfff);
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const previous = text.charCodeAt(i - 1);
    return !(previous >= 0xd800 && previous <= 0xdbff);
  }
  return false;
}

/**
 * `text` without what interface-notes ("Control characters") refuses in any body: C0 controls but TAB, LF
 * and CR, DEL and C1, unpaired surrogates; in a key, TAB, LF and CR too.
 */
function cleanText(text: string, key: boolean): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const lineBreak = c === 0x09 || c === 0x0a || c === 0x0d;
    if ((c < 0x20 && (key || !lineBreak)) || (c >= 0x7f && c <= 0x9f) || unpairedSurrogate(text, i)) continue;
    out += text[i];
  }
  return out;
}

function withoutRefusedText(value: unknown): unknown {
  if (typeof value === 'string') return cleanText(value, false);
  if (Array.isArray(value)) return value.map(withoutRefusedText);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Obj).map(([k, v]) => [cleanText(k, true), withoutRefusedText(v)]),
  );
}

/** Whether some object of `value` has a key "__proto__". */
function hasProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasProtoKey);
  return Object.entries(value as Obj).some(([k, v]) => k === '__proto__' || hasProtoKey(v));
}

/** Whether the matchmaker or one of its game modes sets its runtime both as `container` and as `docker`. */
function namesRuntimeTwice(config: Obj): boolean {
  const set = (value: unknown) => value !== null && value !== undefined;
  const both = (o: Obj) => set(o.container) && set(o.docker);
  const mm = config.matchmaker as Obj | null | undefined;
  if (mm === null || mm === undefined) return false;
  const modes = Object.values((mm.game_modes ?? {}) as Record<string, Obj>);
  return both(mm) || modes.some(both);
}

function replaceAt(root: Obj, path: (string | number)[], replacement: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (replacement === undefined) delete node[last];
  else node[last] = replacement;
}

// ---------------------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------------------

describe('version config validator: properties', sqliteOnly, () => {
  it('(a) never throws on a schema-valid config, returns {path, message}[], deterministic, input untouched', () => {
    let checked = 0;
    fc.assert(
      fc.property(weirdString, anyConfig, anyFacts, (displayName, config, facts) => {
        fc.pre(Value.Check(VersionConfigSchema, config));
        checked++;
        const input = { display_name: displayName, config };
        const before = JSON.stringify(input);
        const first = run(input, facts);
        assertErrorList(first);
        assert.equal(JSON.stringify(input), before, 'the validator does not change its input');
        assert.deepEqual(run(input, facts), first, 'same input, same errors in the same order');
      }),
      { numRuns: 400 },
    );
    assert.ok(checked >= 300, `only ${checked} generated configs passed the schema`);
  });

  it('(a) the generator reaches deep rules: errors from game modes, ports, env and verification occur', () => {
    const reasons = new Set<string>();
    fc.assert(
      fc.property(weirdString, anyConfig, anyFacts, (displayName, config, facts) => {
        if (!Value.Check(VersionConfigSchema, config)) return;
        for (const e of run({ display_name: displayName, config }, facts))
          reasons.add(e.path.slice(4, 5).join());
      }),
      { numRuns: 400, seed: 42 },
    );
    for (const group of ['ports', 'env-vars', 'regions', 'player-counts']) {
      assert.ok(reasons.has(group), `no ${group} error in 400 random configs: ${[...reasons].join(' ')}`);
    }
  });

  it('(b) a config built to satisfy every rule has no errors, also after a JSON round trip', () => {
    // How often the generator reaches the interesting shapes (checked after the run).
    const seen = {
      gameModes: 0,
      hostRanges: 0,
      docker: 0,
      captcha: 0,
      cdnHeaders: 0,
      verification: 0,
      nulls: 0,
    };
    fc.assert(
      fc.property(validCase, ({ facts, input }) => {
        assert.ok(Value.Check(VersionConfigSchema, input.config), 'the valid config fits the schema');
        assert.deepEqual(run(input, facts), []);
        const text = JSON.stringify(input);
        const roundTripped = JSON.parse(text) as typeof input;
        assert.ok(Value.Check(VersionConfigSchema, roundTripped.config));
        assert.deepEqual(run(roundTripped, facts), []);
        if (text.includes('"game_modes"')) seen.gameModes++;
        if (text.includes('"port_range"')) seen.hostRanges++;
        if (text.includes('"docker"')) seen.docker++;
        if (text.includes('"captcha_provider_')) seen.captcha++;
        if (text.includes('"custom_headers"')) seen.cdnHeaders++;
        if (text.includes('"verification":{')) seen.verification++;
        if (text.includes(':null')) seen.nulls++;
      }),
      { numRuns: 300 },
    );
    for (const [what, count] of Object.entries(seen)) assert.ok(count > 5, `${what}: only ${count} of 300`);
  });
});

describe('POST /cloud/games/{game_id}/versions/validate with garbage', sqliteOnly, () => {
  let svc: TestService;
  let gameId: string;

  before(async () => {
    svc = await startTestService();
    gameId = (await createGameFixture(svc, 'prop-game')).gameId;
  });
  after(async () => {
    await svc.close();
  });

  async function assertNo500(body: unknown): Promise<void> {
    const res = await svc.call('POST', `/cloud/games/${gameId}/versions/validate`, { body });
    assert.ok(res.statusCode === 200 || res.statusCode === 400, `status ${res.statusCode}: ${res.body}`);
    const json = res.json<{ errors?: unknown; code?: string }>();
    if (res.statusCode === 200) assertErrorList(json.errors);
    else assert.equal(json.code, 'API_BAD_BODY', res.body);
  }

  it('(c) fc.anything() as config: 200 or 400 API_BAD_BODY, never 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (config) => {
        await assertNo500({ display_name: 'garbage', config });
      }),
      { numRuns: 100 },
    );
  });

  it('(c) a valid config with fc.anything() at a random member: 200 or 400 API_BAD_BODY, never 500', async () => {
    const facts: Facts = {
      regions: ['lnd-atl', 'lnd-fra', 'lnd-sfo', 'lnd-sin'],
      existingDisplayNames: [],
      hostNetworkingEnabled: false,
    };
    await fc.assert(
      fc.asyncProperty(validConfig(facts), fc.nat(), fc.anything(), async (config, at, garbage) => {
        const body = { display_name: 'garbage', config: JSON.parse(JSON.stringify(config)) as Obj };
        const paths = memberPaths(body.config);
        if (paths.length > 0) replaceAt(body.config, paths[at % paths.length]!, garbage);
        await assertNo500(body);
      }),
      { numRuns: 100 },
    );
  });

  it('(c) a schema-valid config: 200 with an error list; 400 only for a runtime named twice or a "__proto__" key', async () => {
    let answered200 = 0;
    await fc.assert(
      fc.asyncProperty(anyConfig, async (config) => {
        // Past the schema, every body string obeys the documented text rules; garbage is the other tests'.
        const clean = withoutRefusedText(config) as Obj;
        fc.pre(Value.Check(VersionConfigSchema, clean));
        const res = await svc.call('POST', `/cloud/games/${gameId}/versions/validate`, {
          body: { display_name: 'random', config: clean },
        });
        // The refusals of a schema-valid config: its runtime as both names at one place, and a "__proto__"
        // key anywhere (the body parser refuses it; inherited-keys.test.ts).
        if (namesRuntimeTwice(clean) || hasProtoKey(clean)) {
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(res.json<{ code: string }>().code, 'API_BAD_BODY', res.body);
          return;
        }
        assert.equal(res.statusCode, 200, res.body);
        assertErrorList(res.json<{ errors: unknown }>().errors);
        answered200++;
      }),
      { numRuns: 100 },
    );
    assert.ok(answered200 >= 50, `only ${answered200} of 100 runs reached the validator`);
  });
});

describe('validation in a worker thread answers what the validator answers', sqliteOnly, () => {
  let svc: TestService;
  let gameId: string;

  before(async () => {
    // Every body through the worker pool, however small.
    svc = await startTestService({ env: { GCM_VALIDATE_INLINE_MAX_BYTES: '0' } });
    gameId = (await createGameFixture(svc, 'prop-pool')).gameId;
  });
  after(async () => {
    await svc.close();
  });

  it('(d) a schema-valid config: the first 100 of the same errors in the same order, and their count', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(anyConfig, async (config) => {
        const clean = JSON.parse(JSON.stringify(withoutRefusedText(config))) as Obj;
        fc.pre(Value.Check(VersionConfigSchema, clean) && !namesRuntimeTwice(clean) && !hasProtoKey(clean));
        const res = await svc.call('POST', `/cloud/games/${gameId}/versions/validate`, {
          body: { display_name: 'random', config: clean },
        });
        assert.equal(res.statusCode, 200, res.body);
        const expected = validateVersion(
          { display_name: 'random', config: clean as VersionConfig },
          {
            regions: ['lnd-atl', 'lnd-fra', 'lnd-sfo', 'lnd-sin'],
            existingDisplayNames: [],
            hostNetworkingEnabled: false,
            buildIds: new Set(),
          },
        );
        assert.deepEqual(res.json(), { errors: expected.slice(0, 100), error_count: expected.length });
        compared++;
      }),
      { numRuns: 100 },
    );
    assert.ok(compared >= 50, `only ${compared} of 100 runs reached the validator`);
  });
});
