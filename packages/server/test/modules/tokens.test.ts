import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createService } from '../../src/composition-root.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/lib/clock.js';
import { PURGE_GRACE_MS, purgeDeleted } from '../../src/modules/purge/purge.service.js';
import { assertError, type ErrorBody } from '../helpers/error-answer.js';
import { claimsOf, decodeSegment, encodeSegment, type Signer, serviceSigner } from '../helpers/jwt.js';
import { addMember, asPerson, giveGame, newTeam } from '../helpers/people.js';
import {
  createGameFixture,
  secondInstance,
  startTestService,
  type TestService,
  testConfig,
} from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';
import { HANG_MS, until } from '../helpers/until.js';

interface Minted {
  token: string;
  token_id: string;
  expire_ts: string;
}

interface Inspect {
  agent: {
    operator?: Record<string, never>;
    game_cloud?: { game_id: string; token_id: string; create_ts: string; expire_ts: string };
  };
}

const DAY_MS = 24 * 3600 * 1000;
const UNKNOWN_ID = '0190a0a0-0000-7000-8000-00000000beef';

describe('tokens', () => {
  let svc: TestService;
  let a: Awaited<ReturnType<typeof createGameFixture>>;
  let b: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    svc = await startTestService();
    a = await createGameFixture(svc, 'tok-a');
    b = await createGameFixture(svc, 'tok-b');
  });
  after(async () => {
    await svc.close();
  });

  async function mint(gameId: string, token?: string | null) {
    return svc.call('POST', `/cloud/games/${gameId}/tokens/cloud`, token === undefined ? {} : { token });
  }
  async function mintOk(gameId: string): Promise<Minted> {
    const res = await mint(gameId);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Minted>();
  }
  function inspect(token: string | null, headers?: Record<string, string>) {
    return svc.call('GET', '/cloud/auth/inspect', { token, ...(headers === undefined ? {} : { headers }) });
  }
  function revoke(tokenId: string, token?: string) {
    return svc.call('DELETE', `/cloud/tokens/${tokenId}`, token === undefined ? {} : { token });
  }

  describe('POST /cloud/games/{game_id}/tokens/cloud', () => {
    it('mints an EdDSA JWT for the game, with its id and an expiry 365 days out', async () => {
      const minted = await mintOk(a.gameId);
      assert.deepEqual(Object.keys(minted).sort(), ['expire_ts', 'token', 'token_id']);
      const parts = minted.token.split('.');
      assert.equal(parts.length, 3);
      // docs/interface-notes.md "Authentication": the header and claims, and nothing else.
      const header = decodeSegment(parts[0]);
      assert.deepEqual(Object.keys(header).sort(), ['alg', 'kid', 'typ']);
      assert.equal(header.alg, 'EdDSA');
      assert.equal(header.typ, 'JWT');
      assert.equal(typeof header.kid, 'string');
      const seconds = Math.floor(svc.clock.now() / 1000);
      assert.deepEqual(decodeSegment(parts[1]), {
        game_id: a.gameId,
        iss: 'game-cloud-management',
        aud: 'cloud',
        jti: minted.token_id,
        iat: seconds,
        exp: seconds + 365 * 86_400,
      });
      assert.equal(minted.expire_ts, new Date(svc.clock.now() + 365 * DAY_MS).toISOString());
      assert.match(minted.expire_ts, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const who = await inspect(minted.token);
      assert.equal(who.statusCode, 200, who.body);
      assert.equal(who.json<Inspect>().agent.game_cloud?.game_id, a.gameId);
    });

    it("signs the very text jose's SignJWT makes from the same key, header and claims", async () => {
      // The service signs without jose (a synchronous Ed25519 signature: the find's hot path), and a stored
      // token is signed again from its row: its text must stay what jose made and what jose verifies.
      const minted = await mintOk(a.gameId);
      const viaJose = await serviceSigner(svc);
      assert.equal(await viaJose(claimsOf(minted.token)), minted.token);
    });

    it('mints a different token and id each time', async () => {
      const one = await mintOk(a.gameId);
      const two = await mintOk(a.gameId);
      assert.notEqual(one.token, two.token);
      assert.notEqual(one.token_id, two.token_id);
    });

    it('is operator only: a cloud token of the same game gets 403, no token 401', async () => {
      const asOwnCloud = await mint(a.gameId, a.cloudToken);
      assertError(asOwnCloud, 403, 'API_FORBIDDEN');
      assert.ok(!asOwnCloud.body.includes('"token"'));
      assertError(await mint(b.gameId, a.cloudToken), 403, 'API_FORBIDDEN');
      assertError(await mint(a.gameId, null), 401, 'API_UNAUTHORIZED');
    });

    it('answers 404 GAME_NOT_FOUND for an unknown game', async () => {
      assertError(await mint(UNKNOWN_ID), 404, 'GAME_NOT_FOUND');
    });

    it('answers a replay (Idempotency-Key) with the same token, signed again, dead once the game is retired', async () => {
      const doomed = await createGameFixture(svc, 'tok-replay');
      const mintWithKey = () =>
        svc.call('POST', `/cloud/games/${doomed.gameId}/tokens/cloud`, {
          headers: { 'idempotency-key': 'replay-after-retire' },
        });
      const first = await mintWithKey();
      assert.equal(first.statusCode, 200, first.body);
      const replay = await mintWithKey();
      assert.equal(replay.statusCode, 200, replay.body);
      assert.deepEqual(replay.json(), first.json());
      assert.equal((await svc.call('DELETE', `/cloud/games/${doomed.gameId}`)).statusCode, 204);
      svc.clock.advance(PURGE_GRACE_MS + 1);
      await purgeDeleted(svc.deps);
      // Token rows outlive the purge (they are the audit of who held access), so the replay still answers
      // the same text: revoked with its game, it opens nothing.
      const afterPurge = await mintWithKey();
      assert.deepEqual(afterPurge.json(), first.json());
      assertError(await inspect(first.json<Minted>().token), 401, 'TOKEN_REVOKED');
    });
  });

  describe('GET /cloud/auth/inspect', () => {
    it('names the operator', async () => {
      const res = await inspect(svc.operatorToken);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { agent: { operator: {} } });
    });

    it('names the game and token id of a cloud token', async () => {
      const res = await inspect(a.cloudToken);
      assert.equal(res.statusCode, 200, res.body);
      const agent = res.json<Inspect>().agent;
      assert.equal(agent.operator, undefined);
      assert.equal(agent.game_cloud?.game_id, a.gameId);
      assert.equal(agent.game_cloud?.token_id, a.cloudTokenId);
      const resB = await inspect(b.cloudToken);
      assert.equal(resB.json<Inspect>().agent.game_cloud?.game_id, b.gameId);
      assert.equal(resB.json<Inspect>().agent.game_cloud?.token_id, b.cloudTokenId);
    });

    it('answers the whole agent of a cloud and of a reporter token: their ids and times as minted', async () => {
      const minted = new Date(svc.clock.now()).toISOString();
      const cloud = await mintOk(a.gameId);
      assert.deepEqual((await inspect(cloud.token)).json(), {
        agent: {
          game_cloud: {
            game_id: a.gameId,
            token_id: cloud.token_id,
            create_ts: minted,
            expire_ts: cloud.expire_ts,
            // The operator made the game with no team, and minted the token for no person.
            game: { name_id: 'tok-a', display_name: 'Test Game' },
          },
        },
      });
      const res = await svc.call(
        'POST',
        `/cloud/games/${a.gameId}/namespaces/${a.namespaceId}/tokens/reporter`,
      );
      assert.equal(res.statusCode, 200, res.body);
      const reporter = res.json<Minted>();
      assert.deepEqual((await inspect(reporter.token)).json(), {
        agent: {
          namespace_reporter: {
            game_id: a.gameId,
            namespace_id: a.namespaceId,
            token_id: reporter.token_id,
            create_ts: minted,
            expire_ts: reporter.expire_ts,
          },
        },
      });
    });

    it('answers 401 API_UNAUTHORIZED without a token, saying how to send one', async () => {
      const body = assertError(await inspect(null), 401, 'API_UNAUTHORIZED');
      assert.equal(body.message, 'a valid bearer token is required (Authorization: Bearer <token>)');
    });

    it('answers 401 API_UNAUTHORIZED to garbage tokens', async () => {
      for (const garbage of [
        'garbage',
        'a.b.c',
        'eyJhbGciOiJFZERTQSJ9.e30.',
        `${svc.operatorToken}x`,
        'gcm_op_',
      ]) {
        assertError(await inspect(garbage), 401, 'API_UNAUTHORIZED');
      }
    });

    it('answers 401 API_UNAUTHORIZED to malformed Authorization headers', async () => {
      for (const authorization of [
        'Basic x',
        `Basic ${svc.operatorToken}`,
        'Bearer',
        `Token ${svc.operatorToken}`,
        `Bearer ${svc.operatorToken} extra`,
        svc.operatorToken,
      ]) {
        const res = await inspect(null, { authorization });
        assertError(res, 401, 'API_UNAUTHORIZED');
      }
    });

    it('refuses a malformed header that ends as a good one just served from memory does', async () => {
      const read = (authorization: string) =>
        svc.call('GET', `/cloud/games/${a.gameId}`, { token: null, headers: { authorization } });
      const good = `Bearer ${a.cloudToken}`;
      // Used until memory answers for it: the hot path then knows this header by its last characters.
      for (let i = 0; i < 3; i++) assert.equal((await read(good)).statusCode, 200, `use ${i}`);
      for (const authorization of [
        `xBearer ${a.cloudToken}`,
        `Bearer ${a.cloudToken.slice(1)}`,
        `Basic ${a.cloudToken}`,
        a.cloudToken.slice(-40),
      ]) {
        assertError(await read(authorization), 401, 'API_UNAUTHORIZED');
      }
      assert.equal((await read(good)).statusCode, 200);
    });

    it('takes the Bearer scheme in any case, after one or more spaces, with white space after the token', async () => {
      // RFC 9110 11.1: the scheme is case-insensitive; RFC 9110 5.6.3 allows more than one space.
      for (const authorization of [
        `bearer ${svc.operatorToken}`,
        `BEARER ${svc.operatorToken}`,
        `Bearer   ${svc.operatorToken}`,
        `Bearer ${svc.operatorToken}\t `,
        `bearer ${a.cloudToken}`,
      ]) {
        const res = await inspect(null, { authorization });
        assert.equal(res.statusCode, 200, `${JSON.stringify(authorization)}: ${res.body}`);
      }
      for (const authorization of [
        `xBearer ${svc.operatorToken}`,
        `Bearer\t${svc.operatorToken}`,
        `Bearer ${svc.operatorToken}\tx`,
      ]) {
        const body = assertError(await inspect(null, { authorization }), 401, 'API_UNAUTHORIZED');
        assert.match(body.message, /Bearer <token>/, JSON.stringify(authorization));
      }
    });

    it('answers 401 API_UNAUTHORIZED to a JWT whose payload was changed', async () => {
      const [header, payload, signature] = a.cloudToken.split('.');
      const claims = decodeSegment(payload);
      const toB = [header, encodeSegment({ ...claims, game_id: b.gameId }), signature].join('.');
      assertError(await inspect(toB), 401, 'API_UNAUTHORIZED');
      const longer = [
        header,
        encodeSegment({ ...claims, exp: Number(claims.exp) + 1000 * 86400 }),
        signature,
      ].join('.');
      assertError(await inspect(longer), 401, 'API_UNAUTHORIZED');
      // And the tampered token does not reach game B's data.
      assertError(await svc.call('GET', `/cloud/games/${b.gameId}`, { token: toB }), 401, 'API_UNAUTHORIZED');
    });

    it('answers 401 API_UNAUTHORIZED to a JWT whose signature was changed', async () => {
      const [header, payload, signature] = a.cloudToken.split('.');
      assert.ok(signature !== undefined && signature.length > 10);
      const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
      assertError(await inspect([header, payload, flipped].join('.')), 401, 'API_UNAUTHORIZED');
      assertError(await inspect([header, payload, ''].join('.')), 401, 'API_UNAUTHORIZED');
    });

    it('answers 401 API_UNAUTHORIZED to an unsigned (alg none) token and one signed by a foreign key', async () => {
      const [header, payload] = a.cloudToken.split('.');
      const kid = decodeSegment(header).kid;
      const none = [encodeSegment({ alg: 'none', typ: 'JWT', kid }), payload, ''].join('.');
      assertError(await inspect(none), 401, 'API_UNAUTHORIZED');

      const claims = decodeSegment(payload);
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'EdDSA', kid: String(kid), typ: 'JWT' })
        .sign(privateKey);
      assertError(await inspect(forged), 401, 'API_UNAUTHORIZED');
    });

    it('does not accept a cloud token for another game (403) on a game route', async () => {
      const res = await svc.call('GET', `/cloud/games/${b.gameId}`, { token: a.cloudToken });
      assertError(res, 403, 'API_FORBIDDEN');
      assert.ok(!res.body.includes('tok-b'));
    });
  });

  describe('expiry', () => {
    let expSvc: TestService;
    before(async () => {
      expSvc = await startTestService();
    });
    after(async () => {
      await expSvc.close();
    });

    it('accepts a cloud token until 365 days, then answers 401 TOKEN_EXPIRED', async () => {
      const f = await createGameFixture(expSvc, 'expiring');
      expSvc.clock.advance(364 * DAY_MS);
      const stillOk = await expSvc.call('GET', '/cloud/auth/inspect', { token: f.cloudToken });
      assert.equal(stillOk.statusCode, 200, stillOk.body);

      expSvc.clock.advance(2 * DAY_MS);
      const inspectRes = await expSvc.call('GET', '/cloud/auth/inspect', { token: f.cloudToken });
      assertError(inspectRes, 401, 'TOKEN_EXPIRED');
      assertError(
        await expSvc.call('GET', `/cloud/games/${f.gameId}`, { token: f.cloudToken }),
        401,
        'TOKEN_EXPIRED',
      );
      // The operator token does not expire, and a freshly minted token works.
      const op = await expSvc.call('GET', '/cloud/auth/inspect');
      assert.equal(op.statusCode, 200, op.body);
      const fresh = await expSvc.call('POST', `/cloud/games/${f.gameId}/tokens/cloud`);
      assert.equal(fresh.statusCode, 200, fresh.body);
      const freshRes = await expSvc.call('GET', '/cloud/auth/inspect', { token: fresh.json<Minted>().token });
      assert.equal(freshRes.statusCode, 200, freshRes.body);
    });

    it('answers TOKEN_EXPIRED 366 days after minting, whatever the start time', async () => {
      const clock = new ManualClock(Date.parse('2026-06-01T12:00:00.000Z'));
      const s = await startTestService({ clock });
      try {
        const f = await createGameFixture(s, 'exp-366');
        s.clock.advance(366 * 24 * 3600 * 1000);
        assertError(
          await s.call('GET', '/cloud/auth/inspect', { token: f.cloudToken }),
          401,
          'TOKEN_EXPIRED',
        );
      } finally {
        await s.close();
      }
    });
  });

  describe('DELETE /cloud/tokens/{token_id}', () => {
    it('revokes: later use answers 401 TOKEN_REVOKED; revoking again answers 204', async () => {
      const minted = await mintOk(a.gameId);
      assert.equal((await inspect(minted.token)).statusCode, 200);

      const first = await revoke(minted.token_id);
      assert.equal(first.statusCode, 204, first.body);
      assert.equal(first.body, '');
      assertError(await inspect(minted.token), 401, 'TOKEN_REVOKED');
      assertError(
        await svc.call('GET', `/cloud/games/${a.gameId}`, { token: minted.token }),
        401,
        'TOKEN_REVOKED',
      );

      const second = await revoke(minted.token_id);
      assert.equal(second.statusCode, 204, second.body);
      assert.equal(second.body, '');
      assertError(await inspect(minted.token), 401, 'TOKEN_REVOKED');
    });

    it('refuses a token at once when it is revoked while memory answers for it', async () => {
      const minted = await mintOk(a.gameId);
      const read = () => svc.call('GET', `/cloud/games/${a.gameId}`, { token: minted.token });
      // The first use checks the store; the next ones are answered from memory (signature, row, caller).
      for (let i = 0; i < 3; i++) assert.equal((await read()).statusCode, 200, `use ${i}`);
      assert.equal((await revoke(minted.token_id)).statusCode, 204);
      assertError(await read(), 401, 'TOKEN_REVOKED');
      assertError(await inspect(minted.token), 401, 'TOKEN_REVOKED');
    });

    it('revokes only the named token', async () => {
      const one = await mintOk(a.gameId);
      const two = await mintOk(a.gameId);
      assert.equal((await revoke(one.token_id)).statusCode, 204);
      assertError(await inspect(one.token), 401, 'TOKEN_REVOKED');
      assert.equal((await inspect(two.token)).statusCode, 200);
      assert.equal((await inspect(a.cloudToken)).statusCode, 200);
    });

    it('lets a cloud token revoke tokens of its own game, itself included', async () => {
      const actor = await mintOk(a.gameId);
      const victim = await mintOk(a.gameId);
      const res = await revoke(victim.token_id, actor.token);
      assert.equal(res.statusCode, 204, res.body);
      assertError(await inspect(victim.token), 401, 'TOKEN_REVOKED');
      // Idempotent for the game's own token too.
      assert.equal((await revoke(victim.token_id, actor.token)).statusCode, 204);

      const self = await revoke(actor.token_id, actor.token);
      assert.equal(self.statusCode, 204, self.body);
      assertError(await inspect(actor.token), 401, 'TOKEN_REVOKED');
    });

    it("answers 404 TOKEN_NOT_FOUND to a cloud token naming another game's token, which stays valid", async () => {
      const bToken = await mintOk(b.gameId);
      const res = await revoke(bToken.token_id, a.cloudToken);
      assertError(res, 404, 'TOKEN_NOT_FOUND');
      assert.ok(!res.body.includes(b.gameId));
      const still = await inspect(bToken.token);
      assert.equal(still.statusCode, 200, still.body);
      assert.equal(still.json<Inspect>().agent.game_cloud?.token_id, bToken.token_id);

      // Even once revoked by the operator, it stays "not found" for game A (no existence oracle).
      assert.equal((await revoke(bToken.token_id)).statusCode, 204);
      assertError(await revoke(bToken.token_id, a.cloudToken), 404, 'TOKEN_NOT_FOUND');
    });

    it('answers 404 TOKEN_NOT_FOUND for an unknown token id', async () => {
      assertError(await revoke(UNKNOWN_ID), 404, 'TOKEN_NOT_FOUND');
      assertError(await revoke(UNKNOWN_ID, a.cloudToken), 404, 'TOKEN_NOT_FOUND');
    });

    it('answers 401 without a token and revokes nothing', async () => {
      const minted = await mintOk(a.gameId);
      const res = await svc.call('DELETE', `/cloud/tokens/${minted.token_id}`, { token: null });
      assertError(res, 401, 'API_UNAUTHORIZED');
      assert.equal((await inspect(minted.token)).statusCode, 200);
    });
  });

  describe('operator token', () => {
    it('is written to <data dir>/operator-token with mode 0600', () => {
      const file = path.join(svc.dataDir, 'operator-token');
      assert.ok(existsSync(file));
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(readFileSync(file, 'utf8').trim(), svc.operatorToken);
      assert.ok(svc.operatorToken.length >= 32);
    });

    it('survives a restart on the same data dir: no new token, the old one (and cloud tokens) still work', async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-tok-restart-'));
      try {
        const first = await startTestService({ dataDir });
        const f = await createGameFixture(first, 'restarted');
        const file = path.join(dataDir, 'operator-token');
        const before = readFileSync(file, 'utf8');
        assert.equal(before.trim(), first.operatorToken);
        await first.close();
        assert.ok(existsSync(file), 'closing a service with a given data dir keeps it');

        const config = await testConfig(dataDir);
        const second = await createService(config, { clock: first.clock, logger: false });
        try {
          assert.equal(second.newOperatorToken, undefined);
          assert.equal(readFileSync(file, 'utf8'), before);
          const op = await second.app.inject({
            method: 'GET',
            url: '/cloud/auth/inspect',
            headers: { authorization: `Bearer ${first.operatorToken}` },
          });
          assert.equal(op.statusCode, 200, op.body);
          assert.deepEqual(op.json(), { agent: { operator: {} } });
          const cloud = await second.app.inject({
            method: 'GET',
            url: `/cloud/games/${f.gameId}`,
            headers: { authorization: `Bearer ${f.cloudToken}` },
          });
          assert.equal(cloud.statusCode, 200, cloud.body);
          assert.equal(cloud.json<{ game: { name_id: string } }>().game.name_id, 'restarted');
        } finally {
          await second.app.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('GCM_OPERATOR_TOKEN overrides the generated token', async () => {
      const override = 'x'.repeat(40);
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-tok-override-'));
      try {
        // A store that already has a generated token...
        const plain = await startTestService({ dataDir });
        const generated = plain.operatorToken;
        await plain.close();

        // ...started with the override accepts the override, and only it.
        const s = await startTestService({ dataDir, env: { GCM_OPERATOR_TOKEN: override } });
        try {
          assert.equal(s.operatorToken, override);
          const res = await s.call('GET', '/cloud/auth/inspect', { token: override });
          assert.equal(res.statusCode, 200, res.body);
          assert.deepEqual(res.json(), { agent: { operator: {} } });
          const game = await s.call('POST', '/cloud/games', {
            token: override,
            body: { name_id: 'by-override', display_name: 'By Override' },
          });
          assert.equal(game.statusCode, 200, game.body);
          assertError(
            await s.call('GET', '/cloud/auth/inspect', { token: generated }),
            401,
            'API_UNAUTHORIZED',
          );
          assertError(
            await s.call('GET', '/cloud/auth/inspect', { token: 'y'.repeat(40) }),
            401,
            'API_UNAUTHORIZED',
          );
        } finally {
          await s.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('with GCM_OPERATOR_TOKEN on a fresh store, writes no operator-token file', async () => {
      const s = await startTestService({ env: { GCM_OPERATOR_TOKEN: 'o'.repeat(32) } });
      try {
        assert.equal(existsSync(path.join(s.dataDir, 'operator-token')), false);
        assert.equal((await s.call('GET', '/cloud/auth/inspect')).statusCode, 200);
      } finally {
        await s.close();
      }
    });

    it('refuses a too-short or white-space override in loadConfig with ConfigError', () => {
      for (const bad of ['short', 'x'.repeat(31), `${'x'.repeat(20)} ${'x'.repeat(20)}`]) {
        assert.throws(
          () => loadConfig({ GCM_DATA_DIR: os.tmpdir(), GCM_OPERATOR_TOKEN: bad }),
          (err: unknown) => err instanceof ConfigError && err.message.includes('GCM_OPERATOR_TOKEN'),
          bad,
        );
      }
      assert.equal(
        loadConfig({ GCM_DATA_DIR: os.tmpdir(), GCM_OPERATOR_TOKEN: 'x'.repeat(32) }).operatorToken,
        'x'.repeat(32),
      );
    });
  });

  describe('error bodies and secrets', () => {
    it('every error has {code, message, ray_id} and an x-ray-id header equal to ray_id', async () => {
      const responses: LightMyRequestResponse[] = [
        await inspect(null),
        await inspect('garbage'),
        await inspect(null, { authorization: 'Basic x' }),
        await mint(a.gameId, a.cloudToken),
        await mint(UNKNOWN_ID),
        await revoke(UNKNOWN_ID),
        await svc.call('GET', `/cloud/games/${b.gameId}`, { token: a.cloudToken }),
        await svc.call('POST', '/cloud/games', { body: { name_id: 5, display_name: 'x' } }),
        await svc.call('POST', '/cloud/games', { body: { name_id: 'BAD', display_name: 'x' } }),
        await svc.call('GET', '/cloud/no-such-route'),
      ];
      const rayIds = new Set<string>();
      for (const res of responses) {
        assert.ok(res.statusCode >= 400, res.body);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        const body = res.json<ErrorBody>();
        assert.match(body.code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/, res.body);
        assert.equal(typeof body.message, 'string');
        assert.ok(body.message.length > 0);
        assert.equal(typeof body.ray_id, 'string');
        assert.ok(body.ray_id.length > 0);
        assert.equal(res.headers['x-ray-id'], body.ray_id);
        assert.ok(!('stack' in body));
        rayIds.add(body.ray_id);
      }
      assert.equal(rayIds.size, responses.length, 'each request has its own ray_id');
      assert.equal(responses.at(-1)?.json<ErrorBody>().code, 'API_NOT_FOUND');
    });

    it('successful responses carry an x-ray-id header too', async () => {
      const res = await inspect(svc.operatorToken);
      assert.equal(res.statusCode, 200);
      assert.equal(typeof res.headers['x-ray-id'], 'string');
      assert.ok(String(res.headers['x-ray-id']).length > 0);
    });

    it('no response body contains the operator token or a cloud token, except the mint response', async () => {
      const minted = await mint(a.gameId);
      assert.equal(minted.statusCode, 200);
      const fresh = minted.json<Minted>();
      assert.ok(minted.body.includes(fresh.token), 'the mint response does carry the token');
      assert.ok(!minted.body.includes(svc.operatorToken));

      const secrets = [svc.operatorToken, a.cloudToken, b.cloudToken, fresh.token];
      const responses: LightMyRequestResponse[] = [
        await inspect(svc.operatorToken),
        await inspect(a.cloudToken),
        await inspect(fresh.token),
        await svc.call('GET', '/cloud/games'),
        await svc.call('GET', '/cloud/games', { token: a.cloudToken }),
        await svc.call('GET', `/cloud/games/${a.gameId}`),
        await svc.call('GET', `/cloud/games/${a.gameId}`, { token: a.cloudToken }),
        await svc.call('GET', `/cloud/games/${b.gameId}`, { token: a.cloudToken }),
        await svc.call('GET', `/cloud/games/${a.gameId}/versions/${a.versionId}`, { token: fresh.token }),
        await svc.call('GET', `/cloud/games/${a.gameId}/namespaces/${a.namespaceId}`),
        await svc.call('POST', `/cloud/games/${a.gameId}/tokens/cloud`, { token: a.cloudToken }),
        await inspect(null, { authorization: `Basic ${svc.operatorToken}` }),
        await inspect(null, { authorization: `Bearer ${a.cloudToken} trailing` }),
        await inspect(`${a.cloudToken}x`),
        await inspect(`${svc.operatorToken}x`),
        await svc.call('GET', `/cloud/no-such-route?token=${encodeURIComponent(svc.operatorToken)}`),
        await svc.call('POST', '/cloud/games', {
          body: { name_id: svc.operatorToken, display_name: 'leak check' },
        }),
        await revoke(fresh.token_id, fresh.token),
        await inspect(fresh.token),
        await revoke(fresh.token_id),
      ];
      for (const res of responses) {
        for (const secret of secrets) {
          assert.ok(
            !res.body.includes(secret),
            `response ${res.statusCode} ${res.body.slice(0, 200)} leaks a token`,
          );
          for (const value of Object.values(res.headers)) {
            assert.ok(!String(value).includes(secret), 'a header leaks a token');
          }
        }
      }
    });
  });
});

/**
 * Tokens signed with the service's own key, as an attacker who stole it could, or as a bug might: the claims
 * must still match the token's row, and have the shape the service mints. Each case changes one claim of a
 * real token and signs it again; the unchanged one, signed the same way, is accepted (so the harness signs as
 * the service does and each refusal is the claim's).
 */
describe('tokens signed with the service key but not as it mints them', () => {
  let svc: TestService;
  let a: Awaited<ReturnType<typeof createGameFixture>>;
  let b: Awaited<ReturnType<typeof createGameFixture>>;
  let sign: Signer;
  let cloud: Record<string, unknown>;
  let reporter: Record<string, unknown>;

  before(async () => {
    svc = await startTestService();
    a = await createGameFixture(svc, 'sig-a');
    b = await createGameFixture(svc, 'sig-b');
    sign = await serviceSigner(svc);
    cloud = claimsOf(a.cloudToken);
    const minted = await svc.call(
      'POST',
      `/cloud/games/${a.gameId}/namespaces/${a.namespaceId}/tokens/reporter`,
    );
    assert.equal(minted.statusCode, 200, minted.body);
    reporter = claimsOf(minted.json<{ token: string }>().token);
  });
  after(async () => {
    await svc.close();
  });

  const inspect = (token: string) => svc.call('GET', '/cloud/auth/inspect', { token });
  const without = (claims: Record<string, unknown>, name: string) =>
    Object.fromEntries(Object.entries(claims).filter(([k]) => k !== name));

  it('accepts the claims it minted, signed again, and an audience given as a list of one', async () => {
    assert.equal((await inspect(await sign(cloud))).statusCode, 200);
    assert.equal((await inspect(await sign(reporter))).statusCode, 200);
    assert.equal((await inspect(await sign({ ...cloud, aud: ['cloud'] }))).statusCode, 200);
    assert.equal((await inspect(await sign({ ...reporter, aud: ['reporter'] }))).statusCode, 200);
  });

  it('refuses claims its row does not match: another game, kind or namespace', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['cloud token naming another game', { ...cloud, game_id: b.gameId }],
      ['reporter token naming another game', { ...reporter, game_id: b.gameId }],
      ['cloud row presented as a reporter token', { ...cloud, aud: 'reporter', namespace_id: a.namespaceId }],
      ['reporter row presented as a cloud token', { ...without(reporter, 'namespace_id'), aud: 'cloud' }],
      ['reporter token naming another namespace', { ...reporter, namespace_id: b.namespaceId }],
      ['a token id with no row', { ...cloud, jti: UNKNOWN_ID }],
    ];
    for (const [name, claims] of cases) {
      const res = await inspect(await sign(claims));
      assert.equal(res.statusCode, 401, `${name}: ${res.body}`);
      assert.equal(res.json<ErrorBody>().code, 'API_UNAUTHORIZED', name);
      assert.equal(res.json<ErrorBody>().message, 'the bearer token is not valid', name);
    }
  });

  it('refuses claims of a shape it never mints', async () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>?][] = [
      ['no token id', without(cloud, 'jti')],
      // Never looked up: a list would reach the store's query as a value it cannot bind.
      ['a token id that is not a string', { ...cloud, jti: [a.cloudTokenId] }],
      ['no game', without(cloud, 'game_id')],
      ['a game id that is not a string', { ...cloud, game_id: 7 }],
      ['no expiry', without(cloud, 'exp')],
      ['a cloud token with a namespace', { ...cloud, namespace_id: a.namespaceId }],
      ['a reporter token without one', without(reporter, 'namespace_id')],
      ['two audiences', { ...cloud, aud: ['cloud', 'reporter'] }],
      ['a device link audience', { ...cloud, aud: 'device_link' }],
      ['another issuer', { ...cloud, iss: 'someone-else' }],
      ['no key id', cloud, { alg: 'EdDSA', typ: 'JWT' }],
      ['an unknown key id', cloud, { alg: 'EdDSA', kid: UNKNOWN_ID, typ: 'JWT' }],
    ];
    for (const [name, claims, header] of cases) {
      const res = await inspect(await sign(claims, header));
      assert.equal(res.statusCode, 401, `${name}: ${res.body}`);
      assert.equal(res.json<ErrorBody>().code, 'API_UNAUTHORIZED', name);
      assert.equal(res.json<ErrorBody>().message, 'the bearer token is not valid', name);
    }
  });

  /** A service of its own (these tests set its clock) with a fixture and a signer of its key. */
  async function ownSigner(slug: string) {
    const s = await startTestService({ clock: new ManualClock(Date.parse('2026-03-01T00:00:00.000Z')) });
    const f = await createGameFixture(s, slug);
    const sign = await serviceSigner(s);
    const claims = claimsOf(f.cloudToken);
    const signAs = (exp: number) => sign({ ...claims, exp });
    const look = (token: string) => s.call('GET', '/cloud/auth/inspect', { token });
    return { s, f, exp: Number(claims.exp), signAs, look };
  }

  it('stops at its own expiry to the millisecond when that comes before its row’s, checked once or from memory', async () => {
    const { s, f, exp, signAs, look } = await ownSigner('exp-edge');
    try {
      const shortExp = exp - 30 * 86_400;
      const seen = await signAs(shortExp);
      assert.equal((await look(seen)).statusCode, 200);
      s.clock.set(shortExp * 1000 - 1);
      // Twice: the second answer comes from memory (signature and row cached).
      for (let i = 0; i < 2; i++) assert.equal((await look(seen)).statusCode, 200, `use ${i}`);
      s.clock.set(shortExp * 1000);
      assertError(await look(seen), 401, 'TOKEN_EXPIRED');
      // Never seen before: jose's own check of `exp`.
      assertError(await look(await signAs(shortExp)), 401, 'TOKEN_EXPIRED');
      // The token as minted lives on to its row's expiry.
      assert.equal((await look(f.cloudToken)).statusCode, 200);
    } finally {
      await s.close();
    }
  });

  it('stops at its row’s expiry to the millisecond, whatever its claims say', async () => {
    const { s, f, exp, signAs, look } = await ownSigner('row-edge');
    try {
      const longer = await signAs(exp + 86_400);
      const row = await s.deps.db
        .selectFrom('tokens')
        .select('expire_ts')
        .where('token_id', '=', f.cloudTokenId)
        .executeTakeFirstOrThrow();
      s.clock.set(Number(row.expire_ts) - 1);
      for (let i = 0; i < 2; i++) assert.equal((await look(longer)).statusCode, 200, `use ${i}`);
      s.clock.set(Number(row.expire_ts));
      assertError(await look(longer), 401, 'TOKEN_EXPIRED');
    } finally {
      await s.close();
    }
  });

  it('expires with its row, whatever expiry its claims say, from memory as from the store', async () => {
    const longer = await sign({ ...cloud, exp: Number(cloud.exp) + 10 * 365 * 86_400 });
    // Twice: the second check is the one that memory answers (signature and row cached).
    for (let i = 0; i < 2; i++) assert.equal((await inspect(longer)).statusCode, 200);
    svc.clock.advance(366 * DAY_MS);
    assertError(await inspect(longer), 401, 'TOKEN_EXPIRED');
    assertError(await inspect(a.cloudToken), 401, 'TOKEN_EXPIRED');
    assertError(await inspect(await sign(cloud)), 401, 'TOKEN_EXPIRED');
  });
});

describe('revoking tokens as a signed-in person', () => {
  let svc: TestService;
  let game: Awaited<ReturnType<typeof createGameFixture>>;
  let other: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    svc = await startTestService();
    game = await createGameFixture(svc, 'rev-own');
    other = await createGameFixture(svc, 'rev-other');
  });
  after(async () => {
    await svc.close();
  });

  const mintFor = async (gameId: string): Promise<Minted> => {
    const res = await svc.call('POST', `/cloud/games/${gameId}/tokens/cloud`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Minted>();
  };
  const works = async (token: string) =>
    (await svc.call('GET', '/cloud/auth/inspect', { token })).statusCode === 200;

  it('an admin of the owning team revokes; a member may not; other teams’ and unowned games’ tokens are not found', async () => {
    const team = await newTeam(svc, 'revokers');
    const stranger = await newTeam(svc, 'rev-strangers');
    await giveGame(svc, game.gameId, team.teamId);
    await giveGame(svc, other.gameId, stranger.teamId);
    const admin = await addMember(svc, team, 'admin@revokers.example', 'admin');
    const member = await addMember(svc, team, 'member@revokers.example', 'member');
    const unowned = await createGameFixture(svc, 'rev-unowned');
    const own = await mintFor(game.gameId);
    const foreign = await mintFor(other.gameId);
    const loose = await mintFor(unowned.gameId);
    const revoke = (cookie: string, tokenId: string) =>
      svc.call('DELETE', `/cloud/tokens/${tokenId}`, { token: null, headers: asPerson(svc, cookie) });

    for (const id of [foreign.token_id, loose.token_id, UNKNOWN_ID]) {
      assertError(await revoke(admin, id), 404, 'TOKEN_NOT_FOUND');
    }
    const refused = assertError(await revoke(member, own.token_id), 403, 'API_FORBIDDEN');
    assert.match(refused.message, /needs the admin role/);
    assert.ok(await works(foreign.token));
    assert.ok(await works(loose.token));
    assert.ok(await works(own.token));

    assert.equal((await revoke(admin, own.token_id)).statusCode, 204);
    assertError(await svc.call('GET', '/cloud/auth/inspect', { token: own.token }), 401, 'TOKEN_REVOKED');
    assert.equal((await revoke(admin, own.token_id)).statusCode, 204, 'twice is no error');
    assert.ok(await works(foreign.token), 'the other team’s token still works');
  });
});

describe('a signing key another instance added', () => {
  it('is looked up when a token names it, at most once a minute, and then signs new tokens', async () => {
    const svc = await startTestService();
    try {
      const game = await createGameFixture(svc, 'new-key');
      const claims = claimsOf(game.cloudToken);
      const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
      const keyId = '0190a0a0-0000-7000-8000-00000000c0de';
      // Written as an instance that rotated keys would write it: newer than the key the service loaded.
      const newest = await svc.deps.db
        .selectFrom('signing_keys')
        .select((eb) => eb.fn.max('create_ts').as('ts'))
        .executeTakeFirstOrThrow();
      await svc.deps.db
        .insertInto('signing_keys')
        .values({
          key_id: keyId,
          algorithm: 'EdDSA',
          public_jwk: JSON.stringify(await exportJWK(publicKey)),
          private_jwk: JSON.stringify(await exportJWK(privateKey)),
          create_ts: Number(newest.ts) + 1000,
        })
        .execute();
      const signed = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'EdDSA', kid: keyId, typ: 'JWT' })
        .sign(privateKey);
      const look = () => svc.call('GET', '/cloud/auth/inspect', { token: signed });

      // The keys were loaded at start: a forged kid must not make every request a read of the store.
      assertError(await look(), 401, 'API_UNAUTHORIZED');
      svc.clock.advance(60_000);
      assertError(await look(), 401, 'API_UNAUTHORIZED');
      svc.clock.advance(1);
      const res = await look();
      assert.equal(res.statusCode, 200, res.body);

      // The newest key signs from then on; the older one still verifies.
      const minted = await svc.call('POST', `/cloud/games/${game.gameId}/tokens/cloud`);
      assert.equal(minted.statusCode, 200, minted.body);
      const token = minted.json<Minted>().token;
      assert.equal(decodeSegment(token.split('.')[0]).kid, keyId);
      assert.equal((await svc.call('GET', '/cloud/auth/inspect', { token })).statusCode, 200);
      assert.equal(
        (await svc.call('GET', '/cloud/auth/inspect', { token: game.cloudToken })).statusCode,
        200,
      );
    } finally {
      await svc.close();
    }
  });
});

describe('revocation across two instances on one PostgreSQL', pgOnly, () => {
  let a: TestService;
  let b: TestService;
  before(async () => {
    a = await startTestService();
    b = await secondInstance(a);
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  const inspectOn = (svc: TestService, token: string) => svc.call('GET', '/cloud/auth/inspect', { token });

  it('stops on B a token B had in memory as soon as A’s revocation commits, long before a cached row ages out', async () => {
    const game = await createGameFixture(a, 'two-revoke');
    // Twice on B: its row is then in B's memory.
    for (let i = 0; i < 2; i++) assert.equal((await inspectOn(b, game.cloudToken)).statusCode, 200);
    assert.equal((await a.call('DELETE', `/cloud/tokens/${game.cloudTokenId}`)).statusCode, 204);
    // The bound catches a hang only: without the invalidation B would answer 200 for a minute (the entry's
    // age limit on a shared store).
    await until('B refuses the revoked token', HANG_MS, async () => {
      const res = await inspectOn(b, game.cloudToken);
      if (res.statusCode === 200) return false;
      assertError(res, 401, 'TOKEN_REVOKED');
      return true;
    });
    // Revoking again on B is no error, and changes nothing more.
    assert.equal((await b.call('DELETE', `/cloud/tokens/${game.cloudTokenId}`)).statusCode, 204);
  });
});
