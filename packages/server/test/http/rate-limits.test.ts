import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ConfigError, loadConfig } from '../../src/config.js';
import {
  createGameFixture,
  DEFAULT_LIMITS,
  secondInstance,
  startTestService,
  type TestService,
} from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';
import { until } from '../helpers/until.js';

const UNKNOWN_ID = '0190a0a0-0000-7000-8000-00000000beef';
const WRONG_TOKEN = 'gcm_op_this-is-not-the-operator-token-of-this-service';

/** A request from `address` (app.inject's remoteAddress): each address is its own client. */
function from(
  svc: TestService,
  address: string,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  options: { token?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  return svc.app.inject({
    method,
    url,
    headers,
    remoteAddress: address,
    ...(options.body === undefined ? {} : { payload: options.body }),
  });
}

/** Asserts the 429 of a limit: its code, Retry-After and the error body with the same seconds. */
function assertLimited(res: LightMyRequestResponse, code = 'RATE_LIMITED', retryAfter?: number) {
  assert.equal(res.statusCode, 429, res.body);
  const body = res.json<{
    code: string;
    message: string;
    ray_id: string;
    metadata: { retry_after_seconds: number };
  }>();
  assert.equal(body.code, code);
  assert.equal(body.ray_id, res.headers['x-ray-id']);
  assert.equal(typeof body.metadata.retry_after_seconds, 'number');
  assert.equal(res.headers['retry-after'], String(body.metadata.retry_after_seconds));
  if (retryAfter !== undefined) assert.equal(body.metadata.retry_after_seconds, retryAfter);
  assert.match(body.message, /retry in \d+ s/);
  return body;
}

describe('failed token checks per client address (default limits: 20 a minute)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: DEFAULT_LIMITS });
  });
  after(() => svc.close());

  it('refuses the wrong tokens of an address after 20 of them, for the rest of the window, never its right one', async () => {
    const attacker = '198.51.100.7';
    for (let i = 0; i < 20; i += 1) {
      const res = await from(svc, attacker, 'GET', '/cloud/games', { token: `${WRONG_TOKEN}-${i}` });
      assert.equal(res.statusCode, 401, `guess ${i + 1}: ${res.body}`);
    }
    assertLimited(
      await from(svc, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN }),
      'RATE_LIMITED',
      60,
    );
    // Not the right token: every token the service issues is unguessable, and one address is often many
    // callers (a host's lobbies, players behind one NAT), whose failures must not lock the others out.
    const right = await from(svc, attacker, 'GET', '/cloud/games', { token: svc.operatorToken });
    assert.equal(right.statusCode, 200, right.body);

    // Another address is not affected, with its right token or its first wrong one.
    const other = await from(svc, '198.51.100.8', 'GET', '/cloud/games', { token: svc.operatorToken });
    assert.equal(other.statusCode, 200, other.body);
    const otherWrong = await from(svc, '198.51.100.8', 'GET', '/cloud/games', { token: WRONG_TOKEN });
    assert.equal(otherWrong.statusCode, 401);

    svc.clock.advance(30_000);
    assertLimited(
      await from(svc, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN }),
      'RATE_LIMITED',
      30,
    );
    svc.clock.advance(30_000);
    const later = await from(svc, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN });
    assert.equal(later.statusCode, 401, 'a new window: the address may fail again');
  });

  it('counts neither requests whose token checks out nor requests with no token at all', async () => {
    const client = '198.51.100.9';
    for (let i = 0; i < 50; i += 1) {
      assert.equal(
        (await from(svc, client, 'GET', '/cloud/games', { token: svc.operatorToken })).statusCode,
        200,
      );
      assert.equal((await from(svc, client, 'GET', '/cloud/games')).statusCode, 401);
    }
    for (let i = 0; i < 19; i += 1) {
      assert.equal((await from(svc, client, 'GET', '/cloud/games', { token: WRONG_TOKEN })).statusCode, 401);
    }
    assert.equal(
      (await from(svc, client, 'GET', '/cloud/games', { token: svc.operatorToken })).statusCode,
      200,
    );
  });

  it('counts expired, revoked and forged cloud tokens as failures too', async () => {
    const fixture = await createGameFixture(svc, 'limited-game');
    await svc.call('DELETE', `/cloud/tokens/${fixture.cloudTokenId}`);
    const client = '198.51.100.10';
    for (let i = 0; i < 20; i += 1) {
      const res = await from(svc, client, 'GET', `/cloud/games/${fixture.gameId}`, {
        token: fixture.cloudToken,
      });
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.json<{ code: string }>().code, 'TOKEN_REVOKED');
    }
    assertLimited(
      await from(svc, client, 'GET', `/cloud/games/${fixture.gameId}`, { token: fixture.cloudToken }),
    );
  });

  it('keys an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 one', async () => {
    for (let i = 0; i < 20; i += 1) {
      const address = `2001:db8:aa:bb::${(i + 1).toString(16)}`;
      assert.equal((await from(svc, address, 'GET', '/cloud/games', { token: WRONG_TOKEN })).statusCode, 401);
    }
    assertLimited(await from(svc, '2001:db8:aa:bb:ffff::1', 'GET', '/cloud/games', { token: WRONG_TOKEN }));
    const otherNet = await from(svc, '2001:db8:aa:cc::1', 'GET', '/cloud/games', {
      token: svc.operatorToken,
    });
    assert.equal(otherNet.statusCode, 200);

    for (let i = 0; i < 20; i += 1) {
      await from(svc, '::ffff:192.0.2.77', 'GET', '/cloud/games', { token: WRONG_TOKEN });
    }
    assertLimited(await from(svc, '192.0.2.77', 'GET', '/cloud/games', { token: WRONG_TOKEN }));
  });
});

describe('limits turned off', () => {
  it('lets any number of wrong tokens be answered 401 when GCM_RATE_LIMIT_AUTH_FAILURES is 0', async () => {
    const svc = await startTestService({ env: { ...DEFAULT_LIMITS, GCM_RATE_LIMIT_AUTH_FAILURES: '0' } });
    try {
      for (let i = 0; i < 100; i += 1) {
        assert.equal(
          (await from(svc, '203.0.113.1', 'GET', '/cloud/games', { token: WRONG_TOKEN })).statusCode,
          401,
        );
      }
    } finally {
      await svc.close();
    }
  });
});

describe('routes anyone may call', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({
      env: {
        ...DEFAULT_LIMITS,
        GCM_RATE_LIMIT_DEVICE_LINK_STARTS: '3',
        GCM_RATE_LIMIT_DEVICE_LINK_READS: '4',
        GCM_RATE_LIMIT_PUBLIC_READS: '5',
        GCM_RATE_LIMIT_UPLOAD_PUTS: '2',
      },
    });
  });
  after(() => svc.close());

  it('limits device link starts per address, answering 429 RATE_LIMITED with Retry-After', async () => {
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await from(svc, '192.0.2.1', 'POST', '/cloud/devices/links')).statusCode, 200);
    }
    assertLimited(await from(svc, '192.0.2.1', 'POST', '/cloud/devices/links'), 'RATE_LIMITED', 60);
    assert.equal((await from(svc, '192.0.2.2', 'POST', '/cloud/devices/links')).statusCode, 200);
    svc.clock.advance(60_000);
    assert.equal((await from(svc, '192.0.2.1', 'POST', '/cloud/devices/links')).statusCode, 200);
  });

  it('limits device link reads (get and the page, one budget) per address', async () => {
    const link = (await from(svc, '192.0.2.3', 'POST', '/cloud/devices/links')).json<{
      device_link_token: string;
    }>();
    const get = `/cloud/devices/links?device_link_token=${link.device_link_token}`;
    const page = `/devices/link/${link.device_link_token}`;
    assert.equal((await from(svc, '192.0.2.3', 'GET', get)).statusCode, 200);
    assert.equal((await from(svc, '192.0.2.3', 'GET', page)).statusCode, 200);
    assert.equal((await from(svc, '192.0.2.3', 'GET', get)).statusCode, 200);
    assert.equal((await from(svc, '192.0.2.3', 'GET', page)).statusCode, 200);
    assertLimited(await from(svc, '192.0.2.3', 'GET', get));
    assertLimited(await from(svc, '192.0.2.3', 'GET', page));
    assert.equal((await from(svc, '192.0.2.4', 'GET', page)).statusCode, 200);
  });

  it('limits avatars, the OpenAPI document and the docs (one budget) per address', async () => {
    assert.equal((await from(svc, '192.0.2.5', 'GET', `/avatars/${UNKNOWN_ID}`)).statusCode, 404);
    assert.equal((await from(svc, '192.0.2.5', 'GET', `/avatars/${UNKNOWN_ID}`)).statusCode, 404);
    assert.equal((await from(svc, '192.0.2.5', 'GET', '/openapi.json')).statusCode, 200);
    assert.equal((await from(svc, '192.0.2.5', 'GET', '/docs/json')).statusCode, 200);
    assert.equal((await from(svc, '192.0.2.5', 'GET', '/docs/')).statusCode, 200);
    assertLimited(await from(svc, '192.0.2.5', 'GET', `/avatars/${UNKNOWN_ID}`));
    assertLimited(await from(svc, '192.0.2.5', 'GET', '/openapi.json'));
    assertLimited(await from(svc, '192.0.2.5', 'GET', '/docs/'));
    assert.equal((await from(svc, '192.0.2.6', 'GET', '/openapi.json')).statusCode, 200);
  });

  it('limits PUTs to signed upload URLs per address, before the signature or body is looked at', async () => {
    const url = `/uploads/${UNKNOWN_ID}/parts/1?expires=1&length=1&sig=bad`;
    const put = () => from(svc, '192.0.2.7', 'PUT', url, { body: 'x' });
    assert.equal((await put()).statusCode, 403);
    assert.equal((await put()).statusCode, 403);
    assertLimited(await put());
  });

  it('refuses to start with a public route that names no limit', async () => {
    const { buildApp } = await import('../../src/app.js');
    const app = await buildApp(svc.deps, { logger: false });
    await assert.rejects(async () => {
      app.get('/unlimited', { config: { auth: 'public' } }, async () => ({}));
      await app.ready();
    }, /public route GET \/unlimited names no rate limit/);
    await app.close().catch(() => {});
  });
});

describe('pending device links per address (default: 10)', () => {
  let svc: TestService;
  let gameId: string;
  before(async () => {
    svc = await startTestService({ env: DEFAULT_LIMITS });
    gameId = (await createGameFixture(svc, 'pending-cap')).gameId;
  });
  after(() => svc.close());

  const start = (address: string) => from(svc, address, 'POST', '/cloud/devices/links');

  it('refuses an 11th pending link with 429 DEVICE_LINK_TOO_MANY_PENDING until one is completed or expires', async () => {
    const links: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const res = await start('192.0.2.20');
      assert.equal(res.statusCode, 200, res.body);
      links.push(res.json<{ device_link_token: string }>().device_link_token);
    }
    // Past the start rate's window, so only the pending cap can refuse.
    svc.clock.advance(61_000);
    const refused = assertLimited(await start('192.0.2.20'), 'DEVICE_LINK_TOO_MANY_PENDING', 3600 - 61);
    assert.equal((refused.metadata as { max?: number }).max, 10);
    assert.equal((await start('192.0.2.21')).statusCode, 200, 'another address is not affected');

    const complete = await svc.call('POST', '/cloud/devices/links/complete', {
      body: { device_link_token: links[0], game_id: gameId },
    });
    assert.equal(complete.statusCode, 204, complete.body);
    assert.equal((await start('192.0.2.20')).statusCode, 200, 'a completed link is no longer pending');
    assertLimited(await start('192.0.2.20'), 'DEVICE_LINK_TOO_MANY_PENDING');

    svc.clock.advance(60 * 60 * 1000);
    assert.equal((await start('192.0.2.20')).statusCode, 200, 'expired links are no longer pending');
  });
});

describe('GCM_TRUST_PROXY', () => {
  it('takes the client address from X-Forwarded-For only when the peer is a trusted proxy', async () => {
    const svc = await startTestService({
      env: { ...DEFAULT_LIMITS, GCM_TRUST_PROXY: '10.0.0.1', GCM_RATE_LIMIT_AUTH_FAILURES: '2' },
    });
    try {
      const viaProxy = (client: string, token: string) =>
        from(svc, '10.0.0.1', 'GET', '/cloud/games', { token, headers: { 'x-forwarded-for': client } });
      assert.equal((await viaProxy('203.0.113.50', WRONG_TOKEN)).statusCode, 401);
      assert.equal((await viaProxy('203.0.113.50', WRONG_TOKEN)).statusCode, 401);
      assertLimited(await viaProxy('203.0.113.50', WRONG_TOKEN));
      assert.equal((await viaProxy('203.0.113.51', WRONG_TOKEN)).statusCode, 401, 'another client');

      // Not from the proxy: the header is the client's say-so and is ignored.
      const spoofing = (token: string) =>
        from(svc, '203.0.113.60', 'GET', '/cloud/games', {
          token,
          headers: { 'x-forwarded-for': '203.0.113.99' },
        });
      assert.equal((await spoofing(WRONG_TOKEN)).statusCode, 401);
      assert.equal((await spoofing(WRONG_TOKEN)).statusCode, 401);
      assertLimited(await from(svc, '203.0.113.60', 'GET', '/cloud/games', { token: WRONG_TOKEN }));
    } finally {
      await svc.close();
    }
  });

  it('accepts false or a list of addresses and CIDRs, and refuses true and anything else', () => {
    const env = (value: string) => ({ GCM_DATA_DIR: '/tmp/unused', GCM_TRUST_PROXY: value });
    assert.equal(loadConfig(env('false')).trustProxy, false);
    assert.deepEqual(loadConfig(env('10.0.0.1, 192.168.0.0/16,::1,fd00::/8,loopback')).trustProxy, [
      '10.0.0.1',
      '192.168.0.0/16',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    for (const bad of ['true', '2', '10.0.0.0/33', 'proxy.example', '10.0.0.1,', '0.0.0.0/0', '::/0']) {
      assert.throws(() => loadConfig(env(bad)), ConfigError, bad);
    }
    assert.throws(() => loadConfig({ GCM_RATE_LIMIT_AUTH_FAILURES: '-1' }), /GCM_RATE_LIMIT_AUTH_FAILURES/);
  });

  it('trusts no address a lobby on this host sends from while the service runs lobbies', () => {
    // Host-networked lobbies share the host's loopback and addresses: any of them could forge X-Forwarded-For.
    const hostAddress = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address;
    const own = [
      'loopback',
      '127.0.0.1',
      '127.0.0.9',
      '127.0.0.0/8',
      '::1',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '0.0.0.0/1',
      '10.0.0.1,::/1',
    ];
    if (hostAddress !== undefined) own.push(hostAddress, `192.0.2.1,${hostAddress}/32`);
    for (const runtime of ['docker', 'swarm']) {
      const env = { GCM_RUNTIME: runtime, GCM_REGISTRY: 'registry.example.com/studio' };
      for (const trusted of own) {
        assert.throws(
          () => loadConfig({ ...env, GCM_TRUST_PROXY: trusted }),
          (err: unknown) =>
            err instanceof ConfigError &&
            /GCM_TRUST_PROXY trusts .*, which a lobby can send from/.test(err.message) &&
            err.message.includes(`GCM_RUNTIME=${runtime}`),
          `${runtime}: ${trusted}`,
        );
      }
      // A proxy on another host, named by its own address.
      assert.deepEqual(loadConfig({ ...env, GCM_TRUST_PROXY: '203.0.113.7,2001:db8::7' }).trustProxy, [
        '203.0.113.7',
        '2001:db8::7',
      ]);
    }
    // No lobby of the service's runs anywhere: a proxy on this host's loopback is the proxy.
    assert.deepEqual(loadConfig({ GCM_RUNTIME: 'none', GCM_TRUST_PROXY: 'loopback' }).trustProxy, [
      'loopback',
    ]);
    assert.throws(() => loadConfig({ GCM_RATE_LIMIT_WINDOW_SECONDS: '0' }), /GCM_RATE_LIMIT_WINDOW_SECONDS/);
  });
});

describe('several instances on one PostgreSQL', {
  ...pgOnly,
}, () => {
  let a: TestService;
  let b: TestService;
  before(async () => {
    a = await startTestService({ env: DEFAULT_LIMITS });
    b = await secondInstance(a, DEFAULT_LIMITS);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('share the failure count: 10 wrong tokens through each of two instances use up the 20', async () => {
    const attacker = '198.51.100.70';
    for (let i = 0; i < 10; i += 1) {
      assert.equal((await from(a, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN })).statusCode, 401);
      assert.equal((await from(b, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN })).statusCode, 401);
    }
    // B counted the 20th: it refuses at once, and tells A, which refuses once the notification is there.
    assertLimited(await from(b, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN }));
    await until('A refuses the address B told it of', 5_000, async () => {
      const res = await from(a, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN });
      return res.statusCode === 429;
    });
    // Its right token still passes, on either.
    assert.equal(
      (await from(a, attacker, 'GET', '/cloud/games', { token: a.operatorToken })).statusCode,
      200,
    );
    assert.equal(
      (await from(b, '198.51.100.71', 'GET', '/cloud/games', { token: b.operatorToken })).statusCode,
      200,
    );
  });

  it('refuse on one instance an address that used up its failures on the other, once told, with no read', async () => {
    const attacker = '198.51.100.72';
    // Heard from the other instance: a request with a token makes no read of the shared counters.
    await until('B hears its own heartbeat', 5_000, () => b.deps.caches.trusted());
    // Observed on B's real counters: each look at the shared table goes through peek.
    const counters = b.deps.rateCounters;
    const peek = counters.peek.bind(counters);
    const peeked: string[] = [];
    counters.peek = (key) => {
      peeked.push(key);
      return peek(key);
    };
    try {
      assert.equal(
        (await from(b, attacker, 'GET', '/cloud/games', { token: b.operatorToken })).statusCode,
        200,
      );
    } finally {
      counters.peek = peek;
    }
    assert.deepEqual(peeked, [], 'B read the failure count of a new address while it hears the others');
    for (let i = 0; i < 20; i += 1) {
      assert.equal((await from(a, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN })).statusCode, 401);
    }
    assertLimited(await from(a, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN }));
    await until('B refuses the address A used up', 5_000, async () => {
      const res = await from(b, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN });
      return res.statusCode === 429;
    });
    // A failure through B is counted and refused exactly.
    assertLimited(await from(b, attacker, 'GET', '/cloud/games', { token: WRONG_TOKEN }));
  });

  it('share route limits and the pending-links cap', async () => {
    for (let i = 0; i < 5; i += 1) {
      assert.equal((await from(a, '198.51.100.80', 'POST', '/cloud/devices/links')).statusCode, 200);
      assert.equal((await from(b, '198.51.100.80', 'POST', '/cloud/devices/links')).statusCode, 200);
    }
    assertLimited(await from(a, '198.51.100.80', 'POST', '/cloud/devices/links'));
    a.clock.advance(61_000);
    assertLimited(
      await from(b, '198.51.100.80', 'POST', '/cloud/devices/links'),
      'DEVICE_LINK_TOO_MANY_PENDING',
    );
  });

  it('let no two simultaneous starts through two instances both take the last pending place', async () => {
    const env = { ...DEFAULT_LIMITS, GCM_RATE_LIMIT_DEVICE_LINK_STARTS: '0' };
    const c = await startTestService({ env });
    const d = await secondInstance(c, env);
    try {
      const starts = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          from(i % 2 === 0 ? c : d, '198.51.100.90', 'POST', '/cloud/devices/links'),
        ),
      );
      const statuses = starts.map((res) => res.statusCode);
      assert.equal(statuses.filter((status) => status === 200).length, 10, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 429).length, 20, statuses.join(','));
    } finally {
      await d.close();
      await c.close();
    }
  });

  it('keeps one row per address and limit, and the clean-up deletes ended windows', async () => {
    const rows = await a.deps.db.selectFrom('rate_limit_windows').selectAll().execute();
    assert.ok(rows.some((row) => row.bucket_key === 'auth-failures:198.51.100.70'));
    assert.equal(new Set(rows.map((row) => row.bucket_key)).size, rows.length);
    a.clock.advance(60 * 60 * 1000);
    assert.ok((await a.deps.rateCounters.prune()) >= rows.length);
    assert.equal((await a.deps.db.selectFrom('rate_limit_windows').selectAll().execute()).length, 0);
  });
});
