import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Migrator } from 'kysely';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { openDatabase } from '../../src/db/open-db.js';
import { lobbiesBeforeQuery } from '../../src/modules/lobby-logs/lobby-logs.repository.js';
import { lobbyWrites } from '../../src/modules/lobby-logs/lobby-logs.service.js';
import { assertError } from '../helpers/error-answer.js';
import { dropTestDatabase, onPostgres } from '../helpers/postgres.js';
import { queryPlan } from '../helpers/query-plan.js';
import { createGameFixture, startTestService, type TestService, testConfig } from '../helpers/service.js';

interface LobbySummary {
  create_ts: string;
  lobby_group_name_id: string;
  lobby_id: string;
  namespace_id: string;
  ready_ts?: string;
  region_id: string;
  start_ts?: string;
  status: {
    running: Record<string, never>;
    stopped?: { exit_code: number; failed: boolean; stop_ts: string };
  };
}

type Fixture = Awaited<ReturnType<typeof createGameFixture>> & { reporter: string };

// Before the test clock's "now" (2026-01-01), which is the default cursor.
const T0 = Date.parse('2025-12-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('lobby logs', () => {
  let svc: TestService;
  let f: Fixture;
  let other: Fixture;
  let games = 0;

  async function fixture(): Promise<Fixture> {
    games += 1;
    const base = await createGameFixture(svc, `lobby-game-${games}`);
    const res = await svc.call(
      'POST',
      `/cloud/games/${base.gameId}/namespaces/${base.namespaceId}/tokens/reporter`,
    );
    assert.equal(res.statusCode, 200, res.body);
    return { ...base, reporter: res.json<{ token: string }>().token };
  }

  before(async () => {
    svc = await startTestService();
    f = await fixture();
    other = await fixture();
  });
  after(async () => {
    await svc.close();
  });

  const url = (x: { gameId: string; namespaceId: string }, suffix = '') =>
    `/cloud/games/${x.gameId}/namespaces/${x.namespaceId}/logs/lobbies${suffix}`;

  function tryReport(x: Fixture, token: string, body: Record<string, unknown> = {}) {
    return svc.call('POST', url(x), {
      token,
      body: { lobby_group_name_id: 'default', region_id: 'lnd-atl', ...body },
    });
  }

  async function report(x: Fixture, body: Record<string, unknown>): Promise<string> {
    const res = await tryReport(x, x.reporter, body);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ lobby_id: string }>().lobby_id;
  }

  function event(x: Fixture, lobbyId: string, body: Record<string, unknown>, token = x.reporter) {
    return svc.call('POST', url(x, `/${lobbyId}/events`), { token, body });
  }

  async function getOne(x: Fixture, lobbyId: string): Promise<LobbySummary> {
    const res = await svc.call('GET', url(x, `/${lobbyId}`), { token: x.cloudToken });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ lobby: LobbySummary }>().lobby;
  }

  async function page(x: Fixture, query = ''): Promise<LobbySummary[]> {
    const res = await svc.call('GET', url(x, query), { token: x.cloudToken });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ lobbies: LobbySummary[] }>().lobbies;
  }

  it('records the lifecycle created → start → ready → stop and shows it in the 2.1 shape', async () => {
    const id = await report(f, { create_ts: iso(T0) });
    let lobby = await getOne(f, id);
    assert.deepEqual(lobby, {
      create_ts: iso(T0),
      lobby_group_name_id: 'default',
      lobby_id: id,
      namespace_id: f.namespaceId,
      region_id: 'lnd-atl',
      status: { running: {} },
    });
    assert.equal((await event(f, id, { kind: 'start', ts: iso(T0 + 1000) })).statusCode, 204);
    assert.equal((await event(f, id, { kind: 'ready', ts: iso(T0 + 2000) })).statusCode, 204);
    lobby = await getOne(f, id);
    assert.equal(lobby.start_ts, iso(T0 + 1000));
    assert.equal(lobby.ready_ts, iso(T0 + 2000));
    assert.deepEqual(lobby.status, { running: {} });
    const stop = await event(f, id, { kind: 'stop', ts: iso(T0 + 3000), exit_code: 137 });
    assert.equal(stop.statusCode, 204, stop.body);
    assert.equal(stop.body, '');
    lobby = await getOne(f, id);
    assert.deepEqual(lobby.status, {
      running: {},
      stopped: { exit_code: 137, failed: true, stop_ts: iso(T0 + 3000) },
    });
  });

  it('treats a repeated event as a no-op and refuses a different one (409)', async () => {
    const id = await report(f, { create_ts: iso(T0) });
    assert.equal((await event(f, id, { kind: 'start', ts: iso(T0 + 5) })).statusCode, 204);
    assert.equal((await event(f, id, { kind: 'start', ts: iso(T0 + 5) })).statusCode, 204);
    assert.equal(
      (await event(f, id, { kind: 'start' })).statusCode,
      204,
      'an omitted ts matches the recorded one',
    );
    assertError(await event(f, id, { kind: 'start', ts: iso(T0 + 6) }), 409, 'LOBBY_INVALID_TRANSITION');
    assert.equal((await event(f, id, { kind: 'stop', ts: iso(T0 + 9), exit_code: 0 })).statusCode, 204);
    assert.equal(
      (await event(f, id, { kind: 'stop', ts: iso(T0 + 9), exit_code: 0, failed: false })).statusCode,
      204,
    );
    assertError(
      await event(f, id, { kind: 'stop', ts: iso(T0 + 9), exit_code: 1 }),
      409,
      'LOBBY_INVALID_TRANSITION',
    );
    assertError(await event(f, id, { kind: 'ready', ts: iso(T0 + 10) }), 409, 'LOBBY_INVALID_TRANSITION');
    assert.deepEqual((await getOne(f, id)).status.stopped, {
      exit_code: 0,
      failed: false,
      stop_ts: iso(T0 + 9),
    });
  });

  it('applies concurrent events one at a time: of racing different starts exactly one is recorded', async () => {
    const id = await report(f, { create_ts: iso(T0) });
    const starts = await Promise.all(
      Array.from({ length: 16 }, (_, i) => event(f, id, { kind: 'start', ts: iso(T0 + 100 + i) })),
    );
    const won = starts.flatMap((res, i) => (res.statusCode === 204 ? [i] : []));
    assert.equal(won.length, 1, starts.map((r) => r.statusCode).join(' '));
    for (const res of starts) {
      if (res.statusCode !== 204) assertError(res, 409, 'LOBBY_INVALID_TRANSITION');
    }
    assert.equal((await getOne(f, id)).start_ts, iso(T0 + 100 + (won[0] as number)));

    // A ready and a stop racing: whichever lands first, the lobby ends stopped and the ready is either
    // recorded before the stop or refused after it, never written over the stop.
    const second = await report(f, { create_ts: iso(T0) });
    assert.equal((await event(f, second, { kind: 'start', ts: iso(T0 + 1) })).statusCode, 204);
    const [ready, stop] = await Promise.all([
      event(f, second, { kind: 'ready', ts: iso(T0 + 2) }),
      event(f, second, { kind: 'stop', ts: iso(T0 + 3), exit_code: 0 }),
    ]);
    assert.equal(stop.statusCode, 204, stop.body);
    const lobby = await getOne(f, second);
    assert.deepEqual(lobby.status.stopped, { exit_code: 0, failed: false, stop_ts: iso(T0 + 3) });
    if (ready.statusCode === 204) assert.equal(lobby.ready_ts, iso(T0 + 2));
    else {
      assertError(ready, 409, 'LOBBY_INVALID_TRANSITION');
      assert.equal(lobby.ready_ts, undefined);
    }
  });

  it('refuses ready before start (409) and a timestamp earlier than the previous one (400)', async () => {
    const id = await report(f, { create_ts: iso(T0) });
    assertError(await event(f, id, { kind: 'ready', ts: iso(T0 + 1) }), 409, 'LOBBY_INVALID_TRANSITION');
    assertError(await event(f, id, { kind: 'start', ts: iso(T0 - 1) }), 400, 'LOBBY_INVALID_TIMESTAMP');
    assert.equal((await event(f, id, { kind: 'start', ts: iso(T0 + 10) })).statusCode, 204);
    assertError(await event(f, id, { kind: 'ready', ts: iso(T0 + 9) }), 400, 'LOBBY_INVALID_TIMESTAMP');
    assertError(
      await event(f, id, { kind: 'stop', ts: iso(T0 + 9), exit_code: 0 }),
      400,
      'LOBBY_INVALID_TIMESTAMP',
    );
    const lobby = await getOne(f, id);
    assert.equal(lobby.ready_ts, undefined, 'nothing refused was written');
    assert.equal(lobby.status.stopped, undefined);
    // A lobby may crash before it is ready.
    assert.equal((await event(f, id, { kind: 'stop', ts: iso(T0 + 12), exit_code: 2 })).statusCode, 204);
  });

  it('answers a stop without exit_code with 400 API_BAD_BODY naming the field, in any state', async () => {
    const id = await report(f, { create_ts: iso(T0) });
    for (const body of [{ kind: 'stop' }, { kind: 'stop', exit_code: null, failed: true }]) {
      const res = await event(f, id, { ts: iso(T0 + 1), ...body });
      assertError(res, 400, 'API_BAD_BODY');
      const err = res.json<{ message: string; metadata: { field: string } }>();
      assert.equal(err.metadata.field, 'exit_code');
      assert.equal(err.message, 'body field "exit_code" is required when kind is "stop"');
    }
    assert.equal((await getOne(f, id)).status.stopped, undefined, 'nothing was written');
    assert.equal((await event(f, id, { kind: 'stop', ts: iso(T0 + 2), exit_code: 0 })).statusCode, 204);
    // After stop too: the missing field is named, not a transition refused.
    assertError(await event(f, id, { kind: 'stop', ts: iso(T0 + 2) }), 400, 'API_BAD_BODY');
    // Even for a lobby never reported: bad input is refused before anything is looked up.
    const unknown = '0190a0a0-2222-7000-8000-000000000009';
    assertError(await event(f, unknown, { kind: 'stop' }), 400, 'API_BAD_BODY');
  });

  it('answers a retried create with the same lobby_id and refuses a conflicting one', async () => {
    const lobbyId = '0190a0a0-1111-7000-8000-000000000001';
    assert.equal(await report(f, { lobby_id: lobbyId, create_ts: iso(T0) }), lobbyId);
    assert.equal(await report(f, { lobby_id: lobbyId, create_ts: iso(T0) }), lobbyId);
    const res = await svc.call('POST', url(f), {
      token: f.reporter,
      body: { lobby_id: lobbyId, lobby_group_name_id: 'other', region_id: 'lnd-atl' },
    });
    assertError(res, 409, 'LOBBY_ALREADY_EXISTS');
  });

  it('answers creates that arrive together one by one, retries and conflicts among them included', async () => {
    const ns = await fixture();
    const retried = '0190a0a0-2222-7000-8000-000000000001';
    const contested = '0190a0a0-2222-7000-8000-000000000002';
    const fresh = Array.from({ length: 24 }, (_, i) => iso(T0 + i));
    const [retry1, retry2, takeA, takeB, ...others] = await Promise.all([
      tryReport(ns, ns.reporter, { lobby_id: retried, create_ts: iso(T0) }),
      tryReport(ns, ns.reporter, { lobby_id: retried, create_ts: iso(T0) }),
      tryReport(ns, ns.reporter, { lobby_id: contested, region_id: 'lnd-atl' }),
      tryReport(ns, ns.reporter, { lobby_id: contested, lobby_group_name_id: 'other' }),
      ...fresh.map((ts) => tryReport(ns, ns.reporter, { create_ts: ts })),
    ]);
    for (const res of [retry1, retry2]) {
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ lobby_id: string }>().lobby_id, retried);
    }
    const contest = [takeA, takeB].map((res) => res?.statusCode).sort();
    assert.deepEqual(contest, [200, 409], `${takeA?.body} ${takeB?.body}`);
    const ids = others.map((res) => {
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ lobby_id: string }>().lobby_id;
    });
    assert.equal(new Set(ids).size, fresh.length);
    const listed = await page(ns);
    assert.equal(listed.length, fresh.length + 2);
    for (const id of [...ids, retried, contested])
      assert.ok(
        listed.some((l) => l.lobby_id === id),
        id,
      );
  });

  it('fails only the create whose row the store refuses, not those batched with it', async () => {
    const writes = lobbyWrites(svc.deps.db);
    const row = (namespaceId: string, n: number) => ({
      lobby_id: `0190a0a0-3333-7000-8000-00000000000${n}`,
      namespace_id: namespaceId,
      lobby_group_name_id: 'default',
      region_id: 'lnd-atl',
      create_ts: T0,
    });
    // A namespace id with no namespace row breaks the foreign key: the store refuses that row alone.
    const results = await Promise.allSettled([
      writes.inserts.submit(row(f.namespaceId, 1)),
      writes.inserts.submit(row('0190a0a0-3333-7000-8000-0000000000ff', 2)),
      writes.inserts.submit(row(f.namespaceId, 3)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(
      results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
      [true, true],
    );
    assert.equal((await getOne(f, row(f.namespaceId, 1).lobby_id)).lobby_id, row(f.namespaceId, 1).lobby_id);
    assert.equal((await getOne(f, row(f.namespaceId, 3).lobby_id)).lobby_id, row(f.namespaceId, 3).lobby_id);
  });

  it('validates the report: lobby_id, group name, region and timestamps', async () => {
    const bad = await svc.call('POST', url(f), {
      token: f.reporter,
      body: { lobby_group_name_id: 'bad name', region_id: 'mars-1' },
    });
    assertError(bad, 400, 'VALIDATION_ERROR');
    assert.deepEqual(
      bad.json<{ metadata: { errors: { path: string[] }[] } }>().metadata.errors.map((e) => e.path.join('.')),
      ['lobby-group-name-id.invalid', 'region-id.invalid'],
    );
    assert.deepEqual(
      bad.json<{ metadata: { errors: { message: string }[] } }>().metadata.errors.map((e) => e.message),
      [
        'lobby_group_name_id "bad name" is not a game mode name: 1 to 64 of A-Z, a-z, 0-9, "_" and "-"',
        'region_id "mars-1" is not a region of this service; the regions are lnd-atl, lnd-fra, lnd-sfo, ' +
          'lnd-sin (GET /cloud/regions)',
      ],
    );
    // Ids are UUIDs by the schema, before any rule or query.
    const badId = await svc.call('POST', url(f), {
      token: f.reporter,
      body: { lobby_id: 'nope', lobby_group_name_id: 'default', region_id: 'lnd-atl' },
    });
    assertError(badId, 400, 'API_BAD_BODY');
    assert.match(badId.json<{ message: string }>().message, /lobby_id.*UUID/);
    const ts = await svc.call('POST', url(f), {
      token: f.reporter,
      body: { lobby_group_name_id: 'default', region_id: 'lnd-atl', create_ts: 'yesterday' },
    });
    assertError(ts, 400, 'API_BAD_BODY');
    assert.match(ts.json<{ message: string }>().message, /create_ts/);
    const kind = await event(f, '0190a0a0-1111-7000-8000-000000000001', { kind: 'explode' });
    assertError(kind, 400, 'API_BAD_BODY');
    assertError(
      await event(f, '0190a0a0-1111-7000-8000-00000000ffff', { kind: 'start' }),
      404,
      'LOBBY_NOT_FOUND',
    );
  });

  it('lists at most 64 newest first, strictly before the cursor, and pages losslessly through shared timestamps', async () => {
    const x = await fixture();
    // 150 lobbies, many sharing a millisecond, with groups straddling the 64-row page boundaries.
    const expected: string[] = [];
    for (let i = 0; i < 150; i++) {
      const ts = T0 + Math.floor(i / 7) * 1000;
      expected.push(await report(x, { create_ts: iso(ts) }));
    }
    const seen: LobbySummary[] = [];
    let query = '';
    for (let pages = 0; pages < 10; pages++) {
      const lobbies = await page(x, query);
      assert.ok(lobbies.length <= 64);
      if (lobbies.length === 0) break;
      for (let i = 1; i < lobbies.length; i++) {
        assert.ok((lobbies[i - 1]?.create_ts ?? '') >= (lobbies[i]?.create_ts ?? ''), 'newest first');
      }
      seen.push(...lobbies);
      query = `?before_create_ts=${encodeURIComponent(lobbies.at(-1)?.create_ts ?? '')}`;
    }
    const ids = seen.map((l) => l.lobby_id);
    assert.equal(new Set(ids).size, ids.length, 'no lobby repeated');
    assert.deepEqual([...ids].sort(), [...expected].sort(), 'no lobby skipped');

    const strictly = await page(x, `?before_create_ts=${encodeURIComponent(iso(T0 + 1000))}`);
    assert.equal(
      strictly.length,
      7,
      'only the lobbies of the first millisecond are strictly before the second',
    );
    assert.ok(strictly.every((l) => l.create_ts === iso(T0)));
  });

  it('continues inside one crowded millisecond with before_lobby_id', async () => {
    const x = await fixture();
    for (let i = 0; i < 70; i++) await report(x, { create_ts: iso(T0) });
    const first = await page(x);
    assert.equal(first.length, 64, 'a page that is one millisecond is cut at 64');
    const last = first.at(-1) as LobbySummary;
    const rest = await page(
      x,
      `?before_create_ts=${encodeURIComponent(last.create_ts)}&before_lobby_id=${last.lobby_id}`,
    );
    assert.equal(rest.length, 6);
    assert.equal(new Set([...first, ...rest].map((l) => l.lobby_id)).size, 70);
  });

  it('answers 400 API_BAD_QUERY for a malformed cursor', async () => {
    for (const q of [
      '?before_create_ts=not-a-time',
      '?before_create_ts=2026-13-45T99:00:00Z',
      '?before_lobby_id=x',
    ]) {
      assertError(await svc.call('GET', url(f, q), { token: f.cloudToken }), 400, 'API_BAD_QUERY');
    }
  });

  it('keeps namespaces and games apart, and lets each token do only its part', async () => {
    const id = await report(f, { create_ts: iso(T0) });
    // The reporter of another namespace may not write here, nor read anything.
    assertError(await event(f, id, { kind: 'start' }, other.reporter), 403, 'API_FORBIDDEN');
    assertError(await svc.call('GET', url(f), { token: f.reporter }), 403, 'API_FORBIDDEN');
    assertError(
      await svc.call('GET', `/cloud/games/${f.gameId}`, { token: f.reporter }),
      403,
      'API_FORBIDDEN',
    );
    // A cloud token reads but does not report.
    assertError(await tryReport(f, f.cloudToken), 403, 'API_FORBIDDEN');
    const res = await svc.call('GET', url(f), { token: other.cloudToken });
    assertError(res, 403, 'API_FORBIDDEN');
    assert.ok(!res.body.includes(id), 'no data of the other game');
    // The operator, naming a namespace of another game, finds nothing.
    assertError(
      await svc.call('GET', `/cloud/games/${f.gameId}/namespaces/${other.namespaceId}/logs/lobbies`),
      404,
      'NAMESPACE_NOT_FOUND',
    );
    assertError(await svc.call('GET', url(other, `/${id}`)), 404, 'LOBBY_NOT_FOUND');
    assertError(await svc.call('GET', url(f), { token: null }), 401, 'API_UNAUTHORIZED');
  });

  it('scopes lobby ids to the namespace: another game cannot see, take or touch them', async () => {
    const x = '0190a0a0-4444-7000-8000-000000000001';
    // Game B (`other`) reports lobby X first and starts it.
    assert.equal(await report(other, { lobby_id: x, lobby_group_name_id: 'ranked', create_ts: iso(T0) }), x);
    assert.equal((await event(other, x, { kind: 'start', ts: iso(T0 + 1_000) })).statusCode, 204);
    const before = await svc.call('GET', url(other, `/${x}`), { token: other.cloudToken });
    assert.equal(before.statusCode, 200, before.body);

    // Game A's events for X, which exists only in B's namespace, are refused exactly like an unknown id.
    const unknown = await event(f, '0190a0a0-2222-7000-8000-00000000ffff', { kind: 'start' });
    const foreign = await event(f, x, { kind: 'start' });
    assertError(unknown, 404, 'LOBBY_NOT_FOUND');
    assertError(foreign, 404, 'LOBBY_NOT_FOUND');
    assert.equal(foreign.json<{ message: string }>().message, unknown.json<{ message: string }>().message);
    assertError(await svc.call('GET', url(f, `/${x}`), { token: f.cloudToken }), 404, 'LOBBY_NOT_FOUND');

    // A's reporter may not make a lobby of its own under B's id (else whatever is looked up by lobby id, as
    // output is, would reach B's): refused, naming the field, and nothing written.
    const taken = await tryReport(f, f.reporter, { lobby_id: x, lobby_group_name_id: 'casual' });
    assertError(taken, 409, 'LOBBY_ALREADY_EXISTS');
    assert.equal(taken.json<{ metadata: { field: string } }>().metadata.field, 'lobby_id');
    assert.ok(!taken.body.includes(other.namespaceId) && !taken.body.includes(other.gameId), taken.body);
    assertError(await svc.call('GET', url(f, `/${x}`), { token: f.cloudToken }), 404, 'LOBBY_NOT_FOUND');
    const rows = await svc.deps.db
      .selectFrom('lobbies')
      .select('namespace_id')
      .where('lobby_id', '=', x)
      .execute();
    assert.deepEqual(rows, [{ namespace_id: other.namespaceId }]);

    // B's lobby is untouched.
    const after = await svc.call('GET', url(other, `/${x}`), { token: other.cloudToken });
    assert.deepEqual(after.json(), before.json());

    // Another namespace of B's own game may not take it either; a fresh id is still B's to report.
    const ns = await svc.call('POST', `/cloud/games/${other.gameId}/namespaces`, {
      body: { name_id: 'staging', display_name: 'Staging', version_id: other.versionId },
    });
    assert.equal(ns.statusCode, 200, ns.body);
    const namespaceId = ns.json<{ namespace_id: string }>().namespace_id;
    const tok = await svc.call(
      'POST',
      `/cloud/games/${other.gameId}/namespaces/${namespaceId}/tokens/reporter`,
    );
    assert.equal(tok.statusCode, 200, tok.body);
    const staging: Fixture = { ...other, namespaceId, reporter: tok.json<{ token: string }>().token };
    assertError(await event(staging, x, { kind: 'start' }), 404, 'LOBBY_NOT_FOUND');
    assertError(await tryReport(staging, staging.reporter, { lobby_id: x }), 409, 'LOBBY_ALREADY_EXISTS');
    const fresh = '0190a0a0-4444-7000-8000-000000000002';
    assert.equal(await report(staging, { lobby_id: fresh, create_ts: iso(T0) }), fresh);
  });

  it('inspects and revokes a reporter token', async () => {
    const x = await fixture();
    const who = await svc.call('GET', '/cloud/auth/inspect', { token: x.reporter });
    assert.equal(who.statusCode, 200, who.body);
    const agent = who.json<{ agent: { namespace_reporter: { namespace_id: string; token_id: string } } }>()
      .agent;
    assert.equal(agent.namespace_reporter.namespace_id, x.namespaceId);
    assert.equal(
      (await svc.call('DELETE', `/cloud/tokens/${agent.namespace_reporter.token_id}`)).statusCode,
      204,
    );
    assertError(await tryReport(x, x.reporter), 401, 'TOKEN_REVOKED');
    assertError(
      await svc.call('POST', `/cloud/games/${x.gameId}/namespaces/${x.namespaceId}/tokens/reporter`, {
        token: x.cloudToken,
      }),
      403,
      'API_FORBIDDEN',
    );
  });

  it('lists with an index range scan in index order: no table scan, no sort', async () => {
    for (const beforeLobbyId of [undefined, '0190a0a0-1111-7000-8000-000000000001']) {
      const compiled = lobbiesBeforeQuery(svc.deps.db, f.namespaceId, T0, beforeLobbyId, 65).compile();
      const plan = await queryPlan(svc.deps.db, compiled);
      if (onPostgres) {
        assert.match(plan, /Index (Only )?Scan (Backward )?using lobbies_namespace_create on lobbies/, plan);
        assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
      } else {
        assert.match(
          plan,
          /SEARCH lobbies USING (COVERING )?INDEX lobbies_namespace_create \(namespace_id=\? AND/,
          plan,
        );
        assert.doesNotMatch(plan, /SCAN|TEMP B-TREE/, plan);
      }
    }
  });
});

describe('migration 0010 (lobby ids per namespace)', () => {
  it('keeps every lobby through down and up again, and the listing index with it', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-test-'));
    try {
      let svc = await startTestService({ dataDir });
      const base = await createGameFixture(svc, 'lobby-migration');
      const lobbiesUrl = `/cloud/games/${base.gameId}/namespaces/${base.namespaceId}/logs/lobbies`;
      const tok = await svc.call(
        'POST',
        `/cloud/games/${base.gameId}/namespaces/${base.namespaceId}/tokens/reporter`,
      );
      const reporter = tok.json<{ token: string }>().token;
      for (const [i, lobbyId] of [
        '0190a0a0-3333-7000-8000-000000000001',
        '0190a0a0-3333-7000-8000-000000000002',
      ].entries()) {
        const res = await svc.call('POST', lobbiesUrl, {
          token: reporter,
          body: {
            lobby_id: lobbyId,
            lobby_group_name_id: 'default',
            region_id: 'lnd-atl',
            create_ts: iso(T0 + i),
          },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      const listed = (await svc.call('GET', lobbiesUrl)).json();
      await svc.close();

      // Back to 0009 (one id space) and up again, as a store made before 0010 is upgraded.
      const config = await testConfig(dataDir);
      const { db } = openDatabase({ dataDir, databaseUrl: config.databaseUrl, pgPoolMax: 1 }, () => {});
      try {
        const down = await new Migrator({ db, provider: migrationProvider }).migrateTo(
          '0009_pg_wide_player_caps',
        );
        assert.equal(down.error, undefined);
        // Later migrations go down first; 0010 is the last one undone.
        assert.deepEqual(down.results?.at(-1), {
          migrationName: '0010_lobby_id_per_namespace',
          direction: 'Down',
          status: 'Success',
        });
        assert.ok(down.results?.every((r) => r.status === 'Success'));
      } finally {
        await db.destroy();
      }

      svc = await startTestService({ dataDir });
      try {
        assert.deepEqual((await svc.call('GET', lobbiesUrl)).json(), listed);
        const compiled = lobbiesBeforeQuery(svc.deps.db, base.namespaceId, T0, undefined, 65).compile();
        assert.match(await queryPlan(svc.deps.db, compiled), /lobbies_namespace_create/);
      } finally {
        await svc.close();
      }
    } finally {
      if (onPostgres) await dropTestDatabase(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('migration 0034 (lobby output per namespace)', () => {
  it('gives stored output its namespace, keeps it through down and up, and keys it per namespace', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-test-'));
    const config = await testConfig(dataDir);
    try {
      await (await startTestService({ dataDir })).close();
      const { db } = openDatabase({ dataDir, databaseUrl: config.databaseUrl, pgPoolMax: 1 }, () => {});
      const stream = {
        lobby_id: 'lobby-x',
        stream: 'std_out' as const,
        namespace_id: 'ns-a',
        line_count: 10,
        first_line: 0,
        kept_bytes: 100,
        dropped_bytes: 0,
        last_ts: T0,
        last_ts_lines: 1,
        complete: 1,
        update_ts: T0,
      };
      const chunk = {
        lobby_id: 'lobby-x',
        stream: 'std_out' as const,
        first_line: 0,
        line_count: 10,
        first_ts: T0,
        last_ts: T0,
        raw_bytes: 100,
        blob_key: 'lobby-output/lobby-x/std_out/0.gz',
        closed: 1,
      };
      try {
        // A store of 0033, output keyed by lobby id alone.
        const migrator = new Migrator({ db, provider: migrationProvider });
        const down = await migrator.migrateTo('0033_lobbies_public_host');
        assert.equal(down.error, undefined);
        await db.insertInto('lobby_output_streams').values(stream).execute();
        // Kysely's table types are 0034's: the chunk of 0033 has no namespace.
        await db
          .insertInto('lobby_output_chunks')
          .values(chunk as typeof chunk & { namespace_id: string })
          .execute();
        const up = await migrator.migrateToLatest();
        assert.equal(up.error, undefined);
        assert.deepEqual(await db.selectFrom('lobby_output_chunks').selectAll().execute(), [
          { ...chunk, namespace_id: 'ns-a' },
        ]);
        // The same lobby id in another namespace is other output.
        await db
          .insertInto('lobby_output_streams')
          .values({ ...stream, namespace_id: 'ns-b' })
          .execute();
        await db
          .insertInto('lobby_output_chunks')
          .values({ ...chunk, namespace_id: 'ns-b' })
          .execute();
        const streams = await db.selectFrom('lobby_output_streams').select('namespace_id').execute();
        assert.deepEqual(streams.map((r) => r.namespace_id).sort(), ['ns-a', 'ns-b']);
        // Down goes through while no two namespaces share an id.
        await db.deleteFrom('lobby_output_chunks').where('namespace_id', '=', 'ns-b').execute();
        await db.deleteFrom('lobby_output_streams').where('namespace_id', '=', 'ns-b').execute();
        assert.equal((await migrator.migrateTo('0033_lobbies_public_host')).error, undefined);
        assert.equal((await migrator.migrateToLatest()).error, undefined);
        const [back] = await db.selectFrom('lobby_output_chunks').selectAll().execute();
        assert.deepEqual(back, { ...chunk, namespace_id: 'ns-a' });
      } finally {
        await db.destroy();
      }
    } finally {
      if (onPostgres) await dropTestDatabase(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
