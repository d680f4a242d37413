import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}

interface Operation {
  operationId?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  responses?: Record<string, unknown>;
}

interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Every route of the service today, with the operationId it must carry. */
const KNOWN_ROUTES: { method: string; path: string; operationId?: string }[] = [
  { method: 'post', path: '/cloud/games/validate', operationId: 'games.validateGame' },
  { method: 'post', path: '/cloud/games' },
  { method: 'get', path: '/cloud/games' },
  { method: 'get', path: '/cloud/games/{game_id}' },
  { method: 'post', path: '/cloud/games/{game_id}/versions' },
  { method: 'get', path: '/cloud/games/{game_id}/versions/{version_id}' },
  { method: 'post', path: '/cloud/games/{game_id}/namespaces' },
  {
    method: 'get',
    path: '/cloud/games/{game_id}/namespaces/{namespace_id}',
    operationId: 'games.namespaces.getGameNamespaceById',
  },
  { method: 'put', path: '/cloud/games/{game_id}/namespaces/{namespace_id}/version' },
  {
    method: 'post',
    path: '/cloud/games/{game_id}/namespaces/{namespace_id}/mm-config',
    operationId: 'games.namespaces.updateGameNamespaceMatchmakerConfig',
  },
  {
    method: 'post',
    path: '/cloud/games/{game_id}/namespaces/{namespace_id}/auth-user',
    operationId: 'games.namespaces.updateNamespaceCdnAuthUser',
  },
  { method: 'delete', path: '/cloud/games/{game_id}/namespaces/{namespace_id}/auth-user/{user}' },
  { method: 'put', path: '/cloud/games/{game_id}/namespaces/{namespace_id}/cdn-auth' },
  { method: 'put', path: '/cloud/games/{game_id}/namespaces/{namespace_id}/domain-public-auth' },
  { method: 'post', path: '/cloud/games/{game_id}/tokens/cloud' },
  { method: 'delete', path: '/cloud/tokens/{token_id}' },
  { method: 'get', path: '/cloud/auth/inspect' },
  { method: 'get', path: '/cloud/games/{game_id}/billing', operationId: 'games.billing.get' },
  { method: 'put', path: '/cloud/games/{game_id}/billing/plan', operationId: 'games.billing.updatePlan' },
];

function operations(doc: OpenApiDoc): { method: string; path: string; op: Operation }[] {
  const out: { method: string; path: string; op: Operation }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (HTTP_METHODS.has(method)) out.push({ method, path, op });
    }
  }
  return out;
}

describe('OpenAPI document and docs page', () => {
  let svc: TestService;
  let doc: OpenApiDoc;

  before(async () => {
    svc = await startTestService();
    const res = await svc.call('GET', '/openapi.json', { token: null });
    assert.equal(res.statusCode, 200, res.body);
    doc = res.json<OpenApiDoc>();
  });
  after(async () => {
    await svc.close();
  });

  it('is served as JSON without a token and is OpenAPI 3', async () => {
    const res = await svc.call('GET', '/openapi.json', { token: null });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.match(doc.openapi, /^3\.\d+\.\d+$/);
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
    assert.equal(typeof doc.paths, 'object');
  });

  it('is also served with an invalid token (the document is public)', async () => {
    const res = await svc.call('GET', '/openapi.json', { token: 'garbage' });
    assert.equal(res.statusCode, 200, res.body);
  });

  it('contains every route of the service, each with an operationId', () => {
    const ops = operations(doc);
    for (const route of KNOWN_ROUTES) {
      const found = ops.find((o) => o.method === route.method && o.path === route.path);
      assert.ok(found, `${route.method.toUpperCase()} ${route.path} is missing from the document`);
      assert.equal(typeof found.op.operationId, 'string', `${route.method} ${route.path} has no operationId`);
      assert.ok((found.op.operationId ?? '').length > 0);
    }
    for (const o of ops) {
      assert.ok(o.op.operationId, `${o.method.toUpperCase()} ${o.path} has no operationId`);
    }
  });

  it("leaves operators' figures out of the public document, though the service serves them", async () => {
    assert.equal(doc.paths['/cloud/debug/watchers'], undefined);
    const res = await svc.call('GET', '/cloud/debug/watchers', { token: svc.operatorToken });
    assert.equal(res.statusCode, 200);
  });

  it('carries the interface operationIds on the right method and path', () => {
    for (const route of KNOWN_ROUTES.filter((r) => r.operationId !== undefined)) {
      const op = doc.paths[route.path]?.[route.method];
      assert.ok(op, `${route.method} ${route.path} missing`);
      assert.equal(op.operationId, route.operationId);
      const elsewhere = operations(doc).filter((o) => o.op.operationId === route.operationId);
      assert.equal(elsewhere.length, 1, `${route.operationId} appears ${elsewhere.length} times`);
    }
  });

  it('writes paths in {param} form and declares each path parameter as required', () => {
    for (const { method, path, op } of operations(doc)) {
      assert.ok(!path.includes(':'), `${path} uses :param`);
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
      assert.deepEqual(
        declared.map((p) => p.name).sort(),
        [...names].sort(),
        `${method.toUpperCase()} ${path} path parameters`,
      );
      for (const p of declared) assert.equal(p.required, true, `${path}: ${p.name} is required`);
    }
  });

  it('has unique operationIds', () => {
    const ids = operations(doc).map((o) => o.op.operationId);
    const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
    assert.deepEqual(dupes, []);
    assert.ok(ids.length >= KNOWN_ROUTES.length);
  });

  it('declares bearerAuth and "Who may call:" on every non-public operation', () => {
    const scheme = doc.components?.securitySchemes?.bearerAuth;
    assert.ok(scheme, 'components.securitySchemes.bearerAuth is declared');
    assert.equal(scheme.type, 'http');
    assert.equal(scheme.scheme?.toLowerCase(), 'bearer');
    const known = new Set(KNOWN_ROUTES.map((r) => `${r.method} ${r.path}`));
    for (const { method, path, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.equal(typeof op.description, 'string', `${where} has no description`);
      assert.ok(op.description?.startsWith('Who may call:'), `${where}: "${op.description}"`);
      const hasBearer = (op.security ?? []).some((s) => 'bearerAuth' in s);
      // Every route we know needs a token; anything else must either need one or say it is public.
      if (known.has(`${method} ${path}`)) {
        assert.ok(hasBearer, `${where} has no bearerAuth security entry`);
      } else if (!hasBearer) {
        assert.match(
          op.description ?? '',
          /anyone/i,
          `${where} has no security and does not say it is public`,
        );
      }
      if (hasBearer) assert.doesNotMatch(op.description ?? '', /anyone; no token/i, where);
    }
  });

  it('says whether, and with which team role, a signed-in person may call an operation', () => {
    const person = (role: string) =>
      ` Or a signed-in person (session cookie) with the ${role} role or stronger in the team that owns the game.`;
    const sees = ' Or a signed-in person (session cookie), who sees what their teams own.';
    const game = 'Who may call: the operator, or a game cloud token of this game.';
    const operator = 'Who may call: the operator only.';
    const cases: [string, string, string, boolean][] = [
      ['get', '/cloud/games/{game_id}', `${game}${person('viewer')}`, true],
      ['post', '/cloud/games/{game_id}/versions', `${game}${person('member')}`, true],
      ['delete', '/cloud/games/{game_id}', `${operator}${person('owner')}`, true],
      ['get', '/cloud/games', `Who may call: the operator or any game cloud token.${sees}`, true],
      [
        'get',
        '/cloud/auth/inspect',
        `Who may call: any valid token (operator, game cloud or lobby reporter token).${sees}`,
        true,
      ],
      ['post', '/cloud/teams', operator, false],
    ];
    for (const [method, path, description, cookie] of cases) {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method} ${path}`);
      assert.equal(op.description, description, `${method} ${path}`);
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      assert.deepEqual(
        schemes,
        cookie ? ['bearerAuth', 'sessionCookie'] : ['bearerAuth'],
        `${method} ${path}`,
      );
    }
  });

  it('the document does not lie about auth: every listed operation refuses a request without a token', async () => {
    for (const route of KNOWN_ROUTES) {
      const url = route.path.replace(/\{[^}]+\}/g, 'x');
      const res = await svc.call(route.method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'DELETE', url, {
        token: null,
      });
      assert.equal(
        res.statusCode,
        401,
        `${route.method.toUpperCase()} ${url}: ${res.statusCode} ${res.body}`,
      );
    }
  });

  it('serves an HTML docs page at /docs without a token', async () => {
    const res = await svc.call('GET', '/docs', { token: null });
    const page =
      res.statusCode >= 300 && res.statusCode < 400 ? await svc.call('GET', '/docs/', { token: null }) : res;
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<html/i);
    const slash = await svc.call('GET', '/docs/', { token: null });
    assert.equal(slash.statusCode, 200);
    assert.match(String(slash.headers['content-type']), /^text\/html/);
  });

  it('titles the docs page for this service and points it at /openapi.json', async () => {
    const page = await svc.call('GET', '/docs/', { token: null });
    assert.match(page.body, /<title>Game Cloud Management API<\/title>/);
    const script = /src="\.\/([^"]*swagger-initializer\.js)"/.exec(page.body)?.[1];
    assert.ok(script !== undefined, page.body);
    const init = await svc.call('GET', `/docs/${script}`, { token: null });
    assert.equal(init.statusCode, 200);
    // swagger-ui loads the first of `urls` (its own `url`, the plugin's /docs/json copy, is ignored then).
    assert.match(init.body, /"urls":\s*\[\s*\{\s*"url":\s*"\/openapi\.json"/);
  });
});
