/**
 * The rules of src/http/auth.ts one at a time, with what each refusal says: the authorization matrix
 * (authorization-matrix.test.ts) proves every route's answer to every caller; this file pins down the
 * rule's reasons, the order of its checks (a malformed id is bad input, not another game's; a blocked
 * address is refused before its token or cookie is read), and the paths a person's session takes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, {
  type FastifyInstance,
  type FastifyRequest,
  type FastifySchema,
  type LightMyRequestResponse,
} from 'fastify';
import { sql } from 'kysely';
import { callerOf, registerAuth } from '../../src/http/auth.js';
import { registerErrorHandling } from '../../src/http/errors.js';
import { AuthFailureGuard } from '../../src/http/rate-limits.js';
import { assertError } from '../helpers/error-answer.js';
import { addMember, asPerson, giveGame, newTeam, type Team } from '../helpers/people.js';
import { createGameFixture, DEFAULT_LIMITS, startTestService, type TestService } from '../helpers/service.js';

const NOT_AN_ID = 'not-an-id';

describe('auth rules: what each refusal of a token says', () => {
  let svc: TestService;
  let a: Awaited<ReturnType<typeof createGameFixture>>;
  let b: Awaited<ReturnType<typeof createGameFixture>>;
  let reporterA: string;
  let reporterB: string;
  let siblingNs: string;

  before(async () => {
    svc = await startTestService();
    a = await createGameFixture(svc, 'rules-a');
    b = await createGameFixture(svc, 'rules-b');
    const mintReporter = async (gameId: string, namespaceId: string) => {
      const res = await svc.call('POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/tokens/reporter`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ token: string }>().token;
    };
    reporterA = await mintReporter(a.gameId, a.namespaceId);
    reporterB = await mintReporter(b.gameId, b.namespaceId);
    const sibling = await svc.call('POST', `/cloud/games/${a.gameId}/namespaces`, {
      body: { name_id: 'staging', display_name: 'Staging', version_id: a.versionId },
    });
    assert.equal(sibling.statusCode, 200, sibling.body);
    siblingNs = sibling.json<{ namespace_id: string }>().namespace_id;
  });
  after(() => svc.close());

  const lobbies = (gameId: string, namespaceId: string) =>
    `/cloud/games/${gameId}/namespaces/${namespaceId}/logs/lobbies`;

  // Each case twice: the first check reads the token's row, the second is answered from memory.
  async function twice(call: () => Promise<LightMyRequestResponse>, status: number, code: string) {
    const first = assertError(await call(), status, code);
    const second = assertError(await call(), status, code);
    assert.equal(second.message, first.message);
    return first;
  }

  it('operator routes: any other token gets 403 saying it needs the operator token', async () => {
    for (const token of [a.cloudToken, reporterA]) {
      const body = await twice(
        () => svc.call('POST', '/cloud/games', { token, body: { name_id: 'x', display_name: 'X' } }),
        403,
        'API_FORBIDDEN',
      );
      assert.equal(body.message, 'this operation needs the operator token');
    }
  });

  it('game routes: another game’s token 403 names the game; a reporter token may only report lobbies', async () => {
    const other = await twice(
      () => svc.call('GET', `/cloud/games/${a.gameId}`, { token: b.cloudToken }),
      403,
      'API_FORBIDDEN',
    );
    assert.equal(other.message, 'this token belongs to another game');
    const reporter = await twice(
      () => svc.call('GET', `/cloud/games/${a.gameId}`, { token: reporterA }),
      403,
      'API_FORBIDDEN',
    );
    assert.equal(reporter.message, 'a lobby reporter token may only report lobbies');
    const own = await svc.call('GET', `/cloud/games/${a.gameId}`, { token: a.cloudToken });
    assert.equal(own.statusCode, 200, own.body);
  });

  it('`any` routes: a reporter token may only report lobbies; a cloud token is let in', async () => {
    const body = await twice(
      () => svc.call('GET', '/cloud/games', { token: reporterA }),
      403,
      'API_FORBIDDEN',
    );
    assert.equal(body.message, 'a lobby reporter token may only report lobbies');
    assert.equal((await svc.call('GET', '/cloud/games', { token: a.cloudToken })).statusCode, 200);
  });

  it('reporter routes: a cloud token, or a reporter token of another namespace or game, gets 403 saying why', async () => {
    const cloud = await twice(
      () => svc.call('POST', lobbies(a.gameId, a.namespaceId), { token: a.cloudToken, body: {} }),
      403,
      'API_FORBIDDEN',
    );
    assert.equal(cloud.message, 'this operation needs the operator or a lobby reporter token');
    for (const [name, url, token] of [
      ['a sibling namespace', lobbies(a.gameId, siblingNs), reporterA],
      ['another game', lobbies(a.gameId, a.namespaceId), reporterB],
      ['its namespace id under another game', lobbies(b.gameId, a.namespaceId), reporterA],
    ] as const) {
      const body = await twice(() => svc.call('POST', url, { token, body: {} }), 403, 'API_FORBIDDEN');
      assert.equal(body.message, 'this token belongs to another namespace', name);
    }
    // Its own namespace: past the rule, to the body's validation.
    const own = await svc.call('POST', lobbies(a.gameId, a.namespaceId), { token: reporterA, body: {} });
    assert.equal(own.statusCode, 400, own.body);
  });

  it('`self`: any valid token may ask who it is', async () => {
    const res = await svc.call('GET', '/cloud/auth/inspect', { token: reporterA });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(res.json<{ agent: Record<string, unknown> }>().agent.namespace_reporter !== undefined);
  });

  it('a name where an id goes is bad input (400 naming the field), not another game’s or namespace’s (403)', async () => {
    const game = await twice(
      () => svc.call('GET', `/cloud/games/${NOT_AN_ID}`, { token: a.cloudToken }),
      400,
      'API_BAD_PARAMS',
    );
    assert.equal(game.metadata?.field, 'game_id');
    const namespace = await twice(
      () => svc.call('POST', lobbies(a.gameId, NOT_AN_ID), { token: reporterA, body: {} }),
      400,
      'API_BAD_PARAMS',
    );
    assert.equal(namespace.metadata?.field, 'namespace_id');
    const reporterGame = assertError(
      await svc.call('POST', lobbies(NOT_AN_ID, a.namespaceId), { token: reporterA, body: {} }),
      400,
      'API_BAD_PARAMS',
    );
    assert.equal(reporterGame.metadata?.field, 'game_id');
    // On an operator route the rule refuses first: a malformed id says nothing about who may call.
    assertError(
      await svc.call('PUT', `/cloud/games/${NOT_AN_ID}/team`, {
        token: a.cloudToken,
        body: { team_id: null },
      }),
      403,
      'API_FORBIDDEN',
    );
  });
});

describe('auth rules: signed-in people', () => {
  let svc: TestService;
  let team: Team;
  let viewer: string;
  let gameId: string;

  before(async () => {
    svc = await startTestService();
    team = await newTeam(svc, 'rules-team');
    gameId = (await createGameFixture(svc, 'rules-people')).gameId;
    await giveGame(svc, gameId, team.teamId);
    viewer = await addMember(svc, team, 'viewer@rules.example', 'viewer');
  });
  after(() => svc.close());

  it('may not call an operator route that names no role for people, and are told so', async () => {
    const body = assertError(
      await svc.call('POST', '/cloud/teams', {
        token: null,
        headers: asPerson(svc, team.owner.cookie),
        body: { name: 'Another', slug: 'another-team', owner_email: 'someone@rules.example' },
      }),
      403,
      'API_FORBIDDEN',
    );
    assert.equal(body.message, 'this operation needs the operator token; a signed-in person may not call it');
  });

  it('get 400 naming the field for a malformed game or team id, before any role is looked up', async () => {
    const game = assertError(
      await svc.call('GET', `/cloud/games/${NOT_AN_ID}`, { token: null, headers: asPerson(svc, viewer) }),
      400,
      'API_BAD_PARAMS',
    );
    assert.equal(game.metadata?.field, 'game_id');
    const teamRes = assertError(
      await svc.call('GET', `/cloud/teams/${NOT_AN_ID}/audit`, {
        token: null,
        headers: asPerson(svc, team.owner.cookie),
      }),
      400,
      'API_BAD_PARAMS',
    );
    assert.equal(teamRes.metadata?.field, 'team_id');
  });

  it('read with GET or HEAD as viewers, with no Origin header (reads are not cross-site writes)', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await svc.app.inject({
        method,
        url: `/cloud/games/${gameId}`,
        headers: { cookie: viewer },
      });
      assert.equal(res.statusCode, 200, `${method}: ${res.body}`);
    }
  });

  it('need the team’s role on a team route: a viewer may not read the audit log, its owner may', async () => {
    const refused = assertError(
      await svc.call('GET', `/cloud/teams/${team.teamId}/audit`, {
        token: null,
        headers: asPerson(svc, viewer),
      }),
      403,
      'API_FORBIDDEN',
    );
    assert.match(refused.message, /admin role/);
    const owner = await svc.call('GET', `/cloud/teams/${team.teamId}/audit`, {
      token: null,
      headers: asPerson(svc, team.owner.cookie),
    });
    assert.equal(owner.statusCode, 200, owner.body);
  });

  it('a refused write names the page that sent it', async () => {
    const body = assertError(
      await svc.call('POST', `/cloud/games/${gameId}/versions`, {
        token: null,
        headers: { cookie: team.owner.cookie, origin: 'https://evil.example' },
        body: { display_name: 'csrf', config: {} },
      }),
      403,
      'AUTH_CROSS_ORIGIN',
    );
    assert.match(body.message, /https:\/\/evil\.example/);
  });

  it('a refused write quotes at most 200 characters of the page’s origin', async () => {
    const origin = `https://${'a'.repeat(300)}.example`;
    const body = assertError(
      await svc.call('POST', `/cloud/games/${gameId}/versions`, {
        token: null,
        headers: { cookie: team.owner.cookie, origin },
        body: { display_name: 'csrf', config: {} },
      }),
      403,
      'AUTH_CROSS_ORIGIN',
    );
    assert.ok(
      body.message.startsWith(
        `a write with a session cookie from the page at ${origin.slice(0, 200)} is refused: that origin is not trusted; `,
      ),
      body.message,
    );
  });

  it('a write with no Origin is refused, saying what to send, unless the browser says it is same-origin', async () => {
    const write = (headers: Record<string, string>) =>
      svc.call('POST', `/cloud/games/${gameId}/versions`, {
        token: null,
        headers: { cookie: team.owner.cookie, ...headers },
        body: { display_name: 'no-origin', config: {} },
      });
    const body = assertError(await write({}), 403, 'AUTH_CROSS_ORIGIN');
    assert.equal(
      body.message,
      'a write with a session cookie must carry an Origin header of a trusted origin (or use a bearer token)',
    );
    assertError(await write({ 'sec-fetch-site': 'cross-site' }), 403, 'AUTH_CROSS_ORIGIN');
    const same = await write({ 'sec-fetch-site': 'same-origin' });
    assert.equal(same.statusCode, 200, same.body);
  });
});

describe('auth rules: session cookies and the failed-check limit (default: 20 a minute)', () => {
  let svc: TestService;
  let team: Team;

  before(async () => {
    svc = await startTestService({ env: DEFAULT_LIMITS });
    team = await newTeam(svc, 'cookie-limits');
  });
  after(() => svc.close());

  const fromAddress = (address: string, cookie: string) =>
    svc.app.inject({ method: 'GET', url: '/cloud/games', headers: { cookie }, remoteAddress: address });

  it('counts a session cookie that does not check out as a failure, and then refuses the address’s bad ones only', async () => {
    const address = '198.51.100.40';
    const forged = `${team.owner.cookie.split('=')[0]}=forged.session`;
    for (let i = 0; i < 20; i += 1) {
      const res = await fromAddress(address, forged);
      assertError(res, 401, 'API_UNAUTHORIZED');
    }
    assertError(await fromAddress(address, forged), 429, 'RATE_LIMITED');
    const good = await fromAddress(address, team.owner.cookie);
    assert.equal(good.statusCode, 200, good.body);
    const elsewhere = await fromAddress('198.51.100.41', team.owner.cookie);
    assert.equal(elsewhere.statusCode, 200, elsewhere.body);
  });

  it('passes a blocked address’s good token, known to memory or not, and refuses its bad ones', async () => {
    const game = await createGameFixture(svc, 'cached-blocked');
    const address = '198.51.100.43';
    const inspect = (token: string) =>
      svc.app.inject({
        method: 'GET',
        url: '/cloud/auth/inspect',
        headers: { authorization: `Bearer ${token}` },
        remoteAddress: address,
      });
    // Twice: the second answer comes from the token's cached check.
    for (let i = 0; i < 2; i += 1) assert.equal((await inspect(game.cloudToken)).statusCode, 200);
    for (let i = 0; i < 20; i += 1) assertError(await inspect('not.a-real.token'), 401, 'API_UNAUTHORIZED');
    assertError(await inspect('not.a-real.token'), 429, 'RATE_LIMITED');
    assert.equal((await inspect(game.cloudToken)).statusCode, 200);
    // Minted now: no memory of it, so it is checked, one at a time with the address's other checks.
    const minted = await svc.call('POST', `/cloud/games/${game.gameId}/tokens/cloud`);
    assert.equal((await inspect(minted.json<{ token: string }>().token)).statusCode, 200);
  });

  it('does not count a check the store failed as a failed one: the address keeps its good token and cookie', async () => {
    const game = await createGameFixture(svc, 'store-failure');
    // Minted now and never used: its check must read its row.
    const minted = await svc.call('POST', `/cloud/games/${game.gameId}/tokens/cloud`);
    assert.equal(minted.statusCode, 200, minted.body);
    const token = minted.json<{ token: string }>().token;
    const address = '198.51.100.44';
    const asToken = () =>
      svc.app.inject({
        method: 'GET',
        url: `/cloud/games/${game.gameId}`,
        headers: { authorization: `Bearer ${token}` },
        remoteAddress: address,
      });
    // A table that is not there fails each check's read in the store itself, as an outage would.
    const hide = async (table: string, away: string, during: () => Promise<void>) => {
      await sql`ALTER TABLE ${sql.table(table)} RENAME TO ${sql.table(away)}`.execute(svc.deps.db);
      try {
        await during();
      } finally {
        await sql`ALTER TABLE ${sql.table(away)} RENAME TO ${sql.table(table)}`.execute(svc.deps.db);
      }
    };
    const failsInStore = (res: LightMyRequestResponse) =>
      assert.ok(res.statusCode >= 500, `${res.statusCode} ${res.body}`);
    await hide('tokens', 'tokens_away', async () => {
      for (let i = 0; i < 25; i += 1) failsInStore(await asToken());
    });
    const back = await asToken();
    assert.equal(back.statusCode, 200, back.body);
    await hide('user_sessions', 'user_sessions_away', async () => {
      for (let i = 0; i < 25; i += 1) failsInStore(await fromAddress(address, team.owner.cookie));
    });
    const person = await fromAddress(address, team.owner.cookie);
    assert.equal(person.statusCode, 200, person.body);
  });

  it('does not count good sessions', async () => {
    const address = '198.51.100.42';
    for (let i = 0; i < 25; i += 1) {
      const res = await fromAddress(address, team.owner.cookie);
      assert.equal(res.statusCode, 200, res.body);
    }
  });
});

/**
 * The hook on routes the API does not build through routeOptions: one that declares no rule is the
 * operator's (a forgotten declaration fails closed), one with no schema or a bare one still gets its
 * people's text and security, and a handler that asks for the caller where no hook set one gets 401.
 */
describe('auth rules: routes that declare nothing', () => {
  let svc: TestService;
  let app: FastifyInstance;
  let game: Awaited<ReturnType<typeof createGameFixture>>;
  let team: Team;
  const bare: { description?: string; security?: Record<string, string[]>[] } = {};
  const documented = { description: 'Lists things.', security: [{ bearerAuth: [] as string[] }] };

  before(async () => {
    svc = await startTestService();
    game = await createGameFixture(svc, 'undeclared');
    team = await newTeam(svc, 'undeclared-team');
    app = Fastify();
    registerErrorHandling(app, 1024);
    registerAuth(app, {
      tokens: svc.deps.tokens,
      guard: new AuthFailureGuard(
        svc.deps.rateCounters,
        svc.clock,
        svc.deps.config.rateLimits,
        svc.deps.metrics,
      ),
      people: svc.deps.people,
      trustedOrigins: svc.deps.origins,
    });
    const kind = async (request: FastifyRequest) => ({ kind: callerOf(request).kind });
    app.get('/undeclared', kind);
    app.get('/public-caller', { config: { auth: 'public' } }, kind);
    app.get('/games/:game_id/plain', { config: { auth: 'game' } }, kind);
    app.post('/games/:game_id/bare', { config: { auth: 'game' }, schema: bare as FastifySchema }, kind);
    app.get('/listed', { config: { auth: 'any' }, schema: documented as FastifySchema }, kind);
    await app.ready();
  });
  after(async () => {
    await app.close();
    await svc.close();
  });

  const get = (url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('a route with no rule is the operator’s alone: a game’s token and a person are refused', async () => {
    const operator = await get('/undeclared', bearer(svc.operatorToken));
    assert.equal(operator.statusCode, 200, operator.body);
    assert.deepEqual(operator.json(), { kind: 'operator' });
    const cloud = assertError(await get('/undeclared', bearer(game.cloudToken)), 403, 'API_FORBIDDEN');
    assert.equal(cloud.message, 'this operation needs the operator token');
    const person = assertError(await get('/undeclared', { cookie: team.owner.cookie }), 403, 'API_FORBIDDEN');
    assert.equal(
      person.message,
      'this operation needs the operator token; a signed-in person may not call it',
    );
  });

  it('a handler of a public route that asks for the caller gets 401, not a request with no caller', async () => {
    assertError(await get('/public-caller', bearer(svc.operatorToken)), 401, 'API_UNAUTHORIZED');
  });

  it('a route with no schema is checked like any other', async () => {
    const own = await get(`/games/${game.gameId}/plain`, bearer(game.cloudToken));
    assert.deepEqual(own.json(), { kind: 'game_cloud' });
    assertError(await get(`/games/${NOT_AN_ID}/plain`, bearer(game.cloudToken)), 400, 'API_BAD_PARAMS');
  });

  it('a bare schema gets the people’s text and security; a documented one keeps its own first, once', () => {
    // Fastify marks the schema objects it compiled with a symbol: compare the two fields.
    const fields = (schema: typeof bare) => ({ description: schema.description, security: schema.security });
    assert.deepEqual(fields(bare), {
      description:
        'Or a signed-in person (session cookie) with the member role or stronger in the team that owns the game.',
      security: [{ sessionCookie: [] }],
    });
    // GET's HEAD twin shares the schema object: the text is added once.
    assert.deepEqual(fields(documented), {
      description: 'Lists things. Or a signed-in person (session cookie), who sees what their teams own.',
      security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    });
  });
});
