import { type Static, Type } from 'typebox';
import { Id, Text, Timestamp } from './common.js';
import { StopReason } from './lobby-logs.js';

/**
 * The calls a running lobby makes with its GCM_LOBBY_TOKEN (the original API's /matchmaker paths): each
 * acts on the token's own lobby, which no path names, and answers an empty object as the original did.
 */
export const LobbyCallAnswer = Type.Object(
  {},
  { description: 'an empty object, as the original API answered' },
);
export type LobbyCallAnswer = Static<typeof LobbyCallAnswer>;

export const SetLobbyClosedBody = Type.Object({
  is_closed: Type.Boolean({ description: 'true: the matchmaker routes no new players to the lobby' }),
});
export type SetLobbyClosedBody = Static<typeof SetLobbyClosedBody>;

/** Until the matchmaker issue issues player tokens, they are opaque strings the lobby reports. */
export const PLAYER_TOKEN_MAX_LENGTH = 512;

export const PlayerTokenBody = Type.Object({
  player_token: Text(PLAYER_TOKEN_MAX_LENGTH, {
    minLength: 1,
    description: 'the player token the player connected with; counted once per lobby',
  }),
});
export type PlayerTokenBody = Static<typeof PlayerTokenBody>;

export const GameLobbyParams = Type.Object({ game_id: Id, lobby_id: Id });
export type GameLobbyParams = Static<typeof GameLobbyParams>;

export const DeleteMatchmakerLobbyResponse = Type.Object({
  did_remove: Type.Boolean({
    description: 'true: the lobby was running and is now stopping; false: it was stopping or stopped already',
  }),
});
export type DeleteMatchmakerLobbyResponse = Static<typeof DeleteMatchmakerLobbyResponse>;

/** At most this many of the current version's failed lobbies are shown, newest first. */
export const ROLLOUT_FAILED_MAX = 20;

const LobbyCounts = Type.Object({
  starting: Type.Integer({ minimum: 0 }),
  ready_idle: Type.Integer({ minimum: 0, description: 'ready, no players, not closed' }),
  ready_busy: Type.Integer({ minimum: 0, description: 'ready with players' }),
  closed: Type.Integer({ minimum: 0 }),
  stopping: Type.Integer({ minimum: 0 }),
});

export const RolloutGroup = Type.Object({
  version_id: Id,
  game_mode: Type.String(),
  region_id: Type.String(),
  /** The current version's idle lobbies wanted here (idle_lobbies.min); 0 for an older version. */
  idle_wanted: Type.Integer({ minimum: 0 }),
  lobbies: LobbyCounts,
});
export type RolloutGroup = Static<typeof RolloutGroup>;

export const FailedLobby = Type.Object({
  lobby_id: Id,
  game_mode: Type.String(),
  region_id: Type.String(),
  exit_code: Type.Integer(),
  stop_reason: Type.Optional(StopReason),
  stop_ts: Timestamp,
});
export type FailedLobby = Static<typeof FailedLobby>;

export const NamespaceRollout = Type.Object({
  version_id: Id,
  /** Every game mode × region of the current version has its idle_lobbies.min lobbies ready and idle. */
  complete: Type.Boolean(),
  /** Live lobbies by version, game mode and region (current version's groups listed even when empty). */
  groups: Type.Array(RolloutGroup),
  /** The current version's most recent failed lobbies, newest first (at most ROLLOUT_FAILED_MAX). */
  failed: Type.Array(FailedLobby, { maxItems: ROLLOUT_FAILED_MAX }),
});
export type NamespaceRollout = Static<typeof NamespaceRollout>;
