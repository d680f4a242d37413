/**
 * Keys a user chooses (tag keys, game mode names, port labels, env var names, regions, file extensions)
 * that are also members of every JavaScript object ("toString", "constructor", "hasOwnProperty",
 * "__proto__") are plain names: found only when the user gave them, never read from Object.prototype,
 * never setting a prototype, never a 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { VersionConfig } from '@gcm/contract';
import { resolveVersionConfig, validateVersion } from '@gcm/contract';
import type { LightMyRequestResponse } from 'fastify';
import { assertError } from '../helpers/error-answer.js';
import { startListening, uploadBuild, withNamedBuilds } from '../helpers/listening.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

type Tags = Record<string, string>;
interface Build {
  id: string;
  tags: Tags;
}

const INHERITED = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'] as const;

function assertNotPolluted(): void {
  const probe: Record<string, unknown> = {};
  for (const key of ['x', 'polluted', 'container', 'port', 'tier']) {
    assert.equal(probe[key], undefined, `Object.prototype gained "${key}"`);
  }
  assert.equal(Object.getPrototypeOf(probe), Object.prototype);
}

describe('names that are members of every object are plain names', () => {
  let svc: TestService;
  let f: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    svc = withNamedBuilds((await startListening()).svc, ['img-1']);
    f = await createGameFixture(svc, 'inherited-keys');
  });
  after(async () => {
    await svc.close();
  });

  const base = () => `/games/${f.gameId}/environments/${f.namespaceId}/builds`;
  const json = { 'content-type': 'application/json' };

  async function tagsById(): Promise<Map<string, Tags>> {
    const res = await svc.call('GET', base(), { token: f.cloudToken });
    assert.equal(res.statusCode, 200, res.body);
    return new Map(res.json<{ builds: Build[] }>().builds.map((b) => [b.id, b.tags]));
  }

  async function filtered(tagsJson: string): Promise<LightMyRequestResponse> {
    return svc.call('GET', `${base()}?tags_json=${encodeURIComponent(tagsJson)}`, { token: f.cloudToken });
  }

  describe('build tags', () => {
    let owner: string;
    let target: string;
    const ownerTags = { constructor: 'b', hasOwnProperty: 'c', keep: 'x', toString: 'a' };

    before(async () => {
      owner = await uploadBuild(svc, f, 'owner', { tags: ownerTags, token: f.cloudToken });
      target = await uploadBuild(svc, f, 'target', { tags: {}, token: f.cloudToken });
    });

    it('refuses exclusive_tags naming an inherited member not in tags, and deletes nothing', async () => {
      for (const key of INHERITED) {
        const res = await svc.call('PATCH', `${base()}/${target}/tags`, {
          token: f.cloudToken,
          body: { tags: { a: 'b' }, exclusive_tags: [key] },
        });
        const body = assertError(res, 400, 'BUILDS_TAGS_MISSING_EXCLUSIVE_KEY');
        assert.deepEqual(body.metadata?.keys, [key]);
      }
      const tags = await tagsById();
      assert.deepEqual(tags.get(owner), ownerTags, 'no key left the other build');
      assert.deepEqual(tags.get(target), {}, 'the refused patch set nothing');
      assertNotPolluted();
    });

    it('filters by such keys as plain keys in tags_json', async () => {
      const ids = async (tagsJson: string) => {
        const res = await filtered(tagsJson);
        assert.equal(res.statusCode, 200, res.body);
        return res.json<{ builds: Build[] }>().builds.map((b) => b.id);
      };
      assert.deepEqual(await ids('{"constructor":"b"}'), [owner]);
      assert.deepEqual(await ids('{"toString":"a","hasOwnProperty":"c"}'), [owner]);
      assert.deepEqual(await ids('{"constructor":"nope"}'), []);
      assert.deepEqual(await ids('{"__proto__":"x"}'), [], 'no build has a tag "__proto__"');
      assert.deepEqual(await ids('{"valueOf":"a"}'), []);
      // A non-string value is refused for "__proto__" as for any key.
      for (const bad of ['{"__proto__":{"x":"y"}}', '{"constructor":{"prototype":{"x":"y"}}}']) {
        const body = assertError(await filtered(bad), 400, 'API_BAD_QUERY');
        assert.match(body.message, /tags_json/);
      }
      // Such names as query parameters are unknown parameters like any other.
      for (const query of ['__proto__=x', 'constructor=x', '__proto__[x]=y', 'toString=x']) {
        const res = await svc.call('GET', `${base()}?${query}`, { token: f.cloudToken });
        assert.ok(
          res.statusCode === 200 || res.statusCode === 400,
          `${query}: ${res.statusCode} ${res.body}`,
        );
      }
      assertNotPolluted();
    });

    it('moves an own "constructor" key like any other exclusive key', async () => {
      const res = await svc.call('PATCH', `${base()}/${target}/tags`, {
        token: f.cloudToken,
        body: { tags: { constructor: 'z' }, exclusive_tags: ['constructor'] },
      });
      assert.equal(res.statusCode, 204, res.body);
      const tags = await tagsById();
      assert.deepEqual(tags.get(target), { constructor: 'z' });
      assert.deepEqual(tags.get(owner), { hasOwnProperty: 'c', keep: 'x', toString: 'a' });
    });

    it('refuses a "__proto__" tag key in a body with 400, never a 500', async () => {
      const res = await svc.call('POST', `${base()}/prepare`, {
        token: f.cloudToken,
        headers: json,
        body: '{"name":"p","image_file":{"path":"p.tar","content_length":1},"tags":{"__proto__":"x"}}',
      });
      assertError(res, 400, 'API_BAD_BODY');
      assertNotPolluted();
    });
  });

  describe('version configuration', () => {
    const versions = () => `/cloud/games/${f.gameId}/versions`;
    const P = (gm: string) => ['config', 'matchmaker', 'game-modes', `*${gm}*`];
    const container = (extra: Record<string, unknown> = {}) => ({
      image_id: 'img-1',
      env: { constructor: 'c', toString: 't', valueOf: 'v' },
      ports: { constructor: { port: 7777 } },
      ...extra,
    });
    const REGIONS = { 'lnd-atl': { tier: 'basic-1d1' }, constructor: { tier: 'basic-1d1' } };
    const config = (withBadLabel: boolean, regions: Record<string, unknown> = REGIONS) => ({
      matchmaker: {
        game_modes: {
          constructor: { container: container() },
          hasOwnProperty: {
            container: container({ ports: { constructor: { port: 7778 } } }),
            regions,
          },
          toString: {
            container: container({ ports: withBadLabel ? { toString: { port: 7779 } } : {} }),
          },
        },
      },
    });

    it('validates game modes, ports, env vars and regions by the name rules only', async () => {
      const res = await svc.call('POST', `${versions()}/validate`, {
        body: { display_name: 'inherited', config: config(true) },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(
        res.json<{ errors: { path: string[] }[] }>().errors.map((e) => e.path),
        [
          // Game mode names and env names allow camel case; regions must be configured; labels are name ids.
          [...P('hasOwnProperty'), 'regions', '*constructor*', 'invalid'],
          [...P('toString'), 'ports', '*toString*', 'label-invalid'],
        ],
      );
      assertNotPolluted();
    });

    it('stores and resolves such names as own keys', async () => {
      const created = await svc.call('POST', versions(), {
        body: { display_name: 'inherited ok', config: config(false) },
      });
      // The unknown region "constructor" is still refused; without it the config is accepted.
      assertError(created, 400, 'VALIDATION_ERROR');
      const good = config(false, { 'lnd-atl': { tier: 'basic-1d1' } });
      const ok = await svc.call('POST', versions(), { body: { display_name: 'inherited ok', config: good } });
      assert.equal(ok.statusCode, 200, ok.body);
      const versionId = ok.json<{ version_id: string }>().version_id;
      const res = await svc.call('GET', `${versions()}/${versionId}?resolved=true`);
      assert.equal(res.statusCode, 200, res.body);
      const modes = res.json<{
        version: {
          config: {
            matchmaker: {
              game_modes: Record<
                string,
                { container: { env: Tags; ports: Record<string, { port: number }> } }
              >;
            };
          };
        };
      }>().version.config.matchmaker.game_modes;
      assert.deepEqual(Object.keys(modes), ['constructor', 'hasOwnProperty', 'toString']);
      // Through a Map: `modes.constructor` would type (and, were the key missing, read) Object's member.
      const mode = new Map(Object.entries(modes)).get('constructor')?.container;
      assert.deepEqual(mode?.env, { constructor: 'c', toString: 't', valueOf: 'v' });
      assert.deepEqual(Object.entries(mode?.ports ?? {}), [
        ['constructor', { port: 7777, protocol: 'https', proxy: 'game_guard' }],
      ]);
      assertNotPolluted();
    });

    it('refuses "__proto__" names in a body with 400, never a 500', async () => {
      for (const body of [
        '{"display_name":"p","config":{"matchmaker":{"game_modes":{"__proto__":{"container":{"image_id":"x"}}}}}}',
        '{"display_name":"p","config":{"matchmaker":{"game_modes":{"a":{"container":{"env":{"__proto__":"x"}}}}}}}',
      ]) {
        assertError(
          await svc.call('POST', `${versions()}/validate`, { headers: json, body }),
          400,
          'API_BAD_BODY',
        );
      }
      assertNotPolluted();
    });
  });

  it('finds no avatar type for an extension named like an object member', async () => {
    for (const extension of ['constructor', '__proto__', 'tostring', 'hasownproperty']) {
      const res = await svc.call('POST', `/cloud/games/${f.gameId}/prepare`, {
        token: f.cloudToken,
        body: { path: `avatar.${extension}`, content_length: 100 },
      });
      assertError(res, 400, 'UPLOAD_INVALID_FILE_TYPE');
    }
    assertNotPolluted();
  });
});

describe('the pure validator and resolver, given a config parsed by JSON.parse (a CLI or a browser)', () => {
  // JSON.parse, unlike Fastify's body parser, keeps "__proto__" as an own key.
  const config = JSON.parse(`{"matchmaker": {"game_modes": {"__proto__": {
    "container": {"image_id": "img", "env": {"__proto__": "e"}, "ports": {"__proto__": {"port": 7777}}},
    "regions": {"__proto__": {"tier": "basic-1d1"}}
  }}}}`) as VersionConfig;
  const facts = { regions: ['lnd-atl'] };

  it('reports every "__proto__" name by the name rules', () => {
    const P = ['config', 'matchmaker', 'game-modes', '*__proto__*'];
    assert.deepEqual(
      validateVersion(
        { display_name: 'v', config },
        { ...facts, existingDisplayNames: [], hostNetworkingEnabled: false },
      ).map((e) => e.path),
      [
        [...P, 'regions', '*__proto__*', 'invalid'],
        [...P, 'ports', '*__proto__*', 'label-invalid'],
      ],
    );
    assertNotPolluted();
  });

  it('resolves them as own keys, setting no prototype', () => {
    const resolved = resolveVersionConfig(config, facts) as {
      matchmaker: {
        game_modes: Record<
          string,
          { container: { env: Tags; ports: Record<string, unknown> }; regions: Record<string, unknown> }
        >;
      };
    };
    const modes = resolved.matchmaker.game_modes;
    assert.deepEqual(Object.keys(modes), ['__proto__']);
    const gm = Object.getOwnPropertyDescriptor(modes, '__proto__')?.value as (typeof modes)[string];
    for (const map of [gm.container.env, gm.container.ports, gm.regions]) {
      assert.deepEqual(Object.keys(map), ['__proto__']);
      assert.equal(Object.getPrototypeOf(map), Object.prototype);
    }
    assertNotPolluted();
  });
});
