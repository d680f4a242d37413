import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';

interface ErrorBody {
  code: string;
  message: string;
  ray_id: string;
  metadata?: { errors?: { path: string[]; message: string }[]; field?: string | null };
}

interface GameSummary {
  game_id: string;
  name_id: string;
  display_name: string;
  create_ts: string;
  avatar_url?: string;
}

interface GameFull extends GameSummary {
  host_networking_enabled: boolean;
  runtime: string;
  namespaces: {
    namespace_id: string;
    version_id: string;
    name_id: string;
    display_name: string;
    create_ts: string;
  }[];
  versions: { version_id: string; display_name: string; create_ts: string }[];
}

const RFC3339_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function errorOf(res: LightMyRequestResponse): ErrorBody {
  return res.json<ErrorBody>();
}

/** Asserts a 400 VALIDATION_ERROR whose metadata lists exactly `paths` and whose message names each one. */
function assertValidationError(res: LightMyRequestResponse, paths: string[][]): void {
  assert.equal(res.statusCode, 400, res.body);
  const body = errorOf(res);
  assert.equal(body.code, 'VALIDATION_ERROR');
  assert.deepEqual(
    body.metadata?.errors?.map((e) => e.path),
    paths,
  );
  for (const e of body.metadata?.errors ?? []) {
    assert.ok(e.message.length > 10, `${e.path.join('.')} explains itself: ${e.message}`);
    const named = `${e.path.join('.')}: ${e.message}`;
    assert.ok(body.message.includes(named), `message "${body.message}" names ${named}`);
  }
  assert.equal(typeof body.ray_id, 'string');
}

function assertBadBody(res: LightMyRequestResponse, field: string): void {
  assert.equal(res.statusCode, 400, res.body);
  const body = errorOf(res);
  assert.equal(body.code, 'API_BAD_BODY');
  assert.ok(body.message.includes(field), `message "${body.message}" names ${field}`);
}

const displayNameCases: { name: string; value: string; path: string[][] }[] = [
  { name: 'empty', value: '', path: [['display-name', 'too-short']] },
  { name: '25 bytes', value: 'a'.repeat(25), path: [['display-name', 'too-long']] },
  // 13 characters but 26 bytes: the limit counts UTF-8 bytes, not characters.
  { name: '13 × é (26 bytes)', value: 'é'.repeat(13), path: [['display-name', 'too-long']] },
  { name: '9 × 日 (27 bytes)', value: '日'.repeat(9), path: [['display-name', 'too-long']] },
  { name: 'emoji (7 chars, 28 bytes)', value: '🎮'.repeat(7), path: [['display-name', 'too-long']] },
  { name: 'leading space', value: ' Game', path: [['display-name', 'invalid']] },
  { name: 'trailing space', value: 'Game ', path: [['display-name', 'invalid']] },
  { name: 'double space', value: 'My  Game', path: [['display-name', 'invalid']] },
  { name: 'tab', value: 'My\tGame', path: [['display-name', 'invalid']] },
  { name: 'newline', value: 'My\nGame', path: [['display-name', 'invalid']] },
  { name: 'only a space', value: ' ', path: [['display-name', 'invalid']] },
  {
    name: 'too long and invalid',
    value: ` ${'a'.repeat(30)}`,
    path: [
      ['display-name', 'too-long'],
      ['display-name', 'invalid'],
    ],
  },
];

const nameIdCases: { name: string; value: string; path: string[][] }[] = [
  { name: 'empty', value: '', path: [['name-id', 'too-short']] },
  { name: '17 chars', value: 'a'.repeat(17), path: [['name-id', 'too-long']] },
  { name: 'uppercase', value: 'MyGame', path: [['name-id', 'invalid']] },
  { name: 'leading -', value: '-game', path: [['name-id', 'invalid']] },
  { name: 'trailing -', value: 'game-', path: [['name-id', 'invalid']] },
  { name: 'double -', value: 'my--game', path: [['name-id', 'invalid']] },
  { name: 'underscore', value: 'my_game', path: [['name-id', 'invalid']] },
  { name: 'space', value: 'my game', path: [['name-id', 'invalid']] },
  {
    name: 'too long and invalid',
    value: `${'A'.repeat(17)}`,
    path: [
      ['name-id', 'too-long'],
      ['name-id', 'invalid'],
    ],
  },
];

describe('games', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.close();
  });

  async function gameCount(): Promise<number> {
    const res = await svc.call('GET', '/cloud/games');
    assert.equal(res.statusCode, 200);
    return res.json<{ games: GameSummary[] }>().games.length;
  }

  async function createGame(body: unknown, token?: string | null) {
    return svc.call('POST', '/cloud/games', { body, ...(token === undefined ? {} : { token }) });
  }

  describe('POST /cloud/games', () => {
    it('creates a game and returns its id, which GET then serves', async () => {
      svc.clock.advance(1234);
      const res = await createGame({ name_id: 'happy-path-1', display_name: 'Happy Path' });
      assert.equal(res.statusCode, 200, res.body);
      const { game_id } = res.json<{ game_id: string }>();
      assert.equal(typeof game_id, 'string');
      assert.ok(game_id.length > 0);

      const got = await svc.call('GET', `/cloud/games/${game_id}`);
      assert.equal(got.statusCode, 200);
      const game = got.json<{ game: GameFull }>().game;
      assert.equal(game.game_id, game_id);
      assert.equal(game.name_id, 'happy-path-1');
      assert.equal(game.display_name, 'Happy Path');
      assert.equal(game.create_ts, new Date(svc.clock.now()).toISOString());
    });

    it('accepts the limits: 24-byte display name, 16-char name_id, multi-byte names up to 24 bytes', async () => {
      const ok: { name_id: string; display_name: string }[] = [
        { name_id: 'a'.repeat(16), display_name: 'b'.repeat(24) },
        { name_id: 'x', display_name: 'é'.repeat(12) },
        { name_id: 'a1-b2-c3', display_name: '日本語 ゲーム' },
        { name_id: '0', display_name: 'A' },
      ];
      for (const body of ok) {
        const res = await createGame(body);
        assert.equal(res.statusCode, 200, `${JSON.stringify(body)}: ${res.body}`);
      }
    });

    it('ignores unknown extra fields', async () => {
      const res = await createGame({
        name_id: 'extra-fields',
        display_name: 'Extra',
        avatar_url: 'https://evil.example/x.png',
        game_id: 'chosen-by-client',
        unknown: { nested: true },
      });
      assert.equal(res.statusCode, 200, res.body);
      const { game_id } = res.json<{ game_id: string }>();
      assert.notEqual(game_id, 'chosen-by-client');
      const got = await svc.call('GET', `/cloud/games/${game_id}`);
      const game = got.json<{ game: GameFull }>().game;
      assert.equal(game.name_id, 'extra-fields');
      assert.equal(game.avatar_url, undefined);
      assert.equal('unknown' in game, false);
    });

    for (const [i, c] of displayNameCases.entries()) {
      it(`refuses display_name ${c.name} with VALIDATION_ERROR and creates nothing`, async () => {
        const before = await gameCount();
        const res = await createGame({ name_id: `dn-case-${i}`, display_name: c.value });
        assertValidationError(res, c.path);
        assert.equal(await gameCount(), before);
      });
    }

    for (const c of nameIdCases) {
      it(`refuses name_id ${c.name} with VALIDATION_ERROR and creates nothing`, async () => {
        const before = await gameCount();
        const res = await createGame({ name_id: c.value, display_name: 'Fine Name' });
        assertValidationError(res, c.path);
        assert.equal(await gameCount(), before);
      });
    }

    it('refuses a name_id that is taken (name-id.not-unique) and creates nothing', async () => {
      const first = await createGame({ name_id: 'taken', display_name: 'First' });
      assert.equal(first.statusCode, 200);
      const before = await gameCount();
      const res = await createGame({ name_id: 'taken', display_name: 'Second' });
      assertValidationError(res, [['name-id', 'not-unique']]);
      assert.equal(await gameCount(), before);
      const list = await svc.call('GET', '/cloud/games');
      const taken = list.json<{ games: GameSummary[] }>().games.filter((g) => g.name_id === 'taken');
      assert.equal(taken.length, 1);
      assert.equal(taken[0]?.display_name, 'First');
    });

    it('reports display_name and name_id errors together', async () => {
      const before = await gameCount();
      const res = await createGame({ name_id: 'Bad--Id', display_name: '' });
      assertValidationError(res, [
        ['display-name', 'too-short'],
        ['name-id', 'invalid'],
      ]);
      assert.equal(await gameCount(), before);
    });

    const typeCases: { name: string; body: unknown; field: string }[] = [
      { name: 'name_id a number', body: { name_id: 5, display_name: 'Game' }, field: 'name_id' },
      { name: 'name_id null', body: { name_id: null, display_name: 'Game' }, field: 'name_id' },
      { name: 'name_id an array', body: { name_id: ['a'], display_name: 'Game' }, field: 'name_id' },
      { name: 'display_name a number', body: { name_id: 'types', display_name: 42 }, field: 'display_name' },
      { name: 'display_name an object', body: { name_id: 'types', display_name: {} }, field: 'display_name' },
      {
        name: 'display_name a boolean',
        body: { name_id: 'types', display_name: true },
        field: 'display_name',
      },
      { name: 'name_id missing', body: { display_name: 'Game' }, field: 'name_id' },
      { name: 'display_name missing', body: { name_id: 'types' }, field: 'display_name' },
    ];
    for (const c of typeCases) {
      it(`refuses ${c.name} with API_BAD_BODY naming the field and creates nothing`, async () => {
        const before = await gameCount();
        const res = await createGame(c.body);
        assertBadBody(res, c.field);
        assert.equal(await gameCount(), before);
      });
    }

    it('refuses a body that is not an object, or no body at all, with API_BAD_BODY', async () => {
      const before = await gameCount();
      for (const body of [['a'], 'just a string', 7]) {
        const res = await svc.call('POST', '/cloud/games', {
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(errorOf(res).code, 'API_BAD_BODY');
      }
      const empty = await svc.call('POST', '/cloud/games');
      assert.equal(empty.statusCode, 400, empty.body);
      assert.equal(errorOf(empty).code, 'API_BAD_BODY');
      const malformed = await svc.call('POST', '/cloud/games', {
        body: '{"name_id": "x",',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(malformed.statusCode, 400, malformed.body);
      assert.equal(errorOf(malformed).code, 'API_BAD_BODY');
      assert.equal(await gameCount(), before);
    });

    it('is operator only: a cloud token gets 403, no token 401, and nothing is created', async () => {
      const f = await createGameFixture(svc, 'create-auth');
      const before = await gameCount();
      const asCloud = await createGame({ name_id: 'by-cloud', display_name: 'By Cloud' }, f.cloudToken);
      assert.equal(asCloud.statusCode, 403, asCloud.body);
      assert.equal(errorOf(asCloud).code, 'API_FORBIDDEN');
      const anonymous = await createGame({ name_id: 'by-anon', display_name: 'By Anon' }, null);
      assert.equal(anonymous.statusCode, 401, anonymous.body);
      assert.equal(errorOf(anonymous).code, 'API_UNAUTHORIZED');
      assert.equal(await gameCount(), before);
    });
  });

  describe('GET /cloud/games', () => {
    it('lists every game for the operator and only its own game for a cloud token', async () => {
      const a = await createGameFixture(svc, 'list-a');
      const b = await createGameFixture(svc, 'list-b');

      const all = await svc.call('GET', '/cloud/games');
      assert.equal(all.statusCode, 200);
      const games = all.json<{ games: GameSummary[] }>().games;
      const ids = games.map((g) => g.game_id);
      assert.ok(ids.includes(a.gameId));
      assert.ok(ids.includes(b.gameId));
      assert.ok(games.length >= 2);
      for (const g of games) {
        assert.match(g.create_ts, RFC3339_MS_Z);
        assert.equal(typeof g.name_id, 'string');
        assert.equal(typeof g.display_name, 'string');
      }

      const onlyA = await svc.call('GET', '/cloud/games', { token: a.cloudToken });
      assert.equal(onlyA.statusCode, 200);
      const aGames = onlyA.json<{ games: GameSummary[] }>().games;
      assert.deepEqual(
        aGames.map((g) => g.game_id),
        [a.gameId],
      );
      assert.equal(aGames[0]?.name_id, 'list-a');
      assert.ok(!onlyA.body.includes(b.gameId));
      assert.ok(!onlyA.body.includes('list-b'));

      const onlyB = await svc.call('GET', '/cloud/games', { token: b.cloudToken });
      assert.deepEqual(
        onlyB.json<{ games: GameSummary[] }>().games.map((g) => g.game_id),
        [b.gameId],
      );
    });

    it('answers 401 without a token', async () => {
      const res = await svc.call('GET', '/cloud/games', { token: null });
      assert.equal(res.statusCode, 401);
      assert.equal(errorOf(res).code, 'API_UNAUTHORIZED');
      assert.ok(!res.body.includes('game_id'));
    });
  });

  describe('GET /cloud/games/{game_id}', () => {
    it('returns the full shape with namespaces and versions and RFC 3339 millisecond timestamps', async () => {
      svc.clock.advance(5_678);
      const f = await createGameFixture(svc, 'full-shape');
      const expectedTs = new Date(svc.clock.now()).toISOString();
      const res = await svc.call('GET', `/cloud/games/${f.gameId}`);
      assert.equal(res.statusCode, 200, res.body);
      const { game } = res.json<{ game: GameFull }>();
      assert.deepEqual(Object.keys(game).sort(), [
        'create_ts',
        'display_name',
        'game_id',
        'host_networking_enabled',
        'name_id',
        'namespaces',
        'runtime',
        'versions',
      ]);
      assert.equal(game.game_id, f.gameId);
      assert.equal(game.runtime, 'none', 'GCM_RUNTIME: lobbies are reported by a data plane by default');
      assert.equal(
        game.host_networking_enabled,
        false,
        'host networking is off until the operator allows it',
      );
      assert.equal(game.name_id, 'full-shape');
      assert.equal(game.display_name, 'Test Game');
      assert.match(game.create_ts, RFC3339_MS_Z);
      assert.equal(game.create_ts, expectedTs);
      assert.ok(!game.create_ts.endsWith('.000Z'), 'milliseconds are kept, not truncated');

      assert.deepEqual(game.namespaces, [
        {
          namespace_id: f.namespaceId,
          version_id: f.versionId,
          name_id: 'prod',
          display_name: 'Production',
          create_ts: expectedTs,
        },
      ]);
      assert.deepEqual(game.versions, [
        { version_id: f.versionId, display_name: 'v1', create_ts: expectedTs },
      ]);
    });

    it('serves a game without namespaces or versions with empty arrays', async () => {
      const created = await createGame({ name_id: 'bare-game', display_name: 'Bare' });
      const { game_id } = created.json<{ game_id: string }>();
      const res = await svc.call('GET', `/cloud/games/${game_id}`);
      assert.equal(res.statusCode, 200);
      const { game } = res.json<{ game: GameFull }>();
      assert.deepEqual(game.namespaces, []);
      assert.deepEqual(game.versions, []);
    });

    it('lets the cloud token of the game read it', async () => {
      const f = await createGameFixture(svc, 'own-read');
      const res = await svc.call('GET', `/cloud/games/${f.gameId}`, { token: f.cloudToken });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ game: GameFull }>().game.game_id, f.gameId);
    });

    it('answers 404 GAME_NOT_FOUND to the operator for an unknown id', async () => {
      for (const id of ['0190a0a0-0000-7000-8000-000000000000', '0190a0a0-0000-7000-8000-00000000a001']) {
        const res = await svc.call('GET', `/cloud/games/${id}`);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(errorOf(res).code, 'GAME_NOT_FOUND');
      }
    });

    it("answers 403 API_FORBIDDEN to another game's token, with none of that game's data", async () => {
      const a = await createGameFixture(svc, 'secret-a');
      const b = await createGameFixture(svc, 'secret-b');
      const res = await svc.call('GET', `/cloud/games/${b.gameId}`, { token: a.cloudToken });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(errorOf(res).code, 'API_FORBIDDEN');
      for (const secret of ['secret-b', b.namespaceId, b.versionId, 'Production', 'Test Game']) {
        assert.ok(!res.body.includes(secret), `body leaks ${secret}`);
      }
    });

    it("answers 403 to a game's token for an unknown game too (no existence oracle)", async () => {
      const a = await createGameFixture(svc, 'oracle-a');
      const res = await svc.call('GET', '/cloud/games/0190a0a0-0000-7000-8000-000000000001', {
        token: a.cloudToken,
      });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(errorOf(res).code, 'API_FORBIDDEN');
    });

    it('answers 401 without a token', async () => {
      const a = await createGameFixture(svc, 'anon-read');
      const res = await svc.call('GET', `/cloud/games/${a.gameId}`, { token: null });
      assert.equal(res.statusCode, 401);
      assert.equal(errorOf(res).code, 'API_UNAUTHORIZED');
      assert.ok(!res.body.includes('anon-read'));
    });
  });

  describe('PATCH /cloud/games/{game_id}', () => {
    it('renames a game (its cloud token may), keeps its name id, and checks the name as a new one', async () => {
      const f = await createGameFixture(svc, 'rename-me');
      const renamed = await svc.call('PATCH', `/cloud/games/${f.gameId}`, {
        token: f.cloudToken,
        body: { display_name: 'Star Raiders' },
      });
      assert.equal(renamed.statusCode, 204, renamed.body);
      const game = (await svc.call('GET', `/cloud/games/${f.gameId}`)).json<{ game: GameFull }>().game;
      assert.equal(game.display_name, 'Star Raiders');
      assert.equal(game.name_id, 'rename-me');

      assertValidationError(
        await svc.call('PATCH', `/cloud/games/${f.gameId}`, { body: { display_name: ' padded' } }),
        [['display-name', 'invalid']],
      );
      assertBadBody(await svc.call('PATCH', `/cloud/games/${f.gameId}`, { body: {} }), 'display_name');
      const other = await createGameFixture(svc, 'rename-other');
      const foreign = await svc.call('PATCH', `/cloud/games/${f.gameId}`, {
        token: other.cloudToken,
        body: { display_name: 'Taken Over' },
      });
      assert.equal(foreign.statusCode, 403, foreign.body);
      const gone = await svc.call('PATCH', '/cloud/games/0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f', {
        body: { display_name: 'Nobody' },
      });
      assert.equal(gone.statusCode, 404, gone.body);
      assert.equal(errorOf(gone).code, 'GAME_NOT_FOUND');
    });
  });

  describe('POST /cloud/games/validate', () => {
    async function validate(body: unknown, token?: string | null) {
      return svc.call('POST', '/cloud/games/validate', { body, ...(token === undefined ? {} : { token }) });
    }
    function errorsOf(res: LightMyRequestResponse): string[][] {
      assert.equal(res.statusCode, 200, res.body);
      const errors = res.json<{ errors: { path: string[]; message: string }[] }>().errors;
      for (const e of errors) assert.ok(e.message.length > 10, `${e.path.join('.')}: ${e.message}`);
      return errors.map((e) => e.path);
    }

    it('explains each error in a sentence naming the rule and its limit', async () => {
      const res = await validate({ display_name: 'x'.repeat(30), name_id: 'a'.repeat(17) });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        errors: [
          { path: ['display-name', 'too-long'], message: 'display_name is 30 bytes of UTF-8; at most 24' },
          { path: ['name-id', 'too-long'], message: 'name_id is 17 characters; at most 16' },
        ],
      });
      await createGame({ name_id: 'explained', display_name: 'Explained' });
      const taken = await validate({ display_name: 'Fine', name_id: 'explained' });
      assert.deepEqual(taken.json(), {
        errors: [
          {
            path: ['name-id', 'not-unique'],
            message: 'name_id "explained" is taken by another game; game name_ids are unique',
          },
        ],
      });
    });

    it('answers 200 {errors: []} for valid input, with or without name_id, and with name_id null', async () => {
      for (const body of [
        { display_name: 'Valid Game' },
        { display_name: 'Valid Game', name_id: 'fresh-id' },
        { display_name: 'Valid Game', name_id: null },
        { display_name: 'b'.repeat(24), name_id: 'z'.repeat(16) },
        { display_name: '日本語ゲーム', extra: 'ignored' },
      ]) {
        const res = await validate(body);
        assert.equal(res.statusCode, 200, `${JSON.stringify(body)}: ${res.body}`);
        assert.deepEqual(res.json(), { errors: [] });
      }
    });

    for (const c of displayNameCases) {
      it(`reports display_name ${c.name} as ${c.path.map((p) => p.join('.')).join(', ')}`, async () => {
        assert.deepEqual(errorsOf(await validate({ display_name: c.value })), c.path);
      });
    }

    for (const c of nameIdCases) {
      it(`reports name_id ${c.name} as ${c.path.map((p) => p.join('.')).join(', ')}`, async () => {
        assert.deepEqual(errorsOf(await validate({ display_name: 'Fine', name_id: c.value })), c.path);
      });
    }

    it('reports a taken name_id as name-id.not-unique and both fields together', async () => {
      const made = await createGame({ name_id: 'validate-taken', display_name: 'Taken' });
      assert.equal(made.statusCode, 200);
      assert.deepEqual(errorsOf(await validate({ display_name: 'Fine', name_id: 'validate-taken' })), [
        ['name-id', 'not-unique'],
      ]);
      assert.deepEqual(errorsOf(await validate({ display_name: 'Bad ', name_id: 'validate-taken' })), [
        ['display-name', 'invalid'],
        ['name-id', 'not-unique'],
      ]);
    });

    it('creates nothing', async () => {
      const before = await gameCount();
      const res = await validate({ display_name: 'Not Created', name_id: 'not-created' });
      assert.deepEqual(res.json(), { errors: [] });
      assert.equal(await gameCount(), before);
      const again = await createGame({ name_id: 'not-created', display_name: 'Now Created' });
      assert.equal(again.statusCode, 200, again.body);
    });

    it('refuses wrong types and a missing display_name with API_BAD_BODY naming the field', async () => {
      assertBadBody(await validate({ display_name: 3 }), 'display_name');
      assertBadBody(await validate({ name_id: 'x' }), 'display_name');
      assertBadBody(await validate({ display_name: 'Fine', name_id: 12 }), 'name_id');
    });

    it('is operator only: a cloud token gets 403, no token 401', async () => {
      const f = await createGameFixture(svc, 'validate-auth');
      const asCloud = await validate({ display_name: 'Fine' }, f.cloudToken);
      assert.equal(asCloud.statusCode, 403, asCloud.body);
      assert.equal(errorOf(asCloud).code, 'API_FORBIDDEN');
      assert.ok(!('errors' in asCloud.json<Record<string, unknown>>()));
      const anonymous = await validate({ display_name: 'Fine' }, null);
      assert.equal(anonymous.statusCode, 401, anonymous.body);
      assert.equal(errorOf(anonymous).code, 'API_UNAUTHORIZED');
    });
  });
});
