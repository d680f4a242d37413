import { createHash, createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Clock } from '../../src/lib/clock.js';

/**
 * An in-memory S3 for tests, in two halves:
 * - `requestHandler` is the S3Client's transport: it answers the SDK's own calls (HeadObject, GetObject,
 *   CopyObject, CreateMultipartUpload, ListParts, CompleteMultipartUpload, DeleteObject) without a network;
 * - `clientPut` is what a client does with a presigned URL. It checks the URL the way S3 does: SigV4 query
 *   signature over the method, path, query and signed headers (so a body of another content-length, or any
 *   edited parameter, is refused), and expiry against the test clock.
 * No S3 server can run where these tests run; this is the stand-in, so it follows S3's documented
 * behaviour only as far as the driver uses it.
 */
export class FakeS3 {
  readonly objects = new Map<string, Buffer>();
  private readonly multiparts = new Map<string, { key: string; parts: Map<number, Buffer> }>();
  private nextUploadId = 1;
  /** Every SDK call, as "METHOD /bucket/key?query-keys", for assertions. */
  readonly calls: string[] = [];

  constructor(
    readonly options: {
      bucket: string;
      accessKeyId: string;
      secretAccessKey: string;
      region: string;
      clock: Clock;
    },
  ) {}

  /** Pass as S3ClientConfig.requestHandler. */
  readonly requestHandler = {
    handle: async (request: SdkRequest) => ({ response: this.answer(request) }),
    updateHttpClientConfig: () => {},
    httpHandlerConfigs: () => ({}),
    destroy: () => {},
  };

  /** A client's PUT of `body` to a presigned URL; the status S3 would answer. */
  clientPut(presignedUrl: string, body: Buffer): { status: number; error?: string } {
    const url = new URL(presignedUrl);
    const query = url.searchParams;
    const check = this.verifyPresigned(url, 'PUT', { host: url.host, 'content-length': String(body.length) });
    if (check !== undefined) return { status: 403, error: check };
    const key = this.keyOf(url.pathname);
    if (key === undefined) return { status: 404, error: 'NoSuchBucket' };
    const uploadId = query.get('uploadId');
    if (uploadId === null) {
      this.objects.set(key, Buffer.from(body));
      return { status: 200 };
    }
    const upload = this.multiparts.get(uploadId);
    if (upload === undefined || upload.key !== key) return { status: 404, error: 'NoSuchUpload' };
    upload.parts.set(Number(query.get('partNumber')), Buffer.from(body));
    return { status: 200 };
  }

  private verifyPresigned(url: URL, method: string, headers: Record<string, string>): string | undefined {
    const q = url.searchParams;
    const signature = q.get('X-Amz-Signature');
    const signedHeaders = q.get('X-Amz-SignedHeaders');
    const amzDate = q.get('X-Amz-Date');
    const expires = Number(q.get('X-Amz-Expires'));
    const credential = q.get('X-Amz-Credential');
    if (signature === null || signedHeaders === null || amzDate === null || credential === null) {
      return 'AccessDenied: not a presigned URL';
    }
    const [accessKeyId, date, region, service] = credential.split('/');
    if (accessKeyId !== this.options.accessKeyId || region !== this.options.region || service !== 's3') {
      return 'InvalidAccessKeyId';
    }
    const canonicalQuery = [...q.entries()]
      .filter(([k]) => k !== 'X-Amz-Signature')
      .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
      .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const names = signedHeaders.split(';');
    const canonicalHeaders = names.map((n) => `${n}:${(headers[n] ?? '').trim()}\n`).join('');
    const canonicalRequest = [
      method,
      url.pathname,
      canonicalQuery,
      canonicalHeaders,
      signedHeaders,
      'UNSIGNED-PAYLOAD',
    ].join('\n');
    const scope = `${date}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
    let key: Buffer = hmac(`AWS4${this.options.secretAccessKey}`, date ?? '');
    for (const part of [region ?? '', 's3', 'aws4_request']) key = hmac(key, part);
    if (hmac(key, stringToSign).toString('hex') !== signature) return 'SignatureDoesNotMatch';
    const signedAt = Date.parse(
      amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
    );
    if (this.options.clock.now() > signedAt + expires * 1000) return 'AccessDenied: Request has expired';
    return undefined;
  }

  private answer(request: SdkRequest): SdkResponse {
    const key = this.keyOf(request.path);
    const query = request.query ?? {};
    this.calls.push(`${request.method} ${request.path}?${Object.keys(query).sort().join('&')}`);
    if (key === undefined) return xmlError(404, 'NoSuchBucket');
    const uploadId = typeof query.uploadId === 'string' ? query.uploadId : undefined;
    switch (request.method) {
      case 'HEAD': {
        const object = this.objects.get(key);
        if (object === undefined) return { statusCode: 404, headers: {}, body: Readable.from([]) };
        return {
          statusCode: 200,
          headers: { 'content-length': String(object.length) },
          body: Readable.from([]),
        };
      }
      case 'GET': {
        if (uploadId !== undefined) return this.listParts(key, uploadId);
        const object = this.objects.get(key);
        if (object === undefined) return xmlError(404, 'NoSuchKey');
        return {
          statusCode: 200,
          headers: { 'content-length': String(object.length) },
          body: Readable.from([object]),
        };
      }
      case 'POST': {
        if ('uploads' in query) {
          const id = `mp-${this.nextUploadId++}`;
          this.multiparts.set(id, { key, parts: new Map() });
          return xml(
            `<InitiateMultipartUploadResult><Bucket>${this.options.bucket}</Bucket><Key>${key}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
          );
        }
        if (uploadId !== undefined) return this.completeMultipart(key, uploadId, bodyText(request.body));
        return xmlError(400, 'InvalidRequest');
      }
      case 'PUT': {
        // The service itself copies (CopyObject) and writes its own objects (PutObject); clients' PUTs
        // come through clientPut.
        const source = request.headers['x-amz-copy-source'];
        if (source === undefined) {
          if (!(request.body instanceof Uint8Array)) return xmlError(400, 'InvalidRequest');
          const object = Buffer.from(request.body);
          this.objects.set(key, object);
          return { statusCode: 200, headers: { etag: `"${etag(object)}"` }, body: Readable.from([]) };
        }
        const sourceKey = this.keyOf(`/${decodeURIComponent(source).replace(/^\//, '')}`);
        const object = sourceKey === undefined ? undefined : this.objects.get(sourceKey);
        if (object === undefined) return xmlError(404, 'NoSuchKey');
        this.objects.set(key, Buffer.from(object));
        return xml(
          `<CopyObjectResult><ETag>"${etag(object)}"</ETag><LastModified>2026-01-01T00:00:00.000Z</LastModified></CopyObjectResult>`,
        );
      }
      case 'DELETE':
        if (uploadId !== undefined) {
          const upload = this.multiparts.get(uploadId);
          if (upload === undefined || upload.key !== key) return xmlError(404, 'NoSuchUpload');
          this.multiparts.delete(uploadId);
          return { statusCode: 204, headers: {}, body: Readable.from([]) };
        }
        this.objects.delete(key);
        return { statusCode: 204, headers: {}, body: Readable.from([]) };
      default:
        return xmlError(405, 'MethodNotAllowed');
    }
  }

  private listParts(key: string, uploadId: string): SdkResponse {
    const upload = this.multiparts.get(uploadId);
    if (upload === undefined || upload.key !== key) return xmlError(404, 'NoSuchUpload');
    const parts = [...upload.parts.entries()]
      .sort(([a], [b]) => a - b)
      .map(
        ([n, bytes]) =>
          `<Part><PartNumber>${n}</PartNumber><ETag>"${etag(bytes)}"</ETag><Size>${bytes.length}</Size></Part>`,
      )
      .join('');
    return xml(
      `<ListPartsResult><Bucket>${this.options.bucket}</Bucket><Key>${key}</Key><UploadId>${uploadId}</UploadId><IsTruncated>false</IsTruncated>${parts}</ListPartsResult>`,
    );
  }

  private completeMultipart(key: string, uploadId: string, body: string): SdkResponse {
    const upload = this.multiparts.get(uploadId);
    if (upload === undefined || upload.key !== key) return xmlError(404, 'NoSuchUpload');
    const listed = [...body.matchAll(/<Part>(.*?)<\/Part>/gs)].map(([, part = '']) => ({
      n: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(part)?.[1]),
      etag: (/<ETag>([^<]*)<\/ETag>/.exec(part)?.[1] ?? '').replace(/&quot;|"/g, ''),
    }));
    if (listed.length === 0) return xmlError(400, 'MalformedXML');
    const chunks: Buffer[] = [];
    for (const [i, { n, etag: given }] of listed.entries()) {
      const bytes = upload.parts.get(n);
      if (bytes === undefined || etag(bytes) !== given) return xmlError(400, 'InvalidPart');
      if (i > 0 && n <= (listed[i - 1]?.n ?? 0)) return xmlError(400, 'InvalidPartOrder');
      chunks.push(bytes);
    }
    this.objects.set(key, Buffer.concat(chunks));
    this.multiparts.delete(uploadId);
    return xml(
      `<CompleteMultipartUploadResult><Bucket>${this.options.bucket}</Bucket><Key>${key}</Key><ETag>"done"</ETag></CompleteMultipartUploadResult>`,
    );
  }

  /** Path-style addressing: /bucket/key. */
  private keyOf(pathname: string): string | undefined {
    const prefix = `/${this.options.bucket}/`;
    return pathname.startsWith(prefix) ? decodeURIComponent(pathname.slice(prefix.length)) : undefined;
  }
}

/** The parts of the SDK's HttpRequest the fake reads. */
export interface SdkRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

interface SdkResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: Readable;
}

function xml(text: string, statusCode = 200): SdkResponse {
  const body = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>${text}`);
  return {
    statusCode,
    headers: { 'content-type': 'application/xml', 'content-length': String(body.length) },
    body: Readable.from([body]),
  };
}

function xmlError(statusCode: number, code: string): SdkResponse {
  return xml(`<Error><Code>${code}</Code><Message>${code}</Message></Error>`, statusCode);
}

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  return '';
}

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function hmac(key: string | Buffer, value: string): Buffer {
  return createHmac('sha256', key).update(value).digest();
}

function etag(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('hex');
}
