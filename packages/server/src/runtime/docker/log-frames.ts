import type http from 'node:http';
import { LINE_CUT_MARK, LOBBY_OUTPUT_LIMITS } from '@gcm/contract';
import type { OutputLine } from '../driver.js';
import { type DockerEngine, DockerEngineError } from './engine.js';

/** A longer line is cut here (the rest of it up to its newline is dropped): what one output line may hold. */
export const MAX_OUTPUT_LINE_BYTES = LOBBY_OUTPUT_LIMITS.lineBytes;
const CUT_MARK = Buffer.from(LINE_CUT_MARK, 'utf8');
/** A cut line keeps this much of what was printed, so with its mark it is still MAX_OUTPUT_LINE_BYTES. */
const CUT_KEEP_BYTES = MAX_OUTPUT_LINE_BYTES - CUT_MARK.length;
/** A frame is a log message (a line, or a piece of one); the engine cuts them at 16 KiB, so this is generous. */
const MAX_FRAME_BYTES = 1024 * 1024;
const HEADER_BYTES = 8;

interface Partial {
  ts: number;
  parts: Buffer[];
  bytes: number;
  /** More was printed than MAX_OUTPUT_LINE_BYTES: the line is cut and marked. */
  cut: boolean;
  /** The engine's time text of the line's pieces: every piece of one line carries its first piece's. */
  stamp: string;
}

/**
 * Docker's multiplexed log stream (no TTY): frames of an 8-byte header (stream 1 stdout, 2 stderr; three zero
 * bytes; the payload's length, big-endian) and a payload. With `timestamps`, each payload is one log message
 * prefixed by its RFC3339Nano time and a space. A message without a trailing newline is a piece of a longer
 * line (the engine splits lines at 16 KiB): later pieces join it, keeping the first piece's time.
 */
export class LogDemuxer {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly open: Record<OutputLine['stream'], Partial | undefined> = {
    stdout: undefined,
    stderr: undefined,
  };

  /** The complete lines `chunk` finishes. */
  push(chunk: Buffer): OutputLine[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const lines: OutputLine[] = [];
    while (this.buffer.length >= HEADER_BYTES) {
      const kind = this.buffer[0];
      const size = this.buffer.readUInt32BE(4);
      if (size > MAX_FRAME_BYTES) throw new Error(`a log frame of ${size} bytes: not Docker's log stream`);
      if (this.buffer.length < HEADER_BYTES + size) break;
      const payload = this.buffer.subarray(HEADER_BYTES, HEADER_BYTES + size);
      this.buffer = this.buffer.subarray(HEADER_BYTES + size);
      // 0 is stdin (never sent for logs); anything else is not this protocol.
      if (kind === 1 || kind === 2) this.frame(kind === 1 ? 'stdout' : 'stderr', payload, lines);
      else if (kind !== 0) throw new Error(`a log frame of stream ${kind}: not Docker's log stream`);
    }
    return lines;
  }

  /** What is left when the stream ends: a last line without its newline. */
  end(): OutputLine[] {
    const lines: OutputLine[] = [];
    for (const stream of ['stdout', 'stderr'] as const) {
      const partial = this.open[stream];
      if (partial !== undefined && partial.bytes > 0) lines.push(toLine(stream, partial));
      this.open[stream] = undefined;
    }
    return lines;
  }

  private frame(stream: OutputLine['stream'], payload: Buffer, lines: OutputLine[]): void {
    const space = payload.indexOf(0x20);
    const stampText = space > 0 ? payload.subarray(0, space).toString('latin1') : '';
    const stamp = space > 0 ? Date.parse(stampText) : Number.NaN;
    // Without a parsable time the whole payload is text, timed when it arrived.
    let rest = Number.isNaN(stamp) ? payload : payload.subarray(space + 1);
    // The engine gives every piece of a long line its first piece's time. A piece with another time starts a
    // new line: the last piece of a long line does not always end with a newline (the `local` log driver
    // drops it), and the next line must not be taken for more of it.
    const open = this.open[stream];
    if (open !== undefined && open.stamp !== stampText) {
      lines.push(toLine(stream, open));
      this.open[stream] = undefined;
    }
    let partial = this.open[stream] ?? {
      ts: Number.isNaN(stamp) ? Date.now() : stamp,
      parts: [],
      bytes: 0,
      cut: false,
      stamp: stampText,
    };
    for (let newline = rest.indexOf(0x0a); newline >= 0; newline = rest.indexOf(0x0a)) {
      add(partial, rest.subarray(0, newline));
      lines.push(toLine(stream, partial));
      rest = rest.subarray(newline + 1);
      partial = { ts: partial.ts, parts: [], bytes: 0, cut: false, stamp: stampText };
    }
    if (rest.length > 0) {
      add(partial, rest);
      this.open[stream] = partial;
    } else {
      // A line that fills its pieces exactly (16 KiB, 32 KiB) ends with an empty piece, which the `local`
      // driver sends without its newline: that piece is the line's end, not nothing.
      if (partial.bytes > 0 || partial.cut) lines.push(toLine(stream, partial));
      this.open[stream] = undefined;
    }
  }
}

function add(partial: Partial, piece: Buffer): void {
  const room = MAX_OUTPUT_LINE_BYTES - partial.bytes;
  if (piece.length > room) partial.cut = true;
  if (room <= 0) return;
  // Copied: the piece is a view of the read buffer, which later chunks replace.
  const kept = Buffer.from(piece.subarray(0, room));
  partial.parts.push(kept);
  partial.bytes += kept.length;
}

function toLine(stream: OutputLine['stream'], partial: Partial): OutputLine {
  let bytes: Buffer =
    partial.parts.length === 1 ? (partial.parts[0] as Buffer) : Buffer.concat(partial.parts);
  if (partial.cut) {
    bytes = Buffer.concat([cutAtCharacter(bytes.subarray(0, CUT_KEEP_BYTES)), CUT_MARK]);
  } else if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) {
    // A CRLF line: the CR is the line end's, not the line's.
    bytes = bytes.subarray(0, bytes.length - 1);
  }
  return { stream, ts: partial.ts, bytes };
}

/** A cut may fall inside a UTF-8 character: drop its lead and continuation bytes rather than show U+FFFD. */
function cutAtCharacter(bytes: Buffer): Buffer {
  let end = bytes.length;
  let back = 0;
  while (end > 0 && back < 4 && ((bytes[end - 1] as number) & 0xc0) === 0x80) {
    end--;
    back++;
  }
  if (end > 0 && ((bytes[end - 1] as number) & 0xc0) === 0xc0) {
    const lead = bytes[end - 1] as number;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (back + 1 < need) return bytes.subarray(0, end - 1);
  }
  return bytes;
}

/**
 * The lines of a container's (`/containers/{id}/logs`) or a swarm service's (`/services/{id}/logs`) log, as
 * the engine streams them with timestamps, from `sinceMs` on; followed when `follow`. A batch is the lines
 * one read finished (none empty). A log that is not there
 * (404) has no line; an abort ends it quietly.
 */
export async function* readEngineLog(
  engine: DockerEngine,
  logPath: string,
  options: { follow: boolean; sinceMs?: number; signal?: AbortSignal },
): AsyncIterable<OutputLine[]> {
  const { follow, sinceMs, signal } = options;
  let response: http.IncomingMessage;
  try {
    response = await engine.open({
      method: 'GET',
      path: logPath,
      query: {
        stdout: 1,
        stderr: 1,
        timestamps: 1,
        follow: follow ? 1 : 0,
        since: sinceMs === undefined ? undefined : (sinceMs / 1000).toFixed(3),
      },
      follow,
      signal,
    });
  } catch (err) {
    if (err instanceof DockerEngineError && err.status === 404) return;
    if (signal?.aborted === true) return;
    throw err;
  }
  const demuxer = new LogDemuxer();
  try {
    for await (const chunk of response) {
      let lines = demuxer.push(chunk as Buffer);
      if (sinceMs !== undefined) lines = lines.filter((line) => line.ts >= sinceMs);
      if (lines.length > 0) yield lines;
    }
    const last = demuxer.end().filter((line) => sinceMs === undefined || line.ts >= sinceMs);
    if (last.length > 0) yield last;
  } catch (err) {
    if (signal?.aborted === true) return;
    throw err;
  } finally {
    response.destroy();
  }
}
