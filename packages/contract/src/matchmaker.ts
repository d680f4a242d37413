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

/** At most this many regions are listed in a rollout's problems, in name order. */
export const ROLLOUT_PROBLEMS_MAX = 100;
/** A region problem's message is cut to this many characters. */
export const REGION_PROBLEM_MAX_LENGTH = 500;

/** A region of the current version that cannot run lobbies now, and why (docs/runtime.md). */
export const RegionProblem = Type.Object({
  region_id: Type.String({ maxLength: 64 }),
  message: Type.String({
    maxLength: REGION_PROBLEM_MAX_LENGTH,
    description:
      "why, in the runtime's words, e.g. 'no ready node: no node of the swarm is labelled gcm.region=eu'",
  }),
});
export type RegionProblem = Static<typeof RegionProblem>;

export const NamespaceRollout = Type.Object({
  version_id: Id,
  /** Every game mode × region of the current version has its idle_lobbies.min lobbies ready and idle. */
  complete: Type.Boolean(),
  /** Live lobbies by version, game mode and region (current version's groups listed even when empty). */
  groups: Type.Array(RolloutGroup),
  /** The current version's most recent failed lobbies, newest first (at most ROLLOUT_FAILED_MAX). */
  failed: Type.Array(FailedLobby, { maxItems: ROLLOUT_FAILED_MAX }),
  /**
   * The current version's regions that cannot run lobbies now and why (a Docker Swarm region with no ready
   * node): the reconciler starts nothing there until that changes. Empty when every region can.
   */
  problems: Type.Array(RegionProblem, { maxItems: ROLLOUT_PROBLEMS_MAX }),
});
export type NamespaceRollout = Static<typeof NamespaceRollout>;

/** GET …/analytics/matchmaker/live answers at most this many lobbies, the newest first. */
export const LIVE_LOBBIES_MAX = 1000;

/**
 * One live lobby as the studio sees it (the original's cloud LobbySummaryAnalytics). The original's uuids
 * for a lobby group and a region are ours as docs/interface-notes.md says: lobby_group_id is derived from
 * the lobby's version and game mode, region_id is the region's name id.
 */
export const LobbySummaryAnalytics = Type.Object({
  lobby_id: Id,
  lobby_group_id: Type.String({
    format: 'uuid',
    description: "UUIDv5 of the lobby's version id and game mode: one per game mode of each version",
  }),
  lobby_group_name_id: Type.String({ maxLength: 64, description: 'the game mode' }),
  region_id: Type.String({ maxLength: 64, description: "the region's name id, e.g. lnd-atl" }),
  create_ts: Timestamp,
  is_ready: Type.Boolean({ description: 'the lobby called ready; false while it starts' }),
  is_idle: Type.Boolean({
    description: 'ready, open, and with no player (pending or connected): what the reconciler counts as idle',
  }),
  is_closed: Type.Boolean({ description: 'the lobby closed itself to new players' }),
  is_outdated: Type.Boolean({ description: 'it runs a version other than the namespace runs now' }),
  max_players_normal: Type.Integer({ minimum: 0 }),
  max_players_direct: Type.Integer({ minimum: 0 }),
  max_players_party: Type.Integer({ minimum: 0 }),
  total_player_count: Type.Integer({
    minimum: 0,
    description: 'players holding a slot: connected, and issued a player token not yet connected',
  }),
  registered_player_count: Type.Integer({ minimum: 0, description: 'players the lobby reported connected' }),
});
export type LobbySummaryAnalytics = Static<typeof LobbySummaryAnalytics>;

export const GetAnalyticsMatchmakerLiveResponse = Type.Object({
  lobbies: Type.Array(LobbySummaryAnalytics, {
    maxItems: LIVE_LOBBIES_MAX,
    description: `the namespace's starting and ready lobbies, newest first, at most ${LIVE_LOBBIES_MAX}`,
  }),
  truncated: Type.Boolean({
    description: `true: the namespace has more than ${LIVE_LOBBIES_MAX} live lobbies and the oldest are left out`,
  }),
});
export type GetAnalyticsMatchmakerLiveResponse = Static<typeof GetAnalyticsMatchmakerLiveResponse>;
