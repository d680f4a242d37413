import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { recordedArchiveDigest } from '../helpers/api-world.js';
import { assertError } from '../helpers/error-answer.js';
import { startListening, uploadBuild as uploadCompleteBuild } from '../helpers/listening.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

interface Presigned {
  byte_offset: number;
  content_length: number;
  path: string;
  url: string;
}
interface Build {
  id: string;
  name: string;
  content_length: number;
  created_at: string;
  tags: Record<string, string>;
}

const MiB = 1024 * 1024;

async function put(url: string, body: Buffer): Promise<number> {
  const res = await fetch(url, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'application/octet-stream' },
  });
  await res.arrayBuffer();
  return res.status;
}

function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe('builds (4.3)', () => {
  let svc: TestService;
  let f: Awaited<ReturnType<typeof createGameFixture>>;
  let other: Awaited<ReturnType<typeof createGameFixture>>;

  before(async () => {
    // 1 MiB parts so that a 5 MiB+ file is several parts.
    ({ svc } = await startListening({ env: { GCM_BUILD_PART_SIZE_BYTES: String(MiB) } }));
    f = await createGameFixture(svc, 'builds-a');
    other = await createGameFixture(svc, 'builds-b');
  });
  after(async () => {
    await svc.close();
  });

  const base = (x = f, env = x.namespaceId) => `/games/${x.gameId}/environments/${env}/builds`;

  function prepare(body: Record<string, unknown>, x = f, token = x.cloudToken) {
    return svc.call('POST', `${base(x)}/prepare`, { token, body });
  }

  const uploadBuild = (name: string, tags: Record<string, string> = {}) =>
    uploadCompleteBuild(svc, f, name, { size: 1000, tags, token: f.cloudToken });

  async function list(query = ''): Promise<Build[]> {
    const res = await svc.call('GET', `${base()}${query}`, { token: f.cloudToken });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ builds: Build[] }>().builds;
  }

  it('uploads a 5 MiB+ file in parts PUT in random order, completes it, and serves the build (2.3)', async () => {
    const size = 5 * MiB + 12_345;
    const file = randomBytes(size);
    const res = await prepare({
      name: 'server v1',
      image_file: { path: 'server.tar', content_type: 'application/x-tar', content_length: size },
      multipart_upload: true,
      tags: { channel: 'beta' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const { build_id, presigned_requests } = res.json<{
      build_id: string;
      presigned_requests: Presigned[];
    }>();
    assert.equal(presigned_requests.length, 6);
    presigned_requests.forEach((p, i) => {
      assert.equal(p.byte_offset, i * MiB);
      assert.equal(p.path, 'server.tar');
      assert.equal(p.content_length, i < 5 ? MiB : 12_345, 'the last part takes the remainder');
    });

    // Not listed, not gettable, and not completable before every part is there.
    const [first, ...rest] = shuffled(presigned_requests);
    const slice = (p: Presigned) => file.subarray(p.byte_offset, p.byte_offset + p.content_length);
    assert.equal(await put((first as Presigned).url, slice(first as Presigned)), 200);
    assertError(
      await svc.call('POST', `${base()}/${build_id}/complete`, { token: f.cloudToken }),
      400,
      'UPLOAD_INCOMPLETE',
    );
    assertError(
      await svc.call('GET', `${base()}/${build_id}`, { token: f.cloudToken }),
      404,
      'BUILD_NOT_FOUND',
    );
    assert.ok(!(await list()).some((b) => b.id === build_id));

    for (const p of rest) assert.equal(await put(p.url, slice(p)), 200);
    assert.equal(
      (await svc.call('POST', `${base()}/${build_id}/complete`, { token: f.cloudToken })).statusCode,
      204,
    );
    assert.equal(
      (await svc.call('POST', `${base()}/${build_id}/complete`, { token: f.cloudToken })).statusCode,
      204,
      'idempotent',
    );

    const got = await svc.call('GET', `${base()}/${build_id}`, { token: f.cloudToken });
    assert.equal(got.statusCode, 200, got.body);
    const build = got.json<{ build: Build }>().build;
    assert.equal(build.id, build_id);
    assert.equal(build.name, 'server v1');
    assert.equal(build.content_length, size);
    assert.match(build.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual(build.tags, { channel: 'beta' });
    assert.equal(
      await recordedArchiveDigest(svc, build_id),
      createHash('sha256').update(file).digest('hex'),
      "the joined parts' sha256, recorded once the upload completed: what the runtime loads is checked against it",
    );
  });

  it("records a single PUT's sha256 once its upload completes, and keeps it", async () => {
    const file = randomBytes(100_000);
    const res = await prepare({
      name: 'single',
      image_file: { path: 'server.tar', content_length: file.length },
    });
    assert.equal(res.statusCode, 200, res.body);
    const { build_id, presigned_requests } = res.json<{
      build_id: string;
      presigned_requests: Presigned[];
    }>();
    assert.equal(await put(presigned_requests[0]?.url ?? '', file), 200);
    const complete = () => svc.call('POST', `${base()}/${build_id}/complete`, { token: f.cloudToken });
    assert.equal((await complete()).statusCode, 204);
    const stored = () =>
      svc.deps.db
        .selectFrom('builds')
        .select('archive_sha256')
        .where('build_id', '=', build_id)
        .executeTakeFirstOrThrow();
    const sha256 = createHash('sha256').update(file).digest('hex');
    assert.equal((await stored()).archive_sha256, sha256, 'a small archive is hashed before the answer');
    // A retried complete does not hash again: the digest taken at completion stands.
    await svc.deps.db
      .updateTable('builds')
      .set({ archive_sha256: 'f'.repeat(64) })
      .where('build_id', '=', build_id)
      .execute();
    assert.equal((await complete()).statusCode, 204);
    assert.equal((await stored()).archive_sha256, 'f'.repeat(64));
  });

  it('hashes an archive over 16 MiB after complete answered, and records it', async () => {
    const size = 17 * MiB;
    const file = randomBytes(size);
    const res = await prepare({
      name: 'large',
      image_file: { path: 'server.tar', content_length: size },
      multipart_upload: true,
    });
    assert.equal(res.statusCode, 200, res.body);
    const { build_id, presigned_requests } = res.json<{
      build_id: string;
      presigned_requests: Presigned[];
    }>();
    for (const p of presigned_requests) {
      assert.equal(await put(p.url, file.subarray(p.byte_offset, p.byte_offset + p.content_length)), 200);
    }
    const done = await svc.call('POST', `${base()}/${build_id}/complete`, { token: f.cloudToken });
    assert.equal(done.statusCode, 204, done.body);
    assert.equal(await recordedArchiveDigest(svc, build_id), createHash('sha256').update(file).digest('hex'));
  });

  it('enforces the size rules: multipart needs 5 MiB, a single PUT at most 8 GiB, at most 10,000 parts', async () => {
    const small = await prepare({
      name: 'x',
      image_file: { path: 'a', content_length: 5 * MiB - 1 },
      multipart_upload: true,
    });
    assertError(small, 400, 'VALIDATION_ERROR');
    assert.deepEqual(small.json<{ metadata: unknown }>().metadata, {
      errors: [
        {
          path: ['image-file', 'content-length', 'too-small-for-multipart'],
          message:
            'image_file.content_length is 5242879 bytes; a multipart upload needs at least 5242880 (5 MiB): ' +
            'send a smaller file with multipart_upload false',
        },
      ],
    });
    assertError(
      await prepare({ name: 'x', image_file: { path: 'a', content_length: 8 * 1024 ** 3 + 1 } }),
      400,
      'UPLOAD_TOO_LARGE',
    );
    assertError(
      await prepare({
        name: 'x',
        image_file: { path: 'a', content_length: 10_001 * MiB },
        multipart_upload: true,
      }),
      400,
      'UPLOAD_TOO_LARGE',
    );
    const negative = await prepare({ name: 'x', image_file: { path: 'a', content_length: -1 } });
    assertError(negative, 400, 'API_BAD_BODY');
    assertError(
      await prepare({ name: '', image_file: { path: 'a', content_length: 1 } }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('filters by tags_json (every pair must match) and lists newest first', async () => {
    const a = await uploadBuild('filter a', { os: 'linux', arch: 'x64' });
    svc.clock.advance(10);
    const b = await uploadBuild('filter b', { os: 'linux', arch: 'arm64' });
    const linux = (await list(`?tags_json=${encodeURIComponent('{"os":"linux"}')}`)).map((x) => x.id);
    assert.deepEqual(
      linux.filter((id) => id === a || id === b),
      [b, a],
      'newest first',
    );
    const arm = await list(`?tags_json=${encodeURIComponent('{"os":"linux","arch":"arm64"}')}`);
    assert.deepEqual(
      arm.map((x) => x.id),
      [b],
    );
    assertError(
      await svc.call('GET', `${base()}/${a}?tags_json=${encodeURIComponent('{"arch":"arm64"}')}`, {
        token: f.cloudToken,
      }),
      404,
      'BUILD_NOT_FOUND',
    );
    for (const bad of ['{', '[1]', '{"a":1}', 'null']) {
      const res = await svc.call('GET', `${base()}?tags_json=${encodeURIComponent(bad)}`, {
        token: f.cloudToken,
      });
      const body = assertError(res, 400, 'API_BAD_QUERY');
      assert.match(body.message, /tags_json/);
    }
  });

  it('merges tags and moves exclusive keys to one build, in one step', async () => {
    const one = await uploadBuild('excl one', { current: 'true', keep: 'x' });
    const two = await uploadBuild('excl two', {});
    const patch = await svc.call('PATCH', `${base()}/${two}/tags`, {
      token: f.cloudToken,
      body: { tags: { current: 'true', extra: 'y' }, exclusive_tags: ['current'] },
    });
    assert.equal(patch.statusCode, 204, patch.body);
    const byId = new Map((await list()).map((b) => [b.id, b.tags]));
    assert.deepEqual(byId.get(two), { current: 'true', extra: 'y' });
    assert.deepEqual(byId.get(one), { keep: 'x' }, 'the exclusive key left the other build');
    const missing = await svc.call('PATCH', `${base()}/${two}/tags`, {
      token: f.cloudToken,
      body: { tags: { a: 'b' }, exclusive_tags: ['current'] },
    });
    assertError(missing, 400, 'BUILDS_TAGS_MISSING_EXCLUSIVE_KEY');
    assert.deepEqual(new Map((await list()).map((b) => [b.id, b.tags])).get(two), {
      current: 'true',
      extra: 'y',
    });
  });

  it('finds no match, an old match and the pairs of the rarest tag, page by page, newest first', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      svc.clock.advance(10);
      ids.push(
        await uploadBuild(`rare ${i}`, {
          suite: 'paging',
          parity: i % 2 === 0 ? 'even' : 'odd',
          ...(i === 0 && { oldest: 'yes' }),
        }),
      );
    }
    const q = (tags: Record<string, string>, extra = '') =>
      `?tags_json=${encodeURIComponent(JSON.stringify(tags))}${extra}`;
    assert.deepEqual(await list(q({ suite: 'paging', parity: 'none' })), []);
    assert.deepEqual(await list(q({ nobody: 'has this' })), []);
    assert.deepEqual(
      (await list(q({ suite: 'paging', oldest: 'yes' }))).map((b) => b.id),
      [ids[0]],
    );
    // Two pairs, paged two at a time: every match once, newest first, whichever pair leads.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await svc.call(
        'GET',
        `${base()}${q({ parity: 'even', suite: 'paging' }, `&limit=2${cursor ? `&cursor=${cursor}` : ''}`)}`,
        {
          token: f.cloudToken,
        },
      );
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json<{ builds: Build[]; cursor?: string }>();
      seen.push(...body.builds.map((b) => b.id));
      for (const b of body.builds) assert.equal(b.tags.parity, 'even');
      cursor = body.cursor;
    } while (cursor !== undefined);
    assert.deepEqual(seen, [ids[4], ids[2], ids[0]]);
  });

  it('removes an exclusive key from the other builds of this environment only', async () => {
    const mine = await uploadBuild('excl mine', { pinned: 'true' });
    const theirs = await uploadCompleteBuild(svc, other, 'excl theirs', {
      size: 1000,
      tags: { pinned: 'true' },
      token: other.cloudToken,
    });
    const next = await uploadBuild('excl next', {});
    const patch = await svc.call('PATCH', `${base()}/${next}/tags`, {
      token: f.cloudToken,
      body: { tags: { pinned: 'true' }, exclusive_tags: ['pinned'] },
    });
    assert.equal(patch.statusCode, 204, patch.body);
    const mineNow = new Map((await list()).map((b) => [b.id, b.tags]));
    assert.deepEqual(mineNow.get(mine), {});
    assert.deepEqual(mineNow.get(next), { pinned: 'true' });
    const res = await svc.call('GET', base(other), { token: other.cloudToken });
    assert.equal(res.statusCode, 200, res.body);
    const theirsNow = res.json<{ builds: Build[] }>().builds.find((b) => b.id === theirs);
    assert.deepEqual(theirsNow?.tags, { pinned: 'true' }, 'another game keeps its own');
  });

  it("lists a build's tags as its build_tags rows say, whoever wrote them, keys in byte order", async () => {
    const id = await uploadBuild('tag copy', { b: '1', B: '2', a: '3' });
    const tagsNow = async () => (await list()).find((b) => b.id === id)?.tags;
    assert.deepEqual(Object.entries((await tagsNow()) ?? {}), [
      ['B', '2'],
      ['a', '3'],
      ['b', '1'],
    ]);
    // Written past the service, as an older instance would during a rolling upgrade: the list follows.
    const { db } = svc.deps;
    const row = { build_id: id, namespace_id: f.namespaceId, create_ts: 0 };
    await db
      .insertInto('build_tags')
      .values({ ...row, tag_key: 'added', tag_value: 'x' })
      .execute();
    await db
      .updateTable('build_tags')
      .set({ tag_value: '22' })
      .where('build_id', '=', id)
      .where('tag_key', '=', 'B')
      .execute();
    await db.deleteFrom('build_tags').where('build_id', '=', id).where('tag_key', '=', 'a').execute();
    assert.deepEqual(await tagsNow(), { B: '22', added: 'x', b: '1' });
    const one = await svc.call('GET', `${base()}/${id}`, { token: f.cloudToken });
    assert.deepEqual(one.json<{ build: Build }>().build.tags, { B: '22', added: 'x', b: '1' });
    await db.deleteFrom('build_tags').where('build_id', '=', id).execute();
    assert.deepEqual(await tagsNow(), {});
  });

  it('keeps games and environments apart', async () => {
    const id = await uploadBuild('private');
    assertError(
      await prepare({ name: 'x', image_file: { path: 'a', content_length: 1 } }, f, other.cloudToken),
      403,
      'API_FORBIDDEN',
    );
    const res = await svc.call('GET', `${base()}/${id}`, { token: other.cloudToken });
    assertError(res, 403, 'API_FORBIDDEN');
    assert.ok(!res.body.includes('private'));
    // An environment of another game is not found, even for the operator.
    assertError(
      await svc.call('GET', `/games/${f.gameId}/environments/${other.namespaceId}/builds/${id}`),
      404,
      'ENVIRONMENT_NOT_FOUND',
    );
    assertError(await svc.call('GET', `${base()}/${id}`, { token: null }), 401, 'API_UNAUTHORIZED');
  });
});
