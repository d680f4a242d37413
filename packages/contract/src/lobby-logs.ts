import { type Static, Type } from 'typebox';
import { Id, IdOf, OptionalNullable, Text, Timestamp } from './common.js';

export const LobbyParams = Type.Object({ game_id: Id, namespace_id: Id, lobby_id: Id });

export const ListLobbiesQuery = Type.Object({
  before_create_ts: Type.Optional(
    Text(64, { description: 'RFC 3339; lobbies created strictly before it (default: now)' }),
  ),
  before_lobby_id: Type.Optional(
    IdOf(
      'with before_create_ts, continue inside one millisecond: lobbies at that create_ts with a smaller lobby_id come next',
    ),
  ),
});

export const CreateLobbyBody = Type.Object({
  lobby_id: OptionalNullable(IdOf('UUID chosen by the data plane; made here if absent')),
  lobby_group_name_id: Text(256, { description: 'game mode name' }),
  region_id: Text(64),
  create_ts: OptionalNullable(Text(64, { description: 'RFC 3339; default now' })),
});

export const LobbyEventBody = Type.Object({
  kind: Type.Union([Type.Literal('start'), Type.Literal('ready'), Type.Literal('stop')]),
  ts: OptionalNullable(Text(64, { description: 'RFC 3339; default now' })),
  exit_code: OptionalNullable(
    Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647, description: 'required for stop' }),
  ),
  failed: OptionalNullable(Type.Boolean({ description: 'stop only; default: exit_code is not 0' })),
});

/**
 * A lobby the service runs itself (GCM_RUNTIME=docker) that has not stopped shows its live state here; a
 * lobby an external data plane reports, or one that stopped, has `running: {}` (the interface's empty
 * object, whose fields it leaves unsaid).
 */
export const LobbyRunning = Type.Object({
  state: Type.Optional(
    Type.Union(
      [Type.Literal('starting'), Type.Literal('ready'), Type.Literal('closed'), Type.Literal('stopping')],
      { description: 'closed: ready, but the matchmaker sends it no new players' },
    ),
  ),
  player_count: Type.Optional(Type.Integer({ minimum: 0 })),
  max_players: Type.Optional(Type.Integer({ minimum: 0 })),
  version_id: Type.Optional(Id),
});
export type LobbyRunning = Static<typeof LobbyRunning>;

/** The longest stop reason an answer carries: the runtime cuts a driver's message (`image: …`) there. */
export const STOP_REASON_MAX_LENGTH = 500;

/**
 * Why a lobby the service ran stopped, as docs/runtime.md names it: `exited`, `out-of-memory`, `lost`,
 * `ready-timeout`, `image: <the driver's message>`, `start: <message>`, `studio`, `rollout`,
 * `idle-surplus`, `drain-timeout`, `namespace-deleted`. Not in the original API (docs/interface-notes.md).
 */
export const StopReason = Type.String({
  maxLength: STOP_REASON_MAX_LENGTH,
  description: 'a lobby the service ran: why it stopped (exited, ready-timeout, image: …, studio, rollout…)',
});

export const LobbyStopped = Type.Object({
  exit_code: Type.Integer(),
  failed: Type.Boolean(),
  stop_ts: Timestamp,
  stop_reason: Type.Optional(StopReason),
  version_id: Type.Optional(IdOf('a lobby the service ran: the version it ran')),
});
export type LobbyStopped = Static<typeof LobbyStopped>;

export const LobbySummary = Type.Object({
  create_ts: Timestamp,
  lobby_group_name_id: Type.String(),
  lobby_id: Id,
  namespace_id: Id,
  ready_ts: Type.Optional(Timestamp),
  region_id: Type.String(),
  start_ts: Type.Optional(Timestamp),
  status: Type.Object({
    running: LobbyRunning,
    stopped: Type.Optional(LobbyStopped),
  }),
});

export type LobbyParams = Static<typeof LobbyParams>;
export type ListLobbiesQuery = Static<typeof ListLobbiesQuery>;
export type CreateLobbyBody = Static<typeof CreateLobbyBody>;
export type LobbyEventBody = Static<typeof LobbyEventBody>;
export type LobbySummary = Static<typeof LobbySummary>;

export const LobbyList = Type.Object({ lobbies: Type.Array(LobbySummary) });
export type LobbyList = Static<typeof LobbyList>;

export const GetLobbyResponse = Type.Object({ lobby: LobbySummary });
export type GetLobbyResponse = Static<typeof GetLobbyResponse>;

export const CreateLobbyResponse = Type.Object({ lobby_id: Id });
export type CreateLobbyResponse = Static<typeof CreateLobbyResponse>;
