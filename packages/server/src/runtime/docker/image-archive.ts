import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { ImageLoadError } from '../driver.js';

const BLOCK = 512;
/** manifest.json and index.json of an image archive are small; a bigger one is not what we look for. */
const MAX_INDEX_BYTES = 1024 * 1024;
const INDEX_NAMES = new Set(['manifest.json', 'index.json', 'oci-layout']);

export function formatBytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${bytes} bytes` : `${(bytes / 1024 / 1024).toFixed(1)} MiB (${bytes} bytes)`;
}

/**
 * Passes an image archive on to the engine while checking it is the build: its byte count and sha256, and,
 * for a plain tar, that it is a tar at all and what its manifest.json says. The last chunk is held back until
 * the end is checked, so an archive that is not the build never reaches the engine whole (the engine then
 * sees a cut upload and loads nothing).
 */
export class ArchiveCheck extends Transform {
  private readonly hash: Hash = createHash('sha256');
  private held: Buffer | undefined;
  bytes = 0;
  /** Why the archive was refused, once it was. */
  failure: ImageLoadError | undefined;
  private readonly tar = new TarIndex();

  constructor(private readonly expected: { buildId: string; size: number; sha256: string }) {
    super();
  }

  /** The image id manifest.json names (`sha256:…`), when the archive is a plain `docker save` tar. */
  manifestImageId(): string | undefined {
    return this.tar.imageId();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    const { buildId, size } = this.expected;
    if (this.bytes > size) {
      callback(
        this.fail(
          `build ${buildId}'s archive is longer than the ${formatBytes(size)} its upload declared: it is not the archive that was uploaded`,
        ),
      );
      return;
    }
    this.hash.update(chunk);
    this.tar.push(chunk);
    if (this.held !== undefined) this.push(this.held);
    this.held = chunk;
    callback();
  }

  override _flush(callback: TransformCallback): void {
    const problem = this.problemAtEnd();
    if (problem !== undefined) {
      callback(this.fail(`build ${this.expected.buildId}${problem}`));
      return;
    }
    if (this.held !== undefined) this.push(this.held);
    callback();
  }

  private problemAtEnd(): string | undefined {
    const { size, sha256 } = this.expected;
    if (this.bytes !== size) {
      return `'s archive has ${formatBytes(this.bytes)} where its upload declared ${formatBytes(size)}: it is not the archive that was uploaded`;
    }
    const digest = this.hash.digest('hex');
    if (digest !== sha256.toLowerCase()) {
      return `'s archive has sha256 ${digest} where its upload declared ${sha256}: it is not the archive that was uploaded`;
    }
    const notImage = this.tar.notAnImage();
    return notImage === undefined ? undefined : ` ${notImage}`;
  }

  private fail(message: string): ImageLoadError {
    this.failure = new ImageLoadError(message);
    return this.failure;
  }
}

/**
 * Reads a tar's headers as it streams by, keeping the small index files of an image archive. A compressed
 * archive (gzip, bzip2, xz: `docker load` takes them) is passed on unread: the engine says whether it loads.
 */
class TarIndex {
  private state: 'first' | 'header' | 'body' | 'done' | 'compressed' | 'not-tar' = 'first';
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes of the current entry's body (and padding) still to pass. */
  private remaining = 0;
  private collecting: { name: string; size: number; parts: Buffer[] } | undefined;
  private readonly files = new Map<string, string>();
  private entries = 0;

  push(chunk: Buffer): void {
    if (this.state === 'compressed' || this.state === 'not-tar' || this.state === 'done') return;
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      if (this.state === 'body') {
        const take = Math.min(this.remaining, this.pending.length);
        if (take === 0) return;
        if (this.collecting !== undefined)
          this.collecting.parts.push(Buffer.from(this.pending.subarray(0, take)));
        this.pending = this.pending.subarray(take);
        this.remaining -= take;
        if (this.remaining > 0) return;
        if (this.collecting !== undefined) {
          const body = Buffer.concat(this.collecting.parts).subarray(0, this.collecting.size);
          this.files.set(this.collecting.name, body.toString('utf8'));
          this.collecting = undefined;
        }
        this.state = 'header';
        continue;
      }
      if (this.state === 'first' && this.pending.length >= 6) {
        if (isCompressed(this.pending)) {
          this.state = 'compressed';
          return;
        }
      }
      if (this.pending.length < BLOCK) return;
      const header = this.pending.subarray(0, BLOCK);
      this.pending = this.pending.subarray(BLOCK);
      if (header.every((byte) => byte === 0)) {
        // The end-of-archive blocks; what follows is padding.
        this.state = this.state === 'first' ? 'not-tar' : 'done';
        return;
      }
      if (!checksumHolds(header)) {
        this.state = 'not-tar';
        return;
      }
      this.entries++;
      const size = entrySize(header);
      const name = entryName(header).replace(/^\.\//, '');
      const type = String.fromCharCode(header[156] as number);
      this.remaining = Math.ceil(size / BLOCK) * BLOCK;
      if ((type === '0' || type === '\0') && INDEX_NAMES.has(name) && size <= MAX_INDEX_BYTES) {
        this.collecting = { name, size, parts: [] };
      }
      this.state = this.remaining > 0 ? 'body' : 'header';
    }
  }

  /** Why the archive cannot be an image archive, judged from what was read; undefined when it may be one. */
  notAnImage(): string | undefined {
    if (this.state === 'compressed') return undefined;
    if (this.state === 'not-tar' || this.entries === 0) {
      return 'is not an image archive: it is not a tar file. Upload the output of `docker save IMAGE -o server.tar` (or an OCI image layout tar)';
    }
    if (!this.files.has('manifest.json') && !this.files.has('index.json')) {
      return 'is a tar file but not an image archive: it has neither manifest.json (`docker save`) nor index.json (OCI image layout). Upload the output of `docker save IMAGE -o server.tar`';
    }
    return undefined;
  }

  imageId(): string | undefined {
    const manifest = this.files.get('manifest.json');
    if (manifest === undefined) return undefined;
    try {
      const entries = JSON.parse(manifest) as { Config?: unknown }[];
      if (!Array.isArray(entries) || entries.length !== 1) return undefined;
      const config = entries[0]?.Config;
      if (typeof config !== 'string') return undefined;
      // `<hex>.json` (docker save up to 24) or `blobs/sha256/<hex>` (25 and later).
      const match = /(?:^|\/)([0-9a-f]{64})(?:\.json)?$/.exec(config);
      return match === null ? undefined : `sha256:${match[1]}`;
    } catch {
      return undefined;
    }
  }
}

function isCompressed(head: Buffer): boolean {
  return (
    (head[0] === 0x1f && head[1] === 0x8b) ||
    head.subarray(0, 3).toString('latin1') === 'BZh' ||
    head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))
  );
}

function checksumHolds(header: Buffer): boolean {
  const stored = Number.parseInt(header.subarray(148, 156).toString('latin1').replace(/\0.*$/, '').trim(), 8);
  if (Number.isNaN(stored)) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] as number);
  return sum === stored;
}

function entrySize(header: Buffer): number {
  const field = header.subarray(124, 136);
  if (((field[0] as number) & 0x80) !== 0) {
    // GNU base-256 for sizes past 8 GiB: the low bytes hold the number.
    let size = 0;
    for (let i = 1; i < field.length; i++) size = size * 256 + (field[i] as number);
    return size;
  }
  const size = Number.parseInt(field.toString('latin1').replace(/\0.*$/, '').trim() || '0', 8);
  return Number.isNaN(size) ? 0 : size;
}

function entryName(header: Buffer): string {
  const text = (from: number, to: number) => header.subarray(from, to).toString('utf8').replace(/\0.*$/s, '');
  const name = text(0, 100);
  const prefix = header.subarray(257, 262).toString('latin1') === 'ustar' ? text(345, 500) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}
