import { crc32 } from 'node:zlib';
import { errors } from '../../errors.js';

/** In the contract, so that the dashboard checks a file against the same number before uploading it. */
export { AVATAR_MAX_BYTES } from '@gcm/contract/limits';

export type AvatarMime = 'image/png' | 'image/jpeg';

/** The file name an avatar is served under (content-disposition), whatever the client called it. */
export const AVATAR_FILE_NAME: Readonly<Record<AvatarMime, string>> = {
  'image/png': 'avatar.png',
  'image/jpeg': 'avatar.jpg',
};

// A Map, so an extension such as "constructor" or "__proto__" finds nothing rather than Object's members.
const MIME_BY_EXTENSION: ReadonlyMap<string, AvatarMime> = new Map([
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
]);

/**
 * The avatar's type, from its file name and (when given) its mime, which must agree: the type decides how
 * the image is served, so a `.png` declared as JPEG is refused rather than guessed at.
 */
export function avatarMimeOf(filePath: string, mime: string | null | undefined): AvatarMime {
  // The last segment of a POSIX or Windows path; its extension, case-insensitively.
  const name = filePath.split(/[/\\]/).pop() ?? '';
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  const byExtension = MIME_BY_EXTENSION.get(extension);
  if (byExtension === undefined) {
    throw errors.uploadInvalidFileType(
      `path "${filePath}" must name a .png, .jpg or .jpeg file (an avatar is a PNG or JPEG image)`,
    );
  }
  if (mime === null || mime === undefined) return byExtension;
  // Parameters (`; charset=...`) and case do not change a media type.
  const essence = (mime.split(';')[0] ?? '').trim().toLowerCase();
  if (essence !== 'image/png' && essence !== 'image/jpeg') {
    throw errors.uploadInvalidMime(`mime "${mime}" must be image/png or image/jpeg`);
  }
  if (essence !== byExtension) {
    throw errors.uploadInvalidMime(`mime "${mime}" does not match the extension of path "${filePath}"`);
  }
  return byExtension;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

/** What the file really is, by its first bytes; the client's word for it is not enough. */
export function detectImageMime(head: Uint8Array): AvatarMime | undefined {
  const startsWith = (signature: number[]) => signature.every((byte, i) => head[i] === byte);
  if (startsWith(PNG_SIGNATURE)) return 'image/png';
  if (startsWith(JPEG_SIGNATURE)) return 'image/jpeg';
  return undefined;
}

/**
 * Why `bytes` is not a well-formed image of type `mime`, or undefined when it is. The structure is walked
 * end to end, not decoded: a PNG's chunks (lengths and CRCs, IHDR first, IDAT, IEND as the last bytes), a
 * JPEG's marker segments from SOI through its scans to an EOI as the last bytes. So a valid header followed
 * by other content (an HTML page behind a PNG signature) is refused, at a cost linear in the size (< 2 MB);
 * pixel data is not decompressed, so a well-framed image with corrupt pixels still passes.
 */
export function imageStructureProblem(bytes: Buffer, mime: AvatarMime): string | undefined {
  return mime === 'image/png' ? pngProblem(bytes) : jpegProblem(bytes);
}

const PNG_CHUNK_TYPE = /^[A-Za-z]{4}$/;

function pngProblem(bytes: Buffer): string | undefined {
  let offset = PNG_SIGNATURE.length;
  let index = 0;
  let sawData = false;
  while (offset < bytes.length) {
    if (offset + 12 > bytes.length) return `chunk ${index} is cut off at byte ${offset}`;
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (!PNG_CHUNK_TYPE.test(type)) return `chunk ${index} at byte ${offset} has no valid type`;
    const end = offset + 12 + length;
    if (end > bytes.length) return `chunk ${index} (${type}) runs past the end of the file`;
    const crc = bytes.readUInt32BE(end - 4);
    if (crc32(bytes.subarray(offset + 4, end - 4)) !== crc) return `chunk ${index} (${type}) has a bad CRC`;
    if (index === 0 && (type !== 'IHDR' || length !== 13)) return 'the first chunk is not IHDR';
    if (type === 'IDAT') sawData = true;
    if (type === 'IEND') {
      if (!sawData) return 'there is no IDAT chunk';
      return end === bytes.length ? undefined : `${bytes.length - end} bytes follow the IEND chunk`;
    }
    offset = end;
    index += 1;
  }
  return 'there is no IEND chunk';
}

const JPEG_SOI = 0xd8;
const JPEG_EOI = 0xd9;
const JPEG_SOS = 0xda;

/** Start-of-frame markers (C0–CF but DHT C4, JPG C8 and DAC CC). */
function isJpegFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegProblem(bytes: Buffer): string | undefined {
  if (bytes[0] !== 0xff || bytes[1] !== JPEG_SOI) return 'there is no SOI marker';
  let offset = 2;
  let sawFrame = false;
  let sawScan = false;
  while (offset < bytes.length) {
    if (bytes[offset] !== 0xff) return `byte ${offset} is not a marker`;
    // Any number of 0xFF fill bytes may precede a marker.
    while (bytes[offset + 1] === 0xff) offset += 1;
    const marker = bytes[offset + 1];
    if (marker === undefined) return 'the file ends inside a marker';
    if (marker === JPEG_EOI) {
      if (!sawScan) return 'the EOI marker comes before any scan';
      const end = offset + 2;
      return end === bytes.length ? undefined : `${bytes.length - end} bytes follow the EOI marker`;
    }
    if (marker === 0x00 || marker === JPEG_SOI || (marker >= 0xd0 && marker <= 0xd7)) {
      return `marker FF${marker.toString(16).toUpperCase().padStart(2, '0')} at byte ${offset} is out of place`;
    }
    if (offset + 4 > bytes.length) return 'the file ends inside a segment header';
    const length = bytes.readUInt16BE(offset + 2);
    const end = offset + 2 + length;
    if (length < 2 || end > bytes.length)
      return `the segment at byte ${offset} runs past the end of the file`;
    if (isJpegFrame(marker)) sawFrame = true;
    offset = end;
    if (marker === JPEG_SOS) {
      if (!sawFrame) return 'a scan comes before any frame header';
      sawScan = true;
      offset = skipEntropyCodedData(bytes, offset);
    }
  }
  return 'there is no EOI marker';
}

/** Entropy-coded data ends at the first 0xFF not followed by a stuffed 0x00 or a restart marker. */
function skipEntropyCodedData(bytes: Buffer, start: number): number {
  let offset = start;
  for (;;) {
    offset = bytes.indexOf(0xff, offset);
    if (offset === -1) return bytes.length;
    const next = bytes[offset + 1];
    if (next === 0x00 || (next !== undefined && next >= 0xd0 && next <= 0xd7)) offset += 2;
    else return offset;
  }
}
