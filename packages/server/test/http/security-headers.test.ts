/**
 * The headers that keep a browser from misreading the service's answers: `nosniff` on every answer (JSON,
 * errors, 404s, the router's own refusals, the docs' static files), HSTS only when GCM_PUBLIC_URL is https,
 * and the /docs page's CSP and framing rules. That the page still works within its CSP is
 * test/browser/docs-page.test.ts's to show.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HSTS } from '../../src/http/security-headers.js';
import { startListening } from '../helpers/listening.js';
import { startTestService, type TestService } from '../helpers/service.js';

const HTTPS_URL = 'https://gcm.example.test';

/** What each kind of answer is, and a request that gets one without a token. */
const ANSWERS: [string, string][] = [
  ['the OpenAPI document (JSON)', '/openapi.json'],
  ['a JSON error (401, no token)', '/cloud/games'],
  ['a JSON 404', '/cloud/no-such-route'],
  ["the router's own refusal (a malformed path)", '/cloud/games/%zz'],
  ['a health answer', '/healthz'],
  ['the docs page', '/docs/'],
  ["the docs page's static script", '/docs/static/swagger-ui-bundle.js'],
];

describe('security headers over http', () => {
  let svc: TestService;
  let url: string;
  before(async () => {
    ({ svc, publicUrl: url } = await startListening());
  });
  after(() => svc?.close());

  for (const [what, path] of ANSWERS) {
    it(`${what} carries nosniff and no HSTS`, async () => {
      const res = await fetch(`${url}${path}`);
      await res.arrayBuffer();
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${path}: ${res.status}`);
      assert.equal(res.headers.get('strict-transport-security'), null, path);
    });
  }

  it('holds the docs page to its own scripts and styles, unframed', async () => {
    for (const path of ['/docs/', '/docs/static/swagger-initializer.js']) {
      const res = await fetch(`${url}${path}`);
      await res.arrayBuffer();
      assert.equal(res.status, 200, path);
      const csp = String(res.headers.get('content-security-policy'));
      const directives = new Map(
        csp.split(';').map((d) => {
          const [name = '', ...values] = d.trim().split(/\s+/);
          return [name, values] as const;
        }),
      );
      assert.deepEqual(directives.get('script-src'), ["'self'"], csp);
      assert.deepEqual(directives.get('default-src'), ["'self'"], csp);
      assert.deepEqual(directives.get('object-src'), ["'none'"], csp);
      assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], csp);
      assert.ok(!csp.includes('unsafe-inline') && !csp.includes('unsafe-eval'), csp);
      // "Try it out" calls the service at its public URL.
      assert.ok(directives.get('connect-src')?.includes(new URL(url).origin), csp);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(res.headers.get('referrer-policy'), 'strict-origin-when-cross-origin', path);
    }
  });
});

describe('security headers behind https', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { GCM_PUBLIC_URL: HTTPS_URL } });
  });
  after(() => svc?.close());

  it('adds HSTS to every answer when GCM_PUBLIC_URL is https', async () => {
    for (const [what, path] of ANSWERS) {
      const res = await svc.call('GET', path, { token: null });
      assert.equal(res.headers['strict-transport-security'], HSTS, `${what}: ${res.statusCode}`);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
    }
    const page = await svc.call('GET', '/docs/', { token: null });
    assert.match(
      String(page.headers['content-security-policy']),
      /connect-src 'self' https:\/\/gcm\.example\.test/,
    );
  });
});
