import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { startListening } from '../helpers/listening.js';
import type { TestService } from '../helpers/service.js';

const DASHBOARD = 'https://dash.example.test';
const CONSOLE = 'http://console.example.test:8443';
const OTHER = 'https://evil.example.test';

/** Real HTTP (fetch sends what it is told, Origin included): a browser acts on exactly these headers. */
async function listening(env: Record<string, string>) {
  const { svc, publicUrl } = await startListening({ env });
  return { svc, url: publicUrl };
}

function preflight(url: string, origin: string, method = 'POST') {
  return fetch(`${url}/cloud/games`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });
}

function corsHeaders(res: Response): string[] {
  return [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
}

describe('CORS', () => {
  describe('with GCM_CORS_ORIGINS', () => {
    let svc: TestService;
    let url: string;
    before(async () => {
      ({ svc, url } = await listening({
        GCM_CORS_ORIGINS: `${DASHBOARD}, ${CONSOLE}`,
        GCM_TRUSTED_ORIGINS: CONSOLE,
      }));
    });
    after(() => svc?.close());

    it('answers the preflight of an allowed origin with the methods and headers the API uses', async () => {
      const res = await preflight(url, DASHBOARD, 'DELETE');
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('access-control-allow-origin'), DASHBOARD);
      const methods = String(res.headers.get('access-control-allow-methods')).split(/,\s*/);
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
        assert.ok(methods.includes(method), method);
      const headers = String(res.headers.get('access-control-allow-headers')).split(/,\s*/);
      for (const header of ['authorization', 'content-type', 'idempotency-key']) {
        assert.ok(headers.includes(header), header);
      }
      assert.equal(res.headers.get('access-control-max-age'), '3600');
      assert.match(String(res.headers.get('vary')), /origin/i);
    });

    it('lets the page of an allowed origin read the answer and the headers it needs, with a token', async () => {
      const res = await fetch(`${url}/cloud/games`, {
        headers: { origin: DASHBOARD, authorization: `Bearer ${svc.operatorToken}` },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), DASHBOARD);
      const exposed = String(res.headers.get('access-control-expose-headers')).split(/,\s*/);
      for (const header of ['x-ray-id', 'retry-after', 'idempotent-replayed', 'etag']) {
        assert.ok(exposed.includes(header), header);
      }
      // Not trusted with a session: no cookies, so bearer tokens are the way in from this origin.
      assert.equal(res.headers.get('access-control-allow-credentials'), null);
    });

    it('keeps the CORS headers on an error, so the page can read the error and its ray id', async () => {
      const res = await fetch(`${url}/cloud/games`, { headers: { origin: DASHBOARD } });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('access-control-allow-origin'), DASHBOARD);
      const body = (await res.json()) as { ray_id: string };
      assert.equal(body.ray_id, res.headers.get('x-ray-id'));
    });

    it('allows credentials only to an origin that is also trusted with a session', async () => {
      const pre = await preflight(url, CONSOLE);
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-origin'), CONSOLE);
      assert.equal(pre.headers.get('access-control-allow-credentials'), 'true');
      const res = await fetch(`${url}/cloud/games`, { headers: { origin: CONSOLE } });
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    });

    it('sends no CORS headers to another origin, and handles its request as without CORS', async () => {
      const pre = await preflight(url, OTHER);
      assert.deepEqual(corsHeaders(pre), []);
      assert.equal(pre.status, 404);
      const res = await fetch(`${url}/cloud/games`, {
        headers: { origin: OTHER, authorization: `Bearer ${svc.operatorToken}` },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(corsHeaders(res), []);
      // An origin that differs only by scheme or port is another origin.
      const near = await preflight(url, 'http://dash.example.test');
      assert.deepEqual(corsHeaders(near), []);
    });
  });

  describe('by default', () => {
    let svc: TestService;
    let url: string;
    before(async () => {
      ({ svc, url } = await listening({}));
    });
    after(() => svc?.close());

    it('sends no CORS headers at all, even to the public URL origin', async () => {
      for (const origin of [DASHBOARD, url]) {
        const pre = await preflight(url, origin);
        assert.deepEqual(corsHeaders(pre), []);
        const res = await fetch(`${url}/cloud/games`, {
          headers: { origin, authorization: `Bearer ${svc.operatorToken}` },
        });
        assert.equal(res.status, 200);
        assert.deepEqual(corsHeaders(res), []);
      }
    });
  });

  it('refuses to start on a value that is not a list of exact origins', () => {
    for (const bad of [
      'https://dash.example.test/app',
      '*',
      'ftp://files.example.test',
      'dash.example.test',
    ]) {
      assert.throws(
        () => loadConfig({ GCM_CORS_ORIGINS: `${DASHBOARD},${bad}` }),
        (err: Error) =>
          err.message.includes(
            `GCM_CORS_ORIGINS must be a comma-separated list of http(s) origins (got "${bad}")`,
          ),
      );
    }
    assert.deepEqual(loadConfig({ GCM_CORS_ORIGINS: ` ${DASHBOARD}/ ,${CONSOLE}` }).corsOrigins, [
      DASHBOARD,
      CONSOLE,
    ]);
  });
});
