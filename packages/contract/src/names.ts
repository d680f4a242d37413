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

/** `display-name` (a path segment) → `display_name` (the body field a person typed). */
export function wireName(field: string): string {
  return field.replace(/-/g, '_');
}

/** A user's value inside a message: quoted, and cut so that a long value cannot swamp the sentence. */
export function quote(value: string, max = 64): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}

/** Display-name rules: 1..maxBytes of UTF-8, no white space but single inner plain spaces. */
export function checkDisplayName(
  value: string,
  maxBytes: number,
  field = 'display-name',
): ValidationErrorItem[] {
  const out: ValidationErrorItem[] = [];
  const name = wireName(field);
  const bytes = utf8ByteLength(value);
  if (bytes === 0) {
    return [{ path: [field, 'too-short'], message: `${name} is empty; it needs 1 to ${maxBytes} bytes` }];
  }
  if (bytes > maxBytes) {
    out.push({
      path: [field, 'too-long'],
      message: `${name} is ${bytes} bytes of UTF-8; at most ${maxBytes}`,
    });
  }
  if (
    FORBIDDEN_IN_DISPLAY_NAME.test(value) ||
    value.startsWith(' ') ||
    value.endsWith(' ') ||
    value.includes('  ')
  ) {
    out.push({
      path: [field, 'invalid'],
      message:
        `${name} may hold no white space but single spaces between words (none leading or trailing), ` +
        'and no control or format characters',
    });
  }
  return out;
}

export const NAME_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The name_id rule as a sentence's predicate, for every message about one. */
export const NAME_ID_RULE =
  'may hold only a-z, 0-9 and "-", with no "-" at either end and no "--" (like "my-game")';

/** name_id rules: 1..16 of a-z, 0-9 and `-`, not starting or ending with `-`, no `--`. */
export function checkNameId(value: string, field = 'name-id'): ValidationErrorItem[] {
  const name = wireName(field);
  if (value.length === 0) {
    return [
      {
        path: [field, 'too-short'],
        message: `${name} is empty; it needs 1 to ${NAME_ID_MAX_LENGTH} characters`,
      },
    ];
  }
  const out: ValidationErrorItem[] = [];
  if (value.length > NAME_ID_MAX_LENGTH) {
    out.push({
      path: [field, 'too-long'],
      message: `${name} is ${value.length} characters; at most ${NAME_ID_MAX_LENGTH}`,
    });
  }
  if (!NAME_ID.test(value)) out.push({ path: [field, 'invalid'], message: `${name} ${NAME_ID_RULE}` });
  return out;
}
