import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createService } from '../../src/composition-root.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { S3BlobStorage } from '../../src/lib/blob/s3-blob-storage.js';
import { ManualClock } from '../../src/lib/clock.js';
import { deleteUploadGarbage, PURGE_GRACE_MS, purgeDeleted } from '../../src/modules/purge/purge.service.js';
import {
  claimAbandonedBuildUploads,
  deleteUploadFiles,
  prepareUpload,
} from '../../src/modules/uploads/uploads.service.js';
import { prepareAvatar, putPresigned, storedFilesOf, uploadedAvatar } from '../helpers/api-world.js';
import { FakeS3 } from '../helpers/fake-s3.js';
import { jpegImage, pngImage } from '../helpers/images.js';
import { startListening } from '../helpers/listening.js';
import { addMember, asPerson, giveGame, newTeam } from '../helpers/people.js';
import { raceGate } from '../helpers/race-gate.js';
import { createGameFixture, startTestService, type TestService, testConfig } from '../helpers/service.js';

interface ErrorBody {
  code: string;
  message: string;
  metadata?: { field?: string; parts?: number[]; detected?: string | null; problem?: string };
}

interface Prepared {
  upload_id: string;
  presigned_request: { byte_offset: number; content_length: number; path: string; url: string };
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

/** An HTML page behind an image signature: what the structure check at complete must refuse. */
function disguised(magic: Buffer, size: number): Buffer {
  const page = Buffer.from('<html><script>alert(document.cookie)</script></html>'.padEnd(size, ' '));
  return Buffer.concat([magic, page]).subarray(0, size);
}

async function put(url: string, body: Buffer, contentType = 'image/png') {
  const res = await fetch(url, { method: 'PUT', body, headers: { 'content-type': contentType } });
  const text = await res.text();
  return { status: res.status, text, error: text === '' ? undefined : (JSON.parse(text) as ErrorBody) };
}

type RawAnswer = { status: number; error: ErrorBody | undefined };

/** A PUT over a raw socket connection whose body the caller writes; `answer` settles with the response. */
function openRawPut(url: string, headers: Record<string, string>) {
  let req: http.ClientRequest | undefined;
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    req = http.request(url, { method: 'PUT', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          error: text === '' ? undefined : (JSON.parse(text) as ErrorBody),
        }),
      );
    });
    req.on('error', reject);
  });
  if (req === undefined) throw new Error('the request was not created');
  return { req, answer };
}

/** For bodies fetch will not send: a lying or missing content-length. */
function rawPut(url: string, chunks: Buffer[], headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { req, answer } = openRawPut(url, headers);
  for (const chunk of chunks) req.write(chunk);
  req.end();
  return answer;
}

/**
 * A PUT whose first `split` bytes are sent at once and the rest only on `finish()`: a client still
 * uploading while something else happens.
 */
async function stalledPut(url: string, body: Buffer, split: number) {
  const { req, answer } = openRawPut(url, { 'content-length': String(body.length) });
  await new Promise<void>((resolve) => req.write(body.subarray(0, split), () => resolve()));
  return {
    finish: () => {
      req.end(body.subarray(split));
      return answer;
    },
  };
}

function assertError(res: LightMyRequestResponse, status: number, code: string): ErrorBody {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<ErrorBody>();
  assert.equal(body.code, code, res.body);
  return body;
}

describe('avatar uploads through the embedded store', () => {
  let svc: TestService;
  let publicUrl: string;
  let game: Awaited<ReturnType<typeof createGameFixture>>;
  let other: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    game = await createGameFixture(svc, 'avatar-game');
    other = await createGameFixture(svc, 'other-game');
  });
  after(async () => {
    await svc.close();
  });

  async function prepare(body: Record<string, unknown>, token: string | null = game.cloudToken) {
    return svc.call('POST', `/cloud/games/${game.gameId}/prepare`, { token, body });
  }

  async function prepareOk(filePath: string, size: number, mime?: string): Promise<Prepared> {
    const res = await prepare({
      path: filePath,
      content_length: size,
      ...(mime === undefined ? {} : { mime }),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Prepared>();
  }

  const complete = (uploadId: string, token: string = game.cloudToken, gameId = game.gameId) =>
    svc.call('POST', `/cloud/games/${gameId}/avatar-upload/${uploadId}/complete`, { token });

  const avatarOf = async (gameId = game.gameId) =>
    (await svc.call('GET', `/cloud/games/${gameId}`)).json<{ game: { avatar_url?: string } }>().game
      .avatar_url;

  for (const { name, file, mime, make, size, served } of [
    { name: 'PNG', file: 'icon.png', mime: 'image/png', make: pngImage, size: 4096, served: 'avatar.png' },
    {
      name: 'JPEG',
      file: 'art/Photo.JPEG',
      mime: 'image/jpeg',
      make: jpegImage,
      size: 3000,
      served: 'avatar.jpg',
    },
    // Over the 1 MiB JSON body limit: the PUT route streams with the signed length as its only limit.
    {
      name: '1.5 MB PNG',
      file: 'big.png',
      mime: undefined,
      make: pngImage,
      size: 1_500_000,
      served: 'avatar.png',
    },
  ]) {
    it(`${name}: prepare, PUT, complete; the game shows the avatar and it serves the bytes`, async () => {
      const bytes = make(size);
      const prepared = await prepareOk(file, size, mime);
      assert.match(prepared.upload_id, /^[0-9a-f-]{36}$/);
      const { presigned_request: pr } = prepared;
      assert.equal(pr.byte_offset, 0);
      assert.equal(pr.content_length, size);
      assert.equal(pr.path, file);
      assert.ok(pr.url.startsWith(`${publicUrl}/uploads/${prepared.upload_id}/parts/1?`), pr.url);

      const stored = await put(pr.url, bytes, 'application/octet-stream');
      assert.equal(stored.status, 200, stored.text);
      assert.equal(stored.text, '');
      assert.equal((await complete(prepared.upload_id)).statusCode, 204);

      const avatarUrl = await avatarOf();
      assert.equal(avatarUrl, `${publicUrl}/avatars/${prepared.upload_id}`);
      const res = await fetch(avatarUrl as string);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), mime ?? 'image/png');
      assert.equal(res.headers.get('content-length'), String(size));
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('content-security-policy'), "default-src 'none'");
      assert.equal(res.headers.get('content-disposition'), `inline; filename="${served}"`);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes);
      const head = await fetch(avatarUrl as string, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(size));
    });
  }

  it('accepts a PUT of any content type or none, while JSON routes still refuse text/plain', async () => {
    for (const contentType of ['image/png', 'text/plain', 'multipart/form-data; boundary=x', undefined]) {
      const bytes = pngImage(64);
      const { presigned_request: pr } = await prepareOk('a.png', 64);
      const headers: Record<string, string> =
        contentType === undefined ? {} : { 'content-type': contentType };
      const res = await fetch(pr.url, { method: 'PUT', body: bytes, headers });
      assert.equal(res.status, 200, `${contentType}: ${await res.text()}`);
    }
    const json = await svc.call('POST', `/cloud/games/${game.gameId}/prepare`, {
      headers: { 'content-type': 'text/plain' },
      body: 'path=a.png',
    });
    assertError(json, 415, 'API_UNSUPPORTED_MEDIA_TYPE');
  });

  describe('prepare refuses', () => {
    const cases: {
      name: string;
      body: Record<string, unknown>;
      status: number;
      code: string;
      field?: string;
    }[] = [
      {
        name: 'a .gif',
        body: { path: 'a.gif' },
        status: 400,
        code: 'UPLOAD_INVALID_FILE_TYPE',
        field: 'path',
      },
      {
        name: 'no extension',
        body: { path: 'png' },
        status: 400,
        code: 'UPLOAD_INVALID_FILE_TYPE',
        field: 'path',
      },
      {
        name: 'a dot file',
        body: { path: '.png' },
        status: 400,
        code: 'UPLOAD_INVALID_FILE_TYPE',
        field: 'path',
      },
      { name: 'png.exe', body: { path: 'a.png.exe' }, status: 400, code: 'UPLOAD_INVALID_FILE_TYPE' },
      {
        name: 'a GIF mime',
        body: { path: 'a.png', mime: 'image/gif' },
        status: 400,
        code: 'UPLOAD_INVALID_MIME',
        field: 'mime',
      },
      {
        name: 'a mime against the extension',
        body: { path: 'a.png', mime: 'image/jpeg' },
        status: 400,
        code: 'UPLOAD_INVALID_MIME',
      },
      {
        name: 'image/jpg (not a registered type)',
        body: { path: 'a.jpg', mime: 'image/jpg' },
        status: 400,
        code: 'UPLOAD_INVALID_MIME',
      },
      {
        name: '2,000,000 bytes',
        body: { path: 'a.png', content_length: 2_000_000 },
        status: 400,
        code: 'UPLOAD_TOO_LARGE',
        field: 'content_length',
      },
      {
        name: 'the largest safe integer',
        body: { path: 'a.png', content_length: Number.MAX_SAFE_INTEGER },
        status: 400,
        code: 'UPLOAD_TOO_LARGE',
      },
      {
        name: 'an empty file',
        body: { path: 'a.png', content_length: 0 },
        status: 400,
        code: 'API_BAD_BODY',
      },
      {
        name: 'a negative length',
        body: { path: 'a.png', content_length: -1 },
        status: 400,
        code: 'API_BAD_BODY',
      },
      {
        name: 'a fractional length',
        body: { path: 'a.png', content_length: 1.5 },
        status: 400,
        code: 'API_BAD_BODY',
      },
      {
        name: 'a length as a string',
        body: { path: 'a.png', content_length: '10' },
        status: 400,
        code: 'API_BAD_BODY',
      },
      {
        name: 'a length past 2^53',
        body: { path: 'a.png', content_length: 2 ** 60 },
        status: 400,
        code: 'API_BAD_BODY',
      },
      { name: 'no path', body: { path: undefined }, status: 400, code: 'API_BAD_BODY' },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const res = await prepare({ content_length: 100, ...c.body });
        const body = assertError(res, c.status, c.code);
        if (c.field !== undefined) assert.equal(body.metadata?.field, c.field);
      });
    }

    it('nothing else: 1,999,999 bytes, a null mime and a mime with parameters are fine', async () => {
      assert.equal((await prepare({ path: 'a.png', content_length: 1_999_999 })).statusCode, 200);
      assert.equal((await prepare({ path: 'a.PNG', mime: null, content_length: 5 })).statusCode, 200);
      assert.equal(
        (await prepare({ path: 'a.jpg', mime: 'Image/JPEG; q=1', content_length: 5 })).statusCode,
        200,
      );
    });

    it('a game that does not exist (operator) and a token of another game', async () => {
      const missing = await svc.call('POST', '/cloud/games/0190f000-0000-7000-8000-000000000000/prepare', {
        body: { path: 'a.png', content_length: 5 },
      });
      assertError(missing, 404, 'GAME_NOT_FOUND');
      assertError(
        await prepare({ path: 'a.png', content_length: 5 }, other.cloudToken),
        403,
        'API_FORBIDDEN',
      );
      assertError(await prepare({ path: 'a.png', content_length: 5 }, null), 401, 'API_UNAUTHORIZED');
    });
  });

  describe('the signed PUT URL', () => {
    it('refuses a tampered signature, length, expiry, part or upload id (403) and stores nothing', async () => {
      const { upload_id, presigned_request: pr } = await prepareOk('a.png', 100);
      const another = await prepareOk('b.png', 100);
      const bytes = pngImage(100);
      const url = new URL(pr.url);
      const sig = url.searchParams.get('sig') ?? '';
      const edits: [string, (u: URL) => void][] = [
        ['sig', (u) => u.searchParams.set('sig', `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`)],
        ['length', (u) => u.searchParams.set('length', '101')],
        [
          'expires',
          (u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600)),
        ],
        ['part', (u) => (u.pathname = u.pathname.replace(/\/parts\/1$/, '/parts/2'))],
        ['upload id', (u) => (u.pathname = u.pathname.replace(upload_id, another.upload_id))],
      ];
      for (const [what, edit] of edits) {
        const tampered = new URL(url);
        edit(tampered);
        const res = await put(tampered.toString(), what === 'length' ? pngImage(101) : bytes);
        assert.equal(res.status, 403, `${what}: ${res.text}`);
        assert.equal(res.error?.code, 'UPLOAD_URL_INVALID_SIGNATURE', what);
      }
      const unsigned = new URL(url);
      unsigned.searchParams.delete('sig');
      assert.equal((await put(unsigned.toString(), bytes)).error?.code, 'API_BAD_QUERY');
      assertError(await complete(upload_id), 400, 'UPLOAD_INCOMPLETE');
      assertError(await complete(another.upload_id), 400, 'UPLOAD_INCOMPLETE');
    });

    it('refuses an expired URL with its own code (the TTL is GCM_UPLOAD_URL_TTL_SECONDS, 1 h)', async () => {
      const { upload_id, presigned_request: pr } = await prepareOk('a.png', 100);
      const expires = Number(new URL(pr.url).searchParams.get('expires')) * 1000;
      assert.ok(expires - svc.clock.now() <= 3600_000 && expires - svc.clock.now() > 3590_000);
      svc.clock.advance(3600_000);
      const res = await put(pr.url, pngImage(100));
      assert.equal(res.status, 403, res.text);
      assert.equal(res.error?.code, 'UPLOAD_URL_EXPIRED');
      assertError(await complete(upload_id), 400, 'UPLOAD_INCOMPLETE');
    });

    it('refuses a body shorter or longer than signed, declared or streamed, then takes the right one', async () => {
      const { upload_id, presigned_request: pr } = await prepareOk('a.png', 1000);
      const bytes = pngImage(1000);
      const signed = 'the URL is signed for a body of 1000 bytes; this one has';
      for (const [wrong, counted] of [
        [bytes.subarray(0, 999), '999 bytes'],
        [Buffer.concat([bytes, Buffer.from([0])]), 'more'],
      ] as const) {
        // Refused by its declared length, before a byte is read.
        const declared = await put(pr.url, wrong);
        assert.equal(declared.status, 400, declared.text);
        assert.equal(declared.error?.code, 'UPLOAD_LENGTH_MISMATCH');
        assert.equal(declared.error?.message, `${signed} content-length ${wrong.length}`);
        // Chunked: no content-length to compare up front, so the stream itself is counted.
        const streamed = await rawPut(pr.url, [wrong.subarray(0, 500), wrong.subarray(500)], {
          'transfer-encoding': 'chunked',
        });
        assert.equal(streamed.status, 400);
        assert.equal(streamed.error?.code, 'UPLOAD_LENGTH_MISMATCH');
        assert.equal(streamed.error?.message, `${signed} ${counted}`);
      }
      // A long stream is cut off at the first byte past the length, not read to its end.
      const endless = await rawPut(pr.url, [bytes, randomBytes(4 * 1024 * 1024)], {
        'transfer-encoding': 'chunked',
      });
      assert.equal(endless.status, 400);
      assert.equal(endless.error?.code, 'UPLOAD_LENGTH_MISMATCH');
      assertError(await complete(upload_id), 400, 'UPLOAD_INCOMPLETE');
      assert.deepEqual(readdirSync(path.join(svc.dataDir, 'blobs', 'tmp')), [], 'no temp file is left');
      const streamedRight = await rawPut(pr.url, [bytes.subarray(0, 10), bytes.subarray(10)], {
        'transfer-encoding': 'chunked',
      });
      assert.equal(streamedRight.status, 200);
      assert.equal((await complete(upload_id)).statusCode, 204);
    });

    it('keeps nothing of a client that hangs up mid-body', async () => {
      const { upload_id, presigned_request: pr } = await prepareOk('a.png', 100_000);
      await new Promise<void>((resolve) => {
        const req = http.request(pr.url, { method: 'PUT', headers: { 'content-length': '100000' } });
        req.on('error', () => resolve());
        req.write(pngImage(50_000), () => {
          setTimeout(() => {
            req.destroy();
            resolve();
          }, 50);
        });
      });
      // The server notices the hang-up asynchronously: wait until its temp file is gone.
      const tmp = path.join(svc.dataDir, 'blobs', 'tmp');
      for (let i = 0; i < 100 && readdirSync(tmp).length > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(readdirSync(tmp), []);
      assertError(await complete(upload_id), 400, 'UPLOAD_INCOMPLETE');
    });

    it('accepts only the canonical decimal form of length and expires (400 otherwise)', async () => {
      const { upload_id, presigned_request: pr } = await prepareOk('a.png', 100);
      const bytes = pngImage(100);
      for (const [param, edit] of [
        ['length', (v: string) => `0${v}`],
        ['expires', (v: string) => `0${v}`],
        ['length', (v: string) => `+${v}`],
        ['expires', (v: string) => `${v}.0`],
      ] as const) {
        const url = new URL(pr.url);
        url.searchParams.set(param, edit(url.searchParams.get(param) ?? ''));
        const res = await put(url.toString(), bytes);
        assert.equal(res.status, 400, `${param}: ${res.text}`);
        assert.equal(res.error?.code, 'API_BAD_QUERY', param);
        assert.match(res.error?.message ?? '', new RegExp(param), param);
      }
      assertError(await complete(upload_id), 400, 'UPLOAD_INCOMPLETE');
      assert.equal((await put(pr.url, bytes)).status, 200, 'the URL as signed still works');
    });

    it('keeps no temp file of a client that hangs up right after its headers', async () => {
      const tmp = path.join(svc.dataDir, 'blobs', 'tmp');
      for (let i = 0; i < 20; i++) {
        const { presigned_request: pr } = await prepareOk('a.png', 100_000);
        await new Promise<void>((resolve) => {
          const req = http.request(pr.url, { method: 'PUT', headers: { 'content-length': '100000' } });
          req.on('error', () => resolve());
          req.flushHeaders();
          setTimeout(() => {
            req.destroy();
            resolve();
          }, i % 5);
        });
      }
      for (let i = 0; i < 100 && readdirSync(tmp).length > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(readdirSync(tmp), []);
    });

    it('refuses a PUT still streaming when complete ran (409): what was checked is what is served', async () => {
      const bytes = pngImage(4096);
      const { upload_id, presigned_request: pr } = await prepareOk('a.png', 4096);
      assert.equal((await put(pr.url, bytes)).status, 200);
      // Same length, signed URL, HTML behind a PNG signature; half of it sent before the complete.
      const swap = await stalledPut(pr.url, disguised(PNG_MAGIC, 4096), 2048);
      assert.equal((await complete(upload_id)).statusCode, 204);
      const late = await swap.finish();
      assert.equal(late.status, 409);
      assert.equal(late.error?.code, 'UPLOAD_ALREADY_COMPLETE');
      const served = await fetch(`${publicUrl}/avatars/${upload_id}`);
      assert.equal(served.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);
      assert.deepEqual(readdirSync(path.join(svc.dataDir, 'blobs', 'tmp')), []);
    });

    it('refuses a second PUT once the upload is complete (409), keeping the checked file', async () => {
      const bytes = pngImage(200);
      const { upload_id, presigned_request: pr } = await prepareOk('a.png', 200);
      assert.equal((await put(pr.url, bytes)).status, 200);
      assert.equal((await put(pr.url, pngImage(200))).status, 200, 'before complete, a retry replaces');
      assert.equal((await put(pr.url, bytes)).status, 200);
      assert.equal((await complete(upload_id)).statusCode, 204);
      const again = await put(pr.url, Buffer.alloc(200));
      assert.equal(again.status, 409, again.text);
      assert.equal(again.error?.code, 'UPLOAD_ALREADY_COMPLETE');
      const served = await fetch(`${publicUrl}/avatars/${upload_id}`);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);
    });
  });

  describe('complete', () => {
    it('before the upload: 400 UPLOAD_INCOMPLETE, and the avatar is unchanged', async () => {
      const before = await avatarOf();
      const { upload_id } = await prepareOk('a.png', 100);
      const res = assertError(await complete(upload_id), 400, 'UPLOAD_INCOMPLETE');
      assert.deepEqual(res.metadata?.parts, [1]);
      assert.equal(await avatarOf(), before);
      assertError(await svc.call('GET', `/avatars/${upload_id}`, { token: null }), 404, 'UPLOAD_NOT_FOUND');
    });

    it('checks magic bytes: not an image, or a JPEG sent as .png, is 400 UPLOAD_INVALID_CONTENT', async () => {
      const before = await avatarOf();
      const { upload_id, presigned_request: pr } = await prepareOk('a.png', 100);
      assert.equal((await put(pr.url, Buffer.from('x'.repeat(100)))).status, 200);
      const text = assertError(await complete(upload_id), 400, 'UPLOAD_INVALID_CONTENT');
      assert.equal(text.metadata?.detected, null);
      assert.equal((await put(pr.url, jpegImage(100))).status, 200);
      const jpeg = assertError(await complete(upload_id), 400, 'UPLOAD_INVALID_CONTENT');
      assert.equal(jpeg.metadata?.detected, 'image/jpeg');
      assert.equal(await avatarOf(), before);
      // Still pending: the right bytes to the same URL complete it.
      assert.equal((await put(pr.url, pngImage(100))).status, 200);
      assert.equal((await complete(upload_id)).statusCode, 204);
    });

    it('walks the whole file: a signature followed by anything else is 400 UPLOAD_INVALID_CONTENT', async () => {
      const before = await avatarOf();
      const png = pngImage(300);
      const jpeg = jpegImage(300);
      const cases: [string, string, Buffer, RegExp][] = [
        ['HTML behind a PNG signature', 'a.png', disguised(PNG_MAGIC, 300), /chunk 0/],
        [
          'a PNG cut short',
          'a.png',
          Buffer.concat([png.subarray(0, 200), png.subarray(0, 10)]),
          /IEND|CRC|past the end/,
        ],
        [
          'a PNG with trailing HTML',
          'a.png',
          Buffer.concat([pngImage(250), disguised(PNG_MAGIC, 50).subarray(8)]),
          /follow the IEND/,
        ],
        ['a PNG with a flipped byte', 'a.png', Buffer.from(png.map((b, i) => (i === 40 ? b ^ 1 : b))), /CRC/],
        ['HTML behind a JPEG signature', 'a.jpg', disguised(JPEG_MAGIC, 300), /segment|marker/],
        [
          'a JPEG with trailing HTML',
          'a.jpg',
          Buffer.concat([jpegImage(250), disguised(JPEG_MAGIC, 50).subarray(4)]),
          /follow the EOI/,
        ],
        [
          'a JPEG cut short',
          'a.jpg',
          Buffer.concat([jpeg.subarray(0, 298), Buffer.from([0x41, 0x41])]),
          /EOI/,
        ],
      ];
      for (const [name, file, bytes, problem] of cases) {
        const { upload_id, presigned_request: pr } = await prepareOk(file, bytes.length);
        assert.equal((await put(pr.url, bytes)).status, 200, name);
        const res = assertError(await complete(upload_id), 400, 'UPLOAD_INVALID_CONTENT');
        assert.match(res.metadata?.problem ?? '', problem, `${name}: ${res.message}`);
        assert.match(res.message, /well-formed/, name);
        // The refused file is dropped: the same URL takes the right bytes and complete then succeeds.
        assertError(await complete(upload_id), 400, 'UPLOAD_INCOMPLETE');
      }
      assert.equal(await avatarOf(), before);
    });

    it('is idempotent, by either route, and an older upload completed again does not come back', async () => {
      const first = await prepareOk('a.png', 100);
      assert.equal((await put(first.presigned_request.url, pngImage(100))).status, 200);
      assert.equal((await complete(first.upload_id)).statusCode, 204);
      const second = await prepareOk('b.jpg', 100);
      assert.equal((await put(second.presigned_request.url, jpegImage(100))).status, 200);
      const generic = await svc.call('POST', `/cloud/uploads/${second.upload_id}/complete`, {
        token: game.cloudToken,
      });
      assert.equal(generic.statusCode, 204, generic.body);
      assert.equal(await avatarOf(), `${publicUrl}/avatars/${second.upload_id}`);
      assert.equal((await complete(first.upload_id)).statusCode, 204);
      assert.equal((await complete(second.upload_id)).statusCode, 204);
      assert.equal((await svc.call('POST', `/cloud/uploads/${second.upload_id}/complete`)).statusCode, 204);
      assert.equal(await avatarOf(), `${publicUrl}/avatars/${second.upload_id}`);
    });

    it('hides other games’ uploads: 403 for a foreign game path, 404 for a foreign upload id', async () => {
      const { upload_id, presigned_request: pr } = await prepareOk('a.png', 100);
      assert.equal((await put(pr.url, pngImage(100))).status, 200);
      // Another game's token on this game's path: refused before anything is read.
      assertError(await complete(upload_id, other.cloudToken), 403, 'API_FORBIDDEN');
      // Its own game's path with this game's upload id, or the generic route: as if it did not exist.
      assertError(await complete(upload_id, other.cloudToken, other.gameId), 404, 'UPLOAD_NOT_FOUND');
      assertError(await complete(upload_id, svc.operatorToken, other.gameId), 404, 'UPLOAD_NOT_FOUND');
      const generic = await svc.call('POST', `/cloud/uploads/${upload_id}/complete`, {
        token: other.cloudToken,
      });
      assertError(generic, 404, 'UPLOAD_NOT_FOUND');
      assertError(
        await svc.call('POST', `/cloud/uploads/${upload_id}/complete`, { token: null }),
        401,
        'API_UNAUTHORIZED',
      );
      // The operator may complete any game's upload through the generic route.
      assert.equal((await svc.call('POST', `/cloud/uploads/${upload_id}/complete`)).statusCode, 204);
      assert.equal(await avatarOf(other.gameId), undefined);
    });

    it('of an unknown upload: 404 UPLOAD_NOT_FOUND', async () => {
      const unknown = '0190f000-0000-7000-8000-00000000abcd';
      assertError(await complete(unknown), 404, 'UPLOAD_NOT_FOUND');
      assertError(await svc.call('POST', `/cloud/uploads/${unknown}/complete`), 404, 'UPLOAD_NOT_FOUND');
      assertError(await svc.call('GET', `/avatars/${unknown}`, { token: null }), 404, 'UPLOAD_NOT_FOUND');
    });
  });

  it('multipart (the path builds take): parts PUT in random order over HTTP, joined at complete', async () => {
    const file = randomBytes(5 * 1024 * 1024 + 12_345);
    const partSize = 1024 * 1024;
    const { uploadId, presignedRequests } = await prepareUpload(svc.deps, {
      gameId: game.gameId,
      kind: 'build',
      path: 'image.tar',
      mime: 'application/x-tar',
      contentLength: file.length,
      multipart: { partSize },
    });
    assert.equal(presignedRequests.length, 6);
    assert.deepEqual(
      presignedRequests.map((p) => p.byte_offset),
      [0, 1, 2, 3, 4, 5].map((i) => i * partSize),
    );
    const order = presignedRequests.map((_, i) => i).sort(() => Math.random() - 0.5);
    const last = order.pop() as number;
    const putPart = async (i: number) => {
      const p = presignedRequests[i];
      assert.ok(p);
      const res = await put(p.url, file.subarray(p.byte_offset, p.byte_offset + p.content_length));
      assert.equal(res.status, 200, res.text);
    };
    await Promise.all(order.map(putPart));
    const missing = assertError(
      await svc.call('POST', `/cloud/uploads/${uploadId}/complete`),
      400,
      'UPLOAD_INCOMPLETE',
    );
    assert.deepEqual(missing.metadata?.parts, [last + 1]);
    await putPart(last);
    // A part PUT still streaming while the parts are joined is refused once its bytes are in, and so is
    // any PUT after: the joined object is what completed.
    const first = presignedRequests[0];
    assert.ok(first);
    const late = await stalledPut(first.url, randomBytes(first.content_length), 1000);
    assert.equal((await svc.call('POST', `/cloud/uploads/${uploadId}/complete`)).statusCode, 204);
    const lateAnswer = await late.finish();
    assert.equal(lateAnswer.status, 409);
    assert.equal(lateAnswer.error?.code, 'UPLOAD_ALREADY_COMPLETE');
    const after = await put(first.url, randomBytes(first.content_length));
    assert.equal(after.status, 409, after.text);
    assert.equal(after.error?.code, 'UPLOAD_ALREADY_COMPLETE');
    assert.deepEqual(readdirSync(path.join(svc.dataDir, 'blobs', 'parts')), [], 'no part is left behind');
    assert.equal((await svc.call('POST', `/cloud/uploads/${uploadId}/complete`)).statusCode, 204);
    const key = `build/${game.gameId}/${uploadId}`;
    const stream = await svc.deps.blobs.openRead(key);
    assert.ok(stream);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(Buffer.from(chunk));
    assert.ok(Buffer.concat(chunks).equals(file));
    // A build upload is not an avatar: the avatar routes do not know it.
    assertError(await complete(uploadId), 404, 'UPLOAD_NOT_FOUND');
    assertError(await svc.call('GET', `/avatars/${uploadId}`, { token: null }), 404, 'UPLOAD_NOT_FOUND');
  });
});

describe('a restart between prepare and complete', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-upload-restart-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps the upload and its URL valid: the signing secret is in the database', async () => {
    const first = await startListening({ dataDir });
    const game = await createGameFixture(first.svc, 'restart-game');
    const res = await first.svc.call('POST', `/cloud/games/${game.gameId}/prepare`, {
      token: game.cloudToken,
      body: { path: 'a.png', content_length: 500 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const prepared = res.json<Prepared>();
    await first.svc.close();

    const second = await startListening({ dataDir, port: first.port });
    try {
      const bytes = pngImage(500);
      assert.equal((await put(prepared.presigned_request.url, bytes)).status, 200);
      const done = await second.svc.call(
        'POST',
        `/cloud/games/${game.gameId}/avatar-upload/${prepared.upload_id}/complete`,
        { token: game.cloudToken },
      );
      assert.equal(done.statusCode, 204, done.body);
      const served = await fetch(`${second.publicUrl}/avatars/${prepared.upload_id}`);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), bytes);
    } finally {
      await second.svc.close();
    }
  });
});

describe('avatar uploads through the S3 driver (mocked transport)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-upload-s3-'));
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00.000Z'));
  const s3Env = {
    S3_ENDPOINT: 'http://s3.test:9000',
    S3_BUCKET: 'gcm-avatars',
    S3_ACCESS_KEY_ID: 'AKTEST',
    S3_SECRET_ACCESS_KEY: 'secret-test-key',
  };
  const fake = new FakeS3({
    bucket: 'gcm-avatars',
    accessKeyId: 'AKTEST',
    secretAccessKey: 'secret-test-key',
    region: 'us-east-1',
    clock,
  });
  let app: Awaited<ReturnType<typeof createService>>['app'];
  let operatorToken: string;

  before(async () => {
    const config = await testConfig(dataDir, { GCM_PUBLIC_URL: 'http://gcm.test', ...s3Env });
    assert.ok(config.s3);
    const blobs = new S3BlobStorage({
      ...config.s3,
      clock,
      urlTtlSeconds: config.uploadUrlTtlSeconds,
      requestHandler: fake.requestHandler,
    });
    const started = await createService(config, { clock, logger: false, blobs });
    app = started.app;
    operatorToken = started.newOperatorToken ?? '';
  });
  after(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: Record<string, unknown>) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${operatorToken}` },
      ...(body ? { payload: body } : {}),
    });

  it('prepare → PUT to the bucket → complete → the avatar is served from the bucket', async () => {
    const game = await call('POST', '/cloud/games', { name_id: 's3-game', display_name: 'S3 Game' });
    const gameId = game.json<{ game_id: string }>().game_id;
    const bytes = jpegImage(2048);
    const res = await call('POST', `/cloud/games/${gameId}/prepare`, { path: 'a.jpg', content_length: 2048 });
    assert.equal(res.statusCode, 200, res.body);
    const { upload_id, presigned_request: pr } = res.json<Prepared>();
    assert.ok(pr.url.startsWith(`http://s3.test:9000/gcm-avatars/avatar/${gameId}/${upload_id}?`), pr.url);

    assertError(
      await call('POST', `/cloud/games/${gameId}/avatar-upload/${upload_id}/complete`),
      400,
      'UPLOAD_INCOMPLETE',
    );
    assert.equal(
      fake.clientPut(pr.url, Buffer.concat([bytes, Buffer.from([0])])).status,
      403,
      'length is signed',
    );
    assert.equal(fake.clientPut(pr.url, Buffer.from('not an image'.padEnd(2048))).status, 200);
    assertError(
      await call('POST', `/cloud/games/${gameId}/avatar-upload/${upload_id}/complete`),
      400,
      'UPLOAD_INVALID_CONTENT',
    );
    assert.equal(fake.clientPut(pr.url, bytes).status, 200);
    assert.equal(
      (await call('POST', `/cloud/games/${gameId}/avatar-upload/${upload_id}/complete`)).statusCode,
      204,
    );

    const full = await call('GET', `/cloud/games/${gameId}`);
    assert.equal(
      full.json<{ game: { avatar_url?: string } }>().game.avatar_url,
      `http://gcm.test/avatars/${upload_id}`,
    );
    const served = await app.inject({ method: 'GET', url: `/avatars/${upload_id}` });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/jpeg');
    assert.equal(served.headers['content-disposition'], 'inline; filename="avatar.jpg"');
    assert.deepEqual(served.rawPayload, bytes);

    // The checked file was copied to a key no URL names (CopyObject) and the uploaded one removed.
    const frozen = [...fake.objects.keys()].filter((k) =>
      k.startsWith(`frozen/avatar/${gameId}/${upload_id}/`),
    );
    assert.equal(frozen.length, 1);
    assert.equal(fake.objects.has(`avatar/${gameId}/${upload_id}`), false);
    assert.ok(
      fake.calls.some((c) => c.startsWith(`PUT /gcm-avatars/${frozen[0]}`)),
      'a server-side copy',
    );
    // A bucket cannot revoke a presigned URL, so a late PUT is stored, but never where the avatar is read.
    assert.equal(fake.clientPut(pr.url, disguised(JPEG_MAGIC, 2048)).status, 200);
    const again = await app.inject({ method: 'GET', url: `/avatars/${upload_id}` });
    assert.deepEqual(again.rawPayload, bytes);
    assert.equal(
      (await call('POST', `/cloud/games/${gameId}/avatar-upload/${upload_id}/complete`)).statusCode,
      204,
    );
    assert.deepEqual((await app.inject({ method: 'GET', url: `/avatars/${upload_id}` })).rawPayload, bytes);
  });

  it('refuses a well-signed JPEG header followed by other content', async () => {
    const game = await call('POST', '/cloud/games', {
      name_id: 's3-disguised',
      display_name: 'S3 Disguised',
    });
    const gameId = game.json<{ game_id: string }>().game_id;
    const res = await call('POST', `/cloud/games/${gameId}/prepare`, { path: 'a.jpg', content_length: 500 });
    const { upload_id, presigned_request: pr } = res.json<Prepared>();
    assert.equal(fake.clientPut(pr.url, disguised(JPEG_MAGIC, 500)).status, 200);
    assertError(
      await call('POST', `/cloud/games/${gameId}/avatar-upload/${upload_id}/complete`),
      400,
      'UPLOAD_INVALID_CONTENT',
    );
    assert.deepEqual(
      [...fake.objects.keys()].filter((k) => k.includes(upload_id)),
      [],
      'the refused copy is deleted; the client PUTs again',
    );
  });

  it('has no embedded PUT route: uploads go to the bucket', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: '/uploads/x/parts/1?expires=1&length=1&sig=x',
      payload: 'x',
    });
    assertError(res, 404, 'API_NOT_FOUND');
  });

  it('expired bucket URLs are refused by the store', async () => {
    const game = await call('POST', '/cloud/games', { name_id: 's3-expiry', display_name: 'S3 Expiry' });
    const gameId = game.json<{ game_id: string }>().game_id;
    const res = await call('POST', `/cloud/games/${gameId}/prepare`, { path: 'a.png', content_length: 10 });
    const { presigned_request: pr } = res.json<Prepared>();
    clock.advance(3601_000);
    assert.equal(fake.clientPut(pr.url, Buffer.alloc(10)).status, 403);
  });
});

describe('upload configuration', () => {
  it('defaults to the embedded store with 1 h URLs', () => {
    const config = loadConfig({});
    assert.equal(config.s3, undefined);
    assert.equal(config.uploadUrlTtlSeconds, 3600);
  });

  it('reads S3 settings, region us-east-1, path style and a 10 s timeout by default', () => {
    const config = loadConfig({ S3_ENDPOINT: 'https://minio.example:9000', S3_BUCKET: 'avatars' });
    assert.deepEqual(config.s3, {
      endpoint: 'https://minio.example:9000',
      bucket: 'avatars',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: true,
      timeoutMs: 10_000,
    });
    const s3 = { S3_ENDPOINT: 'https://minio.example:9000', S3_BUCKET: 'avatars' };
    assert.equal(loadConfig({ ...s3, S3_TIMEOUT_MS: '250' }).s3?.timeoutMs, 250);
    assert.throws(
      () => loadConfig({ ...s3, S3_TIMEOUT_MS: '0' }),
      (err: unknown) => err instanceof ConfigError && err.problems.some((p) => p.includes('S3_TIMEOUT_MS')),
    );
  });

  it('refuses build parts under 5 MiB with S3, which would refuse to join them', () => {
    const s3 = { S3_ENDPOINT: 'https://minio.example', S3_BUCKET: 'builds' };
    assert.throws(
      () => loadConfig({ ...s3, GCM_BUILD_PART_SIZE_BYTES: String(5 * 1024 * 1024 - 1) }),
      (err: unknown) =>
        err instanceof ConfigError && err.problems.some((p) => p.includes('GCM_BUILD_PART_SIZE_BYTES')),
    );
    assert.equal(
      loadConfig({ ...s3, GCM_BUILD_PART_SIZE_BYTES: String(5 * 1024 * 1024) }).buildPartSizeBytes,
      5 * 1024 * 1024,
    );
    assert.equal(
      loadConfig({ GCM_BUILD_PART_SIZE_BYTES: String(1024 * 1024) }).buildPartSizeBytes,
      1024 * 1024,
    );
  });

  it('reports half an S3 configuration and a bad TTL together', () => {
    assert.throws(
      () =>
        loadConfig({
          S3_ENDPOINT: 'https://minio.example',
          S3_ACCESS_KEY_ID: 'only-the-id',
          GCM_UPLOAD_URL_TTL_SECONDS: '10',
        }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.some((p) => p.includes('S3_BUCKET')) &&
        err.problems.some((p) => p.includes('GCM_UPLOAD_URL_TTL_SECONDS')),
    );
    assert.throws(
      () => loadConfig({ S3_ENDPOINT: 'ftp://x', S3_BUCKET: 'B', S3_SECRET_ACCESS_KEY: 's' }),
      (err: unknown) => err instanceof ConfigError && err.problems.length === 3,
    );
  });
});

/**
 * A point where a completion waits until the test releases it: `reached` settles once one is there. Lets a
 * test run the clean-up (or another completion) at the one moment a race needs, every time.
 */
function holdPoint() {
  let arrive = (): void => {};
  let release = (): void => {};
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    reached,
    release,
    wait: (): Promise<void> => {
      arrive();
      return released;
    },
  };
}

type Hold = ReturnType<typeof holdPoint>;

describe('completing an upload: who may, races, and what each refusal says', () => {
  let svc: TestService;
  let game: Awaited<ReturnType<typeof createGameFixture>>;
  /** While set, completions wait there: after reading the upload, or after freezing its file. */
  let afterRead: Hold | undefined;
  let afterFreeze: Hold | undefined;
  const MiB = 1024 * 1024;
  const HOUR = 3_600_000;

  before(async () => {
    svc = await startTestService({
      // 1 MiB build parts, so a multipart build stays small.
      env: { GCM_BUILD_PART_SIZE_BYTES: String(MiB) },
      pauses: {
        uploadCompletionRead: () => afterRead?.wait() ?? Promise.resolve(),
        uploadCompletionFrozen: () => afterFreeze?.wait() ?? Promise.resolve(),
      },
    });
    game = await createGameFixture(svc, 'completion-game');
  });
  after(async () => {
    await svc.close();
  });

  const completeAvatar = (uploadId: string, gameId = game.gameId) =>
    svc.call('POST', `/cloud/games/${gameId}/avatar-upload/${uploadId}/complete`);
  const avatarOf = async (gameId = game.gameId) =>
    (await svc.call('GET', `/cloud/games/${gameId}`)).json<{ game: { avatar_url?: string } }>().game
      .avatar_url;
  const filesOf = (uploadId: string) => storedFilesOf(svc, uploadId);
  /** Retires the game and runs the purge once its grace is over: its uploads' rows and files are gone. */
  async function retireAndPurge(gameId: string): Promise<void> {
    assert.equal((await svc.call('DELETE', `/cloud/games/${gameId}`)).statusCode, 204);
    svc.clock.advance(PURGE_GRACE_MS + 1);
    await purgeDeleted(svc.deps);
  }

  it('a person completes the uploads of their teams’ games as member or stronger; others are not found', async () => {
    const team = await newTeam(svc, 'uploaders');
    const stranger = await newTeam(svc, 'strangers');
    await giveGame(svc, game.gameId, team.teamId);
    const viewer = await addMember(svc, team, 'viewer@uploaders.example', 'viewer');
    const member = await addMember(svc, team, 'member@uploaders.example', 'member');
    const uploadId = await uploadedAvatar(svc, game.gameId);
    const asCookie = (cookie: string, id = uploadId) =>
      svc.call('POST', `/cloud/uploads/${id}/complete`, { token: null, headers: asPerson(svc, cookie) });

    assertError(await asCookie(stranger.owner.cookie), 404, 'UPLOAD_NOT_FOUND');
    assertError(await asCookie(member, '0190f000-0000-7000-8000-00000000abcd'), 404, 'UPLOAD_NOT_FOUND');
    const refused = assertError(await asCookie(viewer), 403, 'API_FORBIDDEN');
    assert.match(refused.message, /needs the member role/);
    assert.equal(await avatarOf(), undefined, 'nothing completed yet');
    assert.equal((await asCookie(member)).statusCode, 204);
    assert.match((await avatarOf()) ?? '', new RegExp(`/avatars/${uploadId}$`));
  });

  it('serves no avatar that is not completed, and 404 (not 500) when a completed one’s file is gone', async () => {
    const pending = await uploadedAvatar(svc, game.gameId);
    assertError(await svc.call('GET', `/avatars/${pending}`, { token: null }), 404, 'UPLOAD_NOT_FOUND');
    assert.equal((await completeAvatar(pending)).statusCode, 204);
    assert.equal((await svc.call('GET', `/avatars/${pending}`, { token: null })).statusCode, 200);
    // The clean-up deletes a replaced avatar's files before its row: a request may fall in between.
    const { frozen_key } = await svc.deps.db
      .selectFrom('uploads')
      .select('frozen_key')
      .where('upload_id', '=', pending)
      .executeTakeFirstOrThrow();
    assert.ok(frozen_key !== null);
    await svc.deps.blobs.delete(frozen_key);
    assertError(await svc.call('GET', `/avatars/${pending}`, { token: null }), 404, 'UPLOAD_NOT_FOUND');
  });

  it('says what is wrong: the file missing, the wrong type by magic bytes', async () => {
    const missing = await prepareAvatar(svc, game.gameId);
    const incomplete = assertError(await completeAvatar(missing.uploadId), 400, 'UPLOAD_INCOMPLETE');
    assert.match(incomplete.message, /the file has not been uploaded in full yet: PUT it/);
    assert.deepEqual(incomplete.metadata?.parts, [1]);
    const jpeg = await prepareAvatar(svc, game.gameId, 100);
    assert.equal((await putPresigned(svc, jpeg.url, jpegImage(100))).statusCode, 200);
    const wrong = assertError(await completeAvatar(jpeg.uploadId), 400, 'UPLOAD_INVALID_CONTENT');
    assert.equal(wrong.message, 'the uploaded bytes are not image/png by their magic bytes but image/jpeg');
    assert.equal(wrong.metadata?.problem, undefined, 'refused by its type, before its structure is walked');
  });

  it('a PUT to the URL of an upload purged with its game is not found, not a crash', async () => {
    const doomed = await createGameFixture(svc, 'compl-doomed');
    const avatar = await prepareAvatar(svc, doomed.gameId);
    await retireAndPurge(doomed.gameId);
    const late = await putPresigned(svc, avatar.url, avatar.bytes);
    assert.equal(late.statusCode, 404, late.body);
    assert.equal(late.json<ErrorBody>().code, 'UPLOAD_NOT_FOUND');
    assert.deepEqual(filesOf(avatar.uploadId), []);
  });

  it('a complete that read the upload pending while another completed it succeeds too', async () => {
    const uploadId = await uploadedAvatar(svc, game.gameId);
    afterRead = holdPoint();
    const held = afterRead;
    try {
      const late = completeAvatar(uploadId);
      await held.reached;
      afterRead = undefined;
      assert.equal((await completeAvatar(uploadId)).statusCode, 204);
      held.release();
      const answer = await late;
      assert.equal(answer.statusCode, 204, answer.body);
    } finally {
      afterRead = undefined;
    }
    assert.match((await avatarOf()) ?? '', new RegExp(`/avatars/${uploadId}$`));
    assert.equal(filesOf(uploadId).length, 1, `one checked copy: ${filesOf(uploadId).join(', ')}`);
  });

  /** An avatar sent but never completed, its URL expired GCM_UPLOAD_ABANDON_HOURS (24) ago and then some. */
  async function abandonedAvatar(): Promise<string> {
    const uploadId = await uploadedAvatar(svc, game.gameId);
    svc.clock.advance(26 * HOUR);
    return uploadId;
  }

  /** `complete`'s answer when the upload clean-up runs while it waits at `point` (set as a hold already). */
  async function overtakenByCleanUp(
    point: Hold,
    complete: () => Promise<LightMyRequestResponse>,
  ): Promise<LightMyRequestResponse> {
    try {
      const answer = complete();
      await point.reached;
      assert.ok((await deleteUploadGarbage(svc.deps)) >= 1, 'the clean-up took the upload');
      point.release();
      return await answer;
    } finally {
      afterRead = undefined;
      afterFreeze = undefined;
    }
  }

  for (const [moment, hold] of [
    ['after it read the upload', () => (afterRead = holdPoint())],
    ['after it froze the file', () => (afterFreeze = holdPoint())],
  ] as const) {
    it(`a complete the clean-up overtakes ${moment} answers 404 and leaves no file`, async () => {
      const before = await avatarOf();
      const uploadId = await abandonedAvatar();
      assertError(await overtakenByCleanUp(hold(), () => completeAvatar(uploadId)), 404, 'UPLOAD_NOT_FOUND');
      assert.equal(await avatarOf(), before, 'the avatar is unchanged');
      assertError(await completeAvatar(uploadId), 404, 'UPLOAD_NOT_FOUND');
      assert.deepEqual(filesOf(uploadId), []);
    });
  }

  it('a prepare replayed (Idempotency-Key) after its game was retired and purged: 404, not a crash', async () => {
    const doomed = await createGameFixture(svc, 'compl-replay');
    const prepare = () =>
      svc.call('POST', `/cloud/games/${doomed.gameId}/prepare`, {
        body: { path: 'a.png', content_length: 64 },
        headers: { 'idempotency-key': 'replay-after-purge' },
      });
    assert.equal((await prepare()).statusCode, 200);
    await retireAndPurge(doomed.gameId);
    const replay = await prepare();
    assert.equal(replay.statusCode, 404, replay.body);
    assert.match(replay.json<ErrorBody>().code, /^(UPLOAD|GAME)_NOT_FOUND$/);
  });

  describe('multipart builds', () => {
    const builds = () => `/games/${game.gameId}/environments/${game.namespaceId}/builds`;
    // The least a multipart build may be (5 MiB), in six 1 MiB parts.
    const file = randomBytes(5 * MiB + 100);

    interface PreparedBuild {
      build_id: string;
      part_count: number;
      presigned_requests: { url: string; byte_offset: number; content_length: number }[];
    }

    async function prepareBuild(
      name: string,
      contentLength: number,
      multipart: boolean,
    ): Promise<PreparedBuild> {
      const res = await svc.call('POST', `${builds()}/prepare`, {
        body: {
          name,
          image_file: { path: `${name}.tar`, content_length: contentLength },
          ...(multipart ? { multipart_upload: true } : {}),
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<PreparedBuild>();
    }

    async function sentBuild(name: string): Promise<{ buildId: string; uploadId: string }> {
      const { build_id, presigned_requests } = await prepareBuild(name, file.length, true);
      assert.equal(presigned_requests.length, 6);
      for (const p of presigned_requests) {
        const sent = await putPresigned(
          svc,
          p.url,
          file.subarray(p.byte_offset, p.byte_offset + p.content_length),
        );
        assert.equal(sent.statusCode, 200, sent.body);
      }
      const { upload_id } = await svc.deps.db
        .selectFrom('builds')
        .select('upload_id')
        .where('build_id', '=', build_id)
        .executeTakeFirstOrThrow();
      return { buildId: build_id, uploadId: upload_id };
    }
    const completeBuild = (buildId: string) => svc.call('POST', `${builds()}/${buildId}/complete`);

    it('names the missing parts', async () => {
      const { build_id, presigned_requests } = await prepareBuild('gap', file.length, true);
      const second = presigned_requests[1];
      assert.ok(second);
      const bytes = file.subarray(second.byte_offset, second.byte_offset + second.content_length);
      assert.equal((await putPresigned(svc, second.url, bytes)).statusCode, 200);
      const gap = assertError(await completeBuild(build_id), 400, 'UPLOAD_INCOMPLETE');
      assert.deepEqual(gap.metadata?.parts, [1, 3, 4, 5, 6]);
      assert.equal(gap.message, 'parts 1, 3, 4, 5, 6 have not been uploaded in full yet');
    });

    it('answers the first 100 part URLs of a large upload, and the rest a page at a time', async () => {
      const { build_id, part_count, presigned_requests } = await prepareBuild('large', 250 * MiB, true);
      assert.equal(part_count, 250);
      assert.equal(presigned_requests.length, 100);
      assert.equal(presigned_requests.at(-1)?.byte_offset, 99 * MiB);
      const rest = await svc.call('GET', `${builds()}/${build_id}/parts?from_part=201`);
      assert.equal(rest.statusCode, 200, rest.body);
      const last = rest.json<{ presigned_requests: { byte_offset: number }[] }>().presigned_requests;
      assert.deepEqual(
        last.map((p) => p.byte_offset),
        Array.from({ length: 50 }, (_, i) => (200 + i) * MiB),
      );
    });

    it('a complete that finds the clean-up half way (claimed, files deleted, row left) answers 404', async () => {
      const { build_id, presigned_requests } = await prepareBuild('half-way', 16, false);
      assert.equal(
        (await putPresigned(svc, presigned_requests[0]?.url ?? '', Buffer.alloc(16, 1))).statusCode,
        200,
      );
      svc.clock.advance(26 * HOUR);
      afterRead = holdPoint();
      const held = afterRead;
      try {
        const answer = completeBuild(build_id);
        await held.reached;
        // The clean-up's first two steps (deleteAbandonedBuilds), as if it stopped before deleting rows.
        const claimed = await claimAbandonedBuildUploads(svc.deps, 100);
        assert.ok(claimed.length >= 1);
        await deleteUploadFiles(svc.deps, claimed);
        held.release();
        assertError(await answer, 404, 'BUILD_NOT_FOUND');
      } finally {
        afterRead = undefined;
      }
      // The next pass takes up the claimed uploads again and finishes them.
      assert.ok((await deleteUploadGarbage(svc.deps)) >= 1);
      assertError(await svc.call('GET', `${builds()}/${build_id}`), 404, 'BUILD_NOT_FOUND');
    });

    it('two completes at once: both succeed', async () => {
      const { buildId } = await sentBuild('twice');
      const gate = raceGate(2);
      afterRead = { reached: Promise.resolve(), release: () => {}, wait: () => gate.arrive() };
      try {
        const [a, b] = await Promise.all([completeBuild(buildId), completeBuild(buildId)]);
        assert.equal(gate.arrived, 2);
        assert.equal(a.statusCode, 204, a.body);
        assert.equal(b.statusCode, 204, b.body);
      } finally {
        afterRead = undefined;
      }
      assert.equal((await svc.call('GET', `${builds()}/${buildId}`)).statusCode, 200);
    });

    it('a complete the clean-up overtakes after the parts were joined answers 404 and leaves no file', async () => {
      const { buildId, uploadId } = await sentBuild('overtaken');
      svc.clock.advance(26 * HOUR);
      afterFreeze = holdPoint();
      const answer = await overtakenByCleanUp(afterFreeze, () => completeBuild(buildId));
      assertError(answer, 404, 'BUILD_NOT_FOUND');
      assertError(await svc.call('GET', `${builds()}/${buildId}`), 404, 'BUILD_NOT_FOUND');
      assert.deepEqual(filesOf(uploadId), []);
    });
  });
});
