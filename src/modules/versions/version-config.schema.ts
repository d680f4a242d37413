/**
 * The game version configuration of interface 2.9, key by key. This one schema validates request bodies
 * (wrong types, negative u32s and numbers beyond 32 bit are 400 API_BAD_BODY before any rule runs), types
 * the pure validator and the resolver, and documents the shape in the OpenAPI document.
 *
 * Optional keys also accept null, meaning "not set". Keys marked CLI only are accepted and stored, never
 * acted on. Unknown keys are ignored (and stored as given).
 */
import { type Static, type TSchema, Type } from 'typebox';
import { OptionalNullable, U32 } from '../../http/common-schemas.js';

/** "integer" in the interface: signed, and held to 32 bit like every number the service stores. */
const Int32 = Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });
const StringMap = Type.Record(Type.String(), Type.String());
const cliOnly = <T extends TSchema>(schema: T, what: string) =>
  Type.Optional(
    Type.Union([schema, Type.Null()], {
      description: `CLI only: ${what}; stored, no effect on the service`,
    }),
  );

const MinMaxInt = Type.Object({ min: Int32, max: Int32 });
const MinMaxU32 = Type.Object({ min: U32, max: U32 });

const CustomHeadersMiddleware = Type.Object({
  headers: Type.Array(Type.Object({ name: Type.String(), value: Type.String() })),
});

const CdnRoute = Type.Object({
  glob: Type.String(),
  priority: U32,
  middlewares: Type.Array(
    Type.Object({
      kind: Type.Object({ custom_headers: OptionalNullable(CustomHeadersMiddleware) }),
    }),
  ),
});

const CdnConfig = Type.Object({
  build_command: cliOnly(Type.String(), 'command that builds the site'),
  build_env: cliOnly(StringMap, 'environment of the build command'),
  build_output: cliOnly(Type.String(), 'folder the build writes'),
  site_id: OptionalNullable(Type.String()),
  routes: OptionalNullable(Type.Array(CdnRoute)),
});

const EngineConfig = Type.Object({
  custom: OptionalNullable(Type.Object({})),
  engine_a: OptionalNullable(Type.Object({})),
  html5: OptionalNullable(Type.Object({})),
  engine_b: OptionalNullable(Type.Object({})),
  engine_c: OptionalNullable(
    Type.Object({
      game_module: Type.String({ description: 'CLI only: module that holds the game code' }),
    }),
  ),
});

const CaptchaConfig = Type.Object({
  captcha_provider_a: OptionalNullable(
    Type.Object({
      secret_key: OptionalNullable(Type.String()),
      site_key: OptionalNullable(Type.String()),
    }),
  ),
  captcha_provider_b: OptionalNullable(Type.Object({ secret_key: Type.String(), site_key: Type.String() })),
  requests_before_reverify: Int32,
  verification_ttl: Int32,
});

const Port = Type.Object({
  dev_port: cliOnly(Int32, 'port the local development server listens on'),
  dev_port_range: cliOnly(MinMaxU32, 'port range of the local development server'),
  dev_protocol: cliOnly(Type.String(), 'protocol of the local development server'),
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
  args: OptionalNullable(Type.Array(Type.String())),
  build_args: cliOnly(StringMap, 'build arguments of the image'),
  dockerfile: cliOnly(Type.String(), 'Dockerfile the image is built from'),
  env: OptionalNullable(StringMap),
  image: cliOnly(Type.String(), 'local image tag to upload'),
  image_id: OptionalNullable(Type.String()),
  network_mode: OptionalNullable(Type.Union([Type.Literal('bridge'), Type.Literal('host')])),
  ports: OptionalNullable(Type.Record(Type.String(), Port)),
};
export const ContainerRuntime = Type.Object(containerRuntimeProperties);
/** Existing clients send the runtime as `docker`; accepted as an alias (never together with `container`). */
const DockerAlias = Type.Object(containerRuntimeProperties, { description: 'older name of `container`' });

const RegionConfig = Type.Object({
  idle_lobbies: OptionalNullable(MinMaxInt),
  tier: OptionalNullable(Type.String()),
});

const Verification = Type.Object({ url: Type.String(), headers: StringMap });
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
  regions: OptionalNullable(Type.Record(Type.String(), RegionConfig)),
  taggable: OptionalNullable(Type.Boolean()),
  tier: OptionalNullable(Type.String()),
});

const MatchmakerConfig = Type.Object({
  captcha: OptionalNullable(CaptchaConfig),
  dev_hostname: cliOnly(Type.String(), 'host name of the local development server'),
  container: OptionalNullable(ContainerRuntime),
  docker: OptionalNullable(DockerAlias),
  game_modes: OptionalNullable(Type.Record(Type.String(), GameMode)),
  idle_lobbies: OptionalNullable(MinMaxInt),
  max_players: OptionalNullable(Int32),
  max_players_direct: OptionalNullable(Int32),
  max_players_party: OptionalNullable(Int32),
  regions: OptionalNullable(Type.Record(Type.String(), RegionConfig)),
  tier: OptionalNullable(Type.String()),
});

export const VersionConfigSchema = Type.Object(
  {
    cdn: OptionalNullable(CdnConfig),
    engine: OptionalNullable(EngineConfig),
    kv: OptionalNullable(Type.Object({})),
    matchmaker: OptionalNullable(MatchmakerConfig),
    scripts: OptionalNullable(StringMap),
  },
  { description: 'game version configuration (interface 2.9)' },
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
