import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * Well-formed images of an exact size, as far as the avatar check walks them: framing, lengths and CRCs are
 * right, the pixel data is random (it is never decoded).
 */
export function pngImage(size: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(16, 0);
  header.writeUInt32BE(16, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const fixed = 8 + 25 + 12 + 12;
  if (size < fixed) throw new RangeError(`a PNG takes at least ${fixed} bytes`);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', randomBytes(size - fixed)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function jpegImage(size: number): Buffer {
  const fixed = 2 + 13 + 10 + 2;
  if (size < fixed) throw new RangeError(`a JPEG takes at least ${fixed} bytes`);
  // Entropy-coded data with no 0xFF, so nothing in it reads as a marker.
  const scan = randomBytes(size - fixed).map((b) => (b === 0xff ? 0 : b));
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    // SOF0: length 11, 8-bit samples, 16×16, one component.
    Buffer.from([0xff, 0xc0, 0, 11, 8, 0, 16, 0, 16, 1, 1, 0x11, 0]),
    // SOS: length 8, one component, full spectral range.
    Buffer.from([0xff, 0xda, 0, 8, 1, 1, 0, 0, 63, 0]),
    scan,
    Buffer.from([0xff, 0xd9]),
  ]);
}
