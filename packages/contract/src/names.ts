import type { ValidationErrorItem } from './errors.js';

/** Upper bounds of the "not shown" length limits (docs/interface-notes.md). */
export const GAME_DISPLAY_NAME_MAX_BYTES = 24;
export const NAME_ID_MAX_LENGTH = 16;

// White space other than a plain space, control and format characters (zero-width joiners, bidi overrides)
// make names that look alike but differ, so they are refused.
const FORBIDDEN_IN_DISPLAY_NAME = /[^\S ]|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** UTF-8 length without Node's Buffer, so the rules also run in a browser or a CLI bundle. */
export function utf8ByteLength(value: string): number {
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Display-name rules: 1..maxBytes of UTF-8, no white space but single inner plain spaces. */
export function checkDisplayName(
  value: string,
  maxBytes: number,
  field = 'display-name',
): ValidationErrorItem[] {
  const out: ValidationErrorItem[] = [];
  const bytes = utf8ByteLength(value);
  if (bytes === 0) return [{ path: [field, 'too-short'] }];
  if (bytes > maxBytes) out.push({ path: [field, 'too-long'] });
  if (
    FORBIDDEN_IN_DISPLAY_NAME.test(value) ||
    value.startsWith(' ') ||
    value.endsWith(' ') ||
    value.includes('  ')
  ) {
    out.push({ path: [field, 'invalid'] });
  }
  return out;
}

export const NAME_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** name_id rules: 1..16 of a-z, 0-9 and `-`, not starting or ending with `-`, no `--`. */
export function checkNameId(value: string, field = 'name-id'): ValidationErrorItem[] {
  if (value.length === 0) return [{ path: [field, 'too-short'] }];
  const out: ValidationErrorItem[] = [];
  if (value.length > NAME_ID_MAX_LENGTH) out.push({ path: [field, 'too-long'] });
  if (!NAME_ID.test(value)) out.push({ path: [field, 'invalid'] });
  return out;
}
