import { type Static, Type } from 'typebox';
import { Id, IdOf, Text, TextMap } from './common.js';

/**
 * The players' side of the matchmaker (issue 37): a game client with the namespace's public (or
 * development) token finds, joins or creates a lobby and gets a player token for it; the lobby server
 * passes that token to /matchmaker/players/connected. Names and shapes are the original API's
 * (rivet-gg/rivet fern/definition/matchmaker/{lobbies,common}.yml), so its published client works unmodified.
 */

/** Game modes, regions and tags are name ids (≤ 32) in the config; requests are bounded alike. */
export const MATCHMAKER_LIMITS = {
  gameModes: 32,
  regions: 64,
  nameId: 32,
  tags: 32,
  tagKey: 64,
  tagValue: 256,
  /** verification_data and lobby_config: any JSON, at most this many bytes once serialized. */
  jsonBytes: 16 * 1024,
  /** A lobby's state (PUT /matchmaker/lobbies/state): any JSON, at most this many bytes. */
  stateBytes: 64 * 1024,
  captchaResponse: 4096,
  /** GET /matchmaker/lobbies/list answers at most this many lobbies (the fullest first). */
  listLobbies: 512,
} as const;

const NameId = Text(MATCHMAKER_LIMITS.nameId, { minLength: 1 });

const CaptchaResponse = Type.Object({
  client_response: Text(MATCHMAKER_LIMITS.captchaResponse, { minLength: 1 }),
});

/**
 * The original's captcha config: `hcaptcha` answers the version config's captcha_provider_a, `turnstile`
 * its captcha_provider_b (docs/interface-notes.md).
 */
export const CaptchaAnswer = Type.Object({
  hcaptcha: Type.Optional(CaptchaResponse),
  turnstile: Type.Optional(CaptchaResponse),
});
export type CaptchaAnswer = Static<typeof CaptchaAnswer>;

const Tags = TextMap(Text(MATCHMAKER_LIMITS.tagValue), {
  maxEntries: MATCHMAKER_LIMITS.tags,
  keyMax: MATCHMAKER_LIMITS.tagKey,
});

/** Any JSON value; its serialized size is checked by the service (MATCHMAKER_LIMITS.jsonBytes). */
const AnyJson = Type.Unknown();

export const FindLobbyBody = Type.Object({
  game_modes: Type.Array(NameId, { minItems: 1, maxItems: MATCHMAKER_LIMITS.gameModes }),
  regions: Type.Optional(Type.Array(NameId, { minItems: 1, maxItems: MATCHMAKER_LIMITS.regions })),
  prevent_auto_create_lobby: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Tags),
  max_players: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_768 })),
  captcha: Type.Optional(CaptchaAnswer),
  verification_data: Type.Optional(AnyJson),
});
export type FindLobbyBody = Static<typeof FindLobbyBody>;

export const JoinLobbyBody = Type.Object({
  lobby_id: Id,
  captcha: Type.Optional(CaptchaAnswer),
  verification_data: Type.Optional(AnyJson),
});
export type JoinLobbyBody = Static<typeof JoinLobbyBody>;

export const CUSTOM_LOBBY_PUBLICITIES = ['public', 'private'] as const;
export type CustomLobbyPublicity = (typeof CUSTOM_LOBBY_PUBLICITIES)[number];

export const CreateCustomLobbyBody = Type.Object({
  game_mode: NameId,
  region: Type.Optional(NameId),
  publicity: Type.Optional(Type.Union(CUSTOM_LOBBY_PUBLICITIES.map((p) => Type.Literal(p)))),
  tags: Type.Optional(Tags),
  max_players: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_768 })),
  lobby_config: Type.Optional(AnyJson),
  captcha: Type.Optional(CaptchaAnswer),
  verification_data: Type.Optional(AnyJson),
});
export type CreateCustomLobbyBody = Static<typeof CreateCustomLobbyBody>;

const WirePort = Type.Integer({ minimum: 0, maximum: 65_535 });

/** Where a player connects: `port` for one port, `port_range` (inclusive) for a range. */
export const JoinPort = Type.Object({
  host: Type.Optional(Type.String({ description: 'hostname:port; absent for a port range' })),
  hostname: Type.String(),
  port: Type.Optional(WirePort),
  port_range: Type.Optional(Type.Object({ min: WirePort, max: WirePort })),
  is_tls: Type.Boolean(),
});
export type JoinPort = Static<typeof JoinPort>;

export const JoinPlayer = Type.Object({
  token: Type.String({
    description: 'pass it to the lobby server, which validates it with /matchmaker/players/connected',
  }),
});
export type JoinPlayer = Static<typeof JoinPlayer>;

const JoinPorts = Type.Record(Type.String(), JoinPort);

export const JoinLobby = Type.Object({
  lobby_id: Id,
  region: Type.Object({ region_id: Type.String(), display_name: Type.String() }),
  /** Deprecated in the original, still sent: the same as the answer's own ports and player. */
  ports: JoinPorts,
  player: JoinPlayer,
});
export type JoinLobby = Static<typeof JoinLobby>;

/** find, join and create answer alike (FindLobbyResponse, JoinLobbyResponse, CreateLobbyResponse). */
export const JoinLobbyAnswer = Type.Object({
  lobby: JoinLobby,
  ports: JoinPorts,
  player: JoinPlayer,
});
export type JoinLobbyAnswer = Static<typeof JoinLobbyAnswer>;

export const ListOpenLobbiesQuery = Type.Object({
  include_state: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
});
export type ListOpenLobbiesQuery = Static<typeof ListOpenLobbiesQuery>;

export const ListedLobby = Type.Object({
  region_id: Type.String(),
  game_mode_id: Type.String(),
  lobby_id: IdOf('the lobby (join it with POST /matchmaker/lobbies/join)'),
  max_players_normal: Type.Integer(),
  max_players_direct: Type.Integer(),
  max_players_party: Type.Integer(),
  total_player_count: Type.Integer(),
  state: Type.Optional(AnyJson),
});
export type ListedLobby = Static<typeof ListedLobby>;

export const ListLobbiesResponse = Type.Object({
  game_modes: Type.Array(Type.Object({ game_mode_id: Type.String() }), { maxItems: 1024 }),
  regions: Type.Array(
    Type.Object({
      region_id: Type.String(),
      provider_display_name: Type.String(),
      region_display_name: Type.String(),
      datacenter_coord: Type.Object({ latitude: Type.Number(), longitude: Type.Number() }),
      datacenter_distance_from_client: Type.Object({ kilometers: Type.Number(), miles: Type.Number() }),
    }),
    { maxItems: 1024 },
  ),
  lobbies: Type.Array(ListedLobby, { maxItems: MATCHMAKER_LIMITS.listLobbies }),
});
export type ListLobbiesResponse = Static<typeof ListLobbiesResponse>;

export const LobbyStateParams = Type.Object({ lobby_id: IdOf('a lobby of the caller’s namespace') });
export type LobbyStateParams = Static<typeof LobbyStateParams>;
