/**
 * The game version configuration of interface 2.9, key by key. This one schema validates request bodies
 * (wrong types, negative u32s and numbers beyond 32 bit are 400 API_BAD_BODY before any rule runs), types
 * the pure validator and the resolver, and documents the shape in the OpenAPI document.
 *
 * Optional keys also accept null, meaning "not set". Keys marked CLI only are accepted and stored, never
 * acted on. Unknown keys pass the schema but the validator reports each one (unknown-keys.ts), so a version
 * holding one is never created; objects the interface leaves open say so with `additionalProperties: true`.
 */
import { type Static, type TSchema, Type } from 'typebox';
import { MultilineText, OptionalNullable, Text, TextMap, U32 } from '../common.js';

/*
 * Wire bounds: every string, list and map has one, set well above the validator's rules (LIMITS in
 * validate.ts) so that the rules still report `too-long`/`too-many` with their paths, and
 * only sizes no rule could accept are refused outright as API_BAD_BODY.
 */
/** Identifiers, names, keys, URLs: one line. */
const Name = Text(1024);
/** Values that may span lines: environment values, arguments, commands, header values. */
const Value = MultilineText(4096);
const MAP_LIMITS = { maxEntries: 256, keyMax: 256 } as const;
/**
 * Objects whose members the interface does not show (engines, kv): stored without being read, and the only
 * places where any key is accepted (`additionalProperties: true` tells unknown-keys.ts not to look inside).
 */
const OpaqueObject = Type.Object({}, { maxProperties: 256, additionalProperties: true });

/** "integer" in the interface: signed, and held to 32 bit like every number the service stores. */
const Int32 = Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });
const StringMap = TextMap(Value, MAP_LIMITS);
const cliOnly = <T extends TSchema>(schema: T, what: string) =>
  Type.Optional(
    Type.Union([schema, Type.Null()], {
      description: `CLI only: ${what}; stored, no effect on the service`,
    }),
  );

const MinMaxInt = Type.Object({ min: Int32, max: Int32 });
const MinMaxU32 = Type.Object({ min: U32, max: U32 });

const CustomHeadersMiddleware = Type.Object({
  headers: Type.Array(Type.Object({ name: Name, value: Value }), { maxItems: 128 }),
});

const CdnRoute = Type.Object({
  glob: Name,
  priority: U32,
  middlewares: Type.Array(
    Type.Object({
      kind: Type.Object({ custom_headers: OptionalNullable(CustomHeadersMiddleware) }),
    }),
    { maxItems: 128 },
  ),
});

const CdnConfig = Type.Object({
  build_command: cliOnly(Value, 'command that builds the site'),
  build_env: cliOnly(StringMap, 'environment of the build command'),
  build_output: cliOnly(Name, 'folder the build writes'),
  site_id: OptionalNullable(Name),
  routes: OptionalNullable(Type.Array(CdnRoute, { maxItems: 128 })),
});

const EngineConfig = Type.Object({
  custom: OptionalNullable(OpaqueObject),
  engine_a: OptionalNullable(OpaqueObject),
  html5: OptionalNullable(OpaqueObject),
  engine_b: OptionalNullable(OpaqueObject),
  // Its only shown field is game_module; the others are "not shown", so other keys are accepted as well.
  engine_c: OptionalNullable(
    Type.Object(
      { game_module: Text(1024, { description: 'CLI only: module that holds the game code' }) },
      { maxProperties: 256, additionalProperties: true },
    ),
  ),
});

const CaptchaConfig = Type.Object({
  captcha_provider_a: OptionalNullable(
    Type.Object({
      secret_key: OptionalNullable(Name),
      site_key: OptionalNullable(Name),
    }),
  ),
  captcha_provider_b: OptionalNullable(Type.Object({ secret_key: Name, site_key: Name })),
  requests_before_reverify: Int32,
  verification_ttl: Int32,
});

const Port = Type.Object({
  dev_port: cliOnly(Int32, 'port the local development server listens on'),
  dev_port_range: cliOnly(MinMaxU32, 'port range of the local development server'),
  dev_protocol: cliOnly(Name, 'protocol of the local development server'),
  port: OptionalNullable(Int32),
  port_range: OptionalNullable(MinMaxU32),
  protocol: OptionalNullable(
    Type.Union([
      Type.Literal('http'),
      Type.Literal('https'),
      Type.Literal('tcp'),
      Type.Literal('tcp_tls'),
      Type.Literal('udp'),
    ]),
  ),
  proxy: OptionalNullable(Type.Union([Type.Literal('none'), Type.Literal('game_guard')])),
});

const containerRuntimeProperties = {
  args: OptionalNullable(Type.Array(Value, { maxItems: 256 })),
  build_args: cliOnly(StringMap, 'build arguments of the image'),
  dockerfile: cliOnly(Name, 'Dockerfile the image is built from'),
  env: OptionalNullable(StringMap),
  image: cliOnly(Name, 'local image tag to upload'),
  image_id: OptionalNullable(Name),
  network_mode: OptionalNullable(Type.Union([Type.Literal('bridge'), Type.Literal('host')])),
  ports: OptionalNullable(TextMap(Port, { maxEntries: 64, keyMax: 256 })),
};
export const ContainerRuntime = Type.Object(containerRuntimeProperties);
/** Existing clients send the runtime as `docker`; accepted as an alias (never together with `container`). */
const DockerAlias = Type.Object(containerRuntimeProperties, { description: 'older name of `container`' });

const RegionConfig = Type.Object({
  idle_lobbies: OptionalNullable(MinMaxInt),
  tier: OptionalNullable(Name),
});

const Verification = Type.Object({
  url: Text(2048),
  headers: TextMap(Value, { maxEntries: 128, keyMax: 256 }),
});
const ActionFind = Type.Object({ enabled: Type.Boolean(), verification: OptionalNullable(Verification) });
const ActionCreate = Type.Object({
  enabled: Type.Boolean(),
  enable_private: OptionalNullable(Type.Boolean()),
  enable_public: OptionalNullable(Type.Boolean()),
  verification: OptionalNullable(Verification),
});

const GameMode = Type.Object({
  actions: OptionalNullable(
    Type.Object({
      create: OptionalNullable(ActionCreate),
      find: OptionalNullable(ActionFind),
      join: OptionalNullable(ActionFind),
    }),
  ),
  allow_dynamic_max_players: OptionalNullable(Type.Boolean()),
  container: OptionalNullable(ContainerRuntime),
  docker: OptionalNullable(DockerAlias),
  idle_lobbies: OptionalNullable(MinMaxInt),
  listable: OptionalNullable(Type.Boolean()),
  max_players: OptionalNullable(Int32),
  max_players_direct: OptionalNullable(Int32),
  max_players_party: OptionalNullable(Int32),
  regions: OptionalNullable(TextMap(RegionConfig, { maxEntries: 128, keyMax: 256 })),
  taggable: OptionalNullable(Type.Boolean()),
  tier: OptionalNullable(Name),
});

const MatchmakerConfig = Type.Object({
  captcha: OptionalNullable(CaptchaConfig),
  dev_hostname: cliOnly(Name, 'host name of the local development server'),
  container: OptionalNullable(ContainerRuntime),
  docker: OptionalNullable(DockerAlias),
  game_modes: OptionalNullable(TextMap(GameMode, { maxEntries: 128, keyMax: 256 })),
  idle_lobbies: OptionalNullable(MinMaxInt),
  max_players: OptionalNullable(Int32),
  max_players_direct: OptionalNullable(Int32),
  max_players_party: OptionalNullable(Int32),
  regions: OptionalNullable(TextMap(RegionConfig, { maxEntries: 128, keyMax: 256 })),
  tier: OptionalNullable(Name),
});

export const VersionConfigSchema = Type.Object(
  {
    cdn: OptionalNullable(CdnConfig),
    engine: OptionalNullable(EngineConfig),
    kv: OptionalNullable(Type.Object({}, { maxProperties: 1024, additionalProperties: true })),
    matchmaker: OptionalNullable(MatchmakerConfig),
    scripts: OptionalNullable(StringMap),
  },
  { description: 'game version configuration: game modes, their builds, ports, regions, player counts' },
);

export type VersionConfig = Static<typeof VersionConfigSchema>;
export type MatchmakerConfig = NonNullable<VersionConfig['matchmaker']>;
export type GameModeConfig = Static<typeof GameMode>;
export type ContainerConfig = Static<typeof ContainerRuntime>;
export type PortConfig = Static<typeof Port>;
export type RegionSettings = Static<typeof RegionConfig>;
export type VerificationConfig = Static<typeof Verification>;
export type CdnConfigType = Static<typeof CdnConfig>;
export type CaptchaConfigType = Static<typeof CaptchaConfig>;
