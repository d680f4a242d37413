/**
 * What gcm prints comes partly from tenants' game servers (their output, their stop reasons, the file names of
 * their archives quoted in a refusal). A terminal obeys control sequences in what it is given: an output line
 * could set the window title, write the clipboard (OSC 52), hide text or move the cursor over earlier lines.
 * So every control character reaches the terminal escaped, as `\x1b`, unless the person asks for `--raw`.
 * Tab and newline stay: they are layout, not commands.
 */

let raw = false;

/** `--raw`: print what the service sent as it is (to a file or a pipe that wants the bytes). */
export function setRawOutput(value: boolean): void {
  raw = value;
}

export function rawOutput(): boolean {
  return raw;
}

/**
 * C0 controls but tab and newline, DEL, the C1 controls (0x80–0x9f: 0x9b is a one-character CSI to some
 * terminals), and the Unicode line and paragraph separators; bidirectional overrides (which make a line read
 * other than it is) too.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeOne(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Text with every control character shown escaped; newlines kept unless `keepNewlines` is false. */
export function terminalSafe(text: string, options: { keepNewlines?: boolean } = {}): string {
  if (raw) return text;
  const escaped = text.replace(CONTROL, escapeOne);
  return options.keepNewlines === false ? escaped.replace(/\n/g, '\\n') : escaped;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * One output line's bytes, made safe to print: decoded as UTF-8 (a byte that is not UTF-8 becomes U+FFFD, so
 * no lone 0x9b reaches an 8-bit terminal) and its controls escaped. `--raw` passes the bytes untouched.
 */
export function terminalSafeBytes(bytes: Buffer): Buffer {
  if (raw) return bytes;
  return Buffer.from(terminalSafe(decoder.decode(bytes), { keepNewlines: false }), 'utf8');
}
