import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';

/**
 * Where uploaded files live. Clients never send file bytes through the JSON API: the service hands out
 * presigned PUT URLs, the client uploads straight to them, and a complete call then checks what arrived.
 * Two drivers implement this: files under the data directory served by this service (embedded), and an
 * S3-compatible bucket. Avatars use a single PUT; builds (multi-GB images) use multipart uploads, so the
 * interface carries both from the start.
 *
 * Parts are numbered from 1, as S3 numbers them. A single-PUT upload has exactly one part, number 1, and
 * no `multipartId`.
 */
export interface BlobStorage {
  readonly driver: 'embedded' | 's3';

  /**
   * Present when the presigned URLs point at this service itself (the embedded driver), which must then
   * serve the PUT route that receives the bytes; absent when they point at a bucket.
   */
  readonly putReceiver?: SignedPutReceiver;

  /** Present, like putReceiver, when presigned GET URLs point at this service (the embedded driver). */
  readonly getServer?: SignedGetServer;

  /** Starts a multipart upload of `key` and returns the store's id for it (S3's UploadId). */
  createMultipart(input: { key: string; uploadId: string }): Promise<{ multipartId: string }>;

  /**
   * A URL that accepts one PUT of exactly `contentLength` bytes for one part, until `expireTs` (epoch ms).
   * The length is part of the signature, so neither driver accepts a body of another length.
   */
  presignPut(input: PresignPutInput): Promise<{ url: string; expireTs: number }>;

  /**
   * A URL that anyone holding it may GET the object `key` with until `expireTs` (epoch ms), answered as a
   * download named `filename` of type `contentType` (exports the service wrote itself: keys never come from
   * user input). The URL works whether or not the object exists; a GET of a missing one is a 404.
   */
  presignGet(input: PresignGetInput): Promise<{ url: string; expireTs: number }>;

  /**
   * Joins the parts of a multipart upload into the object `key`. Every part must have arrived with its
   * exact length; otherwise nothing changes and the missing or mismatched part numbers are returned, so the
   * client can upload them and complete again. Idempotent: completing a completed upload succeeds.
   */
  completeMultipart(input: CompleteMultipartInput): Promise<CompleteMultipartResult>;

  /**
   * Drops the parts of a multipart upload that will never be completed (the clean-up of abandoned
   * uploads), so they stop taking space; aborting an upload that is unknown, aborted or joined is no error.
   */
  abortMultipart(input: { key: string; uploadId: string; multipartId: string }): Promise<void>;

  /**
   * Moves the single-PUT object `key` to a new key that no presigned URL names (`frozenKeyFor`) and returns
   * that key with the moved object's size; undefined when nothing is stored under `key`. Complete checks this
   * copy and the service serves only it, so a PUT to `key` that lands later cannot change what was checked.
   * The embedded driver also refuses PUTs to `key` while a frozen copy of it exists; an S3 bucket cannot
   * revoke a presigned URL, so there a late PUT is stored under `key` but never read.
   */
  freeze(key: string): Promise<{ key: string; size: number } | undefined>;

  /** The stored object's size, or undefined when nothing (complete) is stored under `key`. */
  statObject(key: string): Promise<{ size: number } | undefined>;

  /** The whole object as a stream, or undefined when it does not exist. */
  openRead(key: string): Promise<Readable | undefined>;

  /**
   * Stores `body` as the object `key`, replacing what was there, durably: once it answers, a crash of the
   * service or the machine keeps the new bytes (the service's own writes, such as lobby output chunks).
   * A reader sees the old object or the new one, never a mix.
   */
  putObject(key: string, body: Buffer): Promise<void>;

  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
}

/** The query of a signed PUT URL, as the route receives it. */
export interface SignedPutRequest {
  uploadId: string;
  part: number;
  length: number;
  /** Epoch seconds. */
  expires: number;
  sig: string;
}

export type PutUrlCheck = 'ok' | 'bad_signature' | 'expired';

/**
 * `length`: the body ended or went past the signed length after `received` bytes. `closed`: the upload was
 * completed (or a complete is checking it) while the body arrived, so the bytes were not kept.
 */
export type WritePartResult =
  | { ok: true }
  | { ok: false; reason: 'length'; received: number }
  | { ok: false; reason: 'closed' };

export interface PartTarget {
  key: string;
  uploadId: string;
  part: number;
  /** Multipart parts are kept apart until completeMultipart joins them; a single PUT is the object. */
  multipart: boolean;
}

/** The half of a driver that takes PUTs to its own signed URLs (see BlobStorage.putReceiver). */
export interface SignedPutReceiver {
  /** Signature first: an expiry that was tampered with is a bad signature, not an expired URL. */
  checkPutUrl(request: SignedPutRequest): PutUrlCheck;
  /** Streams one part's bytes into place if they are exactly `contentLength` long and the upload is open. */
  writePart(target: PartTarget, contentLength: number, body: Readable): Promise<WritePartResult>;
}

export interface PresignGetInput {
  key: string;
  /** The download's name: `[A-Za-z0-9._-]`, so it needs no quoting in Content-Disposition. */
  filename: string;
  contentType: string;
  /** How long the URL works; the driver's URL TTL (GCM_UPLOAD_URL_TTL_SECONDS) when absent. */
  ttlSeconds?: number | undefined;
}

/** The query of a signed GET URL (and the key it names), as the download route receives it. */
export interface SignedGetRequest {
  key: string;
  filename: string;
  contentType: string;
  /** Epoch seconds. */
  expires: number;
  sig: string;
}

/** The half of a driver that serves GETs of its own signed download URLs (see BlobStorage.getServer). */
export interface SignedGetServer {
  /** Signature first, as checkPutUrl: an edited expiry is a bad signature. */
  checkGetUrl(request: SignedGetRequest): PutUrlCheck;
}

const DOWNLOAD_FILENAME = /^[A-Za-z0-9._-]{1,128}$/;
// A type such as `text/csv; charset=utf-8`: nothing that could end a header or add another.
const CONTENT_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(; ?[A-Za-z0-9_-]+=[A-Za-z0-9_.-]+)*$/;

export function assertPresignGetInput(input: PresignGetInput): void {
  assertValidKey(input.key);
  if (!DOWNLOAD_FILENAME.test(input.filename)) throw new Error(`invalid download name "${input.filename}"`);
  if (!CONTENT_TYPE.test(input.contentType) || input.contentType.length > 200) {
    throw new Error(`invalid content type "${input.contentType}"`);
  }
  const ttl = input.ttlSeconds;
  if (ttl !== undefined && (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > 7 * 24 * 3600)) {
    throw new Error(`invalid download URL lifetime ${ttl}`);
  }
}

/** The Content-Disposition of a download (its name is checked by assertPresignGetInput). */
export function attachmentOf(filename: string): string {
  return `attachment; filename="${filename}"`;
}

export interface PresignPutInput {
  /** Object key, made by the service (never from user input): `[A-Za-z0-9._-]` segments joined by `/`. */
  key: string;
  uploadId: string;
  /** 1 for a single PUT; 1..10,000 for a part of the multipart upload `multipartId`. */
  part: number;
  multipartId?: string | undefined;
  contentLength: number;
}

export interface CompleteMultipartInput {
  key: string;
  uploadId: string;
  multipartId: string;
  /** Every part of the upload with the length it was presigned for, in part order. */
  parts: readonly { part: number; contentLength: number }[];
}

export type CompleteMultipartResult = { ok: true } | { ok: false; badParts: number[] };

/** One PUT of a (possibly multipart) upload: which bytes of the file it carries. */
export interface UploadPart {
  part: number;
  byteOffset: number;
  contentLength: number;
}

/**
 * Splits `contentLength` bytes into parts of `partSize` (the last one takes the remainder). One part when
 * the file fits in one; a zero-byte file is one empty part.
 */
export function splitIntoParts(contentLength: number, partSize: number): UploadPart[] {
  return Array.from({ length: countParts(contentLength, partSize) }, (_, i) =>
    partOf(contentLength, partSize, i + 1),
  );
}

/** How many parts `contentLength` bytes make in parts of `partSize` (a zero-byte file is one part). */
export function countParts(contentLength: number, partSize: number): number {
  if (!Number.isSafeInteger(partSize) || partSize < 1) throw new RangeError('partSize must be ≥ 1');
  return Math.max(1, Math.ceil(contentLength / partSize));
}

/** Part `part` (from 1) of a file split as splitIntoParts splits it, without making the others. */
export function partOf(contentLength: number, partSize: number, part: number): UploadPart {
  const byteOffset = (part - 1) * partSize;
  return { part, byteOffset, contentLength: Math.min(partSize, contentLength - byteOffset) };
}

// Keys become file paths in the embedded driver: a strict alphabet and no `.`/`..` segments keep every key
// inside the blob directory whatever a future caller passes.
const KEY_SEGMENT = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$/;

/** The prefix of frozen copies; the service's upload keys start with their kind, never with this. */
const FROZEN_PREFIX = 'frozen/';

/**
 * Where `freeze` moves `key`: below the key itself, with a fresh id, so two completes of one upload at once
 * never check or delete each other's copy.
 */
export function frozenKeyFor(key: string): string {
  return `${frozenDirOf(key)}/${randomUUID()}`;
}

/** The folder of every frozen copy of `key`. */
export function frozenDirOf(key: string): string {
  return `${FROZEN_PREFIX}${key}`;
}

export function isFrozenKey(key: string): boolean {
  return key.startsWith(FROZEN_PREFIX);
}

/** A presigned URL may name any valid key but a frozen copy: those must stay as they were checked. */
export function assertPresignableKey(key: string): void {
  assertValidKey(key);
  if (isFrozenKey(key)) throw new Error(`blob key "${key}" is a frozen copy`);
}

export function assertValidKey(key: string): void {
  const segments = key.split('/');
  if (key.length > 1024 || !segments.every((s) => KEY_SEGMENT.test(s))) {
    throw new Error(`invalid blob key "${key}"`);
  }
}

/**
 * A failure of the blob store itself, not of the request: `unavailable` when it could not be reached (a
 * refused connection, a timeout) or said so (503), `error` when it answered with any other error or with
 * something that is not an answer. The service answers 503 or 502 for it, never 500, and logs these fields
 * (the store's request ids find the call in the store's own logs).
 */
export class BlobStoreError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'error',
    /** The store's operation (`ListParts`, `HeadObject`). */
    readonly operation: string,
    message: string,
    readonly details: {
      status?: number | undefined;
      s3Code?: string | undefined;
      requestId?: string | undefined;
      extendedRequestId?: string | undefined;
    },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BlobStoreError';
  }
}
