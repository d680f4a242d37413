/**
 * What is wrong with a piece of text, or undefined. Multi-line values (environment values, arguments) may
 * hold TAB, LF and CR; every other C0 or C1 control character, and DEL, is refused everywhere. Fields that
 * must be a single line refuse those three as well, through their schema (see `Text`).
 */
export function textProblem(value: string, allowLineBreaks: boolean): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      if (allowLineBreaks && (c === 0x09 || c === 0x0a || c === 0x0d)) continue;
      return `must not contain control characters (U+${c.toString(16).toUpperCase().padStart(4, '0')})`;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
      else return 'must not contain unpaired UTF-16 surrogates';
    }
  }
  return undefined;
}
