import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { cachedViewsOf } from '../../src/modules/namespaces/namespaces.service.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

interface ErrorBody {
  code: string;
  message: string;
  ray_id: string;
  documentation?: string;
  metadata?: { errors?: { path: string[]; message: string }[]; field?: string | null };
}

interface MatchmakerConfig {
  lobby_count_max: number;
  max_players_per_client: number;
  max_players_per_client_hosting: number;
  max_players_per_client_proxy: number;
  max_players_per_client_tor: number;
  max_players_per_client_vpn: number;
}

interface NamespaceFull {
  namespace_id: string;
  version_id: string;
  name_id: string;
  display_name: string;
  create_ts: string;
  config: {
    cdn: {
      auth_type: string;
      auth_user_list: { user: string }[];
      domains: unknown[];
      enable_domain_public_auth: boolean;
    };
    identity: Record<string, unknown>;
    kv: Record<string, unknown>;
    matchmaker: MatchmakerConfig;
  };
}

type Fixture = Awaited<ReturnType<typeof createGameFixture>>;

const RFC3339_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** 53 characters of the bcrypt alphabet (22 of salt, 31 of hash), using every character class. */
const TAIL = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxy';
/** A hash made by a real bcrypt implementation ("rasmuslerdorf", cost 10). */
const REAL_HASH = '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a';

function hash(version: string, cost: string, tail = TAIL): string {
  return `$${version}$${cost}$${tail}`;
}

function errorOf(res: LightMyRequestResponse): ErrorBody {
  return res.json<ErrorBody>();
}

function assertError(res: LightMyRequestResponse, status: number, code: string): ErrorBody {
  assert.equal(res.statusCode, status, res.body);
  const body = errorOf(res);
  assert.equal(body.code, code, res.body);
  assert.equal(typeof body.message, 'string');
  assert.equal(body.ray_id, res.headers['x-ray-id']);
  return body;
}

/** 400 VALIDATION_ERROR whose metadata lists exactly `paths` (any order) and whose message names each one. */
function assertValidationError(res: LightMyRequestResponse, paths: string[][]): void {
  const body = assertError(res, 400, 'VALIDATION_ERROR');
  const got = (body.metadata?.errors ?? []).map((e) => e.path);
  const key = (p: string[]) => p.join('.');
  assert.deepEqual(got.map(key).sort(), paths.map(key).sort(), res.body);
  for (const e of body.metadata?.errors ?? []) {
    assert.ok(e.message.length > 10, `${key(e.path)} explains itself: ${e.message}`);
    const named = `${key(e.path)}: ${e.message}`;
    assert.ok(body.message.includes(named), `message "${body.message}" names ${named}`);
  }
}

/** 400 API_BAD_BODY whose message names `field`. */
function assertBadBody(res: LightMyRequestResponse, field: string): void {
  const body = assertError(res, 400, 'API_BAD_BODY');
  assert.ok(body.message.includes(field), `message "${body.message}" names ${field}`);
}

function assertNoContent(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 204, res.body);
  assert.equal(res.body, '');
  assert.equal(res.rawPayload.length, 0);
}

describe('namespaces', () => {
  let svc: TestService;
  let gameCounter = 0;

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.close();
  });

  /** A fresh game (unique name_id) with version, namespace "prod" and a cloud token. */
  function fixture(): Promise<Fixture> {
    gameCounter += 1;
    return createGameFixture(svc, `ns-game-${gameCounter}`);
  }

  function nsUrl(f: { gameId: string; namespaceId: string }, suffix = ''): string {
    return `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}${suffix}`;
  }

  async function getNamespace(
    f: { gameId: string; namespaceId: string },
    token?: string,
  ): Promise<NamespaceFull> {
    const res = await svc.call('GET', nsUrl(f), token === undefined ? {} : { token });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ namespace: NamespaceFull }>().namespace;
  }

  async function createVersion(gameId: string, displayName = 'v2'): Promise<string> {
    const res = await svc.call('POST', `/cloud/games/${gameId}/versions`, {
      body: { display_name: displayName, config: {} },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ version_id: string }>().version_id;
  }

  async function namespaceCount(gameId: string): Promise<number> {
    const res = await svc.call('GET', `/cloud/games/${gameId}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ game: { namespaces: unknown[] } }>().game.namespaces.length;
  }

  describe('POST /cloud/games/{game_id}/namespaces', () => {
    it('creates a namespace that GET then serves, listed in the game', async () => {
      const f = await fixture();
      svc.clock.advance(4321);
      const res = await svc.call('POST', `/cloud/games/${f.gameId}/namespaces`, {
        body: { name_id: 'staging', display_name: 'Staging Env', version_id: f.versionId },
      });
      assert.equal(res.statusCode, 200, res.body);
      const { namespace_id } = res.json<{ namespace_id: string }>();
      assert.equal(typeof namespace_id, 'string');
      assert.ok(namespace_id.length > 0);
      assert.notEqual(namespace_id, f.namespaceId);

      const ns = await getNamespace({ gameId: f.gameId, namespaceId: namespace_id });
      assert.equal(ns.namespace_id, namespace_id);
      assert.equal(ns.name_id, 'staging');
      assert.equal(ns.display_name, 'Staging Env');
      assert.equal(ns.version_id, f.versionId);
      assert.equal(ns.create_ts, new Date(svc.clock.now()).toISOString());

      const game = await svc.call('GET', `/cloud/games/${f.gameId}`);
      const ids = game.json<{ game: { namespaces: { namespace_id: string }[] } }>().game.namespaces;
      assert.deepEqual(ids.map((n) => n.namespace_id).sort(), [f.namespaceId, namespace_id].sort());
    });

    it("works with the game's own cloud token", async () => {
      const f = await fixture();
      const res = await svc.call('POST', `/cloud/games/${f.gameId}/namespaces`, {
        token: f.cloudToken,
        body: { name_id: 'dev', display_name: 'Dev', version_id: f.versionId },
      });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('accepts the limits: 16-char name_id, 24-byte display name (also multi-byte)', async () => {
      const f = await fixture();
      const ok = [
        { name_id: 'a'.repeat(16), display_name: 'a'.repeat(24) },
        { name_id: 'a-1-b', display_name: 'é'.repeat(12) },
        { name_id: '0', display_name: 'Two Words' },
      ];
      for (const body of ok) {
        const res = await svc.call('POST', `/cloud/games/${f.gameId}/namespaces`, {
          body: { ...body, version_id: f.versionId },
        });
        assert.equal(res.statusCode, 200, `${JSON.stringify(body)}: ${res.body}`);
      }
    });

    const invalid: { name: string; name_id: string; display_name: string; paths: string[][] }[] = [
      { name: 'empty name_id', name_id: '', display_name: 'Ok', paths: [['name-id', 'too-short']] },
      {
        name: '17-char name_id',
        name_id: 'a'.repeat(17),
        display_name: 'Ok',
        paths: [['name-id', 'too-long']],
      },
      { name: 'uppercase name_id', name_id: 'Prod', display_name: 'Ok', paths: [['name-id', 'invalid']] },
      { name: 'leading -', name_id: '-prod', display_name: 'Ok', paths: [['name-id', 'invalid']] },
      { name: 'trailing -', name_id: 'prod-', display_name: 'Ok', paths: [['name-id', 'invalid']] },
      { name: 'double -', name_id: 'a--b', display_name: 'Ok', paths: [['name-id', 'invalid']] },
      { name: 'underscore', name_id: 'a_b', display_name: 'Ok', paths: [['name-id', 'invalid']] },
      { name: 'empty display_name', name_id: 'ok', display_name: '', paths: [['display-name', 'too-short']] },
      {
        name: '25-byte display_name',
        name_id: 'ok',
        display_name: 'a'.repeat(25),
        paths: [['display-name', 'too-long']],
      },
      {
        name: '13 × é (26 bytes)',
        name_id: 'ok',
        display_name: 'é'.repeat(13),
        paths: [['display-name', 'too-long']],
      },
      { name: 'leading space', name_id: 'ok', display_name: ' Prod', paths: [['display-name', 'invalid']] },
      { name: 'trailing space', name_id: 'ok', display_name: 'Prod ', paths: [['display-name', 'invalid']] },
      { name: 'double space', name_id: 'ok', display_name: 'My  Prod', paths: [['display-name', 'invalid']] },
      { name: 'tab', name_id: 'ok', display_name: 'My\tProd', paths: [['display-name', 'invalid']] },
      {
        name: 'zero-width space',
        name_id: 'ok',
        display_name: 'My\u200bProd',
        paths: [['display-name', 'invalid']],
      },
      {
        name: 'both fields wrong',
        name_id: 'Bad--Id',
        display_name: '',
        paths: [
          ['name-id', 'invalid'],
          ['display-name', 'too-short'],
        ],
      },
    ];

    it('rejects invalid name_id / display_name with VALIDATION_ERROR and creates nothing', async () => {
      const f = await fixture();
      const before = await namespaceCount(f.gameId);
      for (const c of invalid) {
        const res = await svc.call('POST', `/cloud/games/${f.gameId}/namespaces`, {
          body: { name_id: c.name_id, display_name: c.display_name, version_id: f.versionId },
        });
        assert.doesNotThrow(() => assertValidationError(res, c.paths), `${c.name}: ${res.body}`);
      }
      assert.equal(await namespaceCount(f.gameId), before);
    });

    it('rejects a name_id already used in the same game (name-id.not-unique)', async () => {
      const f = await fixture();
      const res = await svc.call('POST', `/cloud/games/${f.gameId}/namespaces`, {
        body: { name_id: 'prod', display_name: 'Another', version_id: f.versionId },
      });
      assertValidationError(res, [['name-id', 'not-unique']]);
      assert.equal(await namespaceCount(f.gameId), 1);
    });

    it('allows the same name_id in another game', async () => {
      const a = await fixture();
      const b = await fixture();
      for (const f of [a, b]) {
        const res = await svc.call('POST', `/cloud/games/${f.gameId}/namespaces`, {
          body: { name_id: 'shared-name', display_name: 'Shared', version_id: f.versionId },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      assert.equal(await namespaceCount(a.gameId), 2);
      assert.equal(await namespaceCount(b.gameId), 2);
    });

    it('answers 404 VERSION_NOT_FOUND for an unknown version', async () => {
      const f = await fixture();
      const res = await svc.call('POST', `/cloud/games/${f.gameId}/namespaces`, {
        body: { name_id: 'ghost', display_name: 'Ghost', version_id: '0190a0a0-0000-7000-8000-00000000a003' },
      });
      assertError(res, 404, 'VERSION_NOT_FOUND');
      assert.equal(await namespaceCount(f.gameId), 1);
    });

    it('answers 404 VERSION_NOT_FOUND for a version of another game', async () => {
      const a = await fixture();
      const b = await fixture();
      const res = await svc.call('POST', `/cloud/games/${a.gameId}/namespaces`, {
        body: { name_id: 'cross', display_name: 'Cross', version_id: b.versionId },
      });
      assertError(res, 404, 'VERSION_NOT_FOUND');
      assert.equal(await namespaceCount(a.gameId), 1);
    });

    it('answers 404 GAME_NOT_FOUND for an unknown game', async () => {
      const f = await fixture();
      const res = await svc.call('POST', '/cloud/games/0190a0a0-0000-7000-8000-00000000a001/namespaces', {
        body: { name_id: 'orphan', display_name: 'Orphan', version_id: f.versionId },
      });
      assertError(res, 404, 'GAME_NOT_FOUND');
    });

    it("refuses another game's cloud token with 403", async () => {
      const a = await fixture();
      const b = await fixture();
      const res = await svc.call('POST', `/cloud/games/${a.gameId}/namespaces`, {
        token: b.cloudToken,
        body: { name_id: 'intruder', display_name: 'Intruder', version_id: a.versionId },
      });
      assertError(res, 403, 'API_FORBIDDEN');
      assert.equal(await namespaceCount(a.gameId), 1);
    });

    it('answers API_BAD_BODY naming a missing or mistyped field', async () => {
      const f = await fixture();
      const url = `/cloud/games/${f.gameId}/namespaces`;
      assertBadBody(await svc.call('POST', url, { body: { name_id: 'x', display_name: 'X' } }), 'version_id');
      assertBadBody(
        await svc.call('POST', url, { body: { name_id: 5, display_name: 'X', version_id: f.versionId } }),
        'name_id',
      );
      assert.equal(await namespaceCount(f.gameId), 1);
    });
  });

  describe('GET /cloud/games/{game_id}/namespaces/{namespace_id}', () => {
    it('returns every required field of 2.2 with the defaults', async () => {
      const f = await fixture();
      const res = await svc.call('GET', nsUrl(f));
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ namespace: NamespaceFull }>();
      assert.deepEqual(Object.keys(body), ['namespace']);
      const ns = body.namespace;
      for (const key of ['namespace_id', 'version_id', 'name_id', 'display_name', 'create_ts', 'config']) {
        assert.ok(key in ns, `namespace.${key} is present`);
      }
      assert.equal(ns.namespace_id, f.namespaceId);
      assert.equal(ns.version_id, f.versionId);
      assert.equal(ns.name_id, 'prod');
      assert.equal(ns.display_name, 'Production');
      assert.match(ns.create_ts, RFC3339_MS_Z);
      assert.deepEqual(ns.config, {
        cdn: { auth_type: 'none', auth_user_list: [], domains: [], enable_domain_public_auth: false },
        identity: {},
        kv: {},
        matchmaker: {
          lobby_count_max: 256,
          max_players_per_client: 8,
          max_players_per_client_hosting: 8,
          max_players_per_client_proxy: 8,
          max_players_per_client_tor: 8,
          max_players_per_client_vpn: 8,
        },
      });
    });

    it("is served to the game's own cloud token", async () => {
      const f = await fixture();
      const ns = await getNamespace(f, f.cloudToken);
      assert.equal(ns.namespace_id, f.namespaceId);
    });

    it('answers 404 NAMESPACE_NOT_FOUND for a namespace of another game (operator token)', async () => {
      const a = await fixture();
      const b = await fixture();
      const res = await svc.call('GET', `/cloud/games/${a.gameId}/namespaces/${b.namespaceId}`);
      const body = assertError(res, 404, 'NAMESPACE_NOT_FOUND');
      assert.ok(!res.body.includes(b.versionId));
      assert.equal(body.metadata, undefined);
    });

    it('answers 404 NAMESPACE_NOT_FOUND for an unknown namespace and GAME_NOT_FOUND for an unknown game', async () => {
      const f = await fixture();
      assertError(
        await svc.call('GET', `/cloud/games/${f.gameId}/namespaces/0190a0a0-0000-7000-8000-00000000a002`),
        404,
        'NAMESPACE_NOT_FOUND',
      );
      assertError(
        await svc.call(
          'GET',
          `/cloud/games/0190a0a0-0000-7000-8000-00000000a001/namespaces/${f.namespaceId}`,
        ),
        404,
        'GAME_NOT_FOUND',
      );
    });

    it("answers 403 to another game's cloud token, with no data of the other game", async () => {
      const a = await fixture();
      const b = await fixture();
      const secret = await svc.call('POST', `/cloud/games/${a.gameId}/namespaces`, {
        body: { name_id: 'secret-stage', display_name: 'Secret Stage', version_id: a.versionId },
      });
      assert.equal(secret.statusCode, 200, secret.body);
      const secretId = secret.json<{ namespace_id: string }>().namespace_id;

      for (const namespaceId of [a.namespaceId, secretId]) {
        const res = await svc.call('GET', `/cloud/games/${a.gameId}/namespaces/${namespaceId}`, {
          token: b.cloudToken,
        });
        assertError(res, 403, 'API_FORBIDDEN');
        for (const leaked of ['secret-stage', 'Secret Stage', 'Production', a.versionId, '"namespace"']) {
          assert.ok(!res.body.includes(leaked), `403 body leaks ${leaked}: ${res.body}`);
        }
      }
    });

    it('answers 401 without a token', async () => {
      const f = await fixture();
      const res = await svc.call('GET', nsUrl(f), { token: null });
      assertError(res, 401, 'API_UNAUTHORIZED');
      assert.ok(!res.body.includes('Production'));
    });
  });

  describe('PUT .../version', () => {
    it('switches version_id with 204 and an empty body', async () => {
      const f = await fixture();
      const v2 = await createVersion(f.gameId);
      assertNoContent(await svc.call('PUT', nsUrl(f, '/version'), { body: { version_id: v2 } }));
      assert.equal((await getNamespace(f)).version_id, v2);
      // and back, with the game's own cloud token
      assertNoContent(
        await svc.call('PUT', nsUrl(f, '/version'), {
          token: f.cloudToken,
          body: { version_id: f.versionId },
        }),
      );
      assert.equal((await getNamespace(f)).version_id, f.versionId);
    });

    it('rejects an unknown version or a version of another game with 404 VERSION_NOT_FOUND', async () => {
      const a = await fixture();
      const b = await fixture();
      for (const versionId of ['0190a0a0-0000-7000-8000-00000000a003', b.versionId]) {
        const res = await svc.call('PUT', nsUrl(a, '/version'), { body: { version_id: versionId } });
        assertError(res, 404, 'VERSION_NOT_FOUND');
      }
      assert.equal((await getNamespace(a)).version_id, a.versionId);
    });

    it('rejects an unknown namespace with 404 NAMESPACE_NOT_FOUND', async () => {
      const a = await fixture();
      const b = await fixture();
      for (const namespaceId of ['0190a0a0-0000-7000-8000-00000000a002', b.namespaceId]) {
        for (const versionId of [a.versionId, '0190a0a0-0000-7000-8000-00000000a003']) {
          const res = await svc.call('PUT', `/cloud/games/${a.gameId}/namespaces/${namespaceId}/version`, {
            body: { version_id: versionId },
          });
          assertError(res, 404, 'NAMESPACE_NOT_FOUND');
        }
      }
      assert.equal((await getNamespace(b)).version_id, b.versionId);
    });

    it('rejects an unknown game with 404 GAME_NOT_FOUND', async () => {
      const f = await fixture();
      const res = await svc.call(
        'PUT',
        `/cloud/games/0190a0a0-0000-7000-8000-00000000a001/namespaces/${f.namespaceId}/version`,
        {
          body: { version_id: f.versionId },
        },
      );
      assertError(res, 404, 'GAME_NOT_FOUND');
    });

    it('rejects a missing version_id with API_BAD_BODY', async () => {
      const f = await fixture();
      assertBadBody(await svc.call('PUT', nsUrl(f, '/version'), { body: {} }), 'version_id');
    });
  });

  describe('POST .../mm-config', () => {
    function expected(lobbyCountMax: number, maxPlayers: number): MatchmakerConfig {
      return {
        lobby_count_max: lobbyCountMax,
        max_players_per_client: maxPlayers,
        max_players_per_client_hosting: maxPlayers,
        max_players_per_client_proxy: maxPlayers,
        max_players_per_client_tor: maxPlayers,
        max_players_per_client_vpn: maxPlayers,
      };
    }

    it('sets lobby_count_max and all five per-client caps (204, empty body), at the limits', async () => {
      const f = await fixture();
      const cases: [number, number][] = [
        [1, 1],
        [32767, 4294967295],
        [100, 12],
      ];
      for (const [lobby, players] of cases) {
        const res = await svc.call('POST', nsUrl(f, '/mm-config'), {
          body: { lobby_count_max: lobby, max_players: players },
        });
        assertNoContent(res);
        assert.deepEqual((await getNamespace(f)).config.matchmaker, expected(lobby, players));
      }
    });

    it("works with the game's cloud token and refuses another game's (403, nothing changed)", async () => {
      const a = await fixture();
      const b = await fixture();
      assertNoContent(
        await svc.call('POST', nsUrl(a, '/mm-config'), {
          token: a.cloudToken,
          body: { lobby_count_max: 10, max_players: 3 },
        }),
      );
      const res = await svc.call('POST', nsUrl(a, '/mm-config'), {
        token: b.cloudToken,
        body: { lobby_count_max: 20, max_players: 5 },
      });
      assertError(res, 403, 'API_FORBIDDEN');
      assert.deepEqual((await getNamespace(a)).config.matchmaker, expected(10, 3));
    });

    const ruleCases: {
      name: string;
      body: { lobby_count_max: number; max_players: number };
      paths: string[][];
    }[] = [
      { name: 'lobby 0', body: { lobby_count_max: 0, max_players: 4 }, paths: [['lobby-count', 'too-low']] },
      {
        name: 'lobby 32768',
        body: { lobby_count_max: 32768, max_players: 4 },
        paths: [['lobby-count', 'too-high']],
      },
      {
        name: 'lobby u32 max',
        body: { lobby_count_max: 4294967295, max_players: 4 },
        paths: [['lobby-count', 'too-high']],
      },
      {
        name: 'players 0',
        body: { lobby_count_max: 10, max_players: 0 },
        paths: [['max-players', 'too-low']],
      },
      {
        name: 'both wrong',
        body: { lobby_count_max: 32768, max_players: 0 },
        paths: [
          ['lobby-count', 'too-high'],
          ['max-players', 'too-low'],
        ],
      },
    ];

    it('rejects out-of-range values with VALIDATION_ERROR listing each path, and changes nothing', async () => {
      const f = await fixture();
      assertNoContent(
        await svc.call('POST', nsUrl(f, '/mm-config'), { body: { lobby_count_max: 100, max_players: 4 } }),
      );
      for (const c of ruleCases) {
        const res = await svc.call('POST', nsUrl(f, '/mm-config'), { body: c.body });
        assert.doesNotThrow(() => assertValidationError(res, c.paths), c.name);
      }
      // the message uses the dotted form the issue names
      const res = await svc.call('POST', nsUrl(f, '/mm-config'), {
        body: { lobby_count_max: 32768, max_players: 1 },
      });
      assert.equal(
        errorOf(res).message,
        'validation failed: lobby-count.too-high: lobby_count_max is 32768; at most 32767',
      );
      assert.deepEqual((await getNamespace(f)).config.matchmaker, expected(100, 4));
    });

    const typeCases: { name: string; body: Record<string, unknown>; field: string }[] = [
      { name: 'negative lobby', body: { lobby_count_max: -1, max_players: 4 }, field: 'lobby_count_max' },
      { name: 'negative players', body: { lobby_count_max: 10, max_players: -5 }, field: 'max_players' },
      { name: 'float lobby', body: { lobby_count_max: 1.5, max_players: 4 }, field: 'lobby_count_max' },
      { name: 'float players', body: { lobby_count_max: 10, max_players: 2.5 }, field: 'max_players' },
      { name: 'string lobby', body: { lobby_count_max: '10', max_players: 4 }, field: 'lobby_count_max' },
      { name: 'string players', body: { lobby_count_max: 10, max_players: '4' }, field: 'max_players' },
      { name: 'lobby > u32', body: { lobby_count_max: 2 ** 32, max_players: 4 }, field: 'lobby_count_max' },
      { name: 'players > u32', body: { lobby_count_max: 10, max_players: 2 ** 32 }, field: 'max_players' },
      { name: 'null players', body: { lobby_count_max: 10, max_players: null }, field: 'max_players' },
      { name: 'missing lobby', body: { max_players: 4 }, field: 'lobby_count_max' },
      { name: 'missing players', body: { lobby_count_max: 10 }, field: 'max_players' },
    ];

    it('rejects wrong types and non-u32 numbers with API_BAD_BODY naming the field, and changes nothing', async () => {
      const f = await fixture();
      assertNoContent(
        await svc.call('POST', nsUrl(f, '/mm-config'), { body: { lobby_count_max: 77, max_players: 6 } }),
      );
      for (const c of typeCases) {
        const res = await svc.call('POST', nsUrl(f, '/mm-config'), { body: c.body });
        assert.doesNotThrow(() => assertBadBody(res, c.field), `${c.name}: ${res.statusCode} ${res.body}`);
      }
      assert.deepEqual((await getNamespace(f)).config.matchmaker, expected(77, 6));
    });

    it('answers 404 NAMESPACE_NOT_FOUND for an unknown namespace or one of another game', async () => {
      const a = await fixture();
      const b = await fixture();
      for (const namespaceId of ['0190a0a0-0000-7000-8000-00000000a002', b.namespaceId]) {
        const res = await svc.call('POST', `/cloud/games/${a.gameId}/namespaces/${namespaceId}/mm-config`, {
          body: { lobby_count_max: 5, max_players: 5 },
        });
        assertError(res, 404, 'NAMESPACE_NOT_FOUND');
      }
      assert.deepEqual((await getNamespace(b)).config.matchmaker, expected(256, 8));
    });
  });

  describe('POST .../auth-user', () => {
    async function addUser(f: Fixture, user: string, password: string, token?: string) {
      return svc.call('POST', nsUrl(f, '/auth-user'), {
        body: { user, password },
        ...(token === undefined ? {} : { token }),
      });
    }

    async function userNames(f: Fixture): Promise<string[]> {
      return (await getNamespace(f)).config.cdn.auth_user_list.map((u) => u.user);
    }

    it('accepts bcrypt hashes $2a$, $2b$, $2y$ with costs 04 and 31, and a real one', async () => {
      const f = await fixture();
      const accepted: string[] = [];
      let i = 0;
      for (const version of ['2a', '2b', '2y']) {
        for (const cost of ['04', '10', '31']) {
          i += 1;
          const res = await addUser(f, `user${i}`, hash(version, cost));
          assertNoContent(res);
          accepted.push(`user${i}`);
        }
      }
      assertNoContent(await addUser(f, 'real', REAL_HASH));
      accepted.push('real');
      assert.deepEqual((await userNames(f)).sort(), accepted.sort());
    });

    const rejected: { name: string; password: string }[] = [
      { name: 'cost 03', password: hash('2b', '03') },
      { name: 'cost 32', password: hash('2b', '32') },
      { name: 'cost 00', password: hash('2b', '00') },
      { name: 'cost 99', password: hash('2b', '99') },
      { name: 'one-digit cost', password: hash('2b', '4') },
      { name: '$2x$', password: hash('2x', '10') },
      { name: '$2$', password: hash('2', '10') },
      { name: '$2B$ (upper case)', password: hash('2B', '10') },
      { name: '$3a$', password: hash('3a', '10') },
      { name: '52 chars after the cost', password: hash('2b', '10', TAIL.slice(0, 52)) },
      { name: '54 chars after the cost', password: hash('2b', '10', `${TAIL}a`) },
      { name: '+ in the tail', password: hash('2b', '10', `+${TAIL.slice(1)}`) },
      { name: '- in the tail', password: hash('2b', '10', `${TAIL.slice(0, 30)}-${TAIL.slice(31)}`) },
      { name: '$ in the tail', password: hash('2b', '10', `${TAIL.slice(0, 52)}$`) },
      { name: 'é in the tail', password: hash('2b', '10', `é${TAIL.slice(1)}`) },
      { name: 'trailing newline', password: `${hash('2b', '10')}\n` },
      { name: 'leading space', password: ` ${hash('2b', '10')}` },
      { name: 'plain text', password: 'hunter2' },
      { name: 'empty', password: '' },
    ];

    it('rejects anything that is not a bcrypt hash with 400 CDN_INVALID_AUTH_USER_PASSWORD', async () => {
      const f = await fixture();
      for (const c of rejected) {
        const res = await addUser(f, 'mallory', c.password);
        assert.doesNotThrow(
          () => assertError(res, 400, 'CDN_INVALID_AUTH_USER_PASSWORD'),
          `${c.name}: ${res.statusCode} ${res.body}`,
        );
        if (c.password.length > 0) {
          assert.ok(!res.body.includes(c.password), `${c.name}: error body echoes the password`);
        }
      }
      assert.deepEqual(await userNames(f), []);
    });

    it('replaces the password of an existing user (still one user listed)', async () => {
      const f = await fixture();
      const first = hash('2b', '10');
      const second = hash('2a', '12', `${TAIL.slice(0, 52)}z`);
      assertNoContent(await addUser(f, 'alice', first));
      assertNoContent(await addUser(f, 'alice', second));
      assert.deepEqual(await userNames(f), ['alice']);
      // The hash is write-only through the API, so the replacement is checked in the store.
      const rows = await svc.deps.db
        .selectFrom('namespace_cdn_auth_users')
        .select(['user_name', 'password_hash'])
        .where('namespace_id', '=', f.namespaceId)
        .execute();
      assert.deepEqual(rows, [{ user_name: 'alice', password_hash: second }]);
    });

    it('holds at most 32 users; the 33rd is refused but replacing one of the 32 works', async () => {
      const f = await fixture();
      const names = Array.from({ length: 32 }, (_, i) => `u${String(i).padStart(2, '0')}`);
      for (const name of names) assertNoContent(await addUser(f, name, hash('2b', '04')));
      assert.equal((await userNames(f)).length, 32);

      const over = await addUser(f, 'u32', hash('2b', '04'));
      assertError(over, 400, 'CDN_TOO_MANY_AUTH_USERS');
      const afterOver = await userNames(f);
      assert.equal(afterOver.length, 32);
      assert.ok(!afterOver.includes('u32'));

      assertNoContent(await addUser(f, 'u05', hash('2y', '05')));
      assert.deepEqual((await userNames(f)).sort(), names);

      // a freed slot can be used again
      assertNoContent(await svc.call('DELETE', nsUrl(f, '/auth-user/u00')));
      assertNoContent(await addUser(f, 'u32', hash('2b', '04')));
      const final = await userNames(f);
      assert.equal(final.length, 32);
      assert.ok(final.includes('u32'));
      assert.ok(!final.includes('u00'));
    });

    it('never returns the password hash (GET namespace, GET game, list of games)', async () => {
      const f = await fixture();
      const secretTail = 'SECRETsecretSECRETsecretSECRETsecretSECRETsecretSECRE';
      assert.equal(secretTail.length, 53);
      const secretHash = hash('2b', '11', secretTail);
      const addRes = await addUser(f, 'carol', secretHash, f.cloudToken);
      assertNoContent(addRes);
      const bodies = [
        (await svc.call('GET', nsUrl(f))).body,
        (await svc.call('GET', nsUrl(f), { token: f.cloudToken })).body,
        (await svc.call('GET', `/cloud/games/${f.gameId}`)).body,
        (await svc.call('GET', '/cloud/games')).body,
        (await svc.call('GET', '/cloud/games', { token: f.cloudToken })).body,
        addRes.body,
      ];
      assert.ok(bodies[0]?.includes('"carol"'), 'the user name is listed');
      for (const body of bodies) {
        assert.ok(!body.includes(secretTail), `a response body holds the hash: ${body}`);
        assert.ok(!body.includes('$2b$'), `a response body holds a bcrypt prefix: ${body}`);
        assert.ok(!body.includes('password'), `a response body has a password field: ${body}`);
      }
      const ns = await getNamespace(f);
      assert.deepEqual(ns.config.cdn.auth_user_list, [{ user: 'carol' }]);
    });

    const badUsers: { name: string; user: string }[] = [
      { name: 'empty', user: '' },
      { name: '65 bytes', user: 'a'.repeat(65) },
      { name: '33 × é (66 bytes)', user: 'é'.repeat(33) },
      { name: 'colon', user: 'a:b' },
      { name: 'space', user: 'a b' },
      { name: 'tab', user: 'a\tb' },
      { name: 'newline', user: 'a\nb' },
      { name: 'only a space', user: ' ' },
    ];

    it('validates the user name (empty, > 64 bytes, colon, white space) with VALIDATION_ERROR', async () => {
      const f = await fixture();
      for (const c of badUsers) {
        const res = await addUser(f, c.user, hash('2b', '10'));
        assert.doesNotThrow(() => {
          const body = assertError(res, 400, 'VALIDATION_ERROR');
          const errs = body.metadata?.errors ?? [];
          assert.ok(errs.length > 0);
          for (const e of errs) {
            assert.equal(e.path[0], 'user');
            assert.ok(body.message.includes(e.path.join('.')));
          }
        }, `${c.name}: ${res.statusCode} ${res.body}`);
      }
      assert.deepEqual(await userNames(f), []);
      // the limits themselves are fine
      assertNoContent(await addUser(f, 'a'.repeat(64), hash('2b', '10')));
      assertNoContent(await addUser(f, 'é'.repeat(32), hash('2b', '10')));
      assert.equal((await userNames(f)).length, 2);
    });

    it('answers 404 NAMESPACE_NOT_FOUND for a namespace of another game, and 403 to its token', async () => {
      const a = await fixture();
      const b = await fixture();
      const res = await svc.call('POST', `/cloud/games/${a.gameId}/namespaces/${b.namespaceId}/auth-user`, {
        body: { user: 'x', password: hash('2b', '10') },
      });
      assertError(res, 404, 'NAMESPACE_NOT_FOUND');
      assertError(await addUser(a, 'x', hash('2b', '10'), b.cloudToken), 403, 'API_FORBIDDEN');
      assert.deepEqual(await userNames(a), []);
      assert.deepEqual(await userNames(b), []);
    });
  });

  describe('DELETE .../auth-user/{user}', () => {
    it('removes a user (204, empty body); a second delete is 404 CDN_AUTH_USER_NOT_FOUND', async () => {
      const f = await fixture();
      for (const user of ['bob', 'dave']) {
        assertNoContent(
          await svc.call('POST', nsUrl(f, '/auth-user'), { body: { user, password: hash('2b', '10') } }),
        );
      }
      assertNoContent(await svc.call('DELETE', nsUrl(f, '/auth-user/bob'), { token: f.cloudToken }));
      assert.deepEqual(
        (await getNamespace(f)).config.cdn.auth_user_list.map((u) => u.user),
        ['dave'],
      );
      assertError(await svc.call('DELETE', nsUrl(f, '/auth-user/bob')), 404, 'CDN_AUTH_USER_NOT_FOUND');
      assertError(await svc.call('DELETE', nsUrl(f, '/auth-user/nobody')), 404, 'CDN_AUTH_USER_NOT_FOUND');
    });

    it('works with URL-encoded user names', async () => {
      const f = await fixture();
      const users = ['jöhn', 'a/b', '100%', 'a?b', 'a#b', 'x+y', '日本'];
      for (const user of users) {
        assertNoContent(
          await svc.call('POST', nsUrl(f, '/auth-user'), { body: { user, password: hash('2b', '10') } }),
        );
      }
      for (const user of users) {
        const res = await svc.call('DELETE', nsUrl(f, `/auth-user/${encodeURIComponent(user)}`));
        assert.doesNotThrow(() => assertNoContent(res), `${user}: ${res.statusCode} ${res.body}`);
      }
      assert.deepEqual((await getNamespace(f)).config.cdn.auth_user_list, []);
    });

    it('answers 404 NAMESPACE_NOT_FOUND for an unknown namespace and 403 to another game', async () => {
      const a = await fixture();
      const b = await fixture();
      assertNoContent(
        await svc.call('POST', nsUrl(a, '/auth-user'), { body: { user: 'eve', password: hash('2b', '10') } }),
      );
      assertError(
        await svc.call('DELETE', `/cloud/games/${a.gameId}/namespaces/${b.namespaceId}/auth-user/eve`),
        404,
        'NAMESPACE_NOT_FOUND',
      );
      assertError(
        await svc.call('DELETE', nsUrl(a, '/auth-user/eve'), { token: b.cloudToken }),
        403,
        'API_FORBIDDEN',
      );
      assert.deepEqual((await getNamespace(a)).config.cdn.auth_user_list, [{ user: 'eve' }]);
    });
  });

  describe('PUT .../cdn-auth', () => {
    it('sets auth_type to basic and back to none (204, empty body)', async () => {
      const f = await fixture();
      assertNoContent(await svc.call('PUT', nsUrl(f, '/cdn-auth'), { body: { auth_type: 'basic' } }));
      assert.equal((await getNamespace(f)).config.cdn.auth_type, 'basic');
      assertNoContent(
        await svc.call('PUT', nsUrl(f, '/cdn-auth'), { token: f.cloudToken, body: { auth_type: 'none' } }),
      );
      assert.equal((await getNamespace(f)).config.cdn.auth_type, 'none');
    });

    it('rejects any other value with API_BAD_BODY and changes nothing', async () => {
      const f = await fixture();
      assertNoContent(await svc.call('PUT', nsUrl(f, '/cdn-auth'), { body: { auth_type: 'basic' } }));
      for (const value of ['digest', 'BASIC', '', null, 1, true]) {
        const res = await svc.call('PUT', nsUrl(f, '/cdn-auth'), { body: { auth_type: value } });
        assert.doesNotThrow(() => assertBadBody(res, 'auth_type'), `${String(value)}: ${res.body}`);
      }
      assertBadBody(await svc.call('PUT', nsUrl(f, '/cdn-auth'), { body: {} }), 'auth_type');
      assert.equal((await getNamespace(f)).config.cdn.auth_type, 'basic');
    });

    it('answers 404 NAMESPACE_NOT_FOUND for an unknown namespace and 403 to another game', async () => {
      const a = await fixture();
      const b = await fixture();
      assertError(
        await svc.call(
          'PUT',
          `/cloud/games/${a.gameId}/namespaces/0190a0a0-0000-7000-8000-00000000a002/cdn-auth`,
          {
            body: { auth_type: 'basic' },
          },
        ),
        404,
        'NAMESPACE_NOT_FOUND',
      );
      assertError(
        await svc.call('PUT', nsUrl(a, '/cdn-auth'), { token: b.cloudToken, body: { auth_type: 'basic' } }),
        403,
        'API_FORBIDDEN',
      );
      assert.equal((await getNamespace(a)).config.cdn.auth_type, 'none');
    });
  });

  describe('PUT .../domain-public-auth', () => {
    it('toggles enable_domain_public_auth (204, empty body)', async () => {
      const f = await fixture();
      assertNoContent(await svc.call('PUT', nsUrl(f, '/domain-public-auth'), { body: { enabled: true } }));
      assert.equal((await getNamespace(f)).config.cdn.enable_domain_public_auth, true);
      assertNoContent(
        await svc.call('PUT', nsUrl(f, '/domain-public-auth'), {
          token: f.cloudToken,
          body: { enabled: false },
        }),
      );
      assert.equal((await getNamespace(f)).config.cdn.enable_domain_public_auth, false);
    });

    it('rejects a non-boolean with API_BAD_BODY and changes nothing', async () => {
      const f = await fixture();
      assertNoContent(await svc.call('PUT', nsUrl(f, '/domain-public-auth'), { body: { enabled: true } }));
      for (const value of ['true', 1, null]) {
        const res = await svc.call('PUT', nsUrl(f, '/domain-public-auth'), { body: { enabled: value } });
        assert.doesNotThrow(() => assertBadBody(res, 'enabled'), `${String(value)}: ${res.body}`);
      }
      assertBadBody(await svc.call('PUT', nsUrl(f, '/domain-public-auth'), { body: {} }), 'enabled');
      assert.equal((await getNamespace(f)).config.cdn.enable_domain_public_auth, true);
    });

    it('answers 404 NAMESPACE_NOT_FOUND for a namespace of another game and 403 to its token', async () => {
      const a = await fixture();
      const b = await fixture();
      assertError(
        await svc.call('PUT', `/cloud/games/${a.gameId}/namespaces/${b.namespaceId}/domain-public-auth`, {
          body: { enabled: true },
        }),
        404,
        'NAMESPACE_NOT_FOUND',
      );
      assertError(
        await svc.call('PUT', nsUrl(a, '/domain-public-auth'), {
          token: b.cloudToken,
          body: { enabled: true },
        }),
        403,
        'API_FORBIDDEN',
      );
      assert.equal((await getNamespace(a)).config.cdn.enable_domain_public_auth, false);
      assert.equal((await getNamespace(b)).config.cdn.enable_domain_public_auth, false);
    });
  });

  describe('cached reads (GET namespace is served from memory)', () => {
    it('shows every kind of write on the very next read, through both kinds of token', async () => {
      const f = await fixture();
      const read = async () => {
        const viaOperator = await getNamespace(f);
        assert.deepEqual(await getNamespace(f, f.cloudToken), viaOperator);
        return viaOperator;
      };
      // On PostgreSQL the cache serves once the relay's first heartbeat has come back (cache-coherence.ts).
      await until('the caches trust their entries', 5_000, () => svc.deps.caches.trusted());
      const before = await read();
      assert.ok(cachedViewsOf(svc.deps.namespaces) > 0, 'the first read filled the cache');

      const v2 = await createVersion(f.gameId, 'cached-v2');
      assertNoContent(await svc.call('PUT', nsUrl(f, '/version'), { body: { version_id: v2 } }));
      assert.equal((await read()).version_id, v2);

      const mm = { lobby_count_max: 77, max_players: 5 };
      assertNoContent(await svc.call('POST', nsUrl(f, '/mm-config'), { body: mm }));
      const afterMm = (await read()).config.matchmaker;
      assert.equal(afterMm.lobby_count_max, 77);
      assert.equal(afterMm.max_players_per_client_vpn, 5);

      assertNoContent(
        await svc.call('POST', nsUrl(f, '/auth-user'), { body: { user: 'alice', password: REAL_HASH } }),
      );
      assert.deepEqual((await read()).config.cdn.auth_user_list, [{ user: 'alice' }]);
      assertNoContent(await svc.call('DELETE', nsUrl(f, '/auth-user/alice')));
      assert.deepEqual((await read()).config.cdn.auth_user_list, []);

      assertNoContent(await svc.call('PUT', nsUrl(f, '/cdn-auth'), { body: { auth_type: 'basic' } }));
      assert.equal((await read()).config.cdn.auth_type, 'basic');
      assertNoContent(await svc.call('PUT', nsUrl(f, '/domain-public-auth'), { body: { enabled: true } }));
      assert.equal((await read()).config.cdn.enable_domain_public_auth, true);

      assert.notDeepEqual(await read(), before);
    });

    it('keeps serving the stored data after a refused write', async () => {
      const f = await fixture();
      const before = await getNamespace(f);
      assertError(
        await svc.call('POST', nsUrl(f, '/mm-config'), { body: { lobby_count_max: 0, max_players: 1 } }),
        400,
        'VALIDATION_ERROR',
      );
      assert.deepEqual(await getNamespace(f), before);
    });
  });
});
