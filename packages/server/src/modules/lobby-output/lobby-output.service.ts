import { type GetLobbyLogsResponse, LOBBY_OUTPUT_LIMITS, type LogStream } from '@gcm/contract';
import type { Deps } from '../../deps.js';
import { deleteInBatches } from '../../lib/batched-delete.js';
import { DAY_MS, toTimestamp } from '../../lib/clock.js';
import { Slots } from '../../lib/slots.js';
import { storeExport } from '../lobby-exports/lobby-exports.service.js';
import { findGameLobby } from '../runtime/lobby-control.js';
import * as repo from './lobby-output.repository.js';
import { decompressLines, type StoredLine } from './output-chunks.js';

/** A page reads at most this many chunks, so its cost is bounded whatever the log holds. */
const CHUNKS_PER_PAGE = 64;
/**
 * A stopped lobby whose stream was never marked complete (its capture died with the service) is called
 * complete this long after it stopped: the capture on the lease holder has had time to store its tail.
 */
const COMPLETE_AFTER_STOP_MS = 10_000;

export interface LobbyRef {
  /** Output is the lobby's, (namespace, lobby id): never the id's alone. */
  namespaceId: string;
  lobbyId: string;
  runState: string | null;
  stopTs: number | null;
}

/** The lobby the path names, of the path's game (404 otherwise): what every output read starts with. */
export async function lobbyOfGame(deps: Deps, gameId: string, lobbyId: string): Promise<LobbyRef> {
  const lobby = await findGameLobby(deps, gameId, lobbyId);
  return { namespaceId: lobby.namespace_id, lobbyId, runState: lobby.run_state, stopTs: lobby.stop_ts };
}

interface StreamState {
  /** Lines the stream has had: stored ones, then those in this instance's memory. */
  total: number;
  stored: number;
  firstLine: number;
  droppedBytes: number;
  memory: readonly StoredLine[];
  complete: boolean;
}

async function streamState(deps: Deps, lobby: LobbyRef, stream: LogStream): Promise<StreamState> {
  const live = deps.liveOutput.view(lobby.namespaceId, lobby.lobbyId, stream);
  const row = live?.row ?? (await repo.streamOf(deps.db, lobby.namespaceId, lobby.lobbyId, stream));
  const memory = live?.memory ?? [];
  const stored = row?.line_count ?? 0;
  // A lobby the data plane reported (no run state) has no output here; a stopped one whose capture is over
  // has all it will ever have.
  const stoppedLongAgo =
    lobby.runState === 'stopped' &&
    live === undefined &&
    (row === undefined || deps.clock.now() - (lobby.stopTs ?? 0) >= COMPLETE_AFTER_STOP_MS);
  return {
    total: stored + memory.length,
    stored,
    firstLine: row?.first_line ?? 0,
    droppedBytes: row?.dropped_bytes ?? 0,
    memory,
    complete: row?.complete === 1 || lobby.runState === null || stoppedLongAgo,
  };
}

/**
 * Lines at positions [from, to) of the stream. A page reads at most CHUNKS_PER_PAGE chunks: reading
 * backwards (`newest`) a page that needs more starts later; reading forwards (`oldest`) it ends sooner.
 */
async function linesBetween(
  deps: Deps,
  lobby: LobbyRef,
  stream: LogStream,
  state: StreamState,
  range: { from: number; to: number; keep: 'newest' | 'oldest' },
): Promise<{ from: number; lines: StoredLine[] }> {
  const lines: StoredLine[] = [];
  let { from, to } = range;
  const storedEnd = Math.min(to, state.stored);
  if (from < storedEnd) {
    const chunks =
      range.keep === 'newest'
        ? (
            await repo.chunksBefore(
              deps.db,
              lobby.namespaceId,
              lobby.lobbyId,
              stream,
              storedEnd,
              CHUNKS_PER_PAGE,
            )
          )
            .filter((c) => c.first_line + c.line_count > from)
            .reverse()
        : await repo.chunksFrom(
            deps.db,
            lobby.namespaceId,
            lobby.lobbyId,
            stream,
            from,
            storedEnd,
            CHUNKS_PER_PAGE,
          );
    const oldest = chunks[0];
    const newest = chunks.at(-1);
    if (oldest === undefined || newest === undefined) {
      // Nothing stored holds them (dropped meanwhile): the page is what memory holds.
      from = Math.max(from, storedEnd);
    } else if (range.keep === 'newest') {
      from = Math.max(from, oldest.first_line);
    } else {
      const reached = newest.first_line + newest.line_count;
      if (reached < storedEnd) to = reached;
      from = Math.max(from, oldest.first_line);
    }
    const held = await Promise.all(chunks.map((c) => readChunk(deps, c.blob_key)));
    chunks.forEach((chunk, i) => {
      const chunkLines = held[i] ?? [];
      const end = Math.min(to, storedEnd, chunk.first_line + chunk.line_count);
      for (let p = Math.max(from, chunk.first_line); p < end; p++) {
        const line = chunkLines[p - chunk.first_line];
        if (line !== undefined) lines.push(line);
      }
    });
  }
  if (to > state.stored) {
    lines.push(...state.memory.slice(Math.max(0, from - state.stored), to - state.stored));
  }
  return { from, lines };
}

async function readChunk(deps: Deps, key: string): Promise<StoredLine[]> {
  const stream = await deps.blobs.openRead(key);
  // Dropped for the cap (or by retention) between the index read and this one: its lines are gone.
  if (stream === undefined) return [];
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return decompressLines(Buffer.concat(parts));
}

/** The line that stands for lines dropped for the size cap, at the head of the oldest page. */
function droppedMark(state: StreamState, ts: number): StoredLine {
  const mib = (state.droppedBytes / (1024 * 1024)).toFixed(1);
  return {
    ts,
    bytes: Buffer.from(
      `[gcm: ${state.firstLine} earlier lines (${mib} MiB) were dropped: a lobby keeps GCM_LOBBY_LOG_MAX_BYTES of output per stream]`,
    ),
  };
}

export interface LogsPage {
  answer: GetLobbyLogsResponse;
  /** Lines in the page, the drop mark aside: a watch with none waits. */
  count: number;
}

/**
 * One page of a stream (docs/runtime.md "Reading output"): the newest lines; with `cursor`, the lines
 * before it; with `after` (a watch index), the lines from it on. Lines are base64 (any bytes a server
 * printed), oldest first, as the original API answered them.
 */
export async function readLogs(
  deps: Deps,
  lobby: LobbyRef,
  stream: LogStream,
  query: { cursor?: number; after?: number; limit?: number },
): Promise<LogsPage> {
  const state = await streamState(deps, lobby, stream);
  const limit = query.limit ?? LOBBY_OUTPUT_LIMITS.pageLines;
  let from: number;
  let to: number;
  if (query.after !== undefined) {
    from = Math.max(Math.min(query.after, state.total), state.firstLine);
    to = Math.min(state.total, from + limit);
  } else {
    to = Math.max(Math.min(query.cursor ?? state.total, state.total), state.firstLine);
    from = Math.max(state.firstLine, to - limit);
  }
  const read = await linesBetween(deps, lobby, stream, state, {
    from,
    to,
    keep: query.after === undefined ? 'newest' : 'oldest',
  });
  const lines = read.lines;
  // The oldest page says what the cap dropped; a follower only when it had not read up to the cut.
  const out =
    state.firstLine > 0 &&
    read.from === state.firstLine &&
    (query.after === undefined || query.after < state.firstLine);
  const shown = out ? [droppedMark(state, lines[0]?.ts ?? deps.clock.now()), ...lines] : lines;
  const answer: GetLobbyLogsResponse = {
    lines: shown.map((l) => l.bytes.toString('base64')),
    timestamps: shown.map((l) => toTimestamp(l.ts)),
    watch: { index: String(query.after === undefined ? state.total : read.from + lines.length) },
    complete: state.complete && (query.after === undefined || read.from + lines.length >= state.total),
  };
  if (query.after === undefined && read.from > state.firstLine) answer.cursor = String(read.from);
  return { answer, count: lines.length };
}

/** Every line of the stream, oldest first, a page of chunks at a time (the export). */
export async function* allLines(deps: Deps, lobby: LobbyRef, stream: LogStream): AsyncGenerator<StoredLine> {
  const state = await streamState(deps, lobby, stream);
  if (state.firstLine > 0) yield droppedMark(state, deps.clock.now());
  let at = state.firstLine;
  while (at < state.total) {
    const read = await linesBetween(deps, lobby, stream, state, {
      from: at,
      to: Math.min(state.total, at + 5_000),
      keep: 'oldest',
    });
    if (read.lines.length === 0) break;
    yield* read.lines;
    at = read.from + read.lines.length;
  }
}

/** Lobbies whose output one retention or purge step deletes: their blobs, then their rows. */
const RETENTION_BATCH = 100;

/** Deletes the output of the lobbies `pick` names (at most `batch`); answers how many lobbies. */
async function deleteOutputBatch(
  deps: Deps,
  batch: number,
  pick: (batch: number) => Promise<repo.OutputOwner[]>,
): Promise<number> {
  const owners = await pick(batch);
  // Blobs first: a crash in between leaves rows that name missing blobs (read as no lines, deleted again by
  // the next pass), never blobs that no row names.
  for (const key of await repo.chunkKeysOf(deps.db, owners)) await deps.blobs.delete(key);
  await repo.deleteOutputOf(deps.db, owners);
  return owners.length;
}

/**
 * Output retention (the `lobby-output-retention` job): the output of lobbies the lobby log no longer has
 * (its retention, GCM_LOBBY_RETENTION_DAYS, or a purge deleted them), and output not written for longer than
 * that retention, is deleted with its blobs, a batch of lobbies at a time.
 */
export async function deleteExpiredOutput(deps: Deps): Promise<number> {
  const days = deps.config.lobbyRetentionDays;
  const before = days === 0 ? 0 : deps.clock.now() - days * DAY_MS;
  return deleteInBatches(RETENTION_BATCH, (batch) =>
    deleteOutputBatch(deps, batch, (n) => repo.expiredOutput(deps.db, before, n)),
  );
}

/** A purged namespace's output, with its blobs. */
export async function purgeOutputOf(deps: Deps, namespaceId: string): Promise<number> {
  return deleteInBatches(RETENTION_BATCH, (batch) =>
    deleteOutputBatch(deps, batch, (n) => repo.lobbiesWithOutput(deps.db, namespaceId, n)),
  );
}

/** Exports built at once across the service: each holds a stream (up to 16 MiB) in memory while it is written. */
const exportSlots = new Slots(2);

/**
 * POST …/logs/export: the whole stream as a text file (one line each, as printed, the cap's mark first when
 * lines were dropped) in blob storage, answered as a presigned URL valid one hour, as the original did.
 */
export async function exportLogs(
  deps: Deps,
  gameId: string,
  lobbyId: string,
  stream: LogStream,
): Promise<{ url: string }> {
  const lobby = await lobbyOfGame(deps, gameId, lobbyId);
  const filename = stream === 'std_out' ? 'stdout.txt' : 'stderr.txt';
  const body = await exportSlots.run(async () => {
    const parts: Buffer[] = [];
    const newline = Buffer.from('\n');
    for await (const line of allLines(deps, lobby, stream)) parts.push(line.bytes, newline);
    return Buffer.concat(parts);
  });
  // Kept a day, then deleted with the other exports (lobby-exports' clean-up).
  const { url } = await storeExport(deps, {
    gameId,
    kind: 'lobby-output',
    filename,
    contentType: 'text/plain; charset=utf-8',
    body,
  });
  return { url };
}
