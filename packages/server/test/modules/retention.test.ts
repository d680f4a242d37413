/**
 * Retention jobs: each removes exactly what is past its age and nothing else, on the store under test
 * (GCM_TEST_DATABASE_URL runs it on PostgreSQL).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { deleteExpiredSessions } from '../../src/identity/accounts.js';
import { deleteExpiredLobbies } from '../../src/modules/lobby-logs/lobby-logs.service.js';
import { deleteUploadGarbage } from '../../src/modules/purge/purge.service.js';
import { claimAbandonedBuildUploads } from '../../src/modules/uploads/uploads.service.js';
import { prepareAvatar, putPresigned, storedFilesOf } from '../helpers/api-world.js';
import { authCall, signUp } from '../helpers/people.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('lobby log retention', () => {
  let svc: TestService;
  let f: Awaited<ReturnType<typeof createGameFixture>>;
  let reporter: string;
  const lobbyUrl = (suffix = '') =>
    `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/logs/lobbies${suffix}`;

  before(async () => {
    svc = await startTestService();
    f = await createGameFixture(svc, 'retention-game');
    const res = await svc.call(
      'POST',
      `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/tokens/reporter`,
    );
    assert.equal(res.statusCode, 200, res.body);
    reporter = res.json<{ token: string }>().token;
  });
  after(async () => {
    await svc.close();
  });

  async function lobby(createTs: number, stopTs?: number): Promise<string> {
    const res = await svc.call('POST', lobbyUrl(), {
      token: reporter,
      body: { lobby_group_name_id: 'default', region_id: 'lnd-atl', create_ts: iso(createTs) },
    });
    assert.equal(res.statusCode, 200, res.body);
    const id = res.json<{ lobby_id: string }>().lobby_id;
    if (stopTs !== undefined) {
      const stop = await svc.call('POST', lobbyUrl(`/${id}/events`), {
        token: reporter,
        body: { kind: 'stop', ts: iso(stopTs), exit_code: 0 },
      });
      assert.equal(stop.statusCode, 204, stop.body);
    }
    return id;
  }

  async function present(ids: string[]): Promise<string[]> {
    const kept: string[] = [];
    for (const id of ids) {
      const res = await svc.call('GET', lobbyUrl(`/${id}`), { token: f.cloudToken });
      if (res.statusCode === 200) kept.push(id);
      else assert.equal(res.statusCode, 404, res.body);
    }
    return kept;
  }

  it('deletes lobbies last reported more than GCM_LOBBY_RETENTION_DAYS (28) ago, and only those', async () => {
    const now = svc.clock.now();
    const cutoff = now - 28 * DAY;
    const oldStopped = await lobby(cutoff - 5 * DAY, cutoff - 1);
    const oldRunning = await lobby(cutoff - 1);
    const oldButRecentlyStopped = await lobby(cutoff - 5 * DAY, cutoff + 1);
    const atCutoff = await lobby(cutoff);
    const recent = await lobby(now - DAY);
    // More than one batch (1,000) of old lobbies: every batch goes, the young ones stay.
    const many: string[] = [];
    for (let i = 0; i < 1_005; i++) many.push(`0190a0a0-0000-7000-8000-${String(i).padStart(12, '0')}`);
    for (let i = 0; i < many.length; i += 100) {
      await Promise.all(
        many.slice(i, i + 100).map(async (id) => {
          const res = await svc.call('POST', lobbyUrl(), {
            token: reporter,
            body: {
              lobby_id: id,
              lobby_group_name_id: 'default',
              region_id: 'lnd-atl',
              create_ts: iso(cutoff - DAY),
            },
          });
          assert.equal(res.statusCode, 200, res.body);
        }),
      );
    }

    assert.equal(await deleteExpiredLobbies(svc.deps), 2 + many.length);
    assert.deepEqual(await present([oldStopped, oldRunning, oldButRecentlyStopped, atCutoff, recent]), [
      oldButRecentlyStopped,
      atCutoff,
      recent,
    ]);
    assert.deepEqual(await present(many.slice(0, 3)), []);
    assert.equal(await deleteExpiredLobbies(svc.deps), 0, 'nothing more is past the age');

    svc.clock.advance(2);
    assert.equal(await deleteExpiredLobbies(svc.deps), 2);
    assert.deepEqual(await present([oldButRecentlyStopped, atCutoff, recent]), [recent]);
  });

  it('takes GCM_LOBBY_RETENTION_DAYS from 0 (keep for ever) to 3650, and refuses anything else', () => {
    assert.equal(loadConfig({}).lobbyRetentionDays, 28);
    assert.equal(loadConfig({ GCM_LOBBY_RETENTION_DAYS: '0' }).lobbyRetentionDays, 0);
    for (const bad of ['-1', '3651', 'week']) {
      assert.throws(
        () => loadConfig({ GCM_LOBBY_RETENTION_DAYS: bad }),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError);
          assert.match(err.message, /GCM_LOBBY_RETENTION_DAYS must be a whole number from 0 to 3650/);
          return true;
        },
      );
    }
  });

  it('takes GCM_UPLOAD_ABANDON_HOURS from 1 to 8760', () => {
    assert.equal(loadConfig({}).uploadAbandonHours, 24);
    for (const bad of ['0', '8761', '1.5']) {
      assert.throws(() => loadConfig({ GCM_UPLOAD_ABANDON_HOURS: bad }), /GCM_UPLOAD_ABANDON_HOURS must be/);
    }
  });

  it('keeps every lobby when the retention is 0', async () => {
    const keeper = await startTestService({ env: { GCM_LOBBY_RETENTION_DAYS: '0' } });
    try {
      const g = await createGameFixture(keeper, 'keeper-game');
      const tok = await keeper.call(
        'POST',
        `/cloud/games/${g.gameId}/namespaces/${g.namespaceId}/tokens/reporter`,
      );
      const res = await keeper.call(
        'POST',
        `/cloud/games/${g.gameId}/namespaces/${g.namespaceId}/logs/lobbies`,
        {
          token: tok.json<{ token: string }>().token,
          body: { lobby_group_name_id: 'default', region_id: 'lnd-atl', create_ts: iso(0) },
        },
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await deleteExpiredLobbies(keeper.deps), 0);
      const id = res.json<{ lobby_id: string }>().lobby_id;
      const got = await keeper.call(
        'GET',
        `/cloud/games/${g.gameId}/namespaces/${g.namespaceId}/logs/lobbies/${id}`,
        {
          token: g.cloudToken,
        },
      );
      assert.equal(got.statusCode, 200, got.body);
    } finally {
      await keeper.close();
    }
  });
});

describe('expired session clean-up', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { GCM_SIGNUP: 'open' } });
  });
  after(async () => {
    await svc.close();
  });

  async function expiry(cookie: string): Promise<number> {
    const res = await authCall(svc, 'GET', '/get-session', { cookie });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<{ session: { expiresAt: string } } | null>();
    assert.ok(body !== null, 'the session is live');
    return Date.parse(body.session.expiresAt);
  }

  it('deletes sessions that expired, and only those', async () => {
    const first = await signUp(svc, 'sweep-a@example.com');
    // Sessions expire a whole TTL after they start: a few ms apart here, so the clock can sit between.
    await new Promise((r) => setTimeout(r, 10));
    const second = await signUp(svc, 'sweep-b@example.com');
    const firstExpiry = await expiry(first);
    const secondExpiry = await expiry(second);
    assert.ok(secondExpiry > firstExpiry + 1);

    svc.clock.set(firstExpiry);
    assert.equal(await deleteExpiredSessions(svc.deps.db, svc.clock.now()), 0, 'not before it expires');
    svc.clock.set(firstExpiry + 1);
    assert.equal(await deleteExpiredSessions(svc.deps.db, svc.clock.now()), 1);
    const gone = await authCall(svc, 'GET', '/get-session', { cookie: first });
    assert.equal(gone.body, 'null', 'the swept session no longer signs anyone in');
    assert.equal(await expiry(second), secondExpiry, 'the live one is untouched');
  });
});

describe('avatar upload clean-up', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.close();
  });

  function filesOf(uploadId: string): string[] {
    const root = path.join(svc.dataDir, 'blobs', 'objects');
    return (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.includes(uploadId));
  }

  async function completedAvatar(gameId: string): Promise<string> {
    const avatar = await prepareAvatar(svc, gameId);
    const put = await putPresigned(svc, avatar.url, avatar.bytes);
    assert.equal(put.statusCode, 200, put.body);
    const done = await svc.call('POST', `/cloud/games/${gameId}/avatar-upload/${avatar.uploadId}/complete`);
    assert.equal(done.statusCode, 204, done.body);
    return avatar.uploadId;
  }

  it('deletes abandoned and replaced avatars GCM_UPLOAD_ABANDON_HOURS (24) late, and nothing else', async () => {
    const f = await createGameFixture(svc, 'gc-game');
    const other = await createGameFixture(svc, 'gc-other');
    const abandoned = await prepareAvatar(svc, f.gameId);
    const replaced = await completedAvatar(f.gameId);
    const otherCurrent = await completedAvatar(other.gameId);
    svc.clock.advance(3_600_000);
    const current = await completedAvatar(f.gameId);
    const fresh = await prepareAvatar(svc, f.gameId);
    // The abandoned URL expired an hour after the start, when `current` replaced `replaced`.
    svc.clock.advance(24 * 3_600_000);
    assert.equal(await deleteUploadGarbage(svc.deps), 0, 'not before the delay is over');
    assert.ok(filesOf(replaced).length > 0);
    svc.clock.advance(1);
    assert.equal(await deleteUploadGarbage(svc.deps), 2);

    assert.equal((await svc.call('GET', `/avatars/${replaced}`)).statusCode, 404);
    assert.deepEqual(filesOf(replaced), [], 'its files are gone');
    const late = await svc.call(
      'POST',
      `/cloud/games/${f.gameId}/avatar-upload/${abandoned.uploadId}/complete`,
    );
    assert.equal(late.statusCode, 404, late.body);
    for (const kept of [current, otherCurrent]) {
      assert.equal((await svc.call('GET', `/avatars/${kept}`)).statusCode, 200);
    }
    const game = await svc.call('GET', `/cloud/games/${f.gameId}`);
    assert.match(
      game.json<{ game: { avatar_url: string } }>().game.avatar_url,
      new RegExp(`/avatars/${current}$`),
    );
    // The upload prepared later is still there (its complete says the bytes are missing, not 404) until
    // its own URL has been expired that long.
    const open = await svc.call('POST', `/cloud/games/${f.gameId}/avatar-upload/${fresh.uploadId}/complete`);
    assert.equal(open.json<{ code: string }>().code, 'UPLOAD_INCOMPLETE', open.body);
    svc.clock.advance(3_600_000);
    assert.equal(await deleteUploadGarbage(svc.deps), 1);
    const gone = await svc.call('POST', `/cloud/games/${f.gameId}/avatar-upload/${fresh.uploadId}/complete`);
    assert.equal(gone.statusCode, 404, gone.body);
  });
});

describe('abandoned build clean-up', () => {
  const MiB = 1024 * 1024;
  const HOUR = 3_600_000;
  let svc: TestService;
  type Fixture = Awaited<ReturnType<typeof createGameFixture>>;
  let f: Fixture;
  let other: Fixture;
  before(async () => {
    // 1 MiB parts, so a 5 MiB+ build is a multipart upload of several parts.
    svc = await startTestService({ env: { GCM_BUILD_PART_SIZE_BYTES: String(MiB) } });
    f = await createGameFixture(svc, 'gc-builds');
    other = await createGameFixture(svc, 'gc-builds-other');
  });
  after(async () => {
    await svc.close();
  });

  const base = (x: Fixture) => `/games/${x.gameId}/environments/${x.namespaceId}/builds`;

  interface Prepared {
    buildId: string;
    uploadId: string;
    presigned: { url: string; content_length: number }[];
  }

  async function prepare(x: Fixture, name: string, size = 16): Promise<Prepared> {
    const res = await svc.call('POST', `${base(x)}/prepare`, {
      token: x.cloudToken,
      body: {
        name,
        image_file: { path: `${name}.tar`, content_length: size },
        multipart_upload: size >= 5 * MiB,
        tags: { kind: 'gc' },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const { build_id, presigned_requests } = res.json<{
      build_id: string;
      presigned_requests: Prepared['presigned'];
    }>();
    const row = await svc.deps.db
      .selectFrom('builds')
      .select('upload_id')
      .where('build_id', '=', build_id)
      .executeTakeFirstOrThrow();
    return { buildId: build_id, uploadId: row.upload_id, presigned: presigned_requests };
  }

  async function put(p: Prepared, index: number): Promise<void> {
    const request = p.presigned[index];
    assert.ok(request);
    const res = await putPresigned(svc, request.url, Buffer.alloc(request.content_length, 7));
    assert.equal(res.statusCode, 200, res.body);
  }

  const complete = (x: Fixture, p: Prepared) =>
    svc.call('POST', `${base(x)}/${p.buildId}/complete`, { token: x.cloudToken });

  async function completed(x: Fixture, name: string): Promise<Prepared> {
    const p = await prepare(x, name);
    await put(p, 0);
    const done = await complete(x, p);
    assert.equal(done.statusCode, 204, done.body);
    return p;
  }

  const filesOf = (uploadId: string) => storedFilesOf(svc, uploadId);

  /** Still there: complete finds it and says the bytes are missing. */
  async function assertPending(x: Fixture, p: Prepared): Promise<void> {
    const res = await complete(x, p);
    assert.equal(res.json<{ code: string }>().code, 'UPLOAD_INCOMPLETE', res.body);
  }

  async function assertGone(x: Fixture, p: Prepared): Promise<void> {
    for (const res of [
      await svc.call('GET', `${base(x)}/${p.buildId}`, { token: x.cloudToken }),
      await svc.call('GET', `${base(x)}/${p.buildId}/parts`, { token: x.cloudToken }),
      await complete(x, p),
    ]) {
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json<{ code: string }>().code, 'BUILD_NOT_FOUND', res.body);
    }
    assert.deepEqual(filesOf(p.uploadId), [], 'its files are gone');
    const rows = await svc.deps.db
      .selectFrom('build_tags')
      .select('build_id')
      .where('build_id', '=', p.buildId)
      .unionAll(svc.deps.db.selectFrom('builds').select('build_id').where('build_id', '=', p.buildId))
      .unionAll(
        svc.deps.db.selectFrom('uploads').select('upload_id as build_id').where('upload_id', '=', p.uploadId),
      )
      .execute();
    assert.deepEqual(rows, [], 'its build, tags and upload rows are gone');
  }

  async function listed(x: Fixture): Promise<string[]> {
    const res = await svc.call('GET', base(x), { token: x.cloudToken });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ builds: { id: string }[] }>().builds.map((b) => b.id);
  }

  it('deletes builds never completed GCM_UPLOAD_ABANDON_HOURS (24) after their URLs expired, and nothing else', async () => {
    const neverSent = await prepare(f, 'never-sent');
    const partial = await prepare(f, 'partial', 5 * MiB + 1);
    assert.equal(partial.presigned.length, 6);
    await put(partial, 0);
    await put(partial, 3);
    const sentNotCompleted = await prepare(other, 'sent-not-completed');
    await put(sentNotCompleted, 0);
    const resumed = await prepare(f, 'resumed', 5 * MiB + 1);
    // More than one batch (100) of abandoned builds: every batch goes.
    const many: Prepared[] = [];
    for (let i = 0; i < 105; i += 15) {
      many.push(...(await Promise.all(Array.from({ length: 15 }, (_, j) => prepare(f, `many-${i + j}`)))));
    }
    const done = await completed(f, 'done');
    const doneOther = await completed(other, 'done-other');

    // A client still uploading asks for fresh URLs half an hour in: its window moves with them.
    svc.clock.advance(HOUR / 2);
    const parts = await svc.call('GET', `${base(f)}/${resumed.buildId}/parts`, { token: f.cloudToken });
    assert.equal(parts.statusCode, 200, parts.body);
    // Prepared an hour in, when the first URLs expired (GCM_UPLOAD_URL_TTL_SECONDS, 3600).
    svc.clock.advance(HOUR / 2);
    const fresh = await prepare(f, 'fresh');
    const freshOther = await prepare(other, 'fresh-other', 5 * MiB + 1);
    await put(freshOther, 1);

    svc.clock.advance(24 * HOUR);
    assert.equal(await deleteUploadGarbage(svc.deps), 0, 'not before the delay is over');
    assert.ok(filesOf(partial.uploadId).length === 2, 'two parts arrived');
    assert.ok(filesOf(sentNotCompleted.uploadId).length > 0);
    await assertPending(f, partial);
    svc.clock.advance(1);
    assert.equal(await deleteUploadGarbage(svc.deps), 3 + many.length);

    await assertGone(f, neverSent);
    await assertGone(f, partial);
    await assertGone(other, sentNotCompleted);
    for (const p of many.slice(0, 3)) await assertGone(f, p);
    for (const [x, p] of [
      [f, done],
      [other, doneOther],
    ] as const) {
      const got = await svc.call('GET', `${base(x)}/${p.buildId}`, { token: x.cloudToken });
      assert.equal(got.statusCode, 200, got.body);
      assert.ok((await listed(x)).includes(p.buildId));
      assert.ok(filesOf(p.uploadId).length > 0, 'a completed build keeps its file');
    }
    await assertPending(f, resumed);
    await assertPending(f, fresh);
    await assertPending(other, freshOther);
    assert.equal(filesOf(freshOther.uploadId).length, 1, 'a pending build keeps its parts');

    // The resumed build's window closes half an hour later than it would have, the fresh ones' an hour.
    svc.clock.advance(HOUR / 2);
    assert.equal(await deleteUploadGarbage(svc.deps), 1);
    await assertGone(f, resumed);
    await assertPending(f, fresh);
    svc.clock.advance(HOUR / 2);
    assert.equal(await deleteUploadGarbage(svc.deps), 2);
    await assertGone(f, fresh);
    await assertGone(other, freshOther);
    assert.deepEqual(await listed(f), [done.buildId]);
    assert.deepEqual(await listed(other), [doneOther.buildId]);
  });

  it('finds a build gone once the clean-up claimed its upload, and a later pass finishes the delete', async () => {
    const sent = await prepare(f, 'claimed');
    await put(sent, 0);
    svc.clock.advance(25 * HOUR + 1);
    // A pass that stopped after its claim: the rows and the file are still there.
    assert.deepEqual(await claimAbandonedBuildUploads(svc.deps, 100), [sent.uploadId]);
    assert.ok(filesOf(sent.uploadId).length > 0);
    for (const res of [
      await complete(f, sent),
      await svc.call('GET', `${base(f)}/${sent.buildId}/parts`, { token: f.cloudToken }),
    ]) {
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json<{ code: string }>().code, 'BUILD_NOT_FOUND', res.body);
    }
    assert.equal(await deleteUploadGarbage(svc.deps), 1);
    await assertGone(f, sent);
  });
});
