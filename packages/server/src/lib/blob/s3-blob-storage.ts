import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
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
  assertValidKey,
  type BlobStorage,
  type CompleteMultipartInput,
  type CompleteMultipartResult,
  frozenKeyFor,
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
      ...(options.requestHandler === undefined ? {} : { requestHandler: options.requestHandler }),
    });
  }

  async createMultipart(input: { key: string; uploadId: string }): Promise<{ multipartId: string }> {
    assertValidKey(input.key);
    const out = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.options.bucket, Key: input.key }),
    );
    if (out.UploadId === undefined) throw new Error('S3 CreateMultipartUpload returned no UploadId');
    return { multipartId: out.UploadId };
  }

  async presignPut(input: PresignPutInput): Promise<{ url: string; expireTs: number }> {
    assertPresignableKey(input.key);
    // ContentLength becomes the content-length header, which SigV4 signs: the store refuses any other
    // length. The signing time comes from the service clock so expiry follows it (tests move it).
    const now = this.options.clock.now();
    const signing = { expiresIn: this.options.urlTtlSeconds, signingDate: new Date(now) };
    const target = { Bucket: this.options.bucket, Key: input.key, ContentLength: input.contentLength };
    const url =
      input.multipartId === undefined
        ? await getSignedUrl(this.client, new PutObjectCommand(target), signing)
        : await getSignedUrl(
            this.client,
            new UploadPartCommand({ ...target, UploadId: input.multipartId, PartNumber: input.part }),
            signing,
          );
    return { url, expireTs: Math.floor(now / 1000) * 1000 + this.options.urlTtlSeconds * 1000 };
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
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.options.bucket,
        Key: input.key,
        UploadId: input.multipartId,
        MultipartUpload: {
          Parts: input.parts.map((p) => ({ PartNumber: p.part, ETag: byNumber.get(p.part)?.ETag })),
        },
      }),
    );
    return { ok: true };
  }

  async abortMultipart(input: { key: string; uploadId: string; multipartId: string }): Promise<void> {
    try {
      await this.client.send(
        new AbortMultipartUploadCommand({
          Bucket: this.options.bucket,
          Key: input.key,
          UploadId: input.multipartId,
        }),
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
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.options.bucket,
          Key: frozenKey,
          CopySource: `${this.options.bucket}/${key}`,
        }),
      );
    } catch (err) {
      if (isS3Error(err, 'NoSuchKey', 404)) return undefined;
      throw err;
    }
    await this.delete(key);
    const stored = await this.statObject(frozenKey);
    if (stored === undefined) throw new Error(`S3 lost the frozen copy ${frozenKey}`);
    return { key: frozenKey, size: stored.size };
  }

  async statObject(key: string): Promise<{ size: number } | undefined> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return { size: out.ContentLength ?? 0 };
    } catch (err) {
      if (isS3Error(err, 'NotFound', 404)) return undefined;
      throw err;
    }
  }

  async openRead(key: string): Promise<Readable | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      // On Node the SDK's body is an http.IncomingMessage (a Readable) with helper methods mixed in.
      if (out.Body instanceof Readable) return out.Body;
      if (out.Body === undefined) return undefined;
      return Readable.from(Buffer.from(await out.Body.transformToByteArray()));
    } catch (err) {
      if (isS3Error(err, 'NoSuchKey', 404)) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }

  private async listParts(key: string, multipartId: string): Promise<Part[]> {
    const parts: Part[] = [];
    let marker: string | undefined;
    // ListParts pages at 1,000 parts; a build may have up to 10,000.
    for (;;) {
      const page = await this.client.send(
        new ListPartsCommand({
          Bucket: this.options.bucket,
          Key: key,
          UploadId: multipartId,
          ...(marker === undefined ? {} : { PartNumberMarker: marker }),
        }),
      );
      parts.push(...(page.Parts ?? []));
      if (page.IsTruncated !== true || page.NextPartNumberMarker === undefined) return parts;
      marker = page.NextPartNumberMarker;
    }
  }
}

/** S3 errors carry a code name; a HEAD's 404 has no body to name it, so the status decides too. */
function isS3Error(err: unknown, name: string, status: number): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.name === name || err.$metadata.httpStatusCode === status;
}
