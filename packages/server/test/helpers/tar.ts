/**
 * A minimal ustar writer for test archives (build contexts, hand-made image archives): names under 100 bytes.
 * `pax` writes a PAX extended header (`x`, or `g` when global) for what follows, `longname` a GNU `L` header,
 * `link` a hard link, `raw` bytes as they are.
 */
export type TarEntry =
  | { type: 'file'; name: string; content: Buffer | string; mode?: number; typeflag?: string }
  | { type: 'dir'; name: string; mode?: number }
  | { type: 'symlink'; name: string; target: string }
  | { type: 'link'; name: string; target: string }
  | { type: 'pax'; records: Record<string, string>; global?: boolean }
  | { type: 'longname'; name: string }
  | { type: 'raw'; bytes: Buffer };

type HeaderEntry = Exclude<TarEntry, { type: 'raw' }>;

const TYPE_FLAGS: Record<HeaderEntry['type'], string> = {
  file: '0',
  dir: '5',
  symlink: '2',
  link: '1',
  pax: 'x',
  longname: 'L',
};

const BLOCK = 512;

function header(entry: HeaderEntry, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const name =
    entry.type === 'pax'
      ? 'PaxHeader'
      : entry.type === 'longname'
        ? '././@LongLink'
        : entry.type === 'dir' && !entry.name.endsWith('/')
          ? `${entry.name}/`
          : entry.name;
  if (Buffer.byteLength(name) > 100) throw new Error(`tar name over 100 bytes: ${name}`);
  const octal = (value: number, width: number) => `${value.toString(8).padStart(width - 1, '0')}\0`;
  const mode =
    entry.type === 'symlink'
      ? 0o777
      : entry.type === 'file' || entry.type === 'dir'
        ? (entry.mode ?? (entry.type === 'dir' ? 0o755 : 0o644))
        : 0o644;
  block.write(name, 0, 'utf8');
  block.write(octal(mode, 8), 100, 'latin1');
  block.write(octal(0, 8), 108, 'latin1');
  block.write(octal(0, 8), 116, 'latin1');
  block.write(octal(size, 12), 124, 'latin1');
  block.write(octal(Math.floor(Date.now() / 1000), 12), 136, 'latin1');
  block.write('        ', 148, 'latin1');
  const flag =
    entry.type === 'pax' && entry.global === true
      ? 'g'
      : entry.type === 'file' && entry.typeflag !== undefined
        ? entry.typeflag
        : TYPE_FLAGS[entry.type];
  block.write(flag, 156, 'latin1');
  if (entry.type === 'symlink' || entry.type === 'link') block.write(entry.target, 157, 'utf8');
  block.write('ustar\u000000', 257, 'latin1');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

export function tar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    if (entry.type === 'raw') {
      parts.push(entry.bytes);
      continue;
    }
    const content =
      entry.type === 'file'
        ? Buffer.isBuffer(entry.content)
          ? entry.content
          : Buffer.from(entry.content)
        : entry.type === 'pax'
          ? paxBody(entry.records)
          : entry.type === 'longname'
            ? Buffer.from(`${entry.name}\0`)
            : Buffer.alloc(0);
    parts.push(
      header(entry, content.length),
      content,
      Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK),
    );
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** PAX records: `<length> <key>=<value>\n`, the length counting itself. */
function paxBody(records: Record<string, string>): Buffer {
  return Buffer.concat(
    Object.entries(records).map(([key, value]) => {
      const rest = ` ${key}=${value}\n`;
      let length = Buffer.byteLength(rest) + 1;
      while (String(length).length + Buffer.byteLength(rest) !== length) length++;
      return Buffer.from(`${length}${rest}`);
    }),
  );
}
