/**
 * DELETE .../namespaces/{namespace_id} and DELETE /cloud/games/{game_id} (retiring a game): what goes at
 * once (in one transaction: the thing itself for every reader, its tokens, CDN users, billing), what the
 * purge deletes afterwards in batches (lobbies, builds but those a version names, uploads and files), and
 * that tokens stop working at once, through the SQLite token cache and on a second PostgreSQL instance.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { isPostgres } from '../../src/db/open-db.js';
import { STALE_BOUND_MS } from '../../src/lib/cache-coherence.js';
import { newId } from '../../src/lib/ids.js';
import { PURGE_GRACE_MS, purgeDeleted } from '../../src/modules/purge/purge.service.js';
import {
  BCRYPT_HASH,
  newDeviceLinkToken,
  newLobby,
  uploadedAvatar,
  uploadedBuild,
} from '../helpers/api-world.js';
import { billingUrl, choosePlan, waitForWaiters } from '../helpers/billing.js';
import { assertError } from '../helpers/error-answer.js';
import { createGameFixture, secondInstance, startTestService, type TestService } from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';
import { until } from '../helpers/until.js';

/** The purge runs only when a test calls it, so each test sees the state right after the delete. */
const NO_PURGE_TIMER = { GCM_PURGE_INTERVAL_MS: '0', GCM_BILLING_TICK_MS: '0' };

type Fixture = Awaited<ReturnType<typeof createGameFixture>>;

function assertNoContent(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 204, res.body);
  assert.equal(res.body, '');
}

const nsUrl = (f: { gameId: string; namespaceId: string }, suffix = '') =>
  `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}${suffix}`;

async function reporterToken(svc: TestService, f: { gameId: string; namespaceId: string }) {
  const res = await svc.call('POST', nsUrl(f, '/tokens/reporter'));
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ token: string; token_id: string }>();
}

async function createNamespace(svc: TestService, f: Fixture, nameId: string): Promise<string> {
  const res = await svc.call('POST', `/cloud/games/${f.gameId}/namespaces`, {
    body: { name_id: nameId, display_name: 'Another', version_id: f.versionId },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ namespace_id: string }>().namespace_id;
}

/** A completed build of the environment, with its file. */
async function completedBuild(svc: TestService, gameId: string, namespaceId: string, name: string) {
  const buildId = await uploadedBuild(svc, gameId, namespaceId, name);
  assertNoContent(
    await svc.call('POST', `/games/${gameId}/environments/${namespaceId}/builds/${buildId}/complete`),
  );
  return buildId;
}

/** A version whose only game mode runs `buildId`. */
async function versionRunning(svc: TestService, gameId: string, buildId: string, displayName: string) {
  return svc.call('POST', `/cloud/games/${gameId}/versions`, {
    body: {
      display_name: displayName,
      config: { matchmaker: { game_modes: { default: { container: { image_id: buildId } } } } },
    },
  });
}

/** `n` lobbies written straight into the store: the purge's batches, without n requests. */
async function bulkLobbies(svc: TestService, namespaceId: string, n: number): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) => ({
    lobby_id: newId(),
    namespace_id: namespaceId,
    lobby_group_name_id: 'bulk',
    region_id: 'lnd-atl',
    create_ts: svc.clock.now() - i,
    start_ts: null,
    ready_ts: null,
    stop_ts: null,
    exit_code: null,
    failed: null,
  }));
  for (let i = 0; i < rows.length; i += 500) {
    await svc.deps.db
      .insertInto('lobbies')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

async function count(
  svc: TestService,
  table: 'lobbies' | 'builds' | 'build_tags' | 'uploads',
  where: {
    column: 'namespace_id' | 'game_id' | 'build_id';
    value: string;
  },
) {
  const row = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(
    where.column,
  )} = ${where.value}`.execute(svc.deps.db);
  return Number(row.rows[0]?.n);
}

/** The keys an upload's files may be under (the PUT target and the checked copy complete moved it to). */
async function fileKeys(svc: TestService, uploadId: string): Promise<string[]> {
  const row = await svc.deps.db
    .selectFrom('uploads')
    .select(['object_key', 'frozen_key'])
    .where('upload_id', '=', uploadId)
    .executeTakeFirstOrThrow();
  return [row.object_key, row.frozen_key].filter((k): k is string => k !== null);
}

async function stored(svc: TestService, keys: string[]): Promise<boolean[]> {
  return Promise.all(keys.map(async (k) => (await svc.deps.blobs.statObject(k)) !== undefined));
}

describe('deleting a namespace', () => {
  let svc: TestService;
  let seq = 0;
  before(async () => {
    svc = await startTestService({ env: NO_PURGE_TIMER });
  });
  after(() => svc.close());
  const fixture = () => createGameFixture(svc, `del-ns-${++seq}`);

  it('answers 204, then 404 NAMESPACE_NOT_FOUND to everything, a second delete included', async () => {
    const f = await fixture();
    // Read first, so the SQLite process holds the view in its cache: the delete must drop it.
    assert.equal((await svc.call('GET', nsUrl(f))).statusCode, 200);
    assert.equal((await svc.call('GET', nsUrl(f), { token: f.cloudToken })).statusCode, 200);
    const lobbyId = await newLobby(svc, f.gameId, f.namespaceId);

    assertNoContent(await svc.call('DELETE', nsUrl(f), { token: f.cloudToken }));

    assertError(await svc.call('GET', nsUrl(f)), 404, 'NAMESPACE_NOT_FOUND');
    assertError(await svc.call('GET', nsUrl(f), { token: f.cloudToken }), 404, 'NAMESPACE_NOT_FOUND');
    assertError(await svc.call('DELETE', nsUrl(f)), 404, 'NAMESPACE_NOT_FOUND');
    assertError(await svc.call('DELETE', nsUrl(f), { token: f.cloudToken }), 404, 'NAMESPACE_NOT_FOUND');
    const edits: [string, string, unknown][] = [
      ['PUT', '/version', { version_id: f.versionId }],
      ['POST', '/mm-config', { lobby_count_max: 3, max_players: 3 }],
      ['POST', '/auth-user', { user: 'late', password: BCRYPT_HASH }],
      ['PUT', '/cdn-auth', { auth_type: 'basic' }],
      ['PUT', '/domain-public-auth', { enabled: true }],
      ['POST', '/logs/lobbies', { lobby_group_name_id: 'default', region_id: 'lnd-atl' }],
      ['POST', '/tokens/reporter', undefined],
    ];
    for (const [method, suffix, body] of edits) {
      const res = await svc.call(
        method as 'PUT' | 'POST',
        nsUrl(f, suffix),
        body === undefined ? {} : { body },
      );
      assertError(res, 404, 'NAMESPACE_NOT_FOUND');
    }
    assertError(await svc.call('GET', nsUrl(f, '/logs/lobbies')), 404, 'NAMESPACE_NOT_FOUND');
    assertError(await svc.call('GET', nsUrl(f, `/logs/lobbies/${lobbyId}`)), 404, 'NAMESPACE_NOT_FOUND');
    assertError(
      await svc.call('GET', `/games/${f.gameId}/environments/${f.namespaceId}/builds`),
      404,
      'ENVIRONMENT_NOT_FOUND',
    );
    const game = await svc.call('GET', `/cloud/games/${f.gameId}`);
    assert.deepEqual(game.json<{ game: { namespaces: unknown[] } }>().game.namespaces, []);
  });

  it("leaves the namespace out of the game's namespace list", async () => {
    const f = await fixture();
    const kept = await createNamespace(svc, f, 'kept');
    assertNoContent(await svc.call('DELETE', nsUrl(f)));
    const list = await svc.call('GET', `/cloud/games/${f.gameId}/namespaces`);
    assert.equal(list.statusCode, 200, list.body);
    const ids = list.json<{ namespaces: { namespace_id: string }[] }>().namespaces.map((n) => n.namespace_id);
    assert.deepEqual(ids, [kept]);
  });

  it('says which is missing: an unknown game, or a namespace of another game', async () => {
    const a = await fixture();
    const b = await fixture();
    assertError(
      await svc.call('DELETE', nsUrl({ gameId: newId(), namespaceId: a.namespaceId })),
      404,
      'GAME_NOT_FOUND',
    );
    assertError(
      await svc.call('DELETE', nsUrl({ gameId: b.gameId, namespaceId: a.namespaceId })),
      404,
      'NAMESPACE_NOT_FOUND',
    );
    assertError(await svc.call('DELETE', nsUrl(a), { token: b.cloudToken }), 403, 'API_FORBIDDEN');
    assert.equal((await svc.call('GET', nsUrl(a))).statusCode, 200, 'still there');
  });

  it('revokes its reporter tokens at once, and only those; the game and its cloud token carry on', async () => {
    const f = await fixture();
    const siblingId = await createNamespace(svc, f, 'sibling');
    const sibling = { gameId: f.gameId, namespaceId: siblingId };
    const reporter = await reporterToken(svc, f);
    const siblingReporter = await reporterToken(svc, sibling);
    const lobby = { lobby_group_name_id: 'default', region_id: 'lnd-atl' };
    // Used once, so the SQLite process has the token row cached.
    assert.equal(
      (await svc.call('POST', nsUrl(f, '/logs/lobbies'), { token: reporter.token, body: lobby })).statusCode,
      200,
    );

    assertNoContent(await svc.call('DELETE', nsUrl(f)));

    assertError(
      await svc.call('POST', nsUrl(f, '/logs/lobbies'), { token: reporter.token, body: lobby }),
      401,
      'TOKEN_REVOKED',
    );
    assertError(
      await svc.call('GET', '/cloud/auth/inspect', { token: reporter.token }),
      401,
      'TOKEN_REVOKED',
    );
    assert.equal(
      (await svc.call('POST', nsUrl(sibling, '/logs/lobbies'), { token: siblingReporter.token, body: lobby }))
        .statusCode,
      200,
    );
    assert.equal(
      (await svc.call('GET', `/cloud/games/${f.gameId}`, { token: f.cloudToken })).statusCode,
      200,
    );
    assert.equal((await svc.call('GET', nsUrl(sibling), { token: f.cloudToken })).statusCode, 200);
  });

  it('deletes its CDN users at once and frees its name_id for a new namespace', async () => {
    const f = await fixture();
    assertNoContent(
      await svc.call('POST', nsUrl(f, '/auth-user'), { body: { user: 'ann', password: BCRYPT_HASH } }),
    );
    assertNoContent(await svc.call('DELETE', nsUrl(f)));
    const users = await svc.deps.db
      .selectFrom('namespace_cdn_auth_users')
      .select('user_name')
      .where('namespace_id', '=', f.namespaceId)
      .execute();
    assert.deepEqual(users, [], 'no password hash outlives the namespace');

    const again = await createNamespace(svc, f, 'prod');
    assert.notEqual(again, f.namespaceId);
    const ns = await svc.call('GET', nsUrl({ gameId: f.gameId, namespaceId: again }));
    assert.equal(ns.json<{ namespace: { name_id: string } }>().namespace.name_id, 'prod');
    assertError(await svc.call('GET', nsUrl(f)), 404, 'NAMESPACE_NOT_FOUND');
  });

  it('is one transaction: a failure part-way leaves the namespace, its users and its tokens as they were', async () => {
    const f = await fixture();
    assertNoContent(
      await svc.call('POST', nsUrl(f, '/auth-user'), { body: { user: 'kept', password: BCRYPT_HASH } }),
    );
    const reporter = await reporterToken(svc, f);
    const before = await svc.call('GET', nsUrl(f));
    // The token revocation, the last step, fails: everything before it must roll back.
    const db = svc.deps.db;
    if (isPostgres(db)) {
      await sql`create function fail_revoke() returns trigger language plpgsql as $$
        begin raise exception 'injected failure'; end $$`.execute(db);
      await sql`create trigger fail_revoke before update on tokens for each row execute function fail_revoke()`.execute(
        db,
      );
    } else {
      await sql`create trigger fail_revoke before update on tokens begin select raise(abort, 'injected failure'); end`.execute(
        db,
      );
    }
    try {
      assertError(await svc.call('DELETE', nsUrl(f)), 500, 'ERROR');
    } finally {
      await sql`drop trigger fail_revoke${isPostgres(db) ? sql` on tokens` : sql``}`.execute(db);
      if (isPostgres(db)) await sql`drop function fail_revoke()`.execute(db);
    }
    const after = await svc.call('GET', nsUrl(f));
    assert.equal(after.statusCode, 200, after.body);
    assert.deepEqual(after.json(), before.json());
    assert.equal((await svc.call('GET', '/cloud/auth/inspect', { token: reporter.token })).statusCode, 200);
    assertError(
      await svc.call('POST', `/cloud/games/${f.gameId}/namespaces`, {
        body: { name_id: 'prod', display_name: 'Clash', version_id: f.versionId },
      }),
      400,
      'VALIDATION_ERROR',
    );
    assertNoContent(await svc.call('DELETE', nsUrl(f)));
  });

  it('purges its lobbies and the builds no version names, in batches; keeps the named ones for their versions', async () => {
    const f = await fixture();
    const other = await createNamespace(svc, f, 'other');
    await newLobby(svc, f.gameId, f.namespaceId);
    await bulkLobbies(svc, f.namespaceId, 2_345);
    await bulkLobbies(svc, other, 3);
    const named = await completedBuild(svc, f.gameId, f.namespaceId, 'named');
    const unnamed = await completedBuild(svc, f.gameId, f.namespaceId, 'unnamed');
    const pending = await uploadedBuild(svc, f.gameId, f.namespaceId, 'pending');
    const version = await versionRunning(svc, f.gameId, named, 'runs-named');
    assert.equal(version.statusCode, 200, version.body);
    const versionId = version.json<{ version_id: string }>().version_id;
    const uploadOf = async (buildId: string) =>
      (
        await svc.deps.db
          .selectFrom('builds')
          .select('upload_id')
          .where('build_id', '=', buildId)
          .executeTakeFirstOrThrow()
      ).upload_id;
    const namedFiles = await fileKeys(svc, await uploadOf(named));
    const unnamedFiles = await fileKeys(svc, await uploadOf(unnamed));
    assert.ok((await stored(svc, unnamedFiles)).includes(true), 'the build has its file');

    assertNoContent(await svc.call('DELETE', nsUrl(f)));
    // Nothing bulky went in the delete's own transaction.
    assert.equal(await count(svc, 'lobbies', { column: 'namespace_id', value: f.namespaceId }), 2_346);

    await purgeDeleted(svc.deps);
    assert.equal(await count(svc, 'lobbies', { column: 'namespace_id', value: f.namespaceId }), 0);
    assert.equal(
      await count(svc, 'lobbies', { column: 'namespace_id', value: other }),
      3,
      'other namespaces keep theirs',
    );
    const left = await svc.deps.db
      .selectFrom('builds')
      .select('build_id')
      .where('namespace_id', '=', f.namespaceId)
      .execute();
    assert.deepEqual(
      left.map((b) => b.build_id),
      [named],
      `the unnamed (${unnamed}) and pending (${pending}) builds are gone`,
    );
    assert.equal(await count(svc, 'build_tags', { column: 'build_id', value: unnamed }), 0);
    assert.deepEqual(
      await stored(svc, unnamedFiles),
      unnamedFiles.map(() => false),
      'its files are deleted',
    );
    assert.ok((await stored(svc, namedFiles)).includes(true), 'the named build keeps its file');

    // The version that names it still runs anywhere; a new version cannot name it any more.
    assertNoContent(
      await svc.call('PUT', nsUrl({ gameId: f.gameId, namespaceId: other }, '/version'), {
        body: { version_id: versionId },
      }),
    );
    const late = await versionRunning(svc, f.gameId, named, 'late');
    assertError(late, 400, 'VALIDATION_ERROR');

    const purgeTs = async () =>
      (
        await svc.deps.db
          .selectFrom('namespaces')
          .select('purge_ts')
          .where('namespace_id', '=', f.namespaceId)
          .executeTakeFirstOrThrow()
      ).purge_ts;
    assert.equal(await purgeTs(), null, 'within the grace, the purge keeps looking for late writes');
    svc.clock.advance(PURGE_GRACE_MS);
    await purgeDeleted(svc.deps);
    assert.equal(await purgeTs(), svc.clock.now());
    svc.clock.advance(-PURGE_GRACE_MS);
  });
});

describe('retiring a game', () => {
  let svc: TestService;
  let seq = 0;
  before(async () => {
    svc = await startTestService({ env: NO_PURGE_TIMER });
  });
  after(() => svc.close());
  const fixture = () => createGameFixture(svc, `retire-${++seq}`);
  const gameUrl = (f: { gameId: string }) => `/cloud/games/${f.gameId}`;

  it('is for the operator only', async () => {
    const f = await fixture();
    const reporter = await reporterToken(svc, f);
    assertError(await svc.call('DELETE', gameUrl(f), { token: f.cloudToken }), 403, 'API_FORBIDDEN');
    assertError(await svc.call('DELETE', gameUrl(f), { token: reporter.token }), 403, 'API_FORBIDDEN');
    assertError(await svc.call('DELETE', gameUrl(f), { token: null }), 401, 'API_UNAUTHORIZED');
    assert.equal((await svc.call('GET', gameUrl(f))).statusCode, 200);
  });

  it('answers 204; the game is gone from every route and list, its tokens revoked, its name_id free', async () => {
    const f = await fixture();
    const reporter = await reporterToken(svc, f);
    const second = await svc.call('POST', `/cloud/games/${f.gameId}/tokens/cloud`);
    const secondToken = second.json<{ token: string }>().token;
    // Used once, so the SQLite process has the rows and the view cached.
    assert.equal((await svc.call('GET', nsUrl(f), { token: f.cloudToken })).statusCode, 200);
    assert.equal((await svc.call('GET', '/cloud/auth/inspect', { token: reporter.token })).statusCode, 200);
    const nameId = `retire-${seq}`;

    assertNoContent(await svc.call('DELETE', gameUrl(f)));

    assertError(await svc.call('DELETE', gameUrl(f)), 404, 'GAME_NOT_FOUND');
    for (const token of [f.cloudToken, secondToken, reporter.token]) {
      assertError(await svc.call('GET', '/cloud/auth/inspect', { token }), 401, 'TOKEN_REVOKED');
    }
    assertError(await svc.call('GET', nsUrl(f), { token: f.cloudToken }), 401, 'TOKEN_REVOKED');
    const games = await svc.call('GET', '/cloud/games');
    assert.ok(!games.json<{ games: { game_id: string }[] }>().games.some((g) => g.game_id === f.gameId));
    const gone: [string, string, unknown][] = [
      ['GET', '', undefined],
      ['GET', `/versions/${f.versionId}`, undefined],
      ['POST', '/versions', { display_name: 'late', config: {} }],
      ['POST', '/namespaces', { name_id: 'late', display_name: 'Late', version_id: f.versionId }],
      ['GET', `/namespaces/${f.namespaceId}`, undefined],
      ['POST', `/namespaces/${f.namespaceId}/tokens/reporter`, undefined],
      ['POST', '/tokens/cloud', undefined],
      ['PUT', '/host-networking', { enabled: true }],
      ['GET', '/billing', undefined],
      ['PUT', '/billing/plan', { plan: 'indie' }],
      ['POST', '/prepare', { path: 'a.png', content_length: 64 }],
    ];
    for (const [method, suffix, body] of gone) {
      const res = await svc.call(
        method as 'GET' | 'POST' | 'PUT',
        `${gameUrl(f)}${suffix}`,
        body === undefined ? {} : { body },
      );
      assertError(res, 404, 'GAME_NOT_FOUND');
    }
    assertError(
      await svc.call('POST', '/cloud/devices/links/complete', {
        body: { device_link_token: await newDeviceLinkToken(svc), game_id: f.gameId },
      }),
      404,
      'GAME_NOT_FOUND',
    );

    const again = await svc.call('POST', '/cloud/games', {
      body: { name_id: nameId, display_name: 'Again' },
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.notEqual(again.json<{ game_id: string }>().game_id, f.gameId);
  });

  it('answers 404 GAME_NOT_FOUND to its lists, though its versions and revoked tokens remain', async () => {
    const f = await fixture();
    assertNoContent(await svc.call('DELETE', gameUrl(f)));
    for (const list of ['namespaces', 'versions', 'tokens']) {
      assertError(await svc.call('GET', `${gameUrl(f)}/${list}`), 404, 'GAME_NOT_FOUND');
    }
  });

  it('ends its billing: no subscription and nothing left to roll over; its billing watchers are answered', async () => {
    const f = await fixture();
    await choosePlan(svc, f.gameId, 'studio');
    const current = await svc.call('GET', billingUrl(f.gameId));
    const index = current.json<{ watch: { index: string } }>().watch.index;
    const waiting = svc.call('GET', `${billingUrl(f.gameId)}?watch_index=${index}`);
    await waitForWaiters(svc, 1);

    assertNoContent(await svc.call('DELETE', gameUrl(f)));

    assertError(await waiting, 404, 'GAME_NOT_FOUND');
    const rows = await svc.deps.db
      .selectFrom('game_billing')
      .selectAll()
      .where('game_id', '=', f.gameId)
      .execute();
    assert.deepEqual(rows, [], 'no billing row: no period, no roll-over');
  });

  it('purges every lobby, build (named by a version or not) and upload with its files', async () => {
    const f = await fixture();
    const other = await createNamespace(svc, f, 'other');
    await bulkLobbies(svc, f.namespaceId, 1_200);
    await newLobby(svc, f.gameId, other);
    const named = await completedBuild(svc, f.gameId, f.namespaceId, 'named');
    assert.equal((await versionRunning(svc, f.gameId, named, 'runs-named')).statusCode, 200);
    await completedBuild(svc, f.gameId, other, 'unnamed');
    // A namespace deleted and purged before the retirement keeps its named build until then.
    const earlier = await createNamespace(svc, f, 'earlier');
    const kept = await completedBuild(svc, f.gameId, earlier, 'kept');
    assert.equal((await versionRunning(svc, f.gameId, kept, 'runs-kept')).statusCode, 200);
    assertNoContent(await svc.call('DELETE', nsUrl({ gameId: f.gameId, namespaceId: earlier })));
    await purgeDeleted(svc.deps);
    assert.equal(await count(svc, 'builds', { column: 'build_id', value: kept }), 1);
    const avatar = await uploadedAvatar(svc, f.gameId);
    assertNoContent(await svc.call('POST', `${gameUrl(f)}/avatar-upload/${avatar}/complete`));
    assert.equal((await svc.call('GET', `/avatars/${avatar}`, { token: null })).statusCode, 200);
    const uploads = await svc.deps.db
      .selectFrom('uploads')
      .select('upload_id')
      .where('game_id', '=', f.gameId)
      .execute();
    const files = (await Promise.all(uploads.map((u) => fileKeys(svc, u.upload_id)))).flat();
    assert.ok(files.length >= 4);

    assertNoContent(await svc.call('DELETE', gameUrl(f)));
    await purgeDeleted(svc.deps);

    for (const ns of [f.namespaceId, other, earlier]) {
      assert.equal(await count(svc, 'lobbies', { column: 'namespace_id', value: ns }), 0);
      assert.equal(await count(svc, 'builds', { column: 'namespace_id', value: ns }), 0);
    }
    assert.equal(await count(svc, 'uploads', { column: 'game_id', value: f.gameId }), 0);
    assert.deepEqual(
      await stored(svc, files),
      files.map(() => false),
    );
    assertError(await svc.call('GET', `/avatars/${avatar}`, { token: null }), 404, 'UPLOAD_NOT_FOUND');

    const purgeTs = async () =>
      (
        await svc.deps.db
          .selectFrom('games')
          .select('purge_ts')
          .where('game_id', '=', f.gameId)
          .executeTakeFirstOrThrow()
      ).purge_ts;
    assert.equal(await purgeTs(), null);
    svc.clock.advance(PURGE_GRACE_MS);
    await purgeDeleted(svc.deps);
    assert.equal(await purgeTs(), svc.clock.now());
    svc.clock.advance(-PURGE_GRACE_MS);
  });
});

describe('deletes seen by a second instance on the same PostgreSQL', pgOnly, () => {
  let a: TestService;
  let b: TestService;
  before(async () => {
    a = await startTestService({ env: NO_PURGE_TIMER });
    b = await secondInstance(a, NO_PURGE_TIMER);
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  /**
   * The other instance caches token rows and namespace views; it hears the change over LISTEN/NOTIFY, and
   * must stop serving the old row within STALE_BOUND_MS of the commit (cache-coherence.ts).
   */
  const refusedWithinBound = (url: string, token: string | undefined, status: number) =>
    until(`${url} answers ${status} on the other instance`, STALE_BOUND_MS, async () => {
      const res = await b.call('GET', url, token === undefined ? {} : { token });
      return res.statusCode === status;
    });

  it('refuses a deleted namespace and its reporter token on the other instance within the bound', async () => {
    const f = await createGameFixture(a, 'two-del-ns');
    const reporter = await reporterToken(a, f);
    assert.equal((await b.call('GET', '/cloud/auth/inspect', { token: reporter.token })).statusCode, 200);
    assert.equal((await b.call('GET', nsUrl(f), { token: f.cloudToken })).statusCode, 200);
    assertNoContent(await a.call('DELETE', nsUrl(f)));
    await refusedWithinBound('/cloud/auth/inspect', reporter.token, 401);
    await refusedWithinBound(nsUrl(f), f.cloudToken, 404);
    assertError(await b.call('GET', '/cloud/auth/inspect', { token: reporter.token }), 401, 'TOKEN_REVOKED');
    assertError(await b.call('GET', nsUrl(f), { token: f.cloudToken }), 404, 'NAMESPACE_NOT_FOUND');
    assertError(await b.call('DELETE', nsUrl(f)), 404, 'NAMESPACE_NOT_FOUND');
  });

  it('refuses a retired game and every token of it on the other instance within the bound', async () => {
    const f = await createGameFixture(a, 'two-retire');
    const reporter = await reporterToken(a, f);
    for (const token of [f.cloudToken, reporter.token]) {
      assert.equal((await b.call('GET', '/cloud/auth/inspect', { token })).statusCode, 200);
    }
    assertNoContent(await a.call('DELETE', `/cloud/games/${f.gameId}`));
    for (const token of [f.cloudToken, reporter.token]) {
      await refusedWithinBound('/cloud/auth/inspect', token, 401);
      assertError(await b.call('GET', '/cloud/auth/inspect', { token }), 401, 'TOKEN_REVOKED');
    }
    assertError(await b.call('GET', `/cloud/games/${f.gameId}`), 404, 'GAME_NOT_FOUND');
    assertError(await b.call('DELETE', `/cloud/games/${f.gameId}`), 404, 'GAME_NOT_FOUND');
  });

  it("stops on the other instance every one of a game's many tokens (several notifications) when it is retired", async () => {
    const f = await createGameFixture(a, 'two-retire-many');
    // More token ids than one notification carries (cache-coherence.ts splits them).
    const tokens: string[] = [f.cloudToken];
    for (let i = 0; i < 230; i++) {
      const minted = await a.call('POST', `/cloud/games/${f.gameId}/tokens/cloud`);
      assert.equal(minted.statusCode, 200);
      tokens.push((minted.json() as { token: string }).token);
    }
    for (const token of tokens) {
      assert.equal((await b.call('GET', '/cloud/auth/inspect', { token })).statusCode, 200);
    }
    assertNoContent(await a.call('DELETE', `/cloud/games/${f.gameId}`));
    await refusedWithinBound('/cloud/auth/inspect', tokens.at(-1) as string, 401);
    for (const token of tokens) {
      assertError(await b.call('GET', '/cloud/auth/inspect', { token }), 401, 'TOKEN_REVOKED');
    }
  });
});
