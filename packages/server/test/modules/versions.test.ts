import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startListening, withNamedBuilds } from '../helpers/listening.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

interface ErrorBody {
  code: string;
  message: string;
  ray_id: string;
  metadata?: { errors?: { path: string[] }[] };
}

interface VersionFull {
  version_id: string;
  display_name: string;
  create_ts: string;
  config: Record<string, unknown>;
}

const RFC3339_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = '0190a0a0-0000-7000-8000-00000000dead';

function errorOf(res: LightMyRequestResponse): ErrorBody {
  return res.json<ErrorBody>();
}

function assertError(res: LightMyRequestResponse, status: number, code: string): ErrorBody {
  assert.equal(res.statusCode, status, res.body);
  const body = errorOf(res);
  assert.equal(body.code, code);
  return body;
}

describe('versions', () => {
  let svc: TestService;
  let a: Awaited<ReturnType<typeof createGameFixture>>;
  let b: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    // 'build-1' in a config is a real completed build of the game it is sent to.
    svc = withNamedBuilds((await startListening()).svc, ['build-1']);
    a = await createGameFixture(svc, 'game-a');
    b = await createGameFixture(svc, 'game-b');
  });
  after(async () => {
    await svc.close();
  });

  function createVersion(gameId: string, body: unknown, token?: string | null) {
    return svc.call('POST', `/cloud/games/${gameId}/versions`, {
      body,
      ...(token === undefined ? {} : { token }),
    });
  }

  function getVersion(gameId: string, versionId: string, token?: string | null) {
    return svc.call('GET', `/cloud/games/${gameId}/versions/${versionId}`, {
      ...(token === undefined ? {} : { token }),
    });
  }

  async function versionCount(gameId: string): Promise<number> {
    const res = await svc.call('GET', `/cloud/games/${gameId}`);
    assert.equal(res.statusCode, 200);
    return res.json<{ game: { versions: unknown[] } }>().game.versions.length;
  }

  let roundTrips = 0;
  /** Display names are unique per game, so each round trip gets its own unless one is given. */
  async function roundTrip(config: Record<string, unknown>, displayName = `round trip ${++roundTrips}`) {
    const created = await createVersion(a.gameId, { display_name: displayName, config });
    assert.equal(created.statusCode, 200, created.body);
    const { version_id } = created.json<{ version_id: string }>();
    const got = await getVersion(a.gameId, version_id);
    assert.equal(got.statusCode, 200, got.body);
    return { versionId: version_id, res: got, version: got.json<{ version: VersionFull }>().version };
  }

  describe('POST /cloud/games/{game_id}/versions and GET .../versions/{version_id}', () => {
    it('creates a version and serves it with its display name, timestamp and config', async () => {
      svc.clock.advance(4321);
      const config = { scripts: { start: 'node index.js' } };
      const { versionId, version } = await roundTrip(config, 'First Release');
      assert.deepEqual(Object.keys(version).sort(), ['config', 'create_ts', 'display_name', 'version_id']);
      assert.equal(version.version_id, versionId);
      assert.equal(version.display_name, 'First Release');
      assert.match(version.create_ts, RFC3339_MS_Z);
      assert.equal(version.create_ts, new Date(svc.clock.now()).toISOString());
      assert.deepEqual(version.config, config);

      const game = await svc.call('GET', `/cloud/games/${a.gameId}`);
      const versions = game.json<{ game: { versions: { version_id: string; display_name: string }[] } }>()
        .game.versions;
      assert.ok(versions.some((v) => v.version_id === versionId && v.display_name === 'First Release'));
    });

    it('stores the config exactly as given: deep nesting, arrays, every JSON type, key order', async () => {
      // Arbitrary JSON lives where the interface leaves the shape open (kv, the engine objects): any other
      // unknown key is reported by the validator and refused.
      const config: Record<string, unknown> = {
        scripts: { zeta: '1', alpha: 'first-after-zeta' },
        cdn: {
          site_id: 'site',
          routes: [
            {
              glob: '/**',
              priority: 100,
              middlewares: [{ kind: { custom_headers: { headers: [{ name: 'x-a', value: 'b' }] } } }],
            },
          ],
        },
        matchmaker: {
          game_modes: {
            default: { max_players: 8, tier: null, container: { image_id: 'build-1' } },
          },
        },
        kv: {
          numbers: [0, -1, 1.5, 1e-7, 12345678901234, -0.25],
          booleans: [true, false],
          nulls: [null, [null, { n: null }]],
          unicode: 'ünïcödé 日本語 🎮 "quoted" \\ back\nslash',
          empty_object: {},
          empty_array: [],
          deep: { l1: { l2: { l3: { l4: { l5: { l6: { l7: { l8: [[[['bottom']]]] } } } } } } } },
          mixed: [1, 'two', { three: [3] }, [4, [5]], false, null],
        },
        engine: { custom: { not_a_known_key: { anything: 'goes' } }, html5: {} },
      };
      const { version, res } = await roundTrip(config);
      assert.deepEqual(version.config, config);
      // Same keys in the same order, not just the same set.
      const raw = JSON.parse(res.body) as { version: { config: unknown } };
      assert.equal(JSON.stringify(raw.version.config), JSON.stringify(config));
    });

    it('round-trips an empty config', async () => {
      const { version } = await roundTrip({});
      assert.deepEqual(version.config, {});
    });

    it('keeps each version its own config', async () => {
      const one = await roundTrip({ kv: { which: 'one' } });
      const two = await roundTrip({ kv: { which: 'two', extra: [1] } });
      assert.notEqual(one.versionId, two.versionId);
      assert.deepEqual(
        (await getVersion(a.gameId, one.versionId)).json<{ version: VersionFull }>().version.config,
        { kv: { which: 'one' } },
      );
      assert.deepEqual(
        (await getVersion(a.gameId, two.versionId)).json<{ version: VersionFull }>().version.config,
        { kv: { which: 'two', extra: [1] } },
      );
    });

    it('ignores unknown top-level body fields (unlike unknown keys inside config)', async () => {
      const res = await createVersion(a.gameId, {
        display_name: 'with extras',
        config: { kv: { k: 'v' } },
        version_id: 'client-chosen',
        surprise: true,
      });
      assert.equal(res.statusCode, 200, res.body);
      const { version_id } = res.json<{ version_id: string }>();
      assert.notEqual(version_id, 'client-chosen');
      const got = await getVersion(a.gameId, version_id);
      const version = got.json<{ version: VersionFull & Record<string, unknown> }>().version;
      assert.deepEqual(version.config, { kv: { k: 'v' } });
      assert.equal(version.surprise, undefined);
    });

    it('accepts display names up to 128 bytes, counting UTF-8 bytes', async () => {
      for (const name of ['x', 'a'.repeat(128), '日'.repeat(42), 'é'.repeat(64), 'Release 1.2 (beta)']) {
        const res = await createVersion(a.gameId, { display_name: name, config: {} });
        assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
        const got = await getVersion(a.gameId, res.json<{ version_id: string }>().version_id);
        assert.equal(got.json<{ version: VersionFull }>().version.display_name, name);
      }
    });

    const badNames: { name: string; value: string; paths: string[][] }[] = [
      { name: 'empty', value: '', paths: [['display-name', 'too-short']] },
      { name: '129 bytes', value: 'a'.repeat(129), paths: [['display-name', 'too-long']] },
      { name: '43 × 日 (129 bytes)', value: '日'.repeat(43), paths: [['display-name', 'too-long']] },
      { name: '65 × é (130 bytes)', value: 'é'.repeat(65), paths: [['display-name', 'too-long']] },
      { name: 'leading space', value: ' v1', paths: [['display-name', 'invalid']] },
      { name: 'trailing space', value: 'v1 ', paths: [['display-name', 'invalid']] },
      { name: 'double space', value: 'v  1', paths: [['display-name', 'invalid']] },
      { name: 'tab', value: 'v\t1', paths: [['display-name', 'invalid']] },
      { name: 'newline', value: 'v\n1', paths: [['display-name', 'invalid']] },
    ];
    for (const c of badNames) {
      it(`refuses display_name ${c.name} with VALIDATION_ERROR and creates nothing`, async () => {
        const before = await versionCount(a.gameId);
        const res = await createVersion(a.gameId, { display_name: c.value, config: {} });
        const body = assertError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(
          body.metadata?.errors?.map((e) => e.path),
          c.paths,
        );
        for (const p of c.paths) assert.ok(body.message.includes(p.join('.')), body.message);
        assert.equal(await versionCount(a.gameId), before);
      });
    }

    const badBodies: { name: string; body: unknown; field: string }[] = [
      { name: 'config an array', body: { display_name: 'v', config: [1, 2] }, field: 'config' },
      { name: 'config a string', body: { display_name: 'v', config: '{}' }, field: 'config' },
      { name: 'config a number', body: { display_name: 'v', config: 5 }, field: 'config' },
      { name: 'config null', body: { display_name: 'v', config: null }, field: 'config' },
      { name: 'config missing', body: { display_name: 'v' }, field: 'config' },
      { name: 'display_name missing', body: { config: {} }, field: 'display_name' },
      { name: 'display_name a number', body: { display_name: 1, config: {} }, field: 'display_name' },
    ];
    for (const c of badBodies) {
      it(`refuses ${c.name} with API_BAD_BODY naming the field and creates nothing`, async () => {
        const before = await versionCount(a.gameId);
        const res = await createVersion(a.gameId, c.body);
        const body = assertError(res, 400, 'API_BAD_BODY');
        assert.ok(body.message.includes(c.field), body.message);
        assert.equal(await versionCount(a.gameId), before);
      });
    }

    it('answers 404 GAME_NOT_FOUND for an unknown game, on create and on get', async () => {
      assertError(await createVersion(UNKNOWN_ID, { display_name: 'v', config: {} }), 404, 'GAME_NOT_FOUND');
      assertError(await getVersion(UNKNOWN_ID, a.versionId), 404, 'GAME_NOT_FOUND');
    });

    it('answers 404 VERSION_NOT_FOUND for an unknown version, 400 for an id that is no UUID', async () => {
      assertError(await getVersion(a.gameId, UNKNOWN_ID), 404, 'VERSION_NOT_FOUND');
      assertError(await getVersion(a.gameId, 'not-a-uuid'), 400, 'API_BAD_PARAMS');
    });

    it("does not find another game's version through this game's path", async () => {
      const other = await createVersion(b.gameId, {
        display_name: 'b only',
        config: { kv: { secret: 'b-config' } },
      });
      assert.equal(other.statusCode, 200);
      const bVersionId = other.json<{ version_id: string }>().version_id;
      // The version exists, under game B.
      assert.equal((await getVersion(b.gameId, bVersionId)).statusCode, 200);

      const res = await getVersion(a.gameId, bVersionId);
      assertError(res, 404, 'VERSION_NOT_FOUND');
      assert.ok(!res.body.includes('b-config'));
      assert.ok(!res.body.includes('b only'));
      // Same with the cloud token of game A.
      assertError(await getVersion(a.gameId, bVersionId, a.cloudToken), 404, 'VERSION_NOT_FOUND');
    });

    it('lets the cloud token of the game create and read versions', async () => {
      const res = await createVersion(
        a.gameId,
        { display_name: 'by cloud', config: { kv: { by: 'cloud' } } },
        a.cloudToken,
      );
      assert.equal(res.statusCode, 200, res.body);
      const { version_id } = res.json<{ version_id: string }>();
      const got = await getVersion(a.gameId, version_id, a.cloudToken);
      assert.equal(got.statusCode, 200, got.body);
      const version = got.json<{ version: VersionFull }>().version;
      assert.equal(version.display_name, 'by cloud');
      assert.deepEqual(version.config, { kv: { by: 'cloud' } });
    });

    it("answers 403 API_FORBIDDEN to another game's token, creating nothing and leaking nothing", async () => {
      const secret = await createVersion(b.gameId, {
        display_name: 'b secret',
        config: { kv: { hidden: 'xyzzy' } },
      });
      const secretId = secret.json<{ version_id: string }>().version_id;

      const read = await getVersion(b.gameId, secretId, a.cloudToken);
      assertError(read, 403, 'API_FORBIDDEN');
      assert.ok(!read.body.includes('xyzzy'));
      assert.ok(!read.body.includes('b secret'));
      assert.ok(!read.body.includes('game-b'));

      const before = await versionCount(b.gameId);
      const write = await createVersion(b.gameId, { display_name: 'intruder', config: {} }, a.cloudToken);
      assertError(write, 403, 'API_FORBIDDEN');
      assert.equal(await versionCount(b.gameId), before);
    });

    it('answers 401 without a token or with a bad one, creating nothing', async () => {
      const before = await versionCount(a.gameId);
      assertError(
        await createVersion(a.gameId, { display_name: 'anon', config: {} }, null),
        401,
        'API_UNAUTHORIZED',
      );
      assertError(
        await createVersion(a.gameId, { display_name: 'anon', config: {} }, 'not-a-token'),
        401,
        'API_UNAUTHORIZED',
      );
      assertError(await getVersion(a.gameId, a.versionId, null), 401, 'API_UNAUTHORIZED');
      assert.equal(await versionCount(a.gameId), before);
    });
  });
});
