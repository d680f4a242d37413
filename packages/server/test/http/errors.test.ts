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

    it('takes a body-less call of any content type on a route that declares no body', async () => {
      // What curl -d '' and busybox wget --post-data= send, and what other tools send with no body at all.
      const sent: { headers: Record<string, string>; payload: string }[] = [
        { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' },
        { headers: { 'content-type': 'text/plain' }, payload: 'ignored' },
        { headers: { 'content-type': 'multipart/form-data; boundary=x' }, payload: '' },
        { headers: { 'content-length': '7' }, payload: 'ignored' },
      ];
      for (const { headers, payload } of sent) {
        const res = await svc.app.inject({
          method: 'POST',
          url: `/cloud/games/${fx.gameId}/tokens/cloud`,
          headers: { authorization: `Bearer ${svc.operatorToken}`, ...headers },
          payload,
        });
        assert.equal(res.statusCode, 200, `${JSON.stringify(headers)}: ${res.body}`);
        assert.equal(typeof res.json<{ token: string }>().token, 'string');
      }
      // better-auth's endpoints read a body they check themselves, without a schema: a form is refused there.
      const signIn = await svc.app.inject({
        method: 'POST',
        url: '/auth/sign-in/email',
        headers: {
          origin: new URL(svc.deps.config.publicUrl).origin,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: 'email=a%40example.com&password=x',
      });
      assertErrorEnvelope(signIn, 415, 'API_UNSUPPORTED_MEDIA_TYPE');
      // The ignored body is still read within the limit, not without end.
      const tooBig = await svc.app.inject({
        method: 'POST',
        url: `/cloud/games/${fx.gameId}/tokens/cloud`,
        headers: { authorization: `Bearer ${svc.operatorToken}`, 'content-type': 'text/plain' },
        payload: 'x'.repeat(svc.deps.config.bodyLimitBytes + 1),
      });
      assertErrorEnvelope(tooBig, 413, 'API_BODY_TOO_LARGE');
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

  describe('errors that guide (issue 12)', () => {
    const messageOf = (res: LightMyRequestResponse, status: number, code: string) =>
      String(assertErrorEnvelope(res, status, code).message);

    it('a name_id where a path takes an id: says the path takes the id and which call lists them', async () => {
      const res = await svc.call('GET', '/cloud/games/errors-game');
      const message = messageOf(res, 400, 'API_BAD_PARAMS');
      assert.equal(
        message,
        'path parameter "game_id" takes the game\'s id, a UUID like 0190a0a0-1234-7000-8000-00000000abcd; ' +
          '"errors-game" looks like a name_id, not an id: GET /cloud/games lists each game_id beside its name_id',
      );
      assert.deepEqual(res.json<{ metadata: unknown }>().metadata, { field: 'game_id' });
      // A studio's cloud token gets the same guidance, not "this token belongs to another game".
      const studio = await svc.call('GET', '/cloud/games/errors-game', { token: fx.cloudToken });
      assert.equal(messageOf(studio, 400, 'API_BAD_PARAMS'), message);
      const ns = await svc.call('GET', `/cloud/games/${fx.gameId}/namespaces/prod`, { token: fx.cloudToken });
      assert.match(messageOf(ns, 400, 'API_BAD_PARAMS'), /^path parameter "namespace_id" takes/);
      // Another game's real id is still refused before anything is read.
      const other = await svc.call('GET', '/cloud/games/0190a0a0-0000-7000-8000-00000000a001', {
        token: fx.cloudToken,
      });
      assertErrorEnvelope(other, 403, 'API_FORBIDDEN');
    });

    it('every id path parameter names its id and where to find it', async () => {
      const g = fx.gameId;
      const ns = fx.namespaceId;
      const cases: [string, string, RegExp][] = [
        [`/cloud/games/${g}/namespaces/prod`, 'namespace_id', /namespaces with their namespace_id/],
        [`/cloud/games/${g}/versions/v1`, 'version_id', /versions with their version_id/],
        [`/games/${g}/environments/prod/builds`, 'environment_id', /an environment is a namespace/],
        [`/games/${g}/environments/${ns}/builds/my-build`, 'build_id', /lists the builds/],
        [`/cloud/games/${g}/namespaces/${ns}/logs/lobbies/lobby-1`, 'lobby_id', /lists the lobbies/],
      ];
      for (const [url, field, where] of cases) {
        const message = messageOf(await svc.call('GET', url), 400, 'API_BAD_PARAMS');
        assert.ok(message.startsWith(`path parameter "${field}" takes `), message);
        assert.match(message, /a UUID like/);
        assert.match(message, where);
      }
      const token = await svc.call('DELETE', '/cloud/tokens/not_a_token_id');
      assert.match(
        messageOf(token, 400, 'API_BAD_PARAMS'),
        /"not_a_token_id" is not one: .*answers it as token_id$/,
      );
    });

    it('an upper-case UUID is told to be lower case', async () => {
      const message = messageOf(
        await svc.call('GET', `/cloud/games/${fx.gameId.toUpperCase()}`),
        400,
        'API_BAD_PARAMS',
      );
      assert.match(message, /in lower case; ".*" has upper-case letters$/);
    });

    it('ids in a body are guided the same way, and a missing one says where to get it', async () => {
      const named = await svc.call('POST', `/cloud/games/${fx.gameId}/namespaces`, {
        body: { name_id: 'staging', display_name: 'Staging', version_id: 'v1' },
      });
      assert.match(
        messageOf(named, 400, 'API_BAD_BODY'),
        /^body field "version_id" takes the version's id, a UUID .*; "v1" looks like a name_id, not an id: GET \/cloud\/games\/\{game_id\}\/versions lists/,
      );
      const missing = await svc.call('POST', `/cloud/games/${fx.gameId}/namespaces`, {
        body: { name_id: 'staging', display_name: 'Staging' },
      });
      assert.match(
        messageOf(missing, 400, 'API_BAD_BODY'),
        /^body field "version_id" is required: the version's id; .*POST \/cloud\/games\/\{game_id\}\/versions creates one/,
      );
    });

    it('a namespace before any version: says to create a version first', async () => {
      const created = await svc.call('POST', '/cloud/games', {
        body: { name_id: 'no-versions', display_name: 'Bare' },
      });
      assert.equal(created.statusCode, 200, created.body);
      const gameId = created.json<{ game_id: string }>().game_id;
      const body = {
        name_id: 'later',
        display_name: 'Later',
        version_id: '0190a0a0-0000-7000-8000-00000000b0b0',
      };
      const first = await svc.call('POST', `/cloud/games/${gameId}/namespaces`, { body });
      assert.match(
        messageOf(first, 404, 'VERSION_NOT_FOUND'),
        /this game has no version yet, and a namespace runs one: create a version first \(POST \/cloud\/games\/\{game_id\}\/versions\)/,
      );
      assert.deepEqual(first.json<{ metadata: unknown }>().metadata, { field: 'version_id' });
      // Once the game has a version, a wrong id is just that.
      const wrong = await svc.call('POST', `/cloud/games/${fx.gameId}/namespaces`, { body });
      assert.match(
        messageOf(wrong, 404, 'VERSION_NOT_FOUND'),
        /^version_id names no version of this game; GET/,
      );
      const point = await svc.call('PUT', `/cloud/games/${gameId}/namespaces/${fx.namespaceId}/version`, {
        body: { version_id: body.version_id },
      });
      // The path's namespace is not in this game: that outranks the version.
      assertErrorEnvelope(point, 404, 'NAMESPACE_NOT_FOUND');
      const repoint = await svc.call(
        'PUT',
        `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}/version`,
        {
          body: { version_id: body.version_id },
        },
      );
      assert.match(messageOf(repoint, 404, 'VERSION_NOT_FOUND'), /^version_id names no version of this game/);
    });

    it('not-found answers say where the right ids are listed', async () => {
      const unknown = '0190a0a0-0000-7000-8000-00000000dead';
      const g = fx.gameId;
      const ns = fx.namespaceId;
      const cases: [string, number, string, RegExp][] = [
        [`/cloud/games/${unknown}`, 404, 'GAME_NOT_FOUND', /GET \/cloud\/games lists/],
        [
          `/cloud/games/${g}/namespaces/${unknown}`,
          404,
          'NAMESPACE_NOT_FOUND',
          /lists the game's namespaces/,
        ],
        [`/cloud/games/${g}/versions/${unknown}`, 404, 'VERSION_NOT_FOUND', /lists the game's versions/],
        [
          `/games/${g}/environments/${unknown}/builds`,
          404,
          'ENVIRONMENT_NOT_FOUND',
          /an environment is a namespace/,
        ],
        [`/games/${g}/environments/${ns}/builds/${unknown}`, 404, 'BUILD_NOT_FOUND', /complete succeeded/],
        [
          `/cloud/games/${g}/namespaces/${ns}/logs/lobbies/${unknown}`,
          404,
          'LOBBY_NOT_FOUND',
          /reported first/,
        ],
      ];
      for (const [url, status, code, hint] of cases) {
        assert.match(messageOf(await svc.call('GET', url), status, code), hint, url);
      }
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
