import { type Static, Type } from 'typebox';
import { Timestamp } from './common.js';
import { PageLimit } from './paging.js';
import { WatchQuery, WatchSchema } from './watch.js';

/**
 * What a lobby printed and what it used (issue 38). The read, export and history operations follow the
 * original API's definitions (rivet-gg/rivet fern/definition/cloud/games/matchmaker.yml): lines are the
 * bytes a server printed, base64-encoded, oldest to newest, each with its RFC 3339 time; a `cursor` is ours,
 * for reading a long log a page at a time (docs/interface-notes.md, "Lobby output").
 */
export const LOBBY_OUTPUT_LIMITS = {
  /** A longer line is cut to this many bytes and marked (`LINE_CUT_MARK`). */
  lineBytes: 16 * 1024,
  /** Lines in one page when `limit` is not given (the original's 256). */
  pageLines: 256,
  /** The largest `limit` a read may ask (the paging convention's PAGE_LIMIT_MAX). */
  pageLinesMax: 1000,
  /** Export history: the longest period one export may cover (31 days). */
  historyPeriodMaxMs: 31 * 24 * 60 * 60 * 1000,
  /** Export history: at most this many lobbies in one file (the newest are kept; the file says so). */
  historyLobbiesMax: 100_000,
} as const;

/**
 * Appended to a line that was longer than `lineBytes`, after its first `lineBytes` bytes (cut at a
 * character boundary): the text stands in the output itself, as `docker logs` users expect to see it.
 */
export const LINE_CUT_MARK = ' [gcm: line cut at 16384 bytes]';

export const LogStream = Type.Union([Type.Literal('std_out'), Type.Literal('std_err')], {
  description: "the lobby's standard output or standard error",
});
export type LogStream = Static<typeof LogStream>;

/** A position in a stream's lines: a decimal line number, as a `cursor` or `watch.index` gives it. */
const LinePosition = Type.String({ pattern: '^\\d{1,19}$', maxLength: 19 });

export const GetLobbyLogsQuery = Type.Object({
  stream: LogStream,
  ...WatchQuery,
  cursor: Type.Optional({
    ...LinePosition,
    description: 'a `cursor` an earlier page returned: the page of lines just before it (older)',
  }),
  limit: Type.Optional({
    ...PageLimit,
    description: `lines in the page, 1 to ${LOBBY_OUTPUT_LIMITS.pageLinesMax} (default ${LOBBY_OUTPUT_LIMITS.pageLines})`,
  }),
});
export type GetLobbyLogsQuery = Static<typeof GetLobbyLogsQuery>;

export const GetLobbyLogsResponse = Type.Object({
  lines: Type.Array(Type.String({ contentEncoding: 'base64' }), {
    description: 'what the lobby printed, one base64-encoded line each (without its newline), oldest first',
  }),
  timestamps: Type.Array(Timestamp, { description: "each line's time, as the engine recorded it" }),
  watch: WatchSchema,
  complete: Type.Boolean({
    description:
      'true once the lobby has exited and all it printed is stored: a watch then answers at once, as there is no more to wait for',
  }),
  cursor: Type.Optional({
    ...LinePosition,
    description: 'present when older lines exist: pass it as `cursor` to read the page before this one',
  }),
});
export type GetLobbyLogsResponse = Static<typeof GetLobbyLogsResponse>;

export const ExportLobbyLogsBody = Type.Object({ stream: LogStream });
export type ExportLobbyLogsBody = Static<typeof ExportLobbyLogsBody>;

export const ExportLobbyLogsResponse = Type.Object({
  url: Type.String({
    description: 'a presigned URL (valid one hour) to the whole stream as a text file, one line each',
  }),
});
export type ExportLobbyLogsResponse = Static<typeof ExportLobbyLogsResponse>;

/** Epoch milliseconds, as the original's "unsigned 64 bit integer". */
const EpochMs = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const ExportLobbyHistoryBody = Type.Object({
  query_start: { ...EpochMs, description: 'epoch milliseconds: lobbies created at or after this' },
  query_end: { ...EpochMs, description: 'epoch milliseconds: lobbies created before this' },
});
export type ExportLobbyHistoryBody = Static<typeof ExportLobbyHistoryBody>;

export const ExportLobbyHistoryResponse = Type.Object({
  url: Type.String({
    description: "a presigned URL (valid one hour) to a CSV file of the game's lobbies in the period",
  }),
});
export type ExportLobbyHistoryResponse = Static<typeof ExportLobbyHistoryResponse>;

/** One sample of a lobby's resource use, from the engine's stats. */
export const LobbyResourceSample = Type.Object({
  ts: Timestamp,
  cpu_cores: Type.Number({ minimum: 0, description: 'CPU in use since the previous sample, in cores' }),
  memory_bytes: Type.Integer({ minimum: 0, description: 'memory in use, without reclaimable page cache' }),
  memory_limit_bytes: Type.Integer({ minimum: 0, description: "the tier's memory limit" }),
  rx_bytes: Type.Integer({ minimum: 0, description: 'network bytes received since the lobby started' }),
  tx_bytes: Type.Integer({ minimum: 0, description: 'network bytes sent since the lobby started' }),
});
export type LobbyResourceSample = Static<typeof LobbyResourceSample>;

export const LobbyResources = Type.Object({
  latest: Type.Optional(LobbyResourceSample),
  history: Type.Array(LobbyResourceSample, {
    description: 'coarse samples over the lobby’s life, oldest first',
  }),
});
export type LobbyResources = Static<typeof LobbyResources>;
