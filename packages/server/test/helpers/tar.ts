/** A minimal ustar writer for test archives (build contexts, hand-made image archives): names under 100 bytes. */
export type TarEntry =
  | { type: 'file'; name: string; content: Buffer | string; mode?: number }
  | { type: 'dir'; name: string; mode?: number }
  | { type: 'symlink'; name: string; target: string };

const BLOCK = 512;

function header(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const name = entry.type === 'dir' && !entry.name.endsWith('/') ? `${entry.name}/` : entry.name;
  if (Buffer.byteLength(name) > 100) throw new Error(`tar name over 100 bytes: ${name}`);
  const octal = (value: number, width: number) => `${value.toString(8).padStart(width - 1, '0')}\0`;
  const mode = entry.type === 'symlink' ? 0o777 : (entry.mode ?? (entry.type === 'dir' ? 0o755 : 0o644));
  block.write(name, 0, 'utf8');
  block.write(octal(mode, 8), 100, 'latin1');
  block.write(octal(0, 8), 108, 'latin1');
  block.write(octal(0, 8), 116, 'latin1');
  block.write(octal(size, 12), 124, 'latin1');
  block.write(octal(Math.floor(Date.now() / 1000), 12), 136, 'latin1');
  block.write('        ', 148, 'latin1');
  block.write(entry.type === 'file' ? '0' : entry.type === 'dir' ? '5' : '2', 156, 'latin1');
  if (entry.type === 'symlink') block.write(entry.target, 157, 'utf8');
  block.write('ustar\u000000', 257, 'latin1');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

export function tar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const content =
      entry.type === 'file'
        ? Buffer.isBuffer(entry.content)
          ? entry.content
          : Buffer.from(entry.content)
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
