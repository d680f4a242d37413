/**
 * A blob store that fails, over real HTTP: a small S3 stand-in on loopback that answers each call with an
 * S3 error (XML body and x-amz-request-id, as S3 and its look-alikes send them), a port nothing listens on,
 * and a server that accepts connections and never answers. The service answers 502 BLOB_STORE_ERROR or 503
 * BLOB_STORE_UNAVAILABLE, never 500, and its log line names the store's request id.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ManualClock } from '../../src/lib/clock.js';
import { freePort } from '../helpers/listening.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';

const MIB = 1024 * 1024;
const BUCKET = 'gcm-failing';

interface Failure {
  status: number;
  code: string;
  requestId: string;
}

/**
 * Starts multipart uploads as S3 does (so a build can be prepared) and answers every other call with
 * `failure`, which a test changes between requests.
 */
async function startFailingS3(failure: Failure) {
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://s3.test');
      calls.push(`${req.method} ${url.pathname}?${[...url.searchParams.keys()].join('&')}`);
      res.setHeader('content-type', 'application/xml');
      if (req.method === 'POST' && url.searchParams.has('uploads')) {
        res.setHeader('x-amz-request-id', 'create-ok');
        res.end(
          '<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult>' +
            `<Bucket>${BUCKET}</Bucket><Key>${url.pathname.slice(BUCKET.length + 2)}</Key>` +
            '<UploadId>multipart-1</UploadId></InitiateMultipartUploadResult>',
        );
        return;
      }
      res.statusCode = failure.status;
      res.setHeader('x-amz-request-id', failure.requestId);
      res.setHeader('x-amz-id-2', `host-${failure.requestId}`);
      // A HEAD's answer has no body: the SDK then knows the error by its status and headers only.
      res.end(
        req.method === 'HEAD'
          ? undefined
          : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${failure.code}</Code>` +
              `<Message>refused by the test</Message><RequestId>${failure.requestId}</RequestId></Error>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    failure,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function s3Env(endpoint: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    S3_ENDPOINT: endpoint,
    S3_BUCKET: BUCKET,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'AKFAILING',
    S3_SECRET_ACCESS_KEY: 'failing-secret',
    ...extra,
  };
}

/** The service on `endpoint`, logging at info into svc.logs, with a game and namespace to upload builds to. */
async function serviceOn(endpoint: string, extra: Record<string, string> = {}) {
  const svc = await startTestService({
    clock: new ManualClock(Date.now()),
    env: s3Env(endpoint, extra),
    logLevel: 'info',
  });
  const game = await createGameFixture(svc, 'failing-store');
  const builds = `/games/${game.gameId}/environments/${game.namespaceId}/builds`;
  return { svc, builds };
}

function prepareBuild(svc: TestService, builds: string, multipart: boolean) {
  const length = multipart ? 6 * MIB : 1000;
  return svc.call('POST', `${builds}/prepare`, {
    body: {
      name: `b-${Math.random().toString(36).slice(2, 8)}`,
      image_file: { path: 'b.tar', content_length: length },
      ...(multipart ? { multipart_upload: true } : {}),
    },
  });
}

/** The answer is `status` with `code`, and the service logged it at error level with `logged` in the line. */
function assertStoreFailure(
  svc: TestService,
  res: LightMyRequestResponse,
  status: number,
  code: string,
  logged: RegExp,
): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<{ code: string; message: string; ray_id: string }>();
  assert.equal(body.code, code);
  const lines = svc.logs.filter((l) => l.ray_id === body.ray_id && l.level === 50);
  assert.equal(lines.length, 1, JSON.stringify(svc.logs.filter((l) => l.ray_id === body.ray_id)));
  assert.match(JSON.stringify(lines[0]), logged);
}

describe('a blob store that answers errors', () => {
  let store: Awaited<ReturnType<typeof startFailingS3>>;
  let svc: TestService;
  let builds: string;
  before(async () => {
    store = await startFailingS3({ status: 405, code: 'MethodNotAllowed', requestId: 'req-405-listparts' });
    ({ svc, builds } = await serviceOn(store.endpoint));
  });
  after(async () => {
    await svc.close();
    await store.close();
  });

  it('answers 502 BLOB_STORE_ERROR when ListParts is refused with 405 at complete', async () => {
    const prepared = await prepareBuild(svc, builds, true);
    assert.equal(prepared.statusCode, 200, prepared.body);
    const { build_id } = prepared.json<{ build_id: string }>();
    const done = await svc.call('POST', `${builds}/${build_id}/complete`);
    assertStoreFailure(svc, done, 502, 'BLOB_STORE_ERROR', /req-405-listparts/);
    assert.match(done.json<{ message: string }>().message, /405 \(MethodNotAllowed\) to ListParts/);
    assert.ok(
      store.calls.some((c) => c.startsWith('GET ') && c.includes('uploadId')),
      store.calls.join('\n'),
    );
  });

  const cases = [
    { failure: { status: 500, code: 'InternalError', requestId: 'req-500-copy' }, code: 'BLOB_STORE_ERROR' },
    // 503 is S3's "slow down": the store is there and asks to be retried later.
    { failure: { status: 503, code: 'SlowDown', requestId: 'req-503-slow' }, code: 'BLOB_STORE_UNAVAILABLE' },
  ];
  for (const { failure, code } of cases) {
    const answer = code === 'BLOB_STORE_ERROR' ? 502 : 503;
    it(`answers ${answer} ${code} when CopyObject answers ${failure.status} ${failure.code}`, async () => {
      Object.assign(store.failure, failure);
      const prepared = await prepareBuild(svc, builds, false);
      assert.equal(prepared.statusCode, 200, prepared.body);
      const { build_id } = prepared.json<{ build_id: string }>();
      const done = await svc.call('POST', `${builds}/${build_id}/complete`);
      assertStoreFailure(svc, done, answer, code, new RegExp(failure.requestId));
    });
  }
});

describe('a blob store that cannot be reached', () => {
  it('answers 503 BLOB_STORE_UNAVAILABLE when nothing listens on its port', async () => {
    const { svc, builds } = await serviceOn(`http://127.0.0.1:${await freePort()}`);
    try {
      const prepared = await prepareBuild(svc, builds, true);
      assertStoreFailure(svc, prepared, 503, 'BLOB_STORE_UNAVAILABLE', /ECONNREFUSED/);
    } finally {
      await svc.close();
    }
  });

  it('answers 503 BLOB_STORE_UNAVAILABLE when the store takes connections and never answers', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const { port } = silent.address() as net.AddressInfo;
    const { svc, builds } = await serviceOn(`http://127.0.0.1:${port}`, { S3_TIMEOUT_MS: '200' });
    try {
      const prepared = await prepareBuild(svc, builds, true);
      assertStoreFailure(svc, prepared, 503, 'BLOB_STORE_UNAVAILABLE', /TimeoutError|timed out/);
      assert.ok(sockets.size > 0, 'the service did reach the silent store');
    } finally {
      await svc.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
