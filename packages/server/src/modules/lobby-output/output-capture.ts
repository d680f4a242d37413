import type { Db } from '../../db/open-db.js';
import type { BlobStorage } from '../../lib/blob/blob-storage.js';
import type { ChangeNotifier } from '../../lib/change-notifier.js';
import type { Clock } from '../../lib/clock.js';
import { Slots } from '../../lib/slots.js';
import { monotonicMs, TokenBucket } from '../../lib/token-bucket.js';
import type { OutputLine, RuntimeDriver } from '../../runtime/driver.js';
import * as repo from './lobby-output.repository.js';
import { chunkKey, compressLines, type StoredLine } from './output-chunks.js';

type Log = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void;

/** A running (or exited, not yet removed) lobby whose output is captured. */
export interface CapturedLobby {
  namespaceId: string;
  lobbyId: string;
  region: string;
  handle: string;
}

export interface OutputCaptureOptions {
  db: Db;
  blobs: BlobStorage;
  notifier: ChangeNotifier;
  clock: Clock;
  /** GCM_LOBBY_LOG_MAX_BYTES: bytes kept per lobby and stream. */
  maxBytes: number;
  /** GCM_LOBBY_OUTPUT_RATE_BYTES and GCM_LOBBY_OUTPUT_BURST_BYTES: what one lobby's output may take. */
  rateBytes: number;
  burstBytes: number;
  log: Log;
}

/** A crash loses at most this much of what lobbies printed: every capture's new lines are stored this often. */
export const FLUSH_MS = 1_000;
/** A chunk takes lines until it holds this many bytes, or until CHUNK_AGE_MS after its first line. */
const CHUNK_RAW_MAX = 256 * 1024;
const CHUNK_AGE_MS = 60_000;
/** A burst this large is stored at once rather than at the next tick, so memory stays bounded. */
const PENDING_FLUSH_BYTES = 1024 * 1024;
const PUT_CONCURRENCY = 8;
/**
 * A capture reads at most this long before it lets the event loop run: a lobby that floods its output is
 * read in slices, between which the API's requests (and other lobbies' captures) take their turn.
 */
const SLICE_MS = 5;

const STREAM_OF = { stdout: 'std_out', stderr: 'std_err' } as const satisfies Record<
  OutputLine['stream'],
  repo.StreamName
>;
const STREAMS: readonly repo.StreamName[] = ['std_out', 'std_err'];

/** The change-notifier key of one stream: followers (watch_index) wait on it. */
export function outputKey(namespaceId: string, lobbyId: string, stream: repo.StreamName): string {
  return `lobby-output:${namespaceId}:${lobbyId}:${stream}`;
}

/** A capture is a lobby, (namespace, lobby id): the same id in another namespace is another lobby. */
function captureKey(namespaceId: string, lobbyId: string): string {
  return `${namespaceId}/${lobbyId}`;
}

interface OpenChunk {
  firstLine: number;
  key: string;
  /** The gzip members already in the blob, one per flush. */
  members: Buffer[];
  lineCount: number;
  rawBytes: number;
  firstTs: number;
  lastTs: number;
  startedTs: number;
}

class StreamCapture {
  open: OpenChunk | undefined;
  /** Lines not yet in a flush, and the lines of the flush under way: readers see both from memory. */
  pending: StoredLine[] = [];
  flushing: StoredLine[] = [];
  pendingBytes = 0;
  /** The newest line's time taken so far. */
  newestTs = 0;
  /** Where a capture that starts again resumes: lines before this time, and the first `skip` at it, are stored. */
  resume: { ts: number; skip: number } | undefined;
  /** Lines dropped for the lobby's output rate since the last flush, and their bytes. */
  dropped = { lines: 0, bytes: 0 };
  constructor(
    readonly name: repo.StreamName,
    /** The counters as committed. */
    public row: repo.StreamRow,
  ) {
    if (row.line_count > 0) this.resume = { ts: row.last_ts, skip: row.last_ts_lines };
  }
}

class LobbyCapture {
  readonly abort = new AbortController();
  /** The engine's log ended: the lobby exited, and once flushed its output is complete. */
  ended = false;
  started: Promise<void> = Promise.resolve();
  finished: Promise<void> = Promise.resolve();
  streams: Record<repo.StreamName, StreamCapture> | undefined;
  /** The lobby's share of the capture path: bytes of both streams. */
  readonly bucket: TokenBucket;
  constructor(
    readonly lobby: CapturedLobby,
    rate: { rateBytes: number; burstBytes: number },
  ) {
    this.bucket = new TokenBucket(rate.rateBytes, rate.burstBytes);
  }
}

/** What a reader sees of a stream this instance is capturing: the committed counters and the lines in memory. */
export interface LiveStreamView {
  row: repo.StreamRow;
  /** Lines at positions row.line_count, row.line_count + 1, … not stored yet. */
  memory: readonly StoredLine[];
}

/**
 * Captures what running lobbies print (docs/runtime.md "Lobby output"): one follower of the driver's output
 * per lobby, lines kept in memory until the next flush, which compresses each stream's new lines into its
 * open chunk's blob and then records the chunks and counters in one transaction. A restarted capture
 * resumes from the stored counters (the engine keeps the log), skipping what was stored. Runs on the
 * instance that holds the reconciler's lease.
 */
export class OutputCapture {
  private readonly captures = new Map<string, LobbyCapture>();
  private readonly timer: NodeJS.Timeout;
  private flushChain: Promise<void> = Promise.resolve();
  private flushQueued: Promise<void> | undefined;
  private readonly wakeKeys = new Set<string>();
  /** Chunk writes to the blob store at once, across every lobby. */
  private readonly putSlots = new Slots(PUT_CONCURRENCY);
  private wakeScheduled = false;
  private closed = false;

  constructor(
    private readonly options: OutputCaptureOptions,
    private readonly driver: RuntimeDriver,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /**
   * Starts capturing the lobby unless it already is; resolves once its log is being read, so the caller may
   * then remove an exited lobby (the driver's stop waits for this reader to reach the end).
   */
  follow(lobby: CapturedLobby): Promise<void> {
    if (this.closed) return Promise.resolve();
    const key = captureKey(lobby.namespaceId, lobby.lobbyId);
    const existing = this.captures.get(key);
    if (existing !== undefined && existing.lobby.handle === lobby.handle) return existing.started;
    const capture = new LobbyCapture(lobby, this.options);
    this.captures.set(key, capture);
    let started = () => {};
    capture.started = new Promise((resolve) => {
      started = resolve;
    });
    capture.finished = this.run(capture, started).finally(() => {
      started();
      if (this.captures.get(key) === capture) this.captures.delete(key);
    });
    return capture.started;
  }

  /** The stream as this instance holds it now, when it captures the lobby; undefined otherwise. */
  view(namespaceId: string, lobbyId: string, stream: repo.StreamName): LiveStreamView | undefined {
    const s = this.captures.get(captureKey(namespaceId, lobbyId))?.streams?.[stream];
    if (s === undefined) return undefined;
    return { row: s.row, memory: [...s.flushing, ...s.pending] };
  }

  /** Lobbies being captured now (the benchmark and tests read it). */
  get capturing(): number {
    return this.captures.size;
  }

  /** Stops every capture after storing what was read (the lease moved elsewhere, or shutdown). */
  async stopAll(): Promise<void> {
    const all = [...this.captures.values()];
    for (const capture of all) capture.abort.abort();
    await Promise.all(all.map((c) => c.finished));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.stopAll();
    await this.flush();
  }

  /** A flush soon: calls while one waits share it; flushes run one at a time. */
  flush(): Promise<void> {
    if (this.flushQueued !== undefined) return this.flushQueued;
    const next = this.flushChain.then(() => {
      this.flushQueued = undefined;
      return this.flushOnce();
    });
    this.flushQueued = next;
    this.flushChain = next.catch((err: unknown) =>
      this.options.log('error', { err }, 'storing lobby output failed; the next flush tries again'),
    );
    return this.flushChain;
  }

  private async run(capture: LobbyCapture, started: () => void): Promise<void> {
    const { lobby } = capture;
    try {
      const rows = await repo.streamsOf(this.options.db, lobby.namespaceId, lobby.lobbyId);
      if (rows.length === STREAMS.length && rows.every((r) => r.complete === 1)) return;
      await repo.closeOpenChunks(this.options.db, lobby.namespaceId, lobby.lobbyId);
      const now = this.options.clock.now();
      const rowOf = (name: repo.StreamName) =>
        rows.find((r) => r.stream === name) ?? emptyRow(lobby, name, now);
      capture.streams = {
        std_out: new StreamCapture('std_out', rowOf('std_out')),
        std_err: new StreamCapture('std_err', rowOf('std_err')),
      };
      // From the older of the two streams' last stored lines: a stream with none reads from the start.
      const resumes = STREAMS.map((name) => capture.streams?.[name].resume?.ts);
      const sinceMs = resumes.some((ts) => ts === undefined) ? undefined : Math.min(...(resumes as number[]));
      const batches = this.driver
        .output(lobby.region, lobby.handle, {
          follow: true,
          ...(sinceMs === undefined ? {} : { sinceMs }),
          signal: capture.abort.signal,
        })
        [Symbol.asyncIterator]();
      // The first next() registers the reader with the driver; only then may the caller remove the lobby.
      let next = batches.next();
      started();
      let slice = monotonicMs();
      for (;;) {
        const step = await next;
        if (step.done === true) break;
        let full = false;
        for (const line of step.value) full = this.take(capture, line) || full;
        if (full) await this.flush();
        // Batches already read come as resolved promises, which never let the event loop run: once a slice of
        // this work is over, the next batch waits for the loop's next turn.
        if (monotonicMs() - slice >= SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          slice = monotonicMs();
        }
        next = batches.next();
      }
      capture.ended = !capture.abort.signal.aborted;
    } catch (err) {
      if (!capture.abort.signal.aborted) {
        this.options.log(
          'warn',
          { err, lobby_id: lobby.lobbyId },
          "reading a lobby's output failed; the next reconciler pass resumes it",
        );
      }
    } finally {
      started();
    }
    // What was read is stored (and, once the lobby exited, marked complete) before the capture ends: a burst
    // may take a few flushes, and a store that fails is given a few seconds to come back.
    for (let attempt = 0; attempt < 30 && this.unstored(capture); attempt++) {
      const before = capture.streams?.std_out.row.line_count ?? 0;
      await this.flush();
      if (this.unstored(capture) && (capture.streams?.std_out.row.line_count ?? 0) === before) {
        await new Promise((resolve) => setTimeout(resolve, FLUSH_MS));
      }
    }
  }

  /** Lines of the capture not stored yet, or an end not yet recorded. */
  private unstored(capture: LobbyCapture): boolean {
    const streams = capture.streams;
    if (streams === undefined) return false;
    return STREAMS.some((name) => {
      const s = streams[name];
      return s.pending.length > 0 || s.dropped.lines > 0 || (capture.ended && s.row.complete === 0);
    });
  }

  /** Keeps one line; true when enough is waiting that it should be stored now. */
  private take(capture: LobbyCapture, line: OutputLine): boolean {
    const s = capture.streams?.[STREAM_OF[line.stream]];
    if (s === undefined) return false;
    if (s.resume !== undefined) {
      if (line.ts < s.resume.ts) return false;
      if (line.ts === s.resume.ts && s.resume.skip > 0) {
        s.resume.skip--;
        return false;
      }
      s.resume = undefined;
    }
    // A stream's times never go back: an older line is the engine sending again what it sent (a follower
    // that fell behind its log's rotation is sent lines twice), not a new one.
    if (line.ts < s.newestTs) return false;
    s.newestTs = line.ts;
    // Past the lobby's rate the line is dropped, counted for the mark the next flush stores in its place.
    if (capture.bucket.take(line.bytes.length) > 0) {
      s.dropped.lines++;
      s.dropped.bytes += line.bytes.length;
      return false;
    }
    s.pending.push({ ts: line.ts, bytes: line.bytes });
    s.pendingBytes += line.bytes.length;
    this.wakeSoon(outputKey(capture.lobby.namespaceId, capture.lobby.lobbyId, s.name));
    return s.pendingBytes >= PENDING_FLUSH_BYTES;
  }

  /** Followers on this instance see new lines at once (from memory), once per turn of the event loop. */
  private wakeSoon(key: string): void {
    this.wakeKeys.add(key);
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      const keys = [...this.wakeKeys];
      this.wakeKeys.clear();
      for (const k of keys) this.options.notifier.wakeLocal(k);
    });
  }

  private async flushOnce(): Promise<void> {
    const { db, blobs, clock, notifier } = this.options;
    const now = clock.now();
    interface Work {
      capture: LobbyCapture;
      s: StreamCapture;
      batch: StoredLine[];
      chunk: OpenChunk | undefined;
      member: Buffer | undefined;
      complete: boolean;
      ok: boolean;
    }
    const work: Work[] = [];
    let more = false;
    for (const capture of this.captures.values()) {
      if (capture.streams === undefined) continue;
      const done = capture.ended;
      for (const name of STREAMS) {
        const s = capture.streams[name];
        if (s.dropped.lines > 0) {
          // At the newest time read, so the stream's times still never go back.
          s.pending.push(droppedForRate(s.dropped, s.newestTs, this.options.rateBytes));
          s.dropped = { lines: 0, bytes: 0 };
        }
        const completing = done && s.row.complete === 0 && s.pending.length === 0;
        if (s.pending.length === 0 && !completing) continue;
        // A chunk stays near CHUNK_RAW_MAX: what does not fit waits for the next chunk, at the next flush.
        const room = CHUNK_RAW_MAX - (s.open?.rawBytes ?? 0);
        let take = 0;
        let bytes = 0;
        while (
          take < s.pending.length &&
          (take === 0 || bytes + (s.pending[take] as StoredLine).bytes.length <= room)
        ) {
          bytes += (s.pending[take] as StoredLine).bytes.length;
          take++;
        }
        const batch = take === s.pending.length ? s.pending : s.pending.slice(0, take);
        s.pending = take === s.pending.length ? [] : s.pending.slice(take);
        s.pendingBytes -= bytes;
        if (s.pending.length > 0) more = true;
        s.flushing = batch;
        let chunk: OpenChunk | undefined;
        let member: Buffer | undefined;
        if (batch.length > 0) {
          const first = batch[0] as StoredLine;
          chunk = s.open ?? {
            firstLine: s.row.line_count,
            key: chunkKey(capture.lobby.namespaceId, capture.lobby.lobbyId, name, s.row.line_count),
            members: [],
            lineCount: 0,
            rawBytes: 0,
            firstTs: first.ts,
            lastTs: first.ts,
            startedTs: now,
          };
          member = compressLines(batch);
        }
        work.push({ capture, s, batch, chunk, member, complete: completing, ok: true });
      }
    }
    if (work.length === 0) return;

    // Blobs first, rows after: a row never names lines its blob does not hold.
    await Promise.all(
      work.map((w) =>
        this.putSlots.run(async () => {
          if (w.chunk === undefined || w.member === undefined) return;
          try {
            await blobs.putObject(w.chunk.key, Buffer.concat([...w.chunk.members, w.member]));
          } catch (err) {
            w.ok = false;
            this.options.log(
              'warn',
              { err, lobby_id: w.capture.lobby.lobbyId },
              'storing lobby output failed',
            );
          }
        }),
      ),
    );
    const stored = work.filter((w) => w.ok);
    const chunkRows: repo.ChunkRow[] = [];
    const streamRows: repo.StreamRow[] = [];
    const next = new Map<Work, { row: repo.StreamRow; chunk: OpenChunk | undefined; closed: boolean }>();
    for (const w of stored) {
      let row = { ...w.s.row, update_ts: now };
      let chunk = w.chunk;
      let closed = false;
      if (chunk !== undefined && w.member !== undefined) {
        let raw = 0;
        let lastTs = row.last_ts;
        let atLast = row.last_ts_lines;
        for (const line of w.batch) {
          raw += line.bytes.length;
          if (line.ts === lastTs) atLast++;
          else {
            lastTs = line.ts;
            atLast = 1;
          }
        }
        chunk = {
          ...chunk,
          members: [...chunk.members, w.member],
          lineCount: chunk.lineCount + w.batch.length,
          rawBytes: chunk.rawBytes + raw,
          lastTs,
        };
        closed = w.complete || chunk.rawBytes >= CHUNK_RAW_MAX || now - chunk.startedTs >= CHUNK_AGE_MS;
        row = {
          ...row,
          line_count: row.line_count + w.batch.length,
          kept_bytes: row.kept_bytes + raw,
          last_ts: lastTs,
          last_ts_lines: atLast,
        };
        chunkRows.push({
          lobby_id: w.capture.lobby.lobbyId,
          namespace_id: w.capture.lobby.namespaceId,
          stream: w.s.name,
          first_line: chunk.firstLine,
          line_count: chunk.lineCount,
          first_ts: chunk.firstTs,
          last_ts: chunk.lastTs,
          raw_bytes: chunk.rawBytes,
          blob_key: chunk.key,
          closed: closed ? 1 : 0,
        });
      } else if (w.complete && w.s.open !== undefined) {
        // The lobby ended after its last lines were stored: its open chunk is done too.
        const open = w.s.open;
        chunkRows.push({
          lobby_id: w.capture.lobby.lobbyId,
          namespace_id: w.capture.lobby.namespaceId,
          stream: w.s.name,
          first_line: open.firstLine,
          line_count: open.lineCount,
          first_ts: open.firstTs,
          last_ts: open.lastTs,
          raw_bytes: open.rawBytes,
          blob_key: open.key,
          closed: 1,
        });
        closed = true;
      }
      if (w.complete) row = { ...row, complete: 1 };
      streamRows.push(row);
      next.set(w, { row, chunk, closed });
    }
    try {
      await repo.saveFlush(db, chunkRows, streamRows);
    } catch (err) {
      for (const w of work) this.giveBack(w.s, w.batch);
      throw err;
    }
    for (const w of work) {
      const done = next.get(w);
      if (done === undefined) {
        this.giveBack(w.s, w.batch);
        continue;
      }
      w.s.row = done.row;
      w.s.open = done.closed ? undefined : done.chunk;
      w.s.flushing = [];
      notifier.notify(outputKey(w.capture.lobby.namespaceId, w.capture.lobby.lobbyId, w.s.name));
    }
    for (const w of stored) {
      if (w.s.row.kept_bytes > this.options.maxBytes) await this.enforceCap(w.capture, w.s);
    }
    // Lines left for a later chunk (a burst), or a lobby whose last lines went in this flush: at once.
    if (more || work.some((w) => w.capture.ended && w.s.row.complete === 0)) void this.flush();
  }

  /** A flush that failed: its lines go back in front of what came since, for the next flush. */
  private giveBack(s: StreamCapture, batch: StoredLine[]): void {
    s.pending = [...batch, ...s.pending];
    s.pendingBytes += batch.reduce((sum, l) => sum + l.bytes.length, 0);
    s.flushing = [];
  }

  /** Drops the stream's oldest closed chunks until what it keeps is within GCM_LOBBY_LOG_MAX_BYTES. */
  private async enforceCap(capture: LobbyCapture, s: StreamCapture): Promise<void> {
    const { db, blobs } = this.options;
    const excess = s.row.kept_bytes - this.options.maxBytes;
    const candidates = await repo.oldestClosedChunks(
      db,
      capture.lobby.namespaceId,
      capture.lobby.lobbyId,
      s.name,
      1_000,
    );
    const dropped: typeof candidates = [];
    let bytes = 0;
    let firstLine = s.row.first_line;
    for (const chunk of candidates) {
      if (bytes >= excess) break;
      dropped.push(chunk);
      bytes += chunk.raw_bytes;
      firstLine = chunk.first_line + chunk.line_count;
    }
    if (dropped.length === 0) return;
    const counters = {
      first_line: firstLine,
      kept_bytes: s.row.kept_bytes - bytes,
      dropped_bytes: s.row.dropped_bytes + bytes,
    };
    await repo.dropChunks(
      db,
      capture.lobby.namespaceId,
      capture.lobby.lobbyId,
      s.name,
      dropped.map((c) => c.first_line),
      counters,
    );
    s.row = { ...s.row, ...counters };
    // After the rows: a crash in between leaves blobs no row names, never a row without its blob.
    await Promise.all(
      dropped.map((c) =>
        blobs.delete(c.blob_key).catch((err: unknown) => {
          this.options.log('warn', { err, key: c.blob_key }, 'deleting a dropped output chunk failed');
        }),
      ),
    );
  }
}

/** The line stored where lines were dropped for the lobby's output rate. */
function droppedForRate(dropped: StreamCapture['dropped'], ts: number, rateBytes: number): StoredLine {
  const kib = (dropped.bytes / 1024).toFixed(1);
  return {
    ts,
    bytes: Buffer.from(
      `[gcm: ${dropped.lines} lines (${kib} KiB) were dropped: a lobby's output is stored at ${rateBytes} bytes a second at most (GCM_LOBBY_OUTPUT_RATE_BYTES)]`,
    ),
  };
}

function emptyRow(lobby: CapturedLobby, stream: repo.StreamName, now: number): repo.StreamRow {
  return {
    lobby_id: lobby.lobbyId,
    stream,
    namespace_id: lobby.namespaceId,
    line_count: 0,
    first_line: 0,
    kept_bytes: 0,
    dropped_bytes: 0,
    last_ts: 0,
    last_ts_lines: 0,
    complete: 0,
    update_ts: now,
  };
}
