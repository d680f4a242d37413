import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { redactUrl } from '../../src/http/redact.js';
import {
  deleteExpiredDeviceLinks,
  USER_AGENT_MAX_LENGTH,
} from '../../src/modules/device-links/device-links.service.js';
import {
  completeLink,
  getLink,
  type LinkResult,
  type PreparedLink,
  prepareLink,
  untilWaiting,
} from '../helpers/device-links.js';
import { assertError } from '../helpers/error-answer.js';
import { claimsOf, encodeSegment, serviceSigner } from '../helpers/jwt.js';
import { startListening } from '../helpers/listening.js';
import { dumpTestDatabase, onPostgres } from '../helpers/postgres.js';
import { type RaceGate, raceGate } from '../helpers/race-gate.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';

const HOUR_MS = 60 * 60 * 1000;
const UNKNOWN_ID = '0190a0a0-0000-7000-8000-00000000beef';

/** Replaces one character of the signature: still well-formed, no longer signed by the service. */
function tamperSignature(jwt: string): string {
  const last = jwt.at(-2) === 'A' ? 'B' : 'A';
  return `${jwt.slice(0, -2)}${last}${jwt.at(-1)}`;
}

describe('device links', () => {
  let svc: TestService;
  let a: Awaited<ReturnType<typeof createGameFixture>>;
  let b: Awaited<ReturnType<typeof createGameFixture>>;

  /** While set, completions wait in it between their read of the link and their write (see raceGate). */
  let gate: RaceGate | undefined;

  before(async () => {
    svc = await startTestService({
      pauses: { deviceLinkCompletionRead: () => gate?.arrive() ?? Promise.resolve() },
    });
    a = await createGameFixture(svc, 'link-a');
    b = await createGameFixture(svc, 'link-b');
  });
  after(async () => {
    await svc.close();
  });

  const linkRow = (linkId: string) =>
    svc.deps.db.selectFrom('device_links').selectAll().where('link_id', '=', linkId).executeTakeFirst();
  const tokenCount = async (gameId: string) =>
    (await svc.deps.db.selectFrom('tokens').select('token_id').where('game_id', '=', gameId).execute())
      .length;

  async function resultOf(linkToken: string): Promise<LinkResult> {
    const res = await getLink(svc, linkToken);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<LinkResult>();
  }

  describe('POST /cloud/devices/links', () => {
    it('needs no token and answers the link id, a JWT naming it and the page URL', async () => {
      const link = await prepareLink(svc);
      assert.deepEqual(Object.keys(link).sort(), [
        'device_link_id',
        'device_link_token',
        'device_link_url',
        'device_link_user_code',
      ]);
      assert.match(link.device_link_user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
      assert.equal(link.device_link_url, `http://localhost:8080/devices/link/${link.device_link_token}`);
      const claims = claimsOf(link.device_link_token);
      assert.equal(claims.sub, link.device_link_id);
      assert.equal(claims.aud, 'device_link');
      assert.equal(claims.exp, (svc.clock.now() + HOUR_MS) / 1000);
      assert.equal(claims.game_id, undefined);
      const row = await linkRow(link.device_link_id);
      assert.equal(row?.token_id, null);
      assert.equal(row?.expire_ts, svc.clock.now() + HOUR_MS);
    });

    it('answers a pending link with no cloud_token and a watch index', async () => {
      const link = await prepareLink(svc);
      const pending = await resultOf(link.device_link_token);
      assert.deepEqual(Object.keys(pending), ['watch']);
      // Opaque (interface 2.6): only that it stays while nothing changes.
      assert.equal(typeof pending.watch.index, 'string');
      assert.deepEqual(await resultOf(link.device_link_token), pending);
    });
  });

  describe('the login flow', () => {
    it('wakes a watching poller on completion, and its cloud token works as a bearer', async () => {
      // A command-line tool over real sockets: prepare, read once, then wait with watch_index.
      const { svc: live, publicUrl } = await startListening();
      try {
        const game = await createGameFixture(live, 'flow');
        const prepared = await fetch(`${publicUrl}/cloud/devices/links`, { method: 'POST' });
        assert.equal(prepared.status, 200);
        const link = (await prepared.json()) as { device_link_token: string; device_link_url: string };
        assert.ok(link.device_link_url.startsWith(`${publicUrl}/devices/link/`));
        const url = (index?: string) =>
          `${publicUrl}/cloud/devices/links?device_link_token=${link.device_link_token}` +
          (index === undefined ? '' : `&watch_index=${index}`);
        const first = (await (await fetch(url())).json()) as LinkResult;
        assert.equal(first.cloud_token, undefined);

        const polling = fetch(url(first.watch.index)).then(async (res) => ({
          status: res.status,
          body: (await res.json()) as LinkResult,
        }));
        await untilWaiting(live);
        const done = await completeLink(live, link.device_link_token, game.gameId);
        assert.equal(done.statusCode, 204, done.body);
        assert.equal(done.body, '');

        const woken = await polling;
        assert.equal(woken.status, 200);
        // Woken by the completion: an answer at the watch timeout would carry the old index.
        assert.notEqual(woken.body.watch.index, first.watch.index);
        const cloudToken = woken.body.cloud_token;
        assert.ok(cloudToken !== undefined);
        assert.equal(live.deps.notifier.waiting, 0);

        const gameRes = await fetch(`${publicUrl}/cloud/games/${game.gameId}`, {
          headers: { authorization: `Bearer ${cloudToken}` },
        });
        assert.equal(gameRes.status, 200);
        const who = await live.call('GET', '/cloud/auth/inspect', { token: cloudToken });
        const agent = who.json<{ agent: { game_cloud?: { game_id: string; token_id: string } } }>().agent;
        assert.equal(agent.game_cloud?.game_id, game.gameId);
        assert.notEqual(agent.game_cloud?.token_id, game.cloudTokenId, 'a new token was minted');
        const other = await live.call('GET', `/cloud/games/${b.gameId}`, { token: cloudToken });
        assertError(other, 403, 'API_FORBIDDEN');
      } finally {
        await live.close();
      }
    });

    it('lets a cloud token of the same game complete the link', async () => {
      const link = await prepareLink(svc);
      const res = await completeLink(svc, link.device_link_token, a.gameId, a.cloudToken);
      assert.equal(res.statusCode, 204, res.body);
      const token = (await resultOf(link.device_link_token)).cloud_token;
      assert.ok(token !== undefined);
      assert.equal(claimsOf(token).game_id, a.gameId);
      assert.equal((await linkRow(link.device_link_id))?.game_id, a.gameId);
    });

    it('hands out the very same token on every get until the link expires', async () => {
      const link = await prepareLink(svc);
      await completeLink(svc, link.device_link_token, a.gameId);
      const first = await resultOf(link.device_link_token);
      assert.ok(first.cloud_token !== undefined);
      for (let i = 0; i < 5; i++) {
        svc.clock.advance(10 * 60 * 1000);
        assert.deepEqual(await resultOf(link.device_link_token), first);
      }
      svc.clock.advance(10 * 60 * 1000);
      assertError(await getLink(svc, link.device_link_token), 400, 'TOKEN_EXPIRED');
      // The token itself lives on (its own expiry): only the link is gone.
      const still = await svc.call('GET', `/cloud/games/${a.gameId}`, { token: first.cloud_token });
      assert.equal(still.statusCode, 200, still.body);
    });

    it('never stores the token text: only its row id is kept', async () => {
      const link = await prepareLink(svc);
      await completeLink(svc, link.device_link_token, a.gameId);
      const token = (await resultOf(link.device_link_token)).cloud_token;
      assert.ok(token !== undefined);
      const files = readdirSync(svc.dataDir).filter((name) => name.startsWith('gcm.sqlite3'));
      const bytes = onPostgres
        ? Buffer.from(await dumpTestDatabase(svc.dataDir))
        : Buffer.concat(files.map((name) => readFileSync(path.join(svc.dataDir, name))));
      assert.ok(bytes.includes(link.device_link_id), 'the store files hold the link row');
      assert.ok(!bytes.includes(token), 'the cloud token text is not in the store');
      assert.ok(!bytes.includes(token.split('.')[2] ?? ''), 'nor its signature');
    });
  });

  describe('expiry', () => {
    it('answers TOKEN_EXPIRED (400) after an hour and deletes the link', async () => {
      const link = await prepareLink(svc);
      svc.clock.advance(HOUR_MS - 1);
      assert.equal((await getLink(svc, link.device_link_token)).statusCode, 200);
      svc.clock.advance(1);
      const res = assertError(await getLink(svc, link.device_link_token), 400, 'TOKEN_EXPIRED');
      assert.equal(res.metadata?.field, 'device_link_token');
      assert.equal(await linkRow(link.device_link_id), undefined);
      assertError(await completeLink(svc, link.device_link_token, a.gameId), 400, 'TOKEN_EXPIRED');
      assertError(await getLink(svc, link.device_link_token), 400, 'TOKEN_EXPIRED');
    });

    it('cannot be completed once expired, so it never yields a token', async () => {
      const link = await prepareLink(svc);
      const before = await tokenCount(a.gameId);
      svc.clock.advance(HOUR_MS);
      assertError(await completeLink(svc, link.device_link_token, a.gameId), 400, 'TOKEN_EXPIRED');
      assert.equal(await tokenCount(a.gameId), before);
    });

    it('is cleaned up without a read, waking a waiting poller with TOKEN_EXPIRED', async () => {
      const unread = await prepareLink(svc);
      const watched = await prepareLink(svc);
      const polling = getLink(svc, watched.device_link_token, '1');
      await untilWaiting(svc);
      svc.clock.advance(HOUR_MS);
      assert.ok((await deleteExpiredDeviceLinks(svc.deps)) >= 2);
      assert.equal(await linkRow(unread.device_link_id), undefined);
      assert.equal(await linkRow(watched.device_link_id), undefined);
      assertError(await polling, 400, 'TOKEN_EXPIRED');
      assert.equal(svc.deps.notifier.waiting, 0);
      assert.equal(await deleteExpiredDeviceLinks(svc.deps), 0);
    });

    it('keeps links that have not expired', async () => {
      const link = await prepareLink(svc);
      svc.clock.advance(HOUR_MS - 1000);
      await deleteExpiredDeviceLinks(svc.deps);
      assert.ok((await linkRow(link.device_link_id)) !== undefined);
    });
  });

  describe('invalid link tokens', () => {
    it('answers TOKEN_INVALID (400) for a tampered, malformed or foreign token', async () => {
      const link = await prepareLink(svc);
      const pending = await resultOf(link.device_link_token);
      const forged = tamperSignature(link.device_link_token);
      const [header, , signature] = link.device_link_token.split('.');
      const otherLink = encodeSegment({ ...claimsOf(link.device_link_token), sub: UNKNOWN_ID });
      for (const bad of [forged, `${header}.${otherLink}.${signature}`, 'not-a-jwt', a.cloudToken]) {
        assertError(await getLink(svc, bad), 400, 'TOKEN_INVALID');
        assertError(await completeLink(svc, bad, a.gameId), 400, 'TOKEN_INVALID');
      }
      assert.deepEqual(await resultOf(link.device_link_token), pending);
    });

    it('answers TOKEN_INVALID to a token signed with the service’s key that names no link or no expiry', async () => {
      const link = await prepareLink(svc);
      const sign = await serviceSigner(svc);
      const claims = claimsOf(link.device_link_token);
      const without = (name: string) =>
        Object.fromEntries(Object.entries(claims).filter(([k]) => k !== name));
      const cases: [string, Record<string, unknown>][] = [
        ['no link', without('sub')],
        ['a link id that is not a string', { ...claims, sub: 7 }],
        ['no expiry', without('exp')],
      ];
      for (const [name, forged] of cases) {
        const token = await sign(forged);
        for (const res of [await getLink(svc, token), await completeLink(svc, token, a.gameId)]) {
          assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
          assert.equal(res.json<{ code: string }>().code, 'TOKEN_INVALID', name);
        }
      }
    });

    it('checks the signature before the expiry: a tampered expired token is invalid', async () => {
      const link = await prepareLink(svc);
      svc.clock.advance(HOUR_MS);
      assertError(await getLink(svc, tamperSignature(link.device_link_token)), 400, 'TOKEN_INVALID');
    });

    it('refuses a device link token as a bearer token (401)', async () => {
      const link = await prepareLink(svc);
      for (const url of ['/cloud/games', '/cloud/auth/inspect', `/cloud/games/${a.gameId}`]) {
        assertError(await svc.call('GET', url, { token: link.device_link_token }), 401, 'API_UNAUTHORIZED');
      }
      assertError(
        await completeLink(svc, link.device_link_token, a.gameId, link.device_link_token),
        401,
        'API_UNAUTHORIZED',
      );
    });

    it('refuses a malformed watch_index', async () => {
      const link = await prepareLink(svc);
      assertError(await getLink(svc, link.device_link_token, 'one'), 400, 'API_BAD_QUERY');
      assertError(await svc.call('GET', '/cloud/devices/links', { token: null }), 400, 'API_BAD_QUERY');
    });
  });

  describe('POST /cloud/devices/links/complete', () => {
    it('refuses a second completion and keeps handing out the first token', async () => {
      const link = await prepareLink(svc);
      assert.equal((await completeLink(svc, link.device_link_token, a.gameId)).statusCode, 204);
      const first = await resultOf(link.device_link_token);
      const tokens = await tokenCount(b.gameId);
      for (const [gameId, bearer] of [
        [a.gameId, undefined],
        [b.gameId, undefined],
        [a.gameId, a.cloudToken],
      ] as const) {
        const again = await completeLink(svc, link.device_link_token, gameId, bearer);
        assertError(again, 400, 'CLOUD_DEVICE_LINK_ALREADY_COMPLETE');
      }
      assert.deepEqual(await resultOf(link.device_link_token), first);
      assert.equal(await tokenCount(b.gameId), tokens);
    });

    it('lets one of two completions through when both read the link as unused before either writes', async () => {
      const link = await prepareLink(svc);
      const before = (await tokenCount(a.gameId)) + (await tokenCount(b.gameId));
      // Forced, not hoped for: on SQLite the one connection's queue would otherwise run the two in turn.
      const held = raceGate(2);
      gate = held;
      let answers: LightMyRequestResponse[];
      try {
        answers = await Promise.all([
          completeLink(svc, link.device_link_token, a.gameId),
          completeLink(svc, link.device_link_token, b.gameId),
        ]);
      } finally {
        gate = undefined;
      }
      assert.equal(held.arrived, 2, 'both completions read the link before either wrote');
      assert.deepEqual(
        answers.map((r) => r.statusCode).sort(),
        [204, 400],
        answers.map((r) => r.body).join(),
      );
      assertError(
        answers.find((r) => r.statusCode === 400) as LightMyRequestResponse,
        400,
        'CLOUD_DEVICE_LINK_ALREADY_COMPLETE',
      );
      const after = (await tokenCount(a.gameId)) + (await tokenCount(b.gameId));
      assert.equal(after, before + 1, 'exactly one token minted');
      const row = await linkRow(link.device_link_id);
      const winner = answers[0]?.statusCode === 204 ? a.gameId : b.gameId;
      assert.equal(row?.game_id, winner);
      const token = await svc.deps.db
        .selectFrom('tokens')
        .select('game_id')
        .where('token_id', '=', row?.token_id ?? '')
        .executeTakeFirst();
      assert.equal(token?.game_id, winner);
    });

    it('refuses a cloud token of another game with 403 and attaches nothing', async () => {
      const link = await prepareLink(svc);
      const pending = await resultOf(link.device_link_token);
      const tokens = await tokenCount(a.gameId);
      assertError(
        await completeLink(svc, link.device_link_token, a.gameId, b.cloudToken),
        403,
        'API_FORBIDDEN',
      );
      // The same for a game that does not exist: nothing about it is read.
      assertError(
        await completeLink(svc, link.device_link_token, UNKNOWN_ID, b.cloudToken),
        403,
        'API_FORBIDDEN',
      );
      assert.deepEqual(await resultOf(link.device_link_token), pending);
      assert.equal((await linkRow(link.device_link_id))?.token_id, null);
      assert.equal(await tokenCount(a.gameId), tokens);
    });

    it('answers 404 GAME_NOT_FOUND for an unknown game, and the link stays usable', async () => {
      const link = await prepareLink(svc);
      const pending = await resultOf(link.device_link_token);
      assertError(await completeLink(svc, link.device_link_token, UNKNOWN_ID), 404, 'GAME_NOT_FOUND');
      assert.deepEqual(await resultOf(link.device_link_token), pending);
      assert.equal((await completeLink(svc, link.device_link_token, b.gameId)).statusCode, 204);
    });

    it('needs a token: none is 401, a lobby reporter token 403', async () => {
      const link = await prepareLink(svc);
      assertError(await completeLink(svc, link.device_link_token, a.gameId, null), 401, 'API_UNAUTHORIZED');
      const reporter = await svc.call(
        'POST',
        `/cloud/games/${a.gameId}/namespaces/${a.namespaceId}/tokens/reporter`,
      );
      const reporterToken = reporter.json<{ token: string }>().token;
      assertError(
        await completeLink(svc, link.device_link_token, a.gameId, reporterToken),
        403,
        'API_FORBIDDEN',
      );
      assertError(
        await svc.call('POST', '/cloud/devices/links/complete', { body: { game_id: a.gameId } }),
        400,
        'API_BAD_BODY',
      );
    });
  });

  describe('watch', () => {
    it('answers at the timeout with the current data when nothing changed', async () => {
      const quick = await startTestService({ env: { GCM_WATCH_TIMEOUT_MS: '50' } });
      try {
        const link = await prepareLink(quick);
        const pending = (await getLink(quick, link.device_link_token)).json<LinkResult>();
        const res = await getLink(quick, link.device_link_token, pending.watch.index);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), pending);
      } finally {
        await quick.close();
      }
    });

    it('answers at once for an index that is not the current one', async () => {
      const link = await prepareLink(svc);
      const pending = await resultOf(link.device_link_token);
      assert.equal((await completeLink(svc, link.device_link_token, a.gameId)).statusCode, 204);
      const res = await getLink(svc, link.device_link_token, pending.watch.index);
      assert.notEqual(res.json<LinkResult>().watch.index, pending.watch.index);
      assert.ok(res.json<LinkResult>().cloud_token !== undefined);
    });
  });

  describe('GET /devices/link/{token}', () => {
    it('renders the page with a nonce CSP, the link token escaped in an attribute, and no referrer', async () => {
      const link = await prepareLink(svc);
      const res = await svc.call('GET', `/devices/link/${link.device_link_token}`, { token: null });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      const csp = String(res.headers['content-security-policy']);
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
      assert.ok(nonce !== undefined, csp);
      assert.match(csp, /default-src 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.ok(res.body.includes(`<script nonce="${nonce}">`));
      assert.ok(res.body.includes(`data-link-token="${link.device_link_token}"`));
      assert.doesNotMatch(res.body, /\son[a-z]+=/i, 'no inline event handlers');
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(res.headers['cache-control'], 'no-store');
      const again = await svc.call('GET', `/devices/link/${link.device_link_token}`, { token: null });
      assert.notEqual(again.headers['content-security-policy'], csp, 'a fresh nonce per response');
    });

    it('shows who asked: the confirmation code, the address, the User-Agent (escaped, cleaned, bounded), when', async () => {
      const userAgent = `evil<script>alert(1)</script>\u0001tool\u007f/1.0 "quoted" & 'single'`;
      const started = await svc.app.inject({
        method: 'POST',
        url: '/cloud/devices/links',
        remoteAddress: '203.0.113.42',
        headers: { 'user-agent': userAgent },
      });
      assert.equal(started.statusCode, 200, started.body);
      const link = started.json<PreparedLink>();
      const res = await svc.call('GET', `/devices/link/${link.device_link_token}`, { token: null });
      assert.equal(res.statusCode, 200);
      assert.ok(res.body.includes(`<p class="code" id="user-code">${link.device_link_user_code}</p>`));
      assert.ok(res.body.includes('<dd id="origin-address">203.0.113.42</dd>'));
      assert.ok(
        res.body.includes(
          '<dd id="origin-agent">evil&#60;script&#62;alert(1)&#60;/script&#62; tool /1.0 &#34;quoted&#34; &#38; &#39;single&#39;</dd>',
        ),
        res.body,
      );
      assert.doesNotMatch(res.body, /<script>alert/);
      assert.ok(res.body.includes(`<time datetime="${new Date(svc.clock.now()).toISOString()}">`));
      const row = await linkRow(link.device_link_id);
      assert.equal(row?.user_code, link.device_link_user_code);
      assert.equal(row?.client_address, '203.0.113.42');

      const long = await svc.app.inject({
        method: 'POST',
        url: '/cloud/devices/links',
        headers: { 'user-agent': 'x'.repeat(5000) },
      });
      const longRow = await linkRow(long.json<PreparedLink>().device_link_id);
      assert.equal(longRow?.user_agent, `${'x'.repeat(USER_AGENT_MAX_LENGTH - 1)}…`);
      const none = await svc.app.inject({
        method: 'POST',
        url: '/cloud/devices/links',
        headers: { 'user-agent': ' \t ' },
      });
      const noneLink = none.json<PreparedLink>();
      assert.equal((await linkRow(noneLink.device_link_id))?.user_agent, null);
      const nonePage = await svc.call('GET', `/devices/link/${noneLink.device_link_token}`, { token: null });
      assert.match(nonePage.body, /<dd id="origin-agent"><em>not recorded<\/em><\/dd>/);
    });

    it('says when the link is used, expired or not valid', async () => {
      const used = await prepareLink(svc);
      await completeLink(svc, used.device_link_token, a.gameId);
      const page = (token: string) => svc.call('GET', `/devices/link/${token}`, { token: null });
      const usedPage = await page(used.device_link_token);
      assert.equal(usedPage.statusCode, 200);
      assert.match(usedPage.body, /already been used/);
      assert.doesNotMatch(usedPage.body, /<script/);

      const invalid = await page('%3Cscript%3Ealert(1)%3C%2Fscript%3E');
      assert.equal(invalid.statusCode, 400);
      assert.match(invalid.body, /not valid/);
      assert.doesNotMatch(invalid.body, /alert\(1\)/);

      const expired = await prepareLink(svc);
      svc.clock.advance(HOUR_MS);
      const expiredPage = await page(expired.device_link_token);
      assert.equal(expiredPage.statusCode, 410);
      assert.match(expiredPage.body, /expired/);
      assert.equal(await linkRow(expired.device_link_id), undefined);
    });

    it('keeps the link token out of the access log', () => {
      assert.equal(redactUrl('/devices/link/aaa.bbb.ccc'), '/devices/link/[redacted]');
      assert.equal(
        redactUrl('/cloud/devices/links?device_link_token=aaa.bbb.ccc&watch_index=1'),
        '/cloud/devices/links?device_link_token=%5Bredacted%5D&watch_index=1',
      );
      // The link of a password reset mail carries its token in the path too.
      assert.equal(
        redactUrl('/auth/reset-password/AbC123xyz?callbackURL=%2F'),
        '/auth/reset-password/[redacted]?callbackURL=%2F',
      );
    });
  });

  it('lists the operations in the OpenAPI document with their ids', async () => {
    const doc = (await svc.call('GET', '/openapi.json')).json<{
      paths: Record<string, Record<string, { operationId?: string; security?: unknown }>>;
    }>();
    assert.equal(doc.paths['/cloud/devices/links']?.post?.operationId, 'devices.links.prepare');
    assert.equal(doc.paths['/cloud/devices/links']?.get?.operationId, 'devices.links.get');
    assert.equal(doc.paths['/cloud/devices/links/complete']?.post?.operationId, 'devices.links.complete');
    assert.equal(doc.paths['/devices/link/{token}']?.get?.operationId, 'devices.links.page');
    assert.deepEqual(doc.paths['/cloud/devices/links']?.get?.security, [], 'public: no token');
    assert.ok(doc.paths['/cloud/devices/links/complete']?.post?.security !== undefined);
  });
});
