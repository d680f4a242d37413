import { type Static, Type } from 'typebox';
import { DisplayNameText, Id, IdOf, OptionalNullable, Text, Timestamp } from './common.js';

export const GameIdParams = Type.Object({ game_id: Id });

export const ValidateGameBody = Type.Object({
  display_name: DisplayNameText('1-24 bytes'),
  name_id: OptionalNullable(Text(64, { description: '1-16 of a-z, 0-9 and -' })),
  team_id: Type.Optional(IdOf('the team that is to own the game (a signed-in person must name one)')),
});

export const CreateGameBody = Type.Object({
  name_id: Text(64, { description: '1-16 of a-z, 0-9 and -, unique' }),
  display_name: DisplayNameText('1-24 bytes'),
  team_id: Type.Optional(
    IdOf(
      'the team that is to own the game: the operator may name any or none; a signed-in person must name ' +
        'one where they are admin or owner',
    ),
  ),
});

export const GameSummary = Type.Object({
  game_id: Id,
  name_id: Type.String(),
  display_name: Type.String(),
  create_ts: Timestamp,
  team_id: Type.Optional(IdOf('the team that owns the game, when one does')),
  avatar_url: Type.Optional(Type.String()),
});

export const NamespaceSummary = Type.Object({
  namespace_id: Id,
  version_id: Id,
  name_id: Type.String(),
  display_name: Type.String(),
  create_ts: Timestamp,
});

export const VersionSummary = Type.Object({
  version_id: Id,
  display_name: Type.String(),
  create_ts: Timestamp,
});

export const HostNetworkingBody = Type.Object({ enabled: Type.Boolean() });

export const GameFull = Type.Object({
  ...GameSummary.properties,
  host_networking_enabled: Type.Boolean({
    description: 'whether versions may use network_mode "host" (set by the operator)',
  }),
  runtime: Type.Union([Type.Literal('none'), Type.Literal('docker'), Type.Literal('swarm')], {
    description:
      "how the service's lobbies run (GCM_RUNTIME): none, an external data plane reports them; docker, the service runs them itself on Docker engines; swarm, on a Docker Swarm cluster",
  }),
  namespaces: Type.Array(NamespaceSummary),
  versions: Type.Array(VersionSummary),
});

/** `PATCH /cloud/games/{game_id}`: what may change of a game once made (its name id stays: URLs and the CLI use it). */
export const UpdateGameBody = Type.Object({
  display_name: DisplayNameText('1-24 bytes'),
});

export type GameIdParams = Static<typeof GameIdParams>;
export type UpdateGameBody = Static<typeof UpdateGameBody>;
export type ValidateGameBody = Static<typeof ValidateGameBody>;
export type CreateGameBody = Static<typeof CreateGameBody>;
export type GameSummary = Static<typeof GameSummary>;
export type NamespaceSummary = Static<typeof NamespaceSummary>;
export type VersionSummary = Static<typeof VersionSummary>;
export type HostNetworkingBody = Static<typeof HostNetworkingBody>;
export type GameFull = Static<typeof GameFull>;

export const CreateGameResponse = Type.Object({ game_id: Id });
export type CreateGameResponse = Static<typeof CreateGameResponse>;

export const GameList = Type.Object({ games: Type.Array(GameSummary) });
export type GameList = Static<typeof GameList>;

export const GetGameResponse = Type.Object({ game: GameFull });
export type GetGameResponse = Static<typeof GetGameResponse>;
