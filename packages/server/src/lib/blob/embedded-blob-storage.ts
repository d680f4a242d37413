import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../clock.js';
import { isNotFound, syncDir } from '../files.js';
import {
  assertPresignableKey,
  assertPresignGetInput,
  assertValidKey,
  type BlobStorage,
  type CompleteMultipartInput,
  type CompleteMultipartResult,
  frozenDirOf,
  frozenKeyFor,
  isFrozenKey,
  type PartTarget,
  type PresignGetInput,
  type PresignPutInput,
  type PutUrlCheck,
  type SignedGetRequest,
  type SignedGetServer,
  type SignedPutReceiver,
  type SignedPutRequest,
  type WritePartResult,
} from './blob-storage.js';

export interface EmbeddedBlobStorageOptions {
  /** `<data dir>/blobs`: objects, parts and temp files live below it, on one file system. */
  root: string;
  /** The service's public URL; PUT URLs point at its `/uploads/...` route. */
  publicUrl: string;
  /** HMAC-SHA256 key of the PUT URLs, kept in the database so every instance signs alike. */
  secret: Buffer;
  clock: Clock;
  urlTtlSeconds: number;
}

const UPLOAD_ID = /^[A-Za-z0-9-]{1,64}$/;
// A crash mid-upload leaves a temp file behind. A PUT writes its temp file as bytes arrive, so one untouched
// this long belongs to no live PUT; the margin is for instances that share one blob directory.
export const STALE_TEMP_MS = 10 * 60 * 1000;

class BodyTooLong extends Error {}

/**
 * Blobs as files under the data directory. Every write goes to a temp file first and is renamed into place
 * only once it has exactly the signed length and is on disk, so a torn or oversized upload never becomes
 * (or replaces) an object.
 */
export class EmbeddedBlobStorage implements BlobStorage, SignedPutReceiver, SignedGetServer {
  readonly driver = 'embedded' as const;
  readonly putReceiver: SignedPutReceiver = this;
  readonly getServer: SignedGetServer = this;
  private readonly objectsDir: string;
  private readonly partsDir: string;
  private readonly tmpDir: string;
  // Two completes of one multipart upload at once would both read parts the first one then deletes.
  private readonly joining = new Map<string, Promise<CompleteMultipartResult>>();
  // Whether an upload is closed and putting its bytes in place must be one step, or a PUT could land between
  // a complete's freeze (or join) and its check: both hold the key's lock.
  private readonly keyLocks = new Map<string, Promise<unknown>>();

  private constructor(private readonly options: EmbeddedBlobStorageOptions) {
    this.objectsDir = path.join(options.root, 'objects');
    this.partsDir = path.join(options.root, 'parts');
    this.tmpDir = path.join(options.root, 'tmp');
  }

  static async open(options: EmbeddedBlobStorageOptions): Promise<EmbeddedBlobStorage> {
    const storage = new EmbeddedBlobStorage(options);
    for (const dir of [storage.objectsDir, storage.partsDir, storage.tmpDir]) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    }
    await storage.sweepStaleTemps();
    return storage;
  }

  async createMultipart(input: { key: string; uploadId: string }): Promise<{ multipartId: string }> {
    assertValidKey(input.key);
    // Parts are filed under the upload id; there is nothing else to set up.
    return { multipartId: input.uploadId };
  }

  async presignPut(input: PresignPutInput): Promise<{ url: string; expireTs: number }> {
    assertPresignableKey(input.key);
    const expires = Math.floor(this.options.clock.now() / 1000) + this.options.urlTtlSeconds;
    const sig = this.sign(input.uploadId, input.part, input.contentLength, expires);
    // Built as a string: every value is digits or base64url, so nothing needs escaping, and a page of a
    // thousand parts costs a third of what URL objects did.
    const url = `${this.options.publicUrl}${uploadPartPath(input.uploadId, input.part)}?expires=${expires}&length=${input.contentLength}&sig=${sig}`;
    return { url, expireTs: expires * 1000 };
  }

  /** Signature first: an expiry that was tampered with is a bad signature, not an expired URL. */
  checkPutUrl(request: SignedPutRequest): PutUrlCheck {
    const expected = Buffer.from(this.sign(request.uploadId, request.part, request.length, request.expires));
    const given = Buffer.from(request.sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad_signature';
    if (this.options.clock.now() >= request.expires * 1000) return 'expired';
    return 'ok';
  }

  async presignGet(input: PresignGetInput): Promise<{ url: string; expireTs: number }> {
    assertPresignGetInput(input);
    const ttl = input.ttlSeconds ?? this.options.urlTtlSeconds;
    const expires = Math.floor(this.options.clock.now() / 1000) + ttl;
    const sig = this.signGet(input.key, input.filename, input.contentType, expires);
    const query = new URLSearchParams({
      key: input.key,
      type: input.contentType,
      expires: String(expires),
      sig,
    });
    return {
      url: `${this.options.publicUrl}${downloadPath(input.filename)}?${query}`,
      expireTs: expires * 1000,
    };
  }

  checkGetUrl(request: SignedGetRequest): PutUrlCheck {
    const expected = Buffer.from(
      this.signGet(request.key, request.filename, request.contentType, request.expires),
    );
    const given = Buffer.from(request.sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad_signature';
    if (this.options.clock.now() >= request.expires * 1000) return 'expired';
    return 'ok';
  }

  /**
   * Streams `body` to a temp file, counting bytes: past `contentLength` it stops reading at once; short of
   * it (the client hung up) nothing is kept. The request stream is not destroyed on excess, so the route
   * can still answer 400 before the connection closes. The bytes are put in place only if the upload is
   * still open then (no frozen copy of a single PUT, no joined object of a multipart one).
   */
  async writePart(target: PartTarget, contentLength: number, body: Readable): Promise<WritePartResult> {
    const dest = target.multipart ? this.partPath(target.uploadId, target.part) : this.objectPath(target.key);
    const tmp = path.join(this.tmpDir, randomUUID());
    let received = 0;
    let bodyFailed = false;
    async function* limited(source: AsyncIterable<Buffer>) {
      try {
        for await (const chunk of source) {
          received += chunk.length;
          if (received > contentLength) throw new BodyTooLong();
          yield chunk;
        }
      } catch (err) {
        if (!(err instanceof BodyTooLong)) bodyFailed = true;
        throw err;
      }
    }
    // flush: fsync before close, so a 200 means the bytes are on disk.
    const file = createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true });
    try {
      await pipeline(body.iterator({ destroyOnReturn: false }), limited, file);
      if (received !== contentLength) return { ok: false, reason: 'length', received };
      const placed = await this.withKeyLock(target.key, async () => {
        if (await this.isClosed(target)) return false;
        await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
        await rename(tmp, dest);
        await syncDir(path.dirname(dest));
        return true;
      });
      return placed ? { ok: true } : { ok: false, reason: 'closed' };
    } catch (err) {
      if (err instanceof BodyTooLong || bodyFailed) return { ok: false, reason: 'length', received };
      throw err;
    } finally {
      // A body that fails early can end the pipeline while the file is still being opened: removing it
      // before the stream closed could run first and leave the file behind.
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      await rm(tmp, { force: true });
    }
  }

  async freeze(key: string): Promise<{ key: string; size: number } | undefined> {
    const source = this.objectPath(key);
    const frozenKey = frozenKeyFor(key);
    const dest = this.objectPath(frozenKey);
    return this.withKeyLock(key, async () => {
      const size = await statFile(source);
      if (size === undefined) return undefined;
      // A rename: instant whatever the size, and the checked inode can no longer be written by anyone.
      await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
      await rename(source, dest);
      await syncDir(path.dirname(dest));
      await syncDir(path.dirname(source));
      return { key: frozenKey, size };
    });
  }

  completeMultipart(input: CompleteMultipartInput): Promise<CompleteMultipartResult> {
    const running = this.joining.get(input.uploadId);
    if (running !== undefined) return running;
    const job = this.withKeyLock(input.key, () => this.joinParts(input)).finally(() =>
      this.joining.delete(input.uploadId),
    );
    this.joining.set(input.uploadId, job);
    return job;
  }

  async abortMultipart(input: { key: string; uploadId: string; multipartId: string }): Promise<void> {
    // Under the key's lock, so a join in progress finishes (or fails) before its parts go.
    await this.withKeyLock(input.key, () =>
      rm(path.dirname(this.partPath(input.uploadId, 1)), { recursive: true, force: true }),
    );
  }

  async statObject(key: string): Promise<{ size: number } | undefined> {
    const found = await statFile(this.objectPath(key));
    return found === undefined ? undefined : { size: found };
  }

  async openRead(key: string): Promise<Readable | undefined> {
    const file = this.objectPath(key);
    if ((await statFile(file)) === undefined) return undefined;
    return createReadStream(file);
  }

  async putObject(key: string, body: Buffer): Promise<void> {
    assertPresignableKey(key);
    const dest = this.objectPath(key);
    const tmp = path.join(this.tmpDir, randomUUID());
    try {
      await writeFile(tmp, body, { flag: 'wx', mode: 0o600, flush: true });
      await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
      await rename(tmp, dest);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await syncDir(path.dirname(dest));
  }

  async delete(key: string): Promise<void> {
    await rm(this.objectPath(key), { force: true });
    // A frozen copy's folder, once empty, would otherwise keep refusing PUTs to its upload (isClosed).
    if (isFrozenKey(key)) {
      await rmdir(path.dirname(this.objectPath(key))).catch(() => {});
    }
  }

  /** Runs `fn` after every earlier call for `key` has finished. */
  private withKeyLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.keyLocks.get(key) ?? Promise.resolve();
    const run = previous.then(fn);
    const settled = run.then(
      () => {},
      () => {},
    );
    this.keyLocks.set(key, settled);
    void settled.then(() => {
      if (this.keyLocks.get(key) === settled) this.keyLocks.delete(key);
    });
    return run;
  }

  /** A multipart upload is closed once joined; a single PUT once a complete froze it. */
  private async isClosed(target: PartTarget): Promise<boolean> {
    if (target.multipart) return (await statFile(this.objectPath(target.key))) !== undefined;
    try {
      return (await readdir(this.objectPath(frozenDirOf(target.key)))).length > 0;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  private async joinParts(input: CompleteMultipartInput): Promise<CompleteMultipartResult> {
    const badParts: number[] = [];
    for (const { part, contentLength } of input.parts) {
      if ((await statFile(this.partPath(input.uploadId, part))) !== contentLength) badParts.push(part);
    }
    const total = input.parts.reduce((sum, p) => sum + p.contentLength, 0);
    if (badParts.length > 0) {
      // Parts are removed once joined: an object of the full size means an earlier complete got here.
      const done = await this.statObject(input.key);
      return done?.size === total && badParts.length === input.parts.length
        ? { ok: true }
        : { ok: false, badParts };
    }
    const partFiles = input.parts.map((p) => this.partPath(input.uploadId, p.part));
    const tmp = path.join(this.tmpDir, randomUUID());
    try {
      await pipeline(
        async function* () {
          for (const file of partFiles) yield* createReadStream(file);
        },
        createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true }),
      );
      const dest = this.objectPath(input.key);
      await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
      await rename(tmp, dest);
      await syncDir(path.dirname(dest));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await rm(path.join(this.partsDir, input.uploadId), { recursive: true, force: true });
    return { ok: true };
  }

  private sign(uploadId: string, part: number, length: number, expires: number): string {
    return createHmac('sha256', this.options.secret)
      .update(`gcm-upload-v1\n${uploadId}\n${part}\n${length}\n${expires}`)
      .digest('base64url');
  }

  // Its own prefix: no PUT signature is ever a valid GET one, nor the other way round.
  private signGet(key: string, filename: string, contentType: string, expires: number): string {
    return createHmac('sha256', this.options.secret)
      .update(`gcm-download-v1\n${key}\n${filename}\n${contentType}\n${expires}`)
      .digest('base64url');
  }

  private objectPath(key: string): string {
    assertValidKey(key);
    return path.join(this.objectsDir, ...key.split('/'));
  }

  private partPath(uploadId: string, part: number): string {
    if (!UPLOAD_ID.test(uploadId) || !Number.isSafeInteger(part) || part < 1) {
      throw new Error(`invalid upload part ${uploadId}/${part}`);
    }
    return path.join(this.partsDir, uploadId, String(part));
  }

  /** At start-up: what a crash or a PUT killed before its clean-up ran left in the temp folder. */
  private async sweepStaleTemps(): Promise<void> {
    const cutoff = Date.now() - STALE_TEMP_MS;
    for (const name of await readdir(this.tmpDir)) {
      const file = path.join(this.tmpDir, name);
      const info = await stat(file).catch(() => undefined);
      if (info !== undefined && info.mtimeMs < cutoff) await rm(file, { force: true });
    }
  }
}

/** The route of the PUT URLs; the uploads module serves it when this driver is in use. */
export function uploadPartPath(uploadId: string, part: number): string {
  return `/uploads/${encodeURIComponent(uploadId)}/parts/${part}`;
}

/** The route of the download URLs: the name in the path is what a browser saves the file as. */
export function downloadPath(filename: string): string {
  return `/downloads/${encodeURIComponent(filename)}`;
}

async function statFile(file: string): Promise<number | undefined> {
  try {
    const info = await stat(file);
    return info.isFile() ? info.size : undefined;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
