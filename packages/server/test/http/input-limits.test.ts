import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startListening } from '../helpers/listening.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

/**
 * The limits every request is held to (issue: hardening, defects 1-3): bounded strings and answers
 * proportionate to the request, a nesting limit, and ids and text free of control characters, on SQLite and
 * on PostgreSQL alike.
 */

const MiB = 1024 * 1024;
const UNKNOWN = '0190a0a0-0000-7000-8000-00000000beef';

interface Presigned {
  byte_offset: number;
  content_length: number;
  path: string;
  url: string;
}
interface PreparedBuild {
  build_id: string;
  presigned_requests: Presigned[];
  part_count: number;
}

function assertError(res: LightMyRequestResponse, status: number, code: string, field?: string) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<{ code: string; message: string; metadata?: { field?: string | null } }>();
  assert.equal(body.code, code, res.body);
  if (field !== undefined) {
    assert.ok(body.message.includes(field), `message "${body.message}" names ${field}`);
  }
  return body;
}

describe('input limits', () => {
  let svc: TestService;
  let f: Awaited<ReturnType<typeof createGameFixture>>;
  let builds: string;

  before(async () => {
    // 1 MiB parts: 10,000 parts is a 10 GiB file, which only exists as a content_length here.
    ({ svc } = await startListening({ env: { GCM_BUILD_PART_SIZE_BYTES: String(MiB) } }));
    f = await createGameFixture(svc, 'limits-game');
    builds = `/games/${f.gameId}/environments/${f.namespaceId}/builds`;
  });
  after(() => svc.close());

  async function countRows(table: 'games' | 'versions' | 'namespaces' | 'builds' | 'uploads') {
    const row = await svc.deps.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  describe('multipart prepare answers a page of parts, whatever the file size and name', () => {
    it('answers the first 100 of 10,000 parts in well under a few MB, the rest page by page', async () => {
      const path = `${'p'.repeat(1020)}.tar`;
      const res = await svc.call('POST', `${builds}/prepare`, {
        body: {
          name: 'huge',
          image_file: { path, content_length: 10_000 * MiB },
          multipart_upload: true,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(res.rawPayload.length < 2 * MiB, `prepare answered ${res.rawPayload.length} bytes`);
      const prepared = res.json<PreparedBuild>();
      assert.equal(prepared.part_count, 10_000);
      assert.equal(prepared.presigned_requests.length, 100);
      assert.deepEqual(
        prepared.presigned_requests.slice(0, 2).map((p) => [p.byte_offset, p.content_length, p.path]),
        [
          [0, MiB, path],
          [MiB, MiB, path],
        ],
      );

      const partsUrl = `${builds}/${prepared.build_id}/parts`;
      const page = await svc.call('GET', `${partsUrl}?from_part=101`, { token: f.cloudToken });
      assert.equal(page.statusCode, 200, page.body);
      assert.ok(page.rawPayload.length < 2 * MiB);
      const next = page.json<{ presigned_requests: Presigned[]; part_count: number }>();
      assert.equal(next.part_count, 10_000);
      assert.equal(next.presigned_requests.length, 100);
      assert.equal(next.presigned_requests[0]?.byte_offset, 100 * MiB);
      assert.equal(next.presigned_requests[99]?.byte_offset, 199 * MiB);

      // A URL from a later page is as good as one from prepare: the store takes the part.
      const put = await fetch(next.presigned_requests[0]?.url ?? '', {
        method: 'PUT',
        body: Buffer.alloc(MiB),
      });
      await put.arrayBuffer();
      assert.equal(put.status, 200);

      const last = (await svc.call('GET', `${partsUrl}?from_part=9951`)).json<{
        presigned_requests: Presigned[];
      }>();
      assert.equal(last.presigned_requests.length, 50);
      assert.equal(last.presigned_requests.at(-1)?.byte_offset, 9999 * MiB);

      assertError(await svc.call('GET', `${partsUrl}?from_part=10001`), 400, 'API_BAD_QUERY', 'from_part');
      assertError(await svc.call('GET', `${partsUrl}?from_part=0`), 400, 'API_BAD_QUERY', 'from_part');
      assertError(await svc.call('GET', `${partsUrl}?from_part=01`), 400, 'API_BAD_QUERY', 'from_part');
      assertError(await svc.call('GET', `${builds}/${UNKNOWN}/parts`), 404, 'BUILD_NOT_FOUND');
    });

    it('keeps the single-PUT shape, and refuses parts of a completed build', async () => {
      const res = await svc.call('POST', `${builds}/prepare`, {
        body: { name: 'small', image_file: { path: 'small.tar', content_length: 16 } },
      });
      const prepared = res.json<PreparedBuild>();
      assert.equal(prepared.part_count, 1);
      assert.equal(prepared.presigned_requests.length, 1);
      const again = await svc.call('GET', `${builds}/${prepared.build_id}/parts`);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json<{ presigned_requests: Presigned[] }>().presigned_requests.length, 1);
      const put = await fetch(prepared.presigned_requests[0]?.url ?? '', {
        method: 'PUT',
        body: Buffer.alloc(16),
      });
      await put.arrayBuffer();
      assert.equal((await svc.call('POST', `${builds}/${prepared.build_id}/complete`)).statusCode, 204);
      assertError(
        await svc.call('GET', `${builds}/${prepared.build_id}/parts`),
        409,
        'UPLOAD_ALREADY_COMPLETE',
      );
    });

    it('refuses a file name over 1024 characters before anything is stored', async () => {
      const before = [await countRows('builds'), await countRows('uploads')];
      for (const length of [1025, 50_000]) {
        const res = await svc.call('POST', `${builds}/prepare`, {
          body: {
            name: 'long',
            image_file: { path: 'p'.repeat(length), content_length: 10_000 * MiB },
            multipart_upload: true,
          },
        });
        assertError(res, 400, 'API_BAD_BODY', 'image_file.path');
        assert.ok(res.rawPayload.length < 1024);
      }
      assert.deepEqual([await countRows('builds'), await countRows('uploads')], before);
    });
  });

  describe('nesting', () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const versionBody = (where: 'kv' | 'engine' | 'unknown', depth: number) => {
      const config =
        where === 'kv'
          ? `{"kv":${nested(depth)}}`
          : where === 'engine'
            ? `{"engine":{"custom":${nested(depth)}}}`
            : `{"whatever":${nested(depth)}}`;
      return `{"display_name":"deep","config":${config}}`;
    };

    for (const where of ['kv', 'engine', 'unknown'] as const) {
      it(`refuses 5,000 levels in ${where} with 400 before any work, and creates nothing`, async () => {
        const before = await countRows('versions');
        for (const url of [
          `/cloud/games/${f.gameId}/versions`,
          `/cloud/games/${f.gameId}/versions/validate`,
        ]) {
          const res = await svc.app.inject({
            method: 'POST',
            url,
            headers: { authorization: `Bearer ${svc.operatorToken}`, 'content-type': 'application/json' },
            payload: versionBody(where, 5000),
          });
          const body = assertError(res, 400, 'API_BAD_BODY', 'nested deeper than 32 levels');
          assert.equal((body.metadata as { max_depth?: number }).max_depth, 32);
        }
        assert.equal(await countRows('versions'), before);
      });
    }

    it('accepts 32 levels in all and refuses 33', async () => {
      // The body is level 1 and config level 2, so kv holds the remaining 30 (and 31 is one too many).
      const send = (depth: number) =>
        svc.app.inject({
          method: 'POST',
          url: `/cloud/games/${f.gameId}/versions/validate`,
          headers: { authorization: `Bearer ${svc.operatorToken}`, 'content-type': 'application/json' },
          payload: versionBody('kv', depth),
        });
      assert.equal((await send(30)).statusCode, 200);
      assertError(await send(31), 400, 'API_BAD_BODY', 'nested deeper');
    });

    it('counts brackets inside strings as text, not nesting', async () => {
      const res = await svc.call('POST', `/cloud/games/${f.gameId}/versions/validate`, {
        body: { display_name: 'brackets', config: { kv: { text: '[{'.repeat(1000) } } },
      });
      assert.equal(res.statusCode, 200, res.body);
    });
  });

  describe('NUL and other control characters', () => {
    const nul = '\u0000';

    it('refuses them in path ids, before any query, with or without a token', async () => {
      const cases: [string, string, string | null][] = [
        ['GET', '/avatars/%00', null],
        ['GET', '/cloud/games/%00', svc.operatorToken],
        ['DELETE', '/cloud/tokens/%00', svc.operatorToken],
        ['GET', `/cloud/games/${f.gameId}/namespaces/%00`, svc.operatorToken],
        ['GET', `/cloud/games/${f.gameId}/versions/%00`, svc.operatorToken],
        ['GET', `${builds}/%00`, svc.operatorToken],
        ['DELETE', `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/auth-user/a%00b`, svc.operatorToken],
        ['GET', `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/logs/lobbies/%00`, svc.operatorToken],
      ];
      for (const [method, url, token] of cases) {
        const res = await svc.call(method as 'GET' | 'DELETE', url, { token });
        assertError(res, 400, 'API_BAD_PARAMS');
      }
      // Not a UUID at all is the same 400, never a 404 found by a query.
      assertError(await svc.call('GET', '/cloud/games/not-a-uuid'), 400, 'API_BAD_PARAMS', 'game_id');
      assertError(await svc.call('GET', `/cloud/games/${UNKNOWN.toUpperCase()}`), 400, 'API_BAD_PARAMS');
    });

    it('answers paths the router cannot decode, or too long a segment, in the error format', async () => {
      for (const url of ['/cloud/games/%c0%af', '/cloud/games/%zz', `/cloud/games/${'a'.repeat(3000)}`]) {
        const res = await svc.call('GET', url);
        const body = assertError(res, 400, 'API_BAD_PARAMS');
        assert.equal(res.headers['x-ray-id'], res.json<{ ray_id: string }>().ray_id);
        assert.ok(body.message.length < 200, body.message);
      }
    });

    it('refuses them in query values', async () => {
      const lobbies = `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/logs/lobbies`;
      assertError(
        await svc.call('GET', `${lobbies}?before_create_ts=2026-01-01T00:00:00Z&before_lobby_id=%00`),
        400,
        'API_BAD_QUERY',
        'before_lobby_id',
      );
      assertError(
        await svc.call('GET', `${lobbies}?before_create_ts=2026-01-01T00:00:00Z%00`),
        400,
        'API_BAD_QUERY',
        'before_create_ts',
      );
      const tags = encodeURIComponent(JSON.stringify({ k: `v${nul}` }));
      assertError(await svc.call('GET', `${builds}?tags_json=${tags}`), 400, 'API_BAD_QUERY', 'tags_json');
      assertError(await svc.call('GET', `${builds}?tags_json=%00`), 400, 'API_BAD_QUERY', 'tags_json');
    });

    it('refuses them in body fields, naming the field, and changes nothing', async () => {
      const before = [await countRows('namespaces'), await countRows('builds'), await countRows('games')];
      const cases: [string, string, unknown, string][] = [
        [
          'POST',
          `/cloud/games/${f.gameId}/namespaces`,
          { name_id: 'nul', display_name: 'Nul', version_id: nul },
          'version_id',
        ],
        [
          'PUT',
          `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/version`,
          { version_id: nul },
          'version_id',
        ],
        [
          'POST',
          `${builds}/prepare`,
          { name: 'n', image_file: { path: `a${nul}.tar`, content_length: 1 } },
          'image_file.path',
        ],
        [
          'POST',
          `${builds}/prepare`,
          { name: 'n', image_file: { path: 'a.tar', content_length: 1 }, tags: { k: `v${nul}` } },
          'tags.k',
        ],
        [
          'POST',
          `${builds}/prepare`,
          { name: 'n', image_file: { path: 'a.tar', content_length: 1 }, tags: { [`k${nul}`]: 'v' } },
          'tags',
        ],
        ['POST', '/cloud/games', { name_id: 'nul-game', display_name: `A${nul}B` }, 'display_name'],
        ['POST', '/cloud/games', { name_id: 'nul-game', display_name: 'A\ud800B' }, 'display_name'],
        [
          'POST',
          `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/auth-user`,
          { user: `u${nul}`, password: 'x' },
          'user',
        ],
        ['PUT', `/cloud/games/${f.gameId}/billing/plan`, { plan: `indie${nul}` }, 'plan'],
      ];
      for (const [method, url, body, field] of cases) {
        const res = await svc.call(method as 'POST' | 'PUT', url, { body });
        assertError(res, 400, 'API_BAD_BODY', field);
      }
      assert.deepEqual(
        [await countRows('namespaces'), await countRows('builds'), await countRows('games')],
        before,
      );
    });
  });
});
