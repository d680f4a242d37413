import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { type BlobStorage, splitIntoParts } from '../../src/lib/blob/blob-storage.js';
import { EmbeddedBlobStorage, STALE_TEMP_MS } from '../../src/lib/blob/embedded-blob-storage.js';
import { S3BlobStorage } from '../../src/lib/blob/s3-blob-storage.js';
import { ManualClock } from '../../src/lib/clock.js';
import { FakeS3 } from '../helpers/fake-s3.js';
import { lacks, S3_SERVER_NAME, type S3Server, startS3Server } from '../helpers/s3-server.js';

const TTL_SECONDS = 3600;

interface PutTarget {
  key: string;
  uploadId: string;
  part: number;
  multipart: boolean;
}

/** One driver with what a client does with its presigned URLs; the contract below runs on each. */
interface Harness {
  storage: BlobStorage;
  clock: ManualClock;
  /** PUTs `body` to the URL as a client would; 200 when accepted, 4xx when refused. */
  put(url: string, body: Buffer, target: PutTarget): Promise<number>;
  /** GETs a presigned download URL as a browser would; undefined where the harness cannot (mocked S3). */
  get?(
    url: string,
  ): Promise<{ status: number; type?: string | null; disposition?: string | null; body: Buffer }>;
  /** Multipart part size for the contract's cases: a real store refuses parts under 5 MiB but the last. */
  partSize: number;
  /** The real server behind the driver, if any: cases it cannot run say so (lacks) rather than pass. */
  server?: S3Server;
  close(): void | Promise<void>;
}

async function embeddedHarness(): Promise<Harness & { root: string; storage: EmbeddedBlobStorage }> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gcm-blobs-'));
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00.000Z'));
  const storage = await EmbeddedBlobStorage.open({
    root,
    publicUrl: 'http://gcm.test',
    secret: randomBytes(32),
    clock,
    urlTtlSeconds: TTL_SECONDS,
  });
  return {
    root,
    storage,
    clock,
    // What the service's PUT route does with the URL (the route itself is tested over HTTP elsewhere).
    async put(url, body, target) {
      const u = new URL(url);
      const check = storage.checkPutUrl({
        uploadId: decodeURIComponent(u.pathname.split('/')[2] ?? ''),
        part: Number(u.pathname.split('/')[4]),
        length: Number(u.searchParams.get('length')),
        expires: Number(u.searchParams.get('expires')),
        sig: u.searchParams.get('sig') ?? '',
      });
      if (check !== 'ok') return 403;
      const length = Number(u.searchParams.get('length'));
      const result = await storage.writePart(target, length, Readable.from([body]));
      if (result.ok) return 200;
      return result.reason === 'closed' ? 409 : 400;
    },
    // What the service's download route does (tested over HTTP in uploads.test.ts).
    async get(url) {
      const u = new URL(url);
      const check = storage.checkGetUrl({
        key: u.searchParams.get('key') ?? '',
        filename: decodeURIComponent(u.pathname.split('/')[2] ?? ''),
        contentType: u.searchParams.get('type') ?? '',
        expires: Number(u.searchParams.get('expires')),
        sig: u.searchParams.get('sig') ?? '',
      });
      if (check !== 'ok') return { status: 403, body: Buffer.alloc(0) };
      const stream = await storage.openRead(u.searchParams.get('key') ?? '');
      if (stream === undefined) return { status: 404, body: Buffer.alloc(0) };
      return { status: 200, body: await collect(stream) };
    },
    partSize: 1000,
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}

function s3Harness(): Harness & { fake: FakeS3 } {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00.000Z'));
  const credentials = { accessKeyId: 'AKTEST', secretAccessKey: 'secret-test-key', region: 'us-east-1' };
  const fake = new FakeS3({ bucket: 'gcm-test', ...credentials, clock });
  const storage = new S3BlobStorage({
    endpoint: 'http://s3.test:9000',
    bucket: 'gcm-test',
    ...credentials,
    forcePathStyle: true,
    clock,
    urlTtlSeconds: TTL_SECONDS,
    timeoutMs: 10_000,
    requestHandler: fake.requestHandler,
  });
  return {
    fake,
    storage,
    clock,
    async put(url, body) {
      return fake.clientPut(url, body).status;
    },
    partSize: 1000,
    close: () => {},
  };
}

/**
 * The S3 driver against a real server (s3rver here; the Ceph RGW that GCM_TEST_S3 names in CI), over real
 * HTTP: the client PUTs with fetch as a browser or the CLI would. The clock starts at the real time, since
 * the server judges a URL's expiry by its own.
 */
async function realS3HarnessOn(server: S3Server): Promise<Harness> {
  const clock = new ManualClock(Date.now());
  const storage = new S3BlobStorage({
    endpoint: server.endpoint,
    bucket: server.bucket,
    region: server.region,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
    clock,
    urlTtlSeconds: TTL_SECONDS,
    timeoutMs: 10_000,
  });
  return {
    storage,
    clock,
    server,
    async put(url, body) {
      const res = await fetch(url, { method: 'PUT', body });
      await res.arrayBuffer();
      return res.status;
    },
    async get(url) {
      const res = await fetch(url);
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        disposition: res.headers.get('content-disposition'),
        body: Buffer.from(await res.arrayBuffer()),
      };
    },
    partSize: 5 * 1024 * 1024,
    close: () => server.close(),
  };
}

function blobContract(
  name: string,
  makeHarness: () => Promise<Harness> | Harness,
  server?: S3Server | (() => S3Server | undefined),
): void {
  describe(`BlobStorage contract: ${name}`, () => {
    let h: Harness;
    // Known before the harness starts: node:test reads a case's skip when the case is declared.
    const real = typeof server === 'function' ? server() : server;
    let n = 0;
    // Each case gets its own upload id and key, so cases never see each other's objects.
    const fresh = () => {
      n += 1;
      const uploadId = `0190f000-0000-7000-8000-${String(n).padStart(12, '0')}`;
      return { uploadId, key: `test/${uploadId}` };
    };
    before(async () => {
      h = await makeHarness();
    });
    after(() => h.close());

    it('stores a single PUT of the signed length and serves it back', async () => {
      const { uploadId, key } = fresh();
      const bytes = randomBytes(1000);
      const { url, expireTs } = await h.storage.presignPut({ key, uploadId, part: 1, contentLength: 1000 });
      assert.match(url, /^https?:\/\//);
      assert.ok(Math.abs(expireTs - (h.clock.now() + TTL_SECONDS * 1000)) < 1000, 'expires after the TTL');
      assert.equal(await h.storage.statObject(key), undefined);
      assert.equal(await h.put(url, bytes, { key, uploadId, part: 1, multipart: false }), 200);
      assert.deepEqual(await h.storage.statObject(key), { size: 1000 });
      const stream = await h.storage.openRead(key);
      assert.ok(stream);
      assert.deepEqual(await collect(stream), bytes);
      await h.storage.delete(key);
      assert.equal(await h.storage.statObject(key), undefined);
      await h.storage.delete(key);
    });

    it("stores the service's own object, replaces it whole, and deletes it", async () => {
      const { key } = fresh();
      const first = randomBytes(70_000);
      await h.storage.putObject(key, first);
      assert.deepEqual(await h.storage.statObject(key), { size: first.length });
      assert.deepEqual(await collect((await h.storage.openRead(key)) as Readable), first);
      const second = randomBytes(10);
      await h.storage.putObject(key, second);
      assert.deepEqual(await collect((await h.storage.openRead(key)) as Readable), second);
      await h.storage.delete(key);
      assert.equal(await h.storage.statObject(key), undefined);
    });

    it('serves an object to a presigned GET URL until it expires, named and typed as signed', async () => {
      const { key } = fresh();
      const bytes = Buffer.from('lobby_id,exit_code\n1,0\n');
      await h.storage.putObject(key, bytes);
      const { url, expireTs } = await h.storage.presignGet({
        key,
        filename: 'lobby-history.csv',
        contentType: 'text/csv',
        ttlSeconds: 60,
      });
      assert.ok(Math.abs(expireTs - (h.clock.now() + 60_000)) < 1000, 'expires after the given TTL');
      const q = new URL(url).searchParams;
      if (h.storage.driver === 's3') {
        assert.equal(q.get('response-content-disposition'), 'attachment; filename="lobby-history.csv"');
        assert.equal(q.get('response-content-type'), 'text/csv');
        assert.equal(q.get('X-Amz-Expires'), '60');
      }
      if (h.get === undefined) return;
      const got = await h.get(url);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, bytes);
      if (got.type !== undefined) assert.match(got.type ?? '', /^text\/csv/);
      if (got.disposition !== undefined) {
        assert.equal(got.disposition, 'attachment; filename="lobby-history.csv"');
      }
      await h.storage.delete(key);
      assert.equal((await h.get(url)).status, 404, 'a deleted object');
    });

    it('refuses a presigned GET URL that was edited or has expired', {
      skip: lacks(real, 'verifiesSignatures'),
    }, async (t) => {
      const get = h.get;
      if (get === undefined) return t.skip('the mocked transport serves no GETs');
      const { key } = fresh();
      await h.storage.putObject(key, Buffer.from('x'));
      const other = fresh().key;
      await h.storage.putObject(other, Buffer.from('secret'));
      const { url } = await h.storage.presignGet({ key, filename: 'a.csv', contentType: 'text/csv' });
      const edited = (param: string, value: string) => {
        const u = new URL(url);
        u.searchParams.set(param, value);
        return u.toString();
      };
      const edits =
        h.storage.driver === 's3'
          ? [edited('response-content-type', 'text/html'), edited('X-Amz-Expires', '604800')]
          : [
              edited('key', other),
              edited('type', 'text/html'),
              edited('expires', '99999999999'),
              url.replace('/a.csv', '/b.csv'),
            ];
      for (const u of edits) assert.equal((await get(u)).status, 403, u);
      // A real store judges expiry by its own clock: sign as long ago as the lifetime and a second.
      h.clock.advance(-(TTL_SECONDS + 1) * 1000);
      const old = await h.storage.presignGet({ key, filename: 'a.csv', contentType: 'text/csv' });
      h.clock.advance((TTL_SECONDS + 1) * 1000);
      assert.equal((await get(old.url)).status, 403, 'expired');
      await h.storage.delete(key);
      await h.storage.delete(other);
    });

    it('knows nothing of keys never written', async () => {
      const { key } = fresh();
      assert.equal(await h.storage.statObject(key), undefined);
      assert.equal(await h.storage.openRead(key), undefined);
    });

    it('refuses a body shorter or longer than signed, and stores nothing', {
      skip: lacks(real, 'verifiesSignatures'),
    }, async () => {
      const { uploadId, key } = fresh();
      const { url } = await h.storage.presignPut({ key, uploadId, part: 1, contentLength: 100 });
      const target = { key, uploadId, part: 1, multipart: false };
      assert.ok((await h.put(url, randomBytes(99), target)) >= 400);
      assert.ok((await h.put(url, randomBytes(101), target)) >= 400);
      assert.equal(await h.storage.statObject(key), undefined);
    });

    it('refuses a URL whose query was edited', { skip: lacks(real, 'verifiesSignatures') }, async () => {
      const { uploadId, key } = fresh();
      const { url } = await h.storage.presignPut({ key, uploadId, part: 1, contentLength: 100 });
      const target = { key, uploadId, part: 1, multipart: false };
      const flip = (text: string) => `${text.slice(0, -1)}${text.endsWith('0') ? '1' : '0'}`;
      const given = new URL(url).searchParams;
      // Each driver's own parameters: the embedded store's length, expires and sig; SigV4's.
      const edits = (
        [
          ['length', '101'],
          ['expires', '99999999999'],
          ['sig', flip(given.get('sig') ?? '')],
          // One character short: a signature of another length must be refused, not crash the comparison.
          ['sig', (given.get('sig') ?? '').slice(0, -1)],
          ['X-Amz-Expires', '604800'],
          ['X-Amz-Signature', flip(given.get('X-Amz-Signature') ?? '')],
          ['X-Amz-Signature', (given.get('X-Amz-Signature') ?? '').slice(0, -1)],
        ] as const
      ).filter(([param]) => given.has(param));
      assert.equal(
        edits.length,
        h.storage.driver === 's3' ? 3 : 4,
        "the URL carries its driver's parameters",
      );
      for (const [param, value] of edits) {
        const edited = new URL(url);
        edited.searchParams.set(param, value);
        assert.equal(await h.put(edited.toString(), randomBytes(100), target), 403, param);
      }
      assert.equal(await h.storage.statObject(key), undefined);
    });

    it('refuses a URL after it expires', async () => {
      const { uploadId, key } = fresh();
      // Signed as long ago as its lifetime and a second: a real store judges expiry by its own clock.
      h.clock.advance(-(TTL_SECONDS + 1) * 1000);
      const { url } = await h.storage.presignPut({ key, uploadId, part: 1, contentLength: 10 });
      h.clock.advance((TTL_SECONDS + 1) * 1000);
      assert.equal(await h.put(url, randomBytes(10), { key, uploadId, part: 1, multipart: false }), 403);
      assert.equal(await h.storage.statObject(key), undefined);
    });

    it('freezes an object: moved to a key no URL names, which no later PUT changes', async () => {
      const { uploadId, key } = fresh();
      const bytes = randomBytes(300);
      const { url } = await h.storage.presignPut({ key, uploadId, part: 1, contentLength: 300 });
      const target = { key, uploadId, part: 1, multipart: false };
      assert.equal(await h.storage.freeze(key), undefined, 'nothing to freeze before the PUT');
      assert.equal(await h.put(url, bytes, target), 200);
      const frozen = await h.storage.freeze(key);
      assert.ok(frozen);
      assert.equal(frozen.size, 300);
      assert.ok(frozen.key.startsWith(`frozen/${key}/`), frozen.key);
      assert.equal(await h.storage.statObject(key), undefined, 'moved, not copied');
      await assert.rejects(
        h.storage.presignPut({ key: frozen.key, uploadId, part: 1, contentLength: 300 }),
        /frozen copy/,
      );
      // The embedded store refuses the PUT (409); a bucket takes it, but not into the frozen copy.
      const late = await h.put(url, randomBytes(300), target);
      assert.ok(late === 409 || (late === 200 && h.storage.driver === 's3'), String(late));
      const stream = await h.storage.openRead(frozen.key);
      assert.ok(stream);
      assert.deepEqual(await collect(stream), bytes);
      // Dropping the frozen copy (a refused file) opens the upload to PUTs again.
      await h.storage.delete(frozen.key);
      assert.equal(await h.put(url, bytes, target), 200);
      assert.deepEqual(await h.storage.statObject(key), { size: 300 });
    });

    it('joins multipart parts PUT in any order, once every part has its length', {
      skip: lacks(real, 'listParts'),
    }, async () => {
      const { uploadId, key } = fresh();
      const size = h.partSize;
      const file = randomBytes(2 * size + 500);
      const parts = splitIntoParts(file.length, size);
      assert.deepEqual(
        parts.map((p) => [p.part, p.byteOffset, p.contentLength]),
        [
          [1, 0, size],
          [2, size, size],
          [3, 2 * size, 500],
        ],
      );
      const { multipartId } = await h.storage.createMultipart({ key, uploadId });
      const urls = await Promise.all(
        parts.map((p) =>
          h.storage.presignPut({ key, uploadId, part: p.part, multipartId, contentLength: p.contentLength }),
        ),
      );
      const expected = parts.map((p) => ({ part: p.part, contentLength: p.contentLength }));
      const putPart = (i: number) => {
        const p = parts[i];
        const u = urls[i];
        assert.ok(p && u);
        const body = file.subarray(p.byteOffset, p.byteOffset + p.contentLength);
        return h.put(u.url, body, { key, uploadId, part: p.part, multipart: true });
      };
      assert.equal(await putPart(2), 200);
      assert.equal(await putPart(0), 200);
      const early = await h.storage.completeMultipart({ key, uploadId, multipartId, parts: expected });
      assert.deepEqual(early, { ok: false, badParts: [2] });
      assert.equal(await h.storage.statObject(key), undefined, 'nothing is visible before every part is in');
      assert.equal(await putPart(1), 200);
      assert.deepEqual(await h.storage.completeMultipart({ key, uploadId, multipartId, parts: expected }), {
        ok: true,
      });
      assert.deepEqual(await h.storage.statObject(key), { size: file.length });
      const stream = await h.storage.openRead(key);
      assert.ok(stream);
      assert.deepEqual(await collect(stream), file);
      // A retried complete (its answer was lost) succeeds again.
      assert.deepEqual(await h.storage.completeMultipart({ key, uploadId, multipartId, parts: expected }), {
        ok: true,
      });
      // A part PUT after the join does not reach the joined object.
      assert.ok((await putPart(0)) >= 400);
      const after = await h.storage.openRead(key);
      assert.ok(after);
      assert.deepEqual(await collect(after), file);
      // Aborting a joined upload (a clean-up racing its complete) leaves the object alone.
      await h.storage.abortMultipart({ key, uploadId, multipartId });
      assert.deepEqual(await h.storage.statObject(key), { size: file.length });
    });

    it('aborts a multipart upload: its parts are gone, and aborting again is no error', {
      skip: lacks(real, 'abortMultipart'),
    }, async () => {
      const { uploadId, key } = fresh();
      const parts = splitIntoParts(h.partSize + 1000, h.partSize);
      const { multipartId } = await h.storage.createMultipart({ key, uploadId });
      for (const p of parts) {
        const { url } = await h.storage.presignPut({
          key,
          uploadId,
          part: p.part,
          multipartId,
          contentLength: p.contentLength,
        });
        assert.equal(
          await h.put(url, randomBytes(p.contentLength), { key, uploadId, part: p.part, multipart: true }),
          200,
        );
      }
      await h.storage.abortMultipart({ key, uploadId, multipartId });
      await h.storage.abortMultipart({ key, uploadId, multipartId });
      const expected = parts.map((p) => ({ part: p.part, contentLength: p.contentLength }));
      assert.deepEqual(await h.storage.completeMultipart({ key, uploadId, multipartId, parts: expected }), {
        ok: false,
        badParts: [1, 2],
      });
      assert.equal(await h.storage.statObject(key), undefined);
    });
  });
}

blobContract('embedded (files under the data dir)', embeddedHarness);
blobContract('S3 (SDK over a mocked transport)', s3Harness);
{
  // The server is started once for the whole contract and its capabilities read before the cases exist.
  const server = await startS3Server();
  blobContract(
    `S3 (SDK over real HTTP to ${S3_SERVER_NAME})`,
    async () => ({ ...(await realS3HarnessOn(server)) }),
    server,
  );
}

describe('S3 driver presigned URLs', () => {
  it('sign the content length and expire after the TTL, with no checksum of an empty body', async () => {
    const h = s3Harness();
    const { url } = await h.storage.presignPut({
      key: 'avatar/g/u',
      uploadId: 'u',
      part: 1,
      contentLength: 1234,
    });
    const q = new URL(url).searchParams;
    assert.equal(new URL(url).pathname, '/gcm-test/avatar/g/u');
    assert.match(q.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
    assert.deepEqual((q.get('X-Amz-SignedHeaders') ?? '').split(';').sort(), ['content-length', 'host']);
    assert.equal(q.get('X-Amz-Expires'), String(TTL_SECONDS));
    assert.equal(q.get('X-Amz-Date'), '20260101T000000Z', 'signed at the service clock');
    assert.equal(q.get('x-amz-checksum-crc32'), null);
    const part = await h.storage.presignPut({
      key: 'build/g/u',
      uploadId: 'u',
      part: 7,
      multipartId: 'mp-1',
      contentLength: 5,
    });
    const pq = new URL(part.url).searchParams;
    assert.equal(pq.get('partNumber'), '7');
    assert.equal(pq.get('uploadId'), 'mp-1');
    assert.ok((pq.get('X-Amz-SignedHeaders') ?? '').split(';').includes('content-length'));
  });

  it('checks the parts with ListParts and completes with their ETags', async () => {
    const h = s3Harness();
    const { multipartId } = await h.storage.createMultipart({ key: 'build/g/m', uploadId: 'm' });
    const { url } = await h.storage.presignPut({
      key: 'build/g/m',
      uploadId: 'm',
      part: 1,
      multipartId,
      contentLength: 3,
    });
    assert.equal(h.fake.clientPut(url, Buffer.from('abc')).status, 200);
    const parts = [{ part: 1, contentLength: 3 }];
    assert.deepEqual(
      await h.storage.completeMultipart({ key: 'build/g/m', uploadId: 'm', multipartId, parts }),
      {
        ok: true,
      },
    );
    assert.ok(h.fake.calls.some((c) => c.startsWith('GET /gcm-test/build/g/m?') && c.includes('uploadId')));
    assert.ok(h.fake.calls.some((c) => c.startsWith('POST /gcm-test/build/g/m?') && c.includes('uploadId')));
    assert.equal(h.fake.objects.get('build/g/m')?.toString(), 'abc');
  });
});

describe('embedded driver', () => {
  it('keeps no temp file and no object when the client hangs up mid-body', async () => {
    const h = await embeddedHarness();
    try {
      const body = new Readable({ read() {} });
      body.push(randomBytes(10));
      const writing = h.storage.writePart(
        { key: 'k/torn', uploadId: 'torn', part: 1, multipart: false },
        100,
        body,
      );
      setImmediate(() => body.destroy(new Error('aborted')));
      assert.deepEqual(await writing, { ok: false, reason: 'length', received: 10 });
      assert.equal(await h.storage.statObject('k/torn'), undefined);
      assert.deepEqual(readdirSync(path.join(h.root, 'tmp')), []);
    } finally {
      h.close();
    }
  });

  it('sweeps temp files left untouched for 10 minutes at start-up, and keeps newer ones', async () => {
    const h = await embeddedHarness();
    try {
      const tmp = path.join(h.root, 'tmp');
      writeFileSync(path.join(tmp, 'killed-put'), 'x');
      const old = (Date.now() - STALE_TEMP_MS - 60_000) / 1000;
      utimesSync(path.join(tmp, 'killed-put'), old, old);
      writeFileSync(path.join(tmp, 'live-put'), 'x');
      await EmbeddedBlobStorage.open({
        root: h.root,
        publicUrl: 'http://gcm.test',
        secret: randomBytes(32),
        clock: h.clock,
        urlTtlSeconds: TTL_SECONDS,
      });
      assert.deepEqual(readdirSync(tmp), ['live-put']);
    } finally {
      h.close();
    }
  });

  it('refuses keys that could leave its directory', async () => {
    const h = await embeddedHarness();
    try {
      for (const key of ['../x', 'a/../../x', '/abs', 'a//b', 'a/./b', '']) {
        await assert.rejects(h.storage.statObject(key), /invalid blob key/, key);
      }
    } finally {
      h.close();
    }
  });
});

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
