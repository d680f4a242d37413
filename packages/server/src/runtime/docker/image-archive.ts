import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { posix } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tarStream from 'tar-stream';
import { ImageLoadError } from '../driver.js';

const BLOCK = 512;
/** manifest.json, index.json, a config, an OCI manifest: small. The engine's tar reader allows 1 MiB too. */
const MAX_INDEX_BYTES = 1024 * 1024;
/** Small entries kept in memory (configs, OCI manifests) until manifest.json says which one is which. */
const MAX_KEPT_BYTES = 16 * 1024 * 1024;
/** GCM_BUILD_MAX_UNPACKED_BYTES's default. */
export const DEFAULT_MAX_UNPACKED_BYTES = 16 * 1024 ** 3;
/** An archive's layers may unpack to this many times its size at most (and never past the setting). */
export const UNPACKED_PER_ARCHIVE_BYTE = 4;
/**
 * Repository names only the service writes: `gcm-archive:<sha256>` on every engine, `<registry>/gcm-builds:<sha256>`
 * on the swarm manager. An archive naming one of them (in any registry) is refused, so that no upload can move them.
 */
export const SERVICE_REPOSITORIES: readonly string[] = ['gcm-archive', 'gcm-builds'];
const INDEX_NAMES = new Set(['manifest.json', 'index.json', 'oci-layout', 'repositories']);
export const UPLOAD_HINT = 'Upload the output of `docker save IMAGE -o server.tar`';

export function formatBytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${bytes} bytes` : `${(bytes / 1024 / 1024).toFixed(1)} MiB (${bytes} bytes)`;
}

/** The bound on what an archive of `size` bytes may unpack to, under the GCM_BUILD_MAX_UNPACKED_BYTES setting. */
export function unpackedLimit(size: number, setting = DEFAULT_MAX_UNPACKED_BYTES): number {
  return Math.min(size * UNPACKED_PER_ARCHIVE_BYTE, setting);
}

/** What the service read and checked in an archive: the only things it ever resolves the build by. */
export interface VerifiedImage {
  /** `sha256:` of the config's bytes as streamed: the id the engine gives the image it loads. */
  id: string;
  /** The names the engine will give it on load (none of them the service's). */
  repoTags: string[];
  /** The config's rootfs.diff_ids, each the sha256 of a layer as streamed (unpacked). */
  diffIds: string[];
}

/** A reason the archive is not taken, phrased to follow "build X's archive". */
export class ArchiveProblem extends Error {}

/**
 * Passes an image archive on to the engine while checking it is the build and one image the service can name:
 * its byte count and sha256, its tar structure as the engine's reader sees it, its one image's config (whose
 * sha256 is the image id) and each layer's unpacked sha256 against the config's diff_ids, within the unpacked
 * bound. The last chunk is held back until all of that is known, so an archive refused anywhere never reaches
 * the engine whole (the engine then sees a cut upload and loads nothing).
 */
export class ArchiveCheck extends Transform {
  private readonly hash: Hash = createHash('sha256');
  private held: Buffer | undefined;
  bytes = 0;
  /** Why the archive was refused, once it was. */
  failure: ImageLoadError | undefined;
  /** What was checked, once the whole archive was (set before its last chunk goes on). */
  verified: VerifiedImage | undefined;
  private readonly reader: ImageArchiveReader;

  constructor(
    private readonly expected: { buildId: string; size: number; sha256: string; maxUnpackedBytes: number },
  ) {
    super();
    this.reader = new ImageArchiveReader(expected.maxUnpackedBytes);
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
    this.reader.write(chunk).then(
      () => {
        if (this.held !== undefined) this.push(this.held);
        this.held = chunk;
        callback();
      },
      (err: unknown) => callback(this.refusal(err)),
    );
  }

  override _flush(callback: TransformCallback): void {
    const problem = this.problemAtEnd();
    if (problem !== undefined) {
      callback(this.fail(`build ${this.expected.buildId}${problem}`));
      return;
    }
    this.reader.end().then(
      (verified) => {
        this.verified = verified;
        if (this.held !== undefined) this.push(this.held);
        callback();
      },
      (err: unknown) => callback(this.refusal(err)),
    );
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
    return undefined;
  }

  private refusal(err: unknown): Error {
    if (err instanceof ArchiveProblem)
      return this.fail(`build ${this.expected.buildId}'s archive ${err.message}`);
    return err as Error;
  }

  private fail(message: string): ImageLoadError {
    this.failure = new ImageLoadError(message);
    return this.failure;
  }
}

/** Reads a whole archive (no engine): what loading it would give, or the ArchiveProblem why it is refused. */
export async function readImageArchive(
  chunks: Iterable<Buffer> | AsyncIterable<Buffer>,
  maxUnpackedBytes: number,
): Promise<VerifiedImage> {
  const reader = new ImageArchiveReader(maxUnpackedBytes);
  for await (const chunk of chunks) await reader.write(chunk);
  return reader.end();
}

type Compression = 'none' | 'gzip' | 'bzip2' | 'xz' | 'zstd';

interface FileEntry {
  type: 'file';
  size: number;
  sha256: string;
  compression: Compression;
  /** sha256 of the entry unpacked (gzip), as the engine computes a layer's diff id; the entry's own when plain. */
  unpackedSha256: string | undefined;
  content: Buffer | undefined;
}
type Entry = FileEntry | { type: 'directory' } | { type: 'symlink'; target: string };

/** tar-stream's parser state that the checks below look at; the version is pinned for it. */
interface ExtractInternals {
  _consumeHeader(): boolean;
  _header: { type: string | null; size: number } | null | undefined;
  _offset: number;
  _locked: boolean;
  _longHeader: boolean;
}

/**
 * The tar is read by tar-stream (PAX `x` records and GNU long names applied as the engine's Go reader applies
 * them), with what the two readers would see differently refused: a PAX global header (tar-stream applies it,
 * the engine ignores it), an entry after an end-of-archive block (tar-stream reads on, the engine stops), a
 * directory or link with a body (the engine reads none), a long header over 1 MiB, a repeated name.
 */
class ImageArchiveReader {
  private readonly extract = tarStream.extract();
  private readonly entries = new Map<string, Entry>();
  private problem: ArchiveProblem | undefined;
  private position = 0;
  private lastNonZero = -1;
  private endBlockAt: number | undefined;
  private headersEnd = 0;
  private unpacked = 0;
  private kept = 0;
  private entryCount = 0;
  private readonly finished: Promise<void>;

  constructor(private readonly maxUnpacked: number) {
    const internals = this.extract as unknown as ExtractInternals;
    const consume = internals._consumeHeader.bind(internals);
    internals._consumeHeader = () => {
      if (internals._locked) return consume();
      internals._header = undefined;
      const consumed = consume();
      const header = internals._header;
      // undefined: the block was not a tar header (tar-stream reports that itself).
      if (header === undefined) return consumed;
      const at = internals._offset;
      if (header === null) {
        this.endBlockAt ??= at;
        return consumed;
      }
      const problem = this.headerProblem(header, at, internals._longHeader);
      if (problem !== undefined) {
        this.refuse(problem);
        return false;
      }
      return consumed;
    };
    this.extract.on('entry', (header, stream, next) => {
      this.entry(header as tarStream.Headers & { pax?: Record<string, string> | null }, stream).then(
        () => next(),
        (err: unknown) => {
          stream.resume();
          this.refuse(err);
          next(this.problem);
        },
      );
    });
    this.finished = new Promise((resolve, reject) => {
      this.extract.on('finish', resolve);
      this.extract.on('error', reject);
      this.extract.on('close', () => reject(this.problem ?? new ArchiveProblem('was cut short')));
    });
    // Settled by end(); a refusal before then is reported by write().
    this.finished.catch(() => {});
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.position === 0) {
      const compression = compressionOf(chunk);
      if (compression !== 'none') {
        throw new ArchiveProblem(
          `is ${compression}-compressed: the service reads only an uncompressed archive. ${UPLOAD_HINT} without compressing it`,
        );
      }
    }
    for (let i = chunk.length - 1; i >= 0; i--) {
      if (chunk[i] !== 0) {
        this.lastNonZero = this.position + i;
        break;
      }
    }
    this.position += chunk.length;
    if (this.problem !== undefined) throw this.problem;
    if (!this.extract.write(chunk)) {
      await Promise.race([once(this.extract, 'drain'), this.finished]).catch(() => {});
    }
    if (this.problem !== undefined) throw this.problem;
    if (this.extract.destroyed) throw this.parseProblem(undefined);
  }

  async end(): Promise<VerifiedImage> {
    if (this.problem !== undefined) throw this.problem;
    this.extract.end();
    try {
      await this.finished;
    } catch (err) {
      throw this.parseProblem(err);
    }
    if (this.problem !== undefined) throw this.problem;
    if (this.lastNonZero >= this.headersEnd && this.entryCount > 0) {
      throw new ArchiveProblem(
        'has data after its last entry that is not the end of the tar: the engine would not read it as the service did',
      );
    }
    return this.image();
  }

  private parseProblem(err: unknown): ArchiveProblem {
    if (this.problem !== undefined) return this.problem;
    if (this.entryCount === 0) {
      return new ArchiveProblem(
        `is not an image archive: it is not a tar file. ${UPLOAD_HINT} (or an OCI image layout tar)`,
      );
    }
    const why = err instanceof Error ? err.message : 'it ended inside an entry';
    return new ArchiveProblem(`is not a well-formed tar file (${why}). ${UPLOAD_HINT}`);
  }

  private refuse(err: unknown): void {
    if (this.problem !== undefined) return;
    this.problem =
      err instanceof ArchiveProblem
        ? err
        : new ArchiveProblem(`could not be read: ${(err as Error).message}`);
    this.extract.destroy(this.problem);
  }

  private headerProblem(
    header: { type: string | null; size: number },
    at: number,
    long: boolean,
  ): ArchiveProblem | undefined {
    if (this.endBlockAt !== undefined) {
      return new ArchiveProblem(
        `has a tar header at byte ${at}, after its end-of-archive block at byte ${this.endBlockAt}: the engine stops reading at that block`,
      );
    }
    if (header.type === 'pax-global-header') {
      return new ArchiveProblem(
        'has a PAX global header: the engine ignores it where other tar readers apply it, so the archive does not read the same to both',
      );
    }
    if (long && header.size > MAX_INDEX_BYTES) {
      return new ArchiveProblem(
        `has a ${formatBytes(header.size)} extended tar header: at most 1 MiB is read`,
      );
    }
    return undefined;
  }

  private async entry(
    header: tarStream.Headers & { pax?: Record<string, string> | null },
    stream: NodeJS.ReadableStream & { offset?: number },
  ): Promise<void> {
    this.entryCount++;
    const size = header.size ?? 0;
    const name = normalName(header.name);
    const type = header.type;
    const shown = JSON.stringify(header.name);
    for (const [key, value] of Object.entries(header.pax ?? {})) {
      if (key.startsWith('GNU.sparse')) {
        throw new ArchiveProblem(`has a sparse file (${shown}): an image archive holds none`);
      }
      if ((key === 'path' || key === 'linkpath' || key === 'size') && value === '') {
        throw new ArchiveProblem(
          `has an empty PAX ${key} record (${shown}), which tar readers take differently`,
        );
      }
    }
    if (name.includes('\uFFFD')) throw new ArchiveProblem(`has a name that is not UTF-8 (${shown})`);
    if (type !== 'file' && type !== 'directory' && type !== 'symlink') {
      throw new ArchiveProblem(
        `has a ${type ?? 'tar entry of an unknown type'} (${shown}): an image archive holds only files, directories and symbolic links`,
      );
    }
    if (type === 'file' && header.name.endsWith('/')) {
      throw new ArchiveProblem(
        `has a file named like a directory (${shown}), which tar readers take differently`,
      );
    }
    if (type !== 'file' && size !== 0) {
      throw new ArchiveProblem(
        `has a ${type} with ${size} bytes of data (${shown}), which tar readers take differently`,
      );
    }
    const offset = typeof stream.offset === 'number' ? stream.offset : this.headersEnd;
    this.headersEnd = offset + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (name === '') {
      if (type !== 'directory') throw new ArchiveProblem(`has a ${type} at its root (${shown})`);
      stream.resume();
      return;
    }
    if (this.entries.has(name)) {
      throw new ArchiveProblem(
        `has ${name} twice: the engine keeps the last one written, so the service cannot tell which it loads`,
      );
    }
    for (let parent = posix.dirname(name); parent !== '.'; parent = posix.dirname(parent)) {
      if (this.entries.get(parent)?.type === 'symlink') {
        throw new ArchiveProblem(
          `has ${name} under the symbolic link ${parent}: an image archive writes through none`,
        );
      }
    }
    if (INDEX_NAMES.has(name) && (type !== 'file' || size > MAX_INDEX_BYTES)) {
      throw new ArchiveProblem(
        `has ${name} as a ${type === 'file' ? `file of ${formatBytes(size)}` : type}: it must be a file of at most 1 MiB`,
      );
    }
    if (type === 'directory') {
      this.entries.set(name, { type });
      stream.resume();
      return;
    }
    if (type === 'symlink') {
      const target = header.linkname ?? '';
      for (const other of this.entries.keys()) {
        if (other.startsWith(`${name}/`)) {
          throw new ArchiveProblem(`has a symbolic link ${name} over entries already under it`);
        }
      }
      this.entries.set(name, { type, target });
      stream.resume();
      return;
    }
    this.entries.set(name, await this.file(name, size, stream));
  }

  /** Hashes a file as it streams, and a gzip one unpacked too, counting what it unpacks to. */
  private async file(name: string, size: number, stream: NodeJS.ReadableStream): Promise<FileEntry> {
    const raw = createHash('sha256');
    const keep = size <= MAX_INDEX_BYTES && this.kept + size <= MAX_KEPT_BYTES;
    if (keep) this.kept += size;
    const parts: Buffer[] = [];
    let head = Buffer.alloc(0);
    let compression: Compression | undefined;
    let gunzip: ReturnType<typeof createGunzip> | undefined;
    let unpackedHash: Hash | undefined;
    let gunzipFailed = false;
    let gunzipDone: Promise<void> | undefined;
    const start = (bytes: Buffer) => {
      compression = compressionOf(bytes);
      if (compression === 'gzip') {
        const unpacking = createGunzip();
        const hash = createHash('sha256');
        gunzip = unpacking;
        unpackedHash = hash;
        unpacking.on('data', (data: Buffer) => {
          hash.update(data);
          this.countUnpacked(data.length, name, unpacking);
        });
        gunzipDone = new Promise((resolve) => {
          unpacking.on('end', resolve);
          unpacking.on('close', resolve);
          unpacking.on('error', () => {
            gunzipFailed = true;
            resolve();
          });
        });
      } else {
        this.countUnpacked(size, name, undefined);
      }
    };
    const feed = async (bytes: Buffer) => {
      if (gunzip !== undefined && !gunzipFailed && !gunzip.write(bytes)) {
        await Promise.race([once(gunzip, 'drain'), gunzipDone]);
      }
      if (this.problem !== undefined) throw this.problem;
    };
    for await (const data of stream) {
      const chunk = data as Buffer;
      raw.update(chunk);
      if (keep) parts.push(chunk);
      if (compression === undefined) {
        head = Buffer.concat([head, chunk]);
        if (head.length < 6) continue;
        start(head);
        await feed(head);
        continue;
      }
      await feed(chunk);
    }
    if (compression === undefined) {
      start(head);
      await feed(head);
    }
    if (gunzip !== undefined) {
      gunzip.end();
      await gunzipDone;
      if (this.problem !== undefined) throw this.problem;
    }
    const sha256 = raw.digest('hex');
    return {
      type: 'file',
      size,
      sha256,
      compression: compression ?? 'none',
      unpackedSha256:
        compression === 'gzip' ? (gunzipFailed ? undefined : unpackedHash?.digest('hex')) : sha256,
      content: keep ? Buffer.concat(parts) : undefined,
    };
  }

  private countUnpacked(bytes: number, name: string, unpacking: { destroy(): void } | undefined): void {
    this.unpacked += bytes;
    if (this.unpacked <= this.maxUnpacked) return;
    unpacking?.destroy();
    this.refuse(
      new ArchiveProblem(
        `unpacks to more than ${formatBytes(this.maxUnpacked)} (reached at ${name}): the most a build archive may unpack to is ${UNPACKED_PER_ARCHIVE_BYTE} times its size, and at most GCM_BUILD_MAX_UNPACKED_BYTES`,
      ),
    );
  }

  /** A file entry by name, through one symbolic link at most. */
  private fileAt(path: string, what: string): FileEntry {
    const name = normalName(path);
    let entry = this.entries.get(name);
    if (entry?.type === 'symlink') {
      // The engine follows a link within the archive's root: an absolute target starts there.
      const target = normalName(
        posix.isAbsolute(entry.target) ? entry.target : posix.join(posix.dirname(name), entry.target),
      );
      entry = this.entries.get(target);
    }
    if (entry?.type !== 'file') {
      throw new ArchiveProblem(
        `was refused: manifest.json names ${what} ${JSON.stringify(path)}, which the archive does not hold as a file. ${UPLOAD_HINT}`,
      );
    }
    return entry;
  }

  private json(entry: FileEntry, what: string): unknown {
    if (entry.content === undefined) throw new ArchiveProblem(`has ${what} over 1 MiB`);
    try {
      return JSON.parse(entry.content.toString('utf8'));
    } catch {
      throw new ArchiveProblem(`was refused: its ${what} is not JSON. ${UPLOAD_HINT}`);
    }
  }

  private image(): VerifiedImage {
    const manifestEntry = this.entries.get('manifest.json');
    if (manifestEntry === undefined) {
      if (this.entries.has('index.json')) {
        throw new ArchiveProblem(
          `is an OCI image layout without manifest.json: the engine loads an image by its manifest.json. ${UPLOAD_HINT}`,
        );
      }
      throw new ArchiveProblem(
        `is a tar file but not an image archive: it has neither manifest.json (\`docker save\`) nor index.json (OCI image layout). ${UPLOAD_HINT}`,
      );
    }
    const manifest = this.json(manifestEntry as FileEntry, 'manifest.json');
    if (!Array.isArray(manifest) || manifest.length !== 1) {
      const count = Array.isArray(manifest) ? manifest.length : 0;
      throw new ArchiveProblem(
        `was refused: its manifest.json names ${count} images where a build archive holds exactly one. Save the one image: \`docker save IMAGE -o server.tar\``,
      );
    }
    const item = exactKeys(
      manifest[0],
      ['Config', 'RepoTags', 'Layers', 'Parent', 'LayerSources'],
      'manifest.json',
    );
    const {
      Config: config,
      Layers: layers,
      RepoTags: repoTags,
      Parent: parent,
      LayerSources: sources,
    } = item;
    if (typeof config !== 'string')
      throw new ArchiveProblem('was refused: its manifest.json names no Config');
    if (!Array.isArray(layers) || !layers.every((l): l is string => typeof l === 'string')) {
      throw new ArchiveProblem('was refused: its manifest.json has no list of Layers');
    }
    if (parent !== undefined && parent !== null && parent !== '') {
      throw new ArchiveProblem(
        'was refused: its manifest.json names a Parent image, which a build archive of one image has not',
      );
    }
    if (sources !== undefined && sources !== null && Object.keys(sources as object).length > 0) {
      throw new ArchiveProblem(
        'was refused: its manifest.json names foreign LayerSources, which the service does not fetch',
      );
    }
    const tags = repoTags ?? [];
    if (!Array.isArray(tags) || !tags.every((t): t is string => typeof t === 'string')) {
      throw new ArchiveProblem('was refused: its manifest.json RepoTags is not a list of names');
    }
    for (const tag of tags) {
      if (isServiceName(tag)) {
        throw new ArchiveProblem(
          `was refused: its manifest.json names the image ${JSON.stringify(tag)}, a name only the service gives. Save the image under a name of your own`,
        );
      }
    }
    const configEntry = this.fileAt(config, 'the config');
    const named = /(?:^|\/)([0-9a-f]{64})(?:\.json)?$/.exec(config)?.[1];
    if (named !== configEntry.sha256) {
      throw new ArchiveProblem(
        `was refused: its config ${JSON.stringify(config)} has sha256 ${configEntry.sha256}, not the digest its name gives`,
      );
    }
    const id = `sha256:${configEntry.sha256}`;
    const diffIds = this.diffIds(this.json(configEntry, 'config'));
    if (diffIds.length !== layers.length) {
      throw new ArchiveProblem(
        `was refused: its config lists ${diffIds.length} layers where manifest.json names ${layers.length}`,
      );
    }
    layers.forEach((path, i) => {
      const layer = this.fileAt(path, 'the layer');
      if (layer.compression !== 'none' && layer.compression !== 'gzip') {
        throw new ArchiveProblem(
          `was refused: its layer ${JSON.stringify(path)} is ${layer.compression}-compressed; the service reads plain and gzip layers only. ${UPLOAD_HINT}`,
        );
      }
      const actual = `sha256:${layer.unpackedSha256 ?? '(not gzip)'}`;
      if (actual !== diffIds[i]) {
        throw new ArchiveProblem(
          `was refused: its layer ${JSON.stringify(path)} unpacks to ${actual} where the config says ${diffIds[i]}`,
        );
      }
    });
    this.checkIndex(id);
    return { id, repoTags: tags, diffIds };
  }

  private diffIds(config: unknown): string[] {
    const top = caseChecked(config, ['rootfs'], 'config');
    const rootfs = caseChecked(top.rootfs, ['type', 'diff_ids'], 'config rootfs');
    const ids = rootfs.diff_ids;
    if (
      rootfs.type !== 'layers' ||
      !Array.isArray(ids) ||
      !ids.every((d): d is string => typeof d === 'string' && /^sha256:[0-9a-f]{64}$/.test(d))
    ) {
      throw new ArchiveProblem('was refused: its config has no rootfs of layers with sha256 diff_ids');
    }
    return ids;
  }

  /** index.json (an OCI layout beside manifest.json): the engine may read it instead, so it must say the same. */
  private checkIndex(id: string): void {
    const entry = this.entries.get('index.json');
    if (entry === undefined) return;
    const index = caseChecked(this.json(entry as FileEntry, 'index.json'), ['manifests'], 'index.json');
    const manifests = index.manifests;
    if (!Array.isArray(manifests) || manifests.length !== 1) {
      throw new ArchiveProblem(
        `was refused: its index.json names ${Array.isArray(manifests) ? manifests.length : 0} manifests where a build archive holds exactly one image`,
      );
    }
    const descriptor = caseChecked(manifests[0], ['digest', 'annotations'], 'index.json');
    const annotations = (descriptor.annotations ?? {}) as Record<string, unknown>;
    for (const key of ['io.containerd.image.name', 'org.opencontainers.image.ref.name']) {
      const value = annotations[key];
      if (typeof value === 'string' && isServiceName(value)) {
        throw new ArchiveProblem(
          `was refused: its index.json names the image ${JSON.stringify(value)}, a name only the service gives`,
        );
      }
    }
    const digest = descriptor.digest;
    const hex = typeof digest === 'string' ? /^sha256:([0-9a-f]{64})$/.exec(digest)?.[1] : undefined;
    const blob = hex === undefined ? undefined : this.entries.get(`blobs/sha256/${hex}`);
    if (blob?.type !== 'file' || blob.sha256 !== hex) {
      throw new ArchiveProblem('was refused: its index.json names a manifest the archive does not hold');
    }
    const ociManifest = caseChecked(this.json(blob, 'OCI manifest'), ['config'], 'OCI manifest');
    const config = caseChecked(ociManifest.config, ['digest'], 'OCI manifest');
    if (config.digest !== id) {
      throw new ArchiveProblem(
        `was refused: its index.json names an image with config ${String(config.digest)} where manifest.json names ${id}`,
      );
    }
  }
}

/** The object's keys, refusing any it does not know (Go's JSON reader matches keys in any case; JSON.parse does not). */
function exactKeys(value: unknown, known: readonly string[], what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ArchiveProblem(`was refused: its ${what} is not an object where one is expected`);
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key))
      throw new ArchiveProblem(`was refused: its ${what} has the unknown key ${JSON.stringify(key)}`);
  }
  return value as Record<string, unknown>;
}

/** Like exactKeys for the keys named, where other keys may be there: a key equal to one of them but for case is refused. */
function caseChecked(value: unknown, keys: readonly string[], what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ArchiveProblem(`was refused: its ${what} is not an object where one is expected`);
  }
  const folded = keys.map((k) => foldCase(k));
  for (const key of Object.keys(value)) {
    if (!keys.includes(key) && folded.includes(foldCase(key))) {
      throw new ArchiveProblem(
        `was refused: its ${what} has the key ${JSON.stringify(key)}, which the engine reads as ${JSON.stringify(keys[folded.indexOf(foldCase(key))])}`,
      );
    }
  }
  return value as Record<string, unknown>;
}

/** Go's JSON key matching folds case, the Kelvin sign and the long s too. */
function foldCase(key: string): string {
  return key.replaceAll('\u212a', 'k').replaceAll('\u017f', 's').toLowerCase();
}

/** Whether an image reference names a repository only the service writes, in any registry or form. */
export function isServiceName(reference: string): boolean {
  const withoutDigest = reference.split('@')[0] ?? '';
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const repository = colon > lastSlash ? withoutDigest.slice(0, colon) : withoutDigest;
  const last = repository.slice(repository.lastIndexOf('/') + 1).toLowerCase();
  return SERVICE_REPOSITORIES.includes(last);
}

/** A tar name as the engine writes it: cleaned, relative to the archive's root ('' for the root). */
function normalName(name: string): string {
  return posix.normalize(`/${name}`).replace(/^\/+/, '').replace(/\/+$/, '');
}

function compressionOf(head: Buffer): Compression {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.subarray(0, 3).toString('latin1') === 'BZh') return 'bzip2';
  if (head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return 'xz';
  if (head.subarray(0, 4).equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))) return 'zstd';
  return 'none';
}
