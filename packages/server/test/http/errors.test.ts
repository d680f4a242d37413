import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';

const ERROR_KEYS = new Set(['code', 'message', 'ray_id', 'documentation', 'metadata']);
const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;
const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * The error envelope: JSON, only the documented keys, code UPPER_SNAKE, ray_id equal to the x-ray-id header,
 * and no trace of a stack. Returns the body for further checks.
 */
function assertErrorEnvelope(
  res: LightMyRequestResponse,
  status: number,
  code: string,
): Record<string, unknown> {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json<Record<string, unknown>>();
  assert.equal(typeof body, 'object');
  assert.notEqual(body, null);
  for (const key of Object.keys(body)) {
    assert.ok(ERROR_KEYS.has(key), `unexpected key "${key}" in error body ${res.body}`);
  }
  assert.equal(body.code, code, res.body);
  assert.match(String(body.code), UPPER_SNAKE);
  assert.equal(typeof body.message, 'string');
  assert.ok(String(body.message).length > 0);
  assert.equal(typeof body.ray_id, 'string');
  assert.ok(String(body.ray_id).length > 0);
  assert.equal(body.ray_id, res.headers['x-ray-id']);
  if ('documentation' in body) assert.equal(typeof body.documentation, 'string');
  if ('metadata' in body) {
    assert.equal(typeof body.metadata, 'object');
    assert.notEqual(body.metadata, null);
    assert.ok(!Array.isArray(body.metadata));
  }
  assert.ok(!/\bat .+:\d+:\d+/.test(res.body), `error body holds a stack trace: ${res.body}`);
  assert.ok(!res.body.includes('/work/') && !res.body.includes('node_modules'), res.body);
  return body;
}

describe('HTTP errors', () => {
  let svc: TestService;
  let small: TestService;
  let fx: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    svc = await startTestService();
    small = await startTestService({ env: { GCM_BODY_LIMIT_BYTES: '2048' } });
    fx = await createGameFixture(svc, 'errors-game');
  });
  after(async () => {
    await svc.close();
    await small.close();
  });

  describe('request bodies', () => {
    const malformed = [
      '{"name_id":',
      '{name_id: "a"}',
      "{'name_id': 'a'}",
      '{"name_id":"a",}',
      'not json',
      '[1,2',
    ];

    it('answers malformed JSON with 400 API_BAD_BODY', async () => {
      for (const payload of malformed) {
        const res = await svc.call('POST', '/cloud/games', { body: payload, headers: JSON_HEADERS });
        assert.doesNotThrow(() => assertErrorEnvelope(res, 400, 'API_BAD_BODY'), `${payload}: ${res.body}`);
      }
      const games = await svc.call('GET', '/cloud/games');
      assert.equal(games.json<{ games: unknown[] }>().games.length, 1);
    });

    it('answers an empty JSON body on a route that needs one with 400 API_BAD_BODY', async () => {
      const res = await svc.call('POST', '/cloud/games', { body: '', headers: JSON_HEADERS });
      assertErrorEnvelope(res, 400, 'API_BAD_BODY');
    });

    it('answers a body over GCM_BODY_LIMIT_BYTES with 413 API_BODY_TOO_LARGE', async () => {
      const big = JSON.stringify({ name_id: 'big', display_name: 'x'.repeat(4096) });
      assert.ok(Buffer.byteLength(big) > 4096);
      const res = await small.call('POST', '/cloud/games', { body: big, headers: JSON_HEADERS });
      assertErrorEnvelope(res, 413, 'API_BODY_TOO_LARGE');
      // nothing was created
      const games = await small.call('GET', '/cloud/games');
      assert.deepEqual(games.json<{ games: unknown[] }>().games, []);
    });

    it('still accepts a body under the limit on the same service', async () => {
      const under = JSON.stringify({ name_id: 'under', display_name: 'Under', padding: 'p'.repeat(1500) });
      assert.ok(Buffer.byteLength(under) < 2048);
      const res = await small.call('POST', '/cloud/games', { body: under, headers: JSON_HEADERS });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('answers the same 4 KB body with success on the default limit', async () => {
      const big = JSON.stringify({ name_id: 'big-ok', display_name: 'Big', padding: 'x'.repeat(4096) });
      const res = await svc.call('POST', '/cloud/games/validate', { body: big, headers: JSON_HEADERS });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('answers a text/plain body with 415 API_UNSUPPORTED_MEDIA_TYPE', async () => {
      const res = await svc.call('POST', '/cloud/games', {
        body: '{"name_id":"plain","display_name":"Plain"}',
        headers: { 'content-type': 'text/plain' },
      });
      assertErrorEnvelope(res, 415, 'API_UNSUPPORTED_MEDIA_TYPE');
      const games = await svc.call('GET', '/cloud/games');
      const names = games.json<{ games: { name_id: string }[] }>().games.map((g) => g.name_id);
      assert.ok(!names.includes('plain'));
    });

    it('answers other non-JSON media types with 415 API_UNSUPPORTED_MEDIA_TYPE', async () => {
      for (const contentType of ['application/x-www-form-urlencoded', 'application/xml', 'image/png']) {
        const res = await svc.call('POST', '/cloud/games/validate', {
          body: 'display_name=x',
          headers: { 'content-type': contentType },
        });
        assert.doesNotThrow(
          () => assertErrorEnvelope(res, 415, 'API_UNSUPPORTED_MEDIA_TYPE'),
          `${contentType}: ${res.body}`,
        );
      }
    });

    it('accepts application/json with a charset', async () => {
      const res = await svc.call('POST', '/cloud/games/validate', {
        body: JSON.stringify({ display_name: 'Ok' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { errors: [] });
    });

    it('answers a __proto__ or constructor.prototype key with 400, not 500, and pollutes nothing', async () => {
      const payloads = [
        '{"__proto__":{"polluted":true},"name_id":"proto","display_name":"Proto"}',
        '{"name_id":"proto","display_name":"Proto","x":{"__proto__":{"polluted":true}}}',
        '{"constructor":{"prototype":{"polluted":true}},"name_id":"proto","display_name":"Proto"}',
      ];
      for (const payload of payloads) {
        const res = await svc.call('POST', '/cloud/games', { body: payload, headers: JSON_HEADERS });
        assert.doesNotThrow(() => assertErrorEnvelope(res, 400, 'API_BAD_BODY'), `${payload}: ${res.body}`);
      }
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      const games = await svc.call('GET', '/cloud/games');
      const names = games.json<{ games: { name_id: string }[] }>().games.map((g) => g.name_id);
      assert.ok(!names.includes('proto'));
    });

    it('accepts null for an optional field (validateGame with name_id null → 200)', async () => {
      const ok = await svc.call('POST', '/cloud/games/validate', {
        body: { display_name: 'Ok', name_id: null },
      });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json(), { errors: [] });
      const bad = await svc.call('POST', '/cloud/games/validate', {
        body: { display_name: '', name_id: null },
      });
      assert.equal(bad.statusCode, 200, bad.body);
      assert.deepEqual(bad.json(), {
        errors: [
          { path: ['display-name', 'too-short'], message: 'display_name is empty; it needs 1 to 24 bytes' },
        ],
      });
    });

    it('ignores unknown body fields', async () => {
      const res = await svc.call('POST', '/cloud/games/validate', {
        body: { display_name: 'Ok', unknown_field: { nested: [1, 2] }, another: null },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { errors: [] });
    });

    it('names the field of a schema violation in an API_BAD_BODY', async () => {
      const res = await svc.call('POST', '/cloud/games', { body: { name_id: 'nodisplay' } });
      const body = assertErrorEnvelope(res, 400, 'API_BAD_BODY');
      assert.ok(String(body.message).includes('display_name'), String(body.message));
    });
  });

  describe('routes and auth', () => {
    it('answers an unknown route with 404 API_NOT_FOUND, with or without a token', async () => {
      const cases: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; token?: string | null }[] = [
        { method: 'GET', url: '/nope', token: null },
        { method: 'GET', url: '/nope' },
        { method: 'GET', url: `/cloud/games/${fx.gameId}/nothing-here`, token: fx.cloudToken },
        { method: 'PATCH', url: '/cloud/games' },
        { method: 'DELETE', url: '/cloud/games', token: null },
        { method: 'POST', url: '/cloud/unknown?x=1' },
      ];
      for (const c of cases) {
        const res = await svc.call(c.method, c.url, c.token === undefined ? {} : { token: c.token });
        assert.doesNotThrow(
          () => assertErrorEnvelope(res, 404, 'API_NOT_FOUND'),
          `${c.method} ${c.url}: ${res.statusCode} ${res.body}`,
        );
      }
    });

    it('answers a missing or invalid token with 401 API_UNAUTHORIZED', async () => {
      assertErrorEnvelope(await svc.call('GET', '/cloud/games', { token: null }), 401, 'API_UNAUTHORIZED');
      assertErrorEnvelope(
        await svc.call('GET', '/cloud/games', { token: 'garbage' }),
        401,
        'API_UNAUTHORIZED',
      );
    });

    it('answers a cloud token on an operator route with 403 API_FORBIDDEN', async () => {
      const res = await svc.call('POST', '/cloud/games', {
        token: fx.cloudToken,
        body: { name_id: 'sneaky', display_name: 'Sneaky' },
      });
      assertErrorEnvelope(res, 403, 'API_FORBIDDEN');
    });

    it('uses the same envelope for resource and validation errors', async () => {
      assertErrorEnvelope(
        await svc.call('GET', '/cloud/games/0190a0a0-0000-7000-8000-00000000a001'),
        404,
        'GAME_NOT_FOUND',
      );
      const v = assertErrorEnvelope(
        await svc.call('POST', '/cloud/games', { body: { name_id: 'Bad Id', display_name: 'Ok' } }),
        400,
        'VALIDATION_ERROR',
      );
      assert.deepEqual(v.metadata, {
        errors: [
          {
            path: ['name-id', 'invalid'],
            message:
              'name_id may hold only a-z, 0-9 and "-", with no "-" at either end and no "--" (like "my-game")',
          },
        ],
      });
      assert.equal(
        v.message,
        'validation failed: name-id.invalid: name_id may hold only a-z, 0-9 and "-", with no "-" at either end ' +
          'and no "--" (like "my-game")',
      );
    });
  });

  describe('ray ids', () => {
    it('sends x-ray-id on successful responses too (200, 204, the OpenAPI document)', async () => {
      const responses = [
        await svc.call('GET', '/cloud/games'),
        await svc.call('GET', `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}`, {
          token: fx.cloudToken,
        }),
        await svc.call('PUT', `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}/domain-public-auth`, {
          body: { enabled: false },
        }),
        await svc.call('GET', '/openapi.json', { token: null }),
      ];
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        [200, 200, 204, 200],
      );
      for (const res of responses) {
        const id = res.headers['x-ray-id'];
        assert.equal(typeof id, 'string');
        assert.ok(String(id).length > 0);
      }
    });

    it('gives every request its own ray id, whatever the client sends', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const ok = await svc.call('GET', '/cloud/games', {
          headers: { 'x-ray-id': 'client-chosen', 'request-id': 'r' },
        });
        const err = await svc.call('GET', '/nope', { headers: { 'x-ray-id': 'client-chosen' } });
        for (const res of [ok, err]) {
          const id = String(res.headers['x-ray-id']);
          assert.notEqual(id, 'client-chosen');
          ids.add(id);
        }
      }
      assert.equal(ids.size, 10);
    });
  });

  describe('unexpected failures', () => {
    let broken: TestService;
    before(async () => {
      broken = await startTestService();
    });
    after(async () => {
      await broken.close();
    });

    it('answers 500 ERROR with the envelope and no internals when the store fails', async () => {
      await broken.deps.db.destroy();
      const res = await broken.call('GET', '/cloud/games');
      const body = assertErrorEnvelope(res, 500, 'ERROR');
      assert.equal(body.metadata, undefined);
      assert.ok(!/sqlite|kysely|driver|destroy/i.test(res.body), res.body);
    });
  });
});
