import assert from 'node:assert/strict';
import { test } from 'node:test';
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
      { stream: 'stdout', ts: Date.parse(T1), line: 'hello' },
      { stream: 'stderr', ts: Date.parse(T2), line: 'oops' },
      { stream: 'stdout', ts: Date.parse(T2), line: 'bye' },
    ]);
  }
});

test('pieces of a long line join under the first piece’s time, cut at 16 KiB on a character boundary', () => {
  const demuxer = new LogDemuxer();
  // 16,383 ASCII bytes, then a 3-byte character that would straddle the cut.
  const first = `${'a'.repeat(MAX_OUTPUT_LINE_BYTES - 1)}€`;
  const lines = [
    ...demuxer.push(frame(1, `${T1} ${first}`)),
    ...demuxer.push(frame(2, `${T2} an error line between\n`)),
    ...demuxer.push(frame(1, `${T2} more of the long line\n`)),
    ...demuxer.push(frame(1, `${T2} next\n`)),
  ];
  assert.equal(lines.length, 3);
  assert.deepEqual(lines[0], { stream: 'stderr', ts: Date.parse(T2), line: 'an error line between' });
  assert.equal(lines[1]?.stream, 'stdout');
  assert.equal(lines[1]?.ts, Date.parse(T1));
  assert.equal(lines[1]?.line, 'a'.repeat(MAX_OUTPUT_LINE_BYTES - 1));
  assert.deepEqual(lines[2], { stream: 'stdout', ts: Date.parse(T2), line: 'next' });
  // A last line without its newline is kept at the end of the stream.
  assert.deepEqual(demuxer.push(frame(1, `${T1} no newline`)), []);
  assert.deepEqual(demuxer.end(), [{ stream: 'stdout', ts: Date.parse(T1), line: 'no newline' }]);
});

test('a stream that is not Docker’s log framing fails instead of being read as lines', () => {
  assert.throws(() => new LogDemuxer().push(Buffer.from('plain text, as a TTY container would write it\n')));
});
