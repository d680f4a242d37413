import { PassThrough, Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListPartsCommand,
  type Part,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Clock } from '../clock.js';
import {
  assertPresignableKey,
  assertPresignGetInput,
  assertValidKey,
  attachmentOf,
  type BlobStorage,
  BlobStoreError,
  type CompleteMultipartInput,
  type CompleteMultipartResult,
  frozenKeyFor,
  type PresignGetInput,
  type PresignPutInput,
} from './blob-storage.js';

export interface S3BlobStorageOptions {
  endpoint: string;
  bucket: string;
  region: string;
  /** Both or neither; neither uses the SDK's default chain (AWS_* variables, instance roles). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** `bucket` in the path rather than the host name: what MinIO and most S3-compatible stores expect. */
  forcePathStyle: boolean;
  clock: Clock;
  urlTtlSeconds: number;
  /**
   * How long connecting, and then each wait for the store's next bytes, may take (the SDK retries a call
   * that timed out, so a store that hangs fails a call after about three of these).
   */
  timeoutMs: number;
  /** Tests replace the HTTP transport; production leaves the SDK's own. */
  requestHandler?: S3ClientConfig['requestHandler'];
}

/**
 * Blobs in an S3-compatible bucket. Clients PUT straight to the store with SigV4 presigned URLs; this
 * service only signs, then checks what arrived (HeadObject, ListParts) before it counts an upload.
 */
export class S3BlobStorage implements BlobStorage {
  readonly driver = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly options: S3BlobStorageOptions) {
    const { accessKeyId, secretAccessKey } = options;
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(accessKeyId !== undefined && secretAccessKey !== undefined
        ? { credentials: { accessKeyId, secretAccessKey } }
        : {}),
      // Otherwise the SDK puts the CRC32 of an empty body into every presigned URL, and the store then
      // refuses the real upload as corrupt. Integrity comes from the signed length and the checks at complete.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      // The SDK's default is to wait for ever: a store that stopped answering would hold every request
      // that needs it, and their connections, for good.
      requestHandler: options.requestHandler ?? {
        connectionTimeout: options.timeoutMs,
        socketTimeout: options.timeoutMs,
      },
    });
  }

  /**
   * Every call to the store goes through here: whatever it fails with becomes a BlobStoreError naming the
   * operation and the store's request id, with the SDK's error as its cause (a caller that expects an
   * error, such as NoSuchKey, looks at the cause: isS3Error).
   */
  private async call<T>(operation: string, send: (client: S3Client) => Promise<T>): Promise<T> {
    try {
      return await send(this.client);
    } catch (err) {
      throw blobStoreErrorOf(operation, err);
    }
  }

  async createMultipart(input: { key: string; uploadId: string }): Promise<{ multipartId: string }> {
    assertValidKey(input.key);
    const out = await this.call('CreateMultipartUpload', (c) =>
      c.send(new CreateMultipartUploadCommand({ Bucket: this.options.bucket, Key: input.key })),
    );
    if (out.UploadId === undefined) {
      throw new BlobStoreError('error', 'CreateMultipartUpload', 'the blob store answered no UploadId', {});
    }
    return { multipartId: out.UploadId };
  }

  async presignPut(input: PresignPutInput): Promise<{ url: string; expireTs: number }> {
    assertPresignableKey(input.key);
    // ContentLength becomes the content-length header, which SigV4 signs: the store refuses any other
    // length. The signing time comes from the service clock so expiry follows it (tests move it).
    const now = this.options.clock.now();
    const signing = { expiresIn: this.options.urlTtlSeconds, signingDate: new Date(now) };
    const target = { Bucket: this.options.bucket, Key: input.key, ContentLength: input.contentLength };
    // No call to the store, but the SDK's credential chain (an instance role) may need the network.
    const url = await this.call('presign', (c) =>
      input.multipartId === undefined
        ? getSignedUrl(c, new PutObjectCommand(target), signing)
        : getSignedUrl(
            c,
            new UploadPartCommand({ ...target, UploadId: input.multipartId, PartNumber: input.part }),
            signing,
          ),
    );
    return { url, expireTs: Math.floor(now / 1000) * 1000 + this.options.urlTtlSeconds * 1000 };
  }

  async presignGet(input: PresignGetInput): Promise<{ url: string; expireTs: number }> {
    assertPresignGetInput(input);
    const now = this.options.clock.now();
    const ttl = input.ttlSeconds ?? this.options.urlTtlSeconds;
    const url = await this.call('presign', (c) =>
      getSignedUrl(
        c,
        new GetObjectCommand({
          Bucket: this.options.bucket,
          Key: input.key,
          ResponseContentDisposition: attachmentOf(input.filename),
          ResponseContentType: input.contentType,
        }),
        { expiresIn: ttl, signingDate: new Date(now) },
      ),
    );
    return { url, expireTs: Math.floor(now / 1000) * 1000 + ttl * 1000 };
  }

  async completeMultipart(input: CompleteMultipartInput): Promise<CompleteMultipartResult> {
    // The client uploaded the parts itself, so their ETags are only known to the store: list them.
    let listed: Part[];
    try {
      listed = await this.listParts(input.key, input.multipartId);
    } catch (err) {
      // No such upload any more: an earlier complete finished it (or it was aborted; the size tells).
      if (!isS3Error(err, 'NoSuchUpload', 404)) throw err;
      const total = input.parts.reduce((sum, p) => sum + p.contentLength, 0);
      const done = await this.statObject(input.key);
      return done?.size === total ? { ok: true } : { ok: false, badParts: input.parts.map((p) => p.part) };
    }
    const byNumber = new Map(listed.map((p) => [p.PartNumber, p]));
    const badParts = input.parts
      .filter((p) => byNumber.get(p.part)?.Size !== p.contentLength)
      .map((p) => p.part);
    if (badParts.length > 0) return { ok: false, badParts };
    await this.call('CompleteMultipartUpload', (c) =>
      c.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.options.bucket,
          Key: input.key,
          UploadId: input.multipartId,
          MultipartUpload: {
            Parts: input.parts.map((p) => ({ PartNumber: p.part, ETag: byNumber.get(p.part)?.ETag })),
          },
        }),
      ),
    );
    return { ok: true };
  }

  async abortMultipart(input: { key: string; uploadId: string; multipartId: string }): Promise<void> {
    try {
      await this.call('AbortMultipartUpload', (c) =>
        c.send(
          new AbortMultipartUploadCommand({
            Bucket: this.options.bucket,
            Key: input.key,
            UploadId: input.multipartId,
          }),
        ),
      );
    } catch (err) {
      if (!isS3Error(err, 'NoSuchUpload', 404)) throw err;
    }
  }

  async freeze(key: string): Promise<{ key: string; size: number } | undefined> {
    assertValidKey(key);
    const frozenKey = frozenKeyFor(key);
    // S3 has no rename: a server-side copy (one atomic snapshot of the object), then the original goes.
    // Keys are [A-Za-z0-9._/-] only (assertValidKey), so the copy source needs no encoding.
    try {
      await this.call('CopyObject', (c) =>
        c.send(
          new CopyObjectCommand({
            Bucket: this.options.bucket,
            Key: frozenKey,
            CopySource: `${this.options.bucket}/${key}`,
          }),
        ),
      );
    } catch (err) {
      if (isS3Error(err, 'NoSuchKey', 404)) return undefined;
      throw err;
    }
    await this.delete(key);
    const stored = await this.statObject(frozenKey);
    if (stored === undefined) {
      throw new BlobStoreError('error', 'HeadObject', `the blob store lost the copy ${frozenKey}`, {});
    }
    return { key: frozenKey, size: stored.size };
  }

  async statObject(key: string): Promise<{ size: number } | undefined> {
    try {
      const out = await this.call('HeadObject', (c) =>
        c.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key })),
      );
      return { size: out.ContentLength ?? 0 };
    } catch (err) {
      if (isS3Error(err, 'NotFound', 404)) return undefined;
      throw err;
    }
  }

  async openRead(key: string): Promise<Readable | undefined> {
    let body: GetObjectCommandOutput['Body'];
    try {
      const out = await this.call('GetObject', (c) =>
        c.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key })),
      );
      body = out.Body;
    } catch (err) {
      if (isS3Error(err, 'NoSuchKey', 404)) return undefined;
      throw err;
    }
    if (body === undefined) return undefined;
    // On Node the SDK's body is an http.IncomingMessage (a Readable) with helper methods mixed in.
    if (body instanceof Readable) return withStoreErrors('GetObject', body);
    const bytes = await this.call('GetObject', () => body.transformToByteArray());
    return Readable.from(Buffer.from(bytes));
  }

  async putObject(key: string, body: Buffer): Promise<void> {
    assertPresignableKey(key);
    await this.call('PutObject', (c) =>
      c.send(new PutObjectCommand({ Bucket: this.options.bucket, Key: key, Body: body })),
    );
  }

  async delete(key: string): Promise<void> {
    await this.call('DeleteObject', (c) =>
      c.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key })),
    );
  }

  private async listParts(key: string, multipartId: string): Promise<Part[]> {
    const parts: Part[] = [];
    let marker: string | undefined;
    // ListParts pages at 1,000 parts; a build may have up to 10,000.
    for (;;) {
      const page = await this.call('ListParts', (c) =>
        c.send(
          new ListPartsCommand({
            Bucket: this.options.bucket,
            Key: key,
            UploadId: multipartId,
            ...(marker === undefined ? {} : { PartNumberMarker: marker }),
          }),
        ),
      );
      parts.push(...(page.Parts ?? []));
      if (page.IsTruncated !== true || page.NextPartNumberMarker === undefined) return parts;
      marker = page.NextPartNumberMarker;
    }
  }
}

/**
 * S3 errors carry a code name; a HEAD's 404 has no body to name it, so the status decides too. `err` is
 * what the driver threw (a BlobStoreError): the SDK's error is its cause.
 */
function isS3Error(err: unknown, name: string, status: number): boolean {
  const sdkError = err instanceof BlobStoreError ? err.cause : err;
  if (!(sdkError instanceof S3ServiceException)) return false;
  return sdkError.name === name || sdkError.$metadata.httpStatusCode === status;
}

/** Socket errors of a store that cannot be reached (or went away): it may well answer again soon. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** What the SDK failed with, as the store's failure: its status and request ids when it answered at all. */
function blobStoreErrorOf(operation: string, err: unknown): BlobStoreError {
  if (err instanceof BlobStoreError) return err;
  const failure = (typeof err === 'object' && err !== null ? err : {}) as {
    name?: unknown;
    code?: unknown;
    $metadata?: { httpStatusCode?: number; requestId?: string; extendedRequestId?: string };
  };
  const status = failure.$metadata?.httpStatusCode;
  const name = typeof failure.name === 'string' ? failure.name : 'Error';
  if (status !== undefined) {
    // 503 is S3's "slow down" and "service unavailable": the store is there, and asks to be retried.
    return new BlobStoreError(
      status === 503 ? 'unavailable' : 'error',
      operation,
      `the blob store answered ${status} (${name}) to ${operation}`,
      {
        status,
        s3Code: name,
        requestId: failure.$metadata?.requestId,
        extendedRequestId: failure.$metadata?.extendedRequestId,
      },
      { cause: err },
    );
  }
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  if ((code !== undefined && UNREACHABLE.has(code)) || name === 'TimeoutError') {
    return new BlobStoreError(
      'unavailable',
      operation,
      `the blob store could not be reached for ${operation} (${code ?? name})`,
      {},
      { cause: err },
    );
  }
  return new BlobStoreError(
    'error',
    operation,
    `the blob store failed ${operation} (${name})`,
    {},
    {
      cause: err,
    },
  );
}

/**
 * The object's bytes as they arrive, a failure on the way (the store resets the connection) reported as
 * the store's; the SDK's stream closes with ours, so a reader that stops early frees its connection.
 */
function withStoreErrors(operation: string, body: Readable): Readable {
  const out = new PassThrough();
  body.once('error', (err) => out.destroy(blobStoreErrorOf(operation, err)));
  out.once('close', () => body.destroy());
  return body.pipe(out);
}
