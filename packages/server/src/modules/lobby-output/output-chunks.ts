import { gunzipSync, gzipSync } from 'node:zlib';

/** One stored line: its time (epoch ms, the engine's) and the bytes printed, without the newline. */
export interface StoredLine {
  ts: number;
  bytes: Buffer;
}

/** Each line is stored as its time (float64), its length (uint32) and its bytes, all big-endian. */
const HEADER_BYTES = 12;

/**
 * Lines as a gzip member. A chunk's blob is the gzip members of its flushes one after another, which is
 * itself a gzip file (RFC 1952 allows many members): a flush compresses only its new lines, yet the whole
 * blob still reads with one gunzip, by us or by anyone who downloads it.
 */
export function compressLines(lines: readonly StoredLine[]): Buffer {
  let size = 0;
  for (const line of lines) size += HEADER_BYTES + line.bytes.length;
  const raw = Buffer.allocUnsafe(size);
  let at = 0;
  for (const line of lines) {
    raw.writeDoubleBE(line.ts, at);
    raw.writeUInt32BE(line.bytes.length, at + 8);
    line.bytes.copy(raw, at + HEADER_BYTES);
    at += HEADER_BYTES + line.bytes.length;
  }
  // Level 1: output is mostly repetitive text, which fast deflate already shrinks several times, and a
  // chatty lobby's every line passes through here.
  return gzipSync(raw, { level: 1 });
}

/** The lines of a chunk's blob, oldest first; a record cut short (a torn write) ends the list. */
export function decompressLines(blob: Buffer): StoredLine[] {
  const raw = gunzipSync(blob);
  const lines: StoredLine[] = [];
  let at = 0;
  while (at + HEADER_BYTES <= raw.length) {
    const length = raw.readUInt32BE(at + 8);
    if (at + HEADER_BYTES + length > raw.length) break;
    lines.push({
      ts: raw.readDoubleBE(at),
      bytes: raw.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length),
    });
    at += HEADER_BYTES + length;
  }
  return lines;
}

/**
 * Where a chunk's blob lives: under its namespace and lobby, so a lobby's output is one prefix of the store
 * and the same lobby id in two namespaces never names one blob.
 */
export function chunkKey(namespaceId: string, lobbyId: string, stream: string, firstLine: number): string {
  return `lobby-output/${namespaceId}/${lobbyId}/${stream}/${firstLine}.gz`;
}
