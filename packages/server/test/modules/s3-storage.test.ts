/**
 * Uploads through the HTTP API with S3_ENDPOINT set, against a real S3-compatible server over real HTTP:
 * s3rver (npm) by default, the throw-away Ceph RGW that GCM_TEST_S3 names in CI. The client's PUTs go to
 * the server with fetch, as the CLI's and a browser's do; what the server cannot do is skipped with the
 * reason in the test counts (test/helpers/s3-server.ts).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ListMultipartUploadsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { LightMyRequestResponse } from 'fastify';
import { ManualClock } from '../../src/lib/clock.js';
import { deleteUploadGarbage } from '../../src/modules/purge/purge.service.js';
import { recordedArchiveDigest } from '../helpers/api-world.js';
import { jpegImage } from '../helpers/images.js';
import { lacks, S3_SERVER_NAME, type S3Server, startS3Server } from '../helpers/s3-server.js';
import { createGameFixture, secondInstance, startTestService, type TestService } from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';

const MIB = 1024 * 1024;
/** S3's least part size (all but the last): the service's parts must be at least this on a real store. */
const PART = 5 * MIB;
const TTL_SECONDS = 3600;

interface Prepared {
  build_id: string;
  part_count: number;
  presigned_requests: { url: string; byte_offset: number; content_length: number }[];
}

async function put(url: string, body: Buffer): Promise<number> {
  const res = await fetch(url, { method: 'PUT', body });
  await res.arrayBuffer();
  return res.status;
}

function errorCode(res: LightMyRequestResponse): string {
  return res.json<{ code: string }>().code;
}

/** The service on the S3 server's bucket, its clock at the real time: the store judges expiry by its own. */
function startOn(server: S3Server): Promise<TestService> {
  return startTestService({
    clock: new ManualClock(Date.now()),
    env: {
      ...server.env,
      GCM_BUILD_PART_SIZE_BYTES: String(PART),
      GCM_UPLOAD_URL_TTL_SECONDS: String(TTL_SECONDS),
    },
  });
}

const server = await startS3Server();

/** A client of the test bucket with its own keys, to look at (or write to) it behind the service's back. */
function bucketClient(): S3Client {
  return new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
}

describe(`uploads with S3_ENDPOINT set, on ${S3_SERVER_NAME}`, () => {
  let svc: TestService;
  let game: Awaited<ReturnType<typeof createGameFixture>>;
  const builds = () => `/games/${game.gameId}/environments/${game.namespaceId}/builds`;

  async function prepare(name: string, length: number, multipart = false): Promise<Prepared> {
    const res = await svc.call('POST', `${builds()}/prepare`, {
      body: {
        name,
        image_file: { path: `${name}.tar`, content_length: length },
        ...(multipart ? { multipart_upload: true } : {}),
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Prepared>();
  }

  /** The build's file as the bucket holds it, read through the service's own driver. */
  /** Where the build's upload lives in the bucket: the key its URLs write, and the frozen copy once complete. */
  function keysOf(buildId: string) {
    return svc.deps.db
      .selectFrom('builds')
      .innerJoin('uploads', 'uploads.upload_id', 'builds.upload_id')
      .select(['uploads.object_key', 'uploads.frozen_key'])
      .where('builds.build_id', '=', buildId)
      .executeTakeFirstOrThrow();
  }

  async function storedBytes(buildId: string): Promise<Buffer | undefined> {
    const row = await keysOf(buildId);
    const stream = await svc.deps.blobs.openRead(row.frozen_key ?? row.object_key);
    return stream === undefined ? undefined : Buffer.concat(await stream.toArray());
  }

  before(async () => {
    svc = await startOn(server);
    game = await createGameFixture(svc, 's3-real');
  });
  after(async () => {
    await svc.close();
    await server.close();
  });

  it('avatar: prepare, PUT to the bucket, complete checks the bytes, served from the bucket', async () => {
    const bytes = jpegImage(2048);
    const res = await svc.call('POST', `/cloud/games/${game.gameId}/prepare`, {
      body: { path: 'a.jpg', content_length: 2048 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const { upload_id, presigned_request } = res.json<{
      upload_id: string;
      presigned_request: { url: string };
    }>();
    const url = presigned_request.url;
    assert.ok(url.startsWith(`${server.endpoint}/${server.bucket}/avatar/${game.gameId}/${upload_id}?`), url);
    const complete = () =>
      svc.call('POST', `/cloud/games/${game.gameId}/avatar-upload/${upload_id}/complete`);
    assert.equal(errorCode(await complete()), 'UPLOAD_INCOMPLETE');
    assert.equal(await put(url, Buffer.from('not an image'.padEnd(2048))), 200);
    const refused = await complete();
    assert.equal(refused.statusCode, 400);
    assert.equal(errorCode(refused), 'UPLOAD_INVALID_CONTENT');
    assert.equal(await put(url, bytes), 200);
    assert.equal((await complete()).statusCode, 204);
    const served = await svc.call('GET', `/avatars/${upload_id}`, { token: null });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/jpeg');
    assert.deepEqual(served.rawPayload, bytes);
  });

  it('build: one PUT of the signed length, completed and listed', async () => {
    const bytes = randomBytes(100_000);
    const prepared = await prepare('single', bytes.length);
    assert.equal(prepared.part_count, 1);
    const [request] = prepared.presigned_requests;
    assert.ok(request !== undefined);
    assert.equal(await put(request.url, bytes), 200);
    const done = await svc.call('POST', `${builds()}/${prepared.build_id}/complete`);
    assert.equal(done.statusCode, 204, done.body);
    const got = await svc.call('GET', `${builds()}/${prepared.build_id}`);
    assert.equal(got.statusCode, 200, got.body);
    assert.deepEqual(await storedBytes(prepared.build_id), bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    assert.equal(await recordedArchiveDigest(svc, prepared.build_id), sha256, 'read back from the bucket');
  });

  it('refuses an expired URL (the store judges it)', async () => {
    svc.clock.advance(-(TTL_SECONDS + 1) * 1000);
    const prepared = await prepare('expired', 10);
    svc.clock.advance((TTL_SECONDS + 1) * 1000);
    assert.equal(await put(prepared.presigned_requests[0]?.url ?? '', randomBytes(10)), 403);
    const done = await svc.call('POST', `${builds()}/${prepared.build_id}/complete`);
    assert.equal(errorCode(done), 'UPLOAD_INCOMPLETE');
  });

  it('refuses a body of another length and a tampered signature', {
    skip: lacks(server, 'verifiesSignatures'),
  }, async () => {
    const prepared = await prepare('tampered', 1000);
    const url = prepared.presigned_requests[0]?.url ?? '';
    assert.equal(await put(url, randomBytes(999)), 403);
    assert.equal(await put(url, randomBytes(1001)), 403);
    const signature = new URL(url).searchParams.get('X-Amz-Signature') ?? '';
    const edited = new URL(url);
    edited.searchParams.set(
      'X-Amz-Signature',
      `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`,
    );
    assert.equal(await put(edited.toString(), randomBytes(1000)), 403);
    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    assert.equal(await put(longer.toString(), randomBytes(1000)), 403);
    assert.equal(
      errorCode(await svc.call('POST', `${builds()}/${prepared.build_id}/complete`)),
      'UPLOAD_INCOMPLETE',
    );
  });

  it('multipart part URLs name the part and the multipart upload', async () => {
    const prepared = await prepare('part-urls', PART + 10, true);
    assert.equal(prepared.part_count, 2);
    const ids = prepared.presigned_requests.map((r, i) => {
      const query = new URL(r.url).searchParams;
      assert.equal(query.get('partNumber'), String(i + 1), r.url);
      return query.get('uploadId');
    });
    assert.ok(ids[0], 'a multipart upload id');
    assert.equal(ids[1], ids[0]);
  });

  it('refuses at complete a file of another length than prepared (a store that let it through)', async () => {
    const prepared = await prepare('other-length', 1000);
    const { object_key } = await keysOf(prepared.build_id);
    // Written with the bucket's own keys: no presigned URL would take these bytes on a store that checks.
    await bucketClient().send(
      new PutObjectCommand({ Bucket: server.bucket, Key: object_key, Body: randomBytes(999) }),
    );
    const refused = await svc.call('POST', `${builds()}/${prepared.build_id}/complete`);
    assert.equal(refused.statusCode, 400, refused.body);
    const body = refused.json<{ code: string; message: string; metadata: { parts: number[] } }>();
    assert.equal(body.code, 'UPLOAD_INCOMPLETE');
    assert.match(body.message, /^the file has not been uploaded in full yet/);
    assert.deepEqual(body.metadata.parts, [1]);
    assert.equal(await put(prepared.presigned_requests[0]?.url ?? '', randomBytes(1000)), 200);
    assert.equal((await svc.call('POST', `${builds()}/${prepared.build_id}/complete`)).statusCode, 204);
  });

  it('build: multipart parts PUT in random order; complete names the missing ones until all are in', {
    skip: lacks(server, 'listParts'),
  }, async () => {
    const file = randomBytes(2 * PART + 1234);
    const prepared = await prepare('multi', file.length, true);
    assert.equal(prepared.part_count, 3);
    const order = [2, 0, 1];
    const complete = () => svc.call('POST', `${builds()}/${prepared.build_id}/complete`);
    for (const [i, index] of order.entries()) {
      const r = prepared.presigned_requests[index];
      assert.ok(r !== undefined);
      assert.equal(await put(r.url, file.subarray(r.byte_offset, r.byte_offset + r.content_length)), 200);
      if (i === 1) {
        const early = await complete();
        assert.equal(early.statusCode, 400);
        assert.equal(errorCode(early), 'UPLOAD_INCOMPLETE');
        assert.deepEqual(early.json<{ metadata: { parts: number[] } }>().metadata.parts, [2]);
      }
    }
    assert.equal((await complete()).statusCode, 204);
    assert.equal((await complete()).statusCode, 204, 'a retried complete');
    assert.deepEqual(await storedBytes(prepared.build_id), file);
    const sha256 = createHash('sha256').update(file).digest('hex');
    assert.equal(await recordedArchiveDigest(svc, prepared.build_id), sha256, 'of the joined object');
  });

  it('collects an abandoned multipart build: rows and parts gone from the bucket', {
    skip: lacks(server, 'abortMultipart'),
  }, async () => {
    const file = randomBytes(PART + 10);
    const prepared = await prepare('abandoned', file.length, true);
    const first = prepared.presigned_requests[0];
    assert.ok(first !== undefined);
    assert.equal(await put(first.url, file.subarray(0, first.content_length)), 200);
    const client = bucketClient();
    const { object_key: key } = await keysOf(prepared.build_id);
    const pending = async () =>
      ((await client.send(new ListMultipartUploadsCommand({ Bucket: server.bucket }))).Uploads ?? []).filter(
        (u) => u.Key === key,
      ).length;
    assert.equal(await pending(), 1);
    svc.clock.advance((TTL_SECONDS + 25 * 3600) * 1000);
    try {
      assert.ok((await deleteUploadGarbage(svc.deps)) >= 1);
    } finally {
      svc.clock.advance(-(TTL_SECONDS + 25 * 3600) * 1000);
    }
    assert.equal((await svc.call('GET', `${builds()}/${prepared.build_id}`)).statusCode, 404);
    assert.equal(await pending(), 0, 'the multipart upload was aborted');
    client.destroy();
  });
});

describe('two instances on PostgreSQL sharing one bucket', {
  ...pgOnly,
}, () => {
  it('completes on one instance a build prepared and uploaded through the other', async () => {
    const shared = await startS3Server();
    const a = await startOn(shared);
    const b = await secondInstance(a, shared.env);
    try {
      const game = await createGameFixture(a, 'two-s3');
      const base = `/games/${game.gameId}/environments/${game.namespaceId}/builds`;
      const bytes = randomBytes(64_000);
      const prepared = await a.call('POST', `${base}/prepare`, {
        body: { name: 'shared', image_file: { path: 'shared.tar', content_length: bytes.length } },
      });
      assert.equal(prepared.statusCode, 200, prepared.body);
      const { build_id, presigned_requests } = prepared.json<Prepared>();
      assert.equal(await put(presigned_requests[0]?.url ?? '', bytes), 200);
      const done = await b.call('POST', `${base}/${build_id}/complete`);
      assert.equal(done.statusCode, 204, done.body);
      const listed = await a.call('GET', `${base}/${build_id}`);
      assert.equal(listed.statusCode, 200, listed.body);
    } finally {
      await b.close();
      await a.close();
      await shared.close();
    }
  });
});
