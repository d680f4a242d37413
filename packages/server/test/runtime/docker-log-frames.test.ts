import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LINE_CUT_MARK } from '@gcm/contract';
import { LogDemuxer, MAX_OUTPUT_LINE_BYTES } from '../../src/runtime/docker/log-frames.js';

/** One frame as the engine writes it: stream byte, three zeros, the length, the payload. */
function frame(stream: 1 | 2, payload: string | Buffer): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}

const T1 = '2026-11-28T01:02:03.123456789Z';
const T2 = '2026-11-28T01:02:04.5Z';

test('frames cut anywhere by the transport come out as the same lines', () => {
  const bytes = Buffer.concat([
    frame(1, `${T1} hello\n`),
    frame(2, `${T2} oops\r\n`),
    frame(1, `${T2} bye\n`),
  ]);
  for (let cut = 1; cut < bytes.length; cut++) {
    const demuxer = new LogDemuxer();
    const lines = [
      ...demuxer.push(bytes.subarray(0, cut)),
      ...demuxer.push(bytes.subarray(cut)),
      ...demuxer.end(),
    ];
    assert.deepEqual(lines, [
      { stream: 'stdout', ts: Date.parse(T1), bytes: Buffer.from('hello') },
      { stream: 'stderr', ts: Date.parse(T2), bytes: Buffer.from('oops') },
      { stream: 'stdout', ts: Date.parse(T2), bytes: Buffer.from('bye') },
    ]);
  }
});

test('pieces of a long line join under the first piece’s time, cut at 16 KiB on a character boundary and marked', () => {
  const demuxer = new LogDemuxer();
  // ASCII up to one byte short of what a cut line keeps, then a 3-byte character that would straddle the cut.
  const kept = MAX_OUTPUT_LINE_BYTES - Buffer.byteLength(LINE_CUT_MARK);
  const first = `${'a'.repeat(kept - 1)}€${'b'.repeat(100)}`;
  const lines = [
    ...demuxer.push(frame(1, `${T1} ${first}`)),
    ...demuxer.push(frame(2, `${T2} an error line between\n`)),
    // The engine gives every piece of a line its first piece's time.
    ...demuxer.push(frame(1, `${T1} more of the long line\n`)),
    ...demuxer.push(frame(1, `${T2} next\n`)),
  ];
  assert.equal(lines.length, 3);
  assert.deepEqual(lines[0], {
    stream: 'stderr',
    ts: Date.parse(T2),
    bytes: Buffer.from('an error line between'),
  });
  assert.equal(lines[1]?.stream, 'stdout');
  assert.equal(lines[1]?.ts, Date.parse(T1));
  assert.equal(lines[1]?.bytes.toString(), `${'a'.repeat(kept - 1)}${LINE_CUT_MARK}`);
  assert.ok((lines[1]?.bytes.length ?? 0) <= MAX_OUTPUT_LINE_BYTES);
  assert.deepEqual(lines[2], { stream: 'stdout', ts: Date.parse(T2), bytes: Buffer.from('next') });
  // A last line without its newline is kept at the end of the stream.
  assert.deepEqual(demuxer.push(frame(1, `${T1} no newline`)), []);
  assert.deepEqual(demuxer.end(), [
    { stream: 'stdout', ts: Date.parse(T1), bytes: Buffer.from('no newline') },
  ]);
});

test('a last piece without its newline (the local log driver) ends its line when a line of another time comes', () => {
  const demuxer = new LogDemuxer();
  const lines = [
    ...demuxer.push(frame(1, `${T1} ${'c'.repeat(16 * 1024)}`)),
    ...demuxer.push(frame(1, `${T1} the rest`)),
    ...demuxer.push(frame(1, `${T2} next\n`)),
  ];
  assert.equal(lines.length, 2);
  assert.ok(lines[0]?.bytes.toString().endsWith(LINE_CUT_MARK));
  assert.equal(lines[0]?.ts, Date.parse(T1));
  assert.deepEqual(lines[1], { stream: 'stdout', ts: Date.parse(T2), bytes: Buffer.from('next') });
});

test('a line of exactly 16 KiB is whole; any bytes, not only UTF-8, come out as printed', () => {
  const demuxer = new LogDemuxer();
  const exact = 'b'.repeat(MAX_OUTPUT_LINE_BYTES);
  const binary = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x1b, 0x09, 0x7f]);
  const lines = [
    ...demuxer.push(frame(1, `${T1} ${exact}\n`)),
    ...demuxer.push(frame(2, Buffer.concat([Buffer.from(`${T2} `), binary, Buffer.from('\n')]))),
  ];
  assert.equal(lines[0]?.bytes.toString(), exact);
  assert.deepEqual(lines[1]?.bytes, binary);
});

test('a stream that is not Docker’s log framing fails instead of being read as lines', () => {
  assert.throws(() => new LogDemuxer().push(Buffer.from('plain text, as a TTY container would write it\n')));
});

test('a line that fills its 16 KiB pieces exactly ends at the engine’s empty last piece, whole or cut', () => {
  // What the engine's `local` log driver sends for a line of exactly 16,384 or 32,768 bytes: full pieces
  // without a newline, then an empty piece of the same time, also without one.
  const piece = 'd'.repeat(16 * 1024);
  for (const pieces of [1, 2]) {
    const demuxer = new LogDemuxer();
    const frames = [
      ...Array.from({ length: pieces }, () => frame(1, `${T1} ${piece}`)),
      frame(1, `${T1} `),
      frame(2, `${T2} an error line\n`),
    ];
    const lines = frames.flatMap((f) => demuxer.push(f));
    assert.equal(lines.length, 2, `${pieces} pieces`);
    assert.equal(lines[0]?.stream, 'stdout');
    assert.equal(lines[0]?.ts, Date.parse(T1));
    assert.equal(
      lines[0]?.bytes.toString(),
      pieces === 1
        ? piece
        : `${piece.slice(0, MAX_OUTPUT_LINE_BYTES - Buffer.byteLength(LINE_CUT_MARK))}${LINE_CUT_MARK}`,
    );
    assert.equal(lines[1]?.bytes.toString(), 'an error line');
    assert.deepEqual(demuxer.end(), []);
  }
  // An empty piece that ends no line is not a line.
  assert.deepEqual(new LogDemuxer().push(frame(1, `${T1} `)), []);
});
