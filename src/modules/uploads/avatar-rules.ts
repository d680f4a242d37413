import { errors } from '../../errors.js';

/** Avatars must be under 2 MB: enough for a crisp square icon, small enough to serve from this service. */
export const AVATAR_MAX_BYTES = 1_999_999;

export type AvatarMime = 'image/png' | 'image/jpeg';

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
/** Bytes needed from the start of a file to tell PNG from JPEG. */
export const IMAGE_SIGNATURE_BYTES = PNG_SIGNATURE.length;

/** What the file really is, by its first bytes; the client's word for it is not enough. */
export function detectImageMime(head: Uint8Array): AvatarMime | undefined {
  const startsWith = (signature: number[]) => signature.every((byte, i) => head[i] === byte);
  if (startsWith(PNG_SIGNATURE)) return 'image/png';
  if (startsWith(JPEG_SIGNATURE)) return 'image/jpeg';
  return undefined;
}
