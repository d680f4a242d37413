/**
 * The paged lists: a game's namespaces, versions and tokens, and an environment's builds. Every walk goes
 * through real HTTP, page by page, with rows inserted between pages (some in the very millisecond of the
 * page's last item), and checks that no item comes twice and none that existed is missed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NamespaceSummary, TokenSummary, VersionSummary } from '@gcm/contract';
import type { LightMyRequestResponse } from 'fastify';
import { LAST_USE_GRANULARITY_MS } from '../../src/identity/token-authority.js';
import { completeBuildsQuery, removeKeysQuery } from '../../src/modules/builds/builds.repository.js';
import { listNamespacesQuery } from '../../src/modules/namespaces/namespaces.repository.js';
import { listGameTokensQuery } from '../../src/modules/tokens/tokens.repository.js';
import { listVersionsQuery } from '../../src/modules/versions/versions.repository.js';
import { uploadedBuild } from '../helpers/api-world.js';
import { onPostgres } from '../helpers/postgres.js';
import { queryPlan } from '../helpers/query-plan.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';

type Fixture = Awaited<ReturnType<typeof createGameFixture>>;

function assertError(res: LightMyRequestResponse, status: number, code: string, field?: string) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json<{ code: string; message: string; metadata?: { field?: string } }>();
  assert.equal(body.code, code, res.body);
  if (field !== undefined) {
    assert.equal(body.metadata?.field, field, res.body);
    assert.match(body.message, new RegExp(`"${field}"`));
  }
}

interface Page {
  cursor?: string;
  [list: string]: unknown;
}

describe('lists with cursor paging', () => {
  let svc: TestService;
  let f: Fixture;
  let other: Fixture;

  before(async () => {
    svc = await startTestService();
    f = await createGameFixture(svc, 'lists-a');
    other = await createGameFixture(svc, 'lists-b');
  });
  after(async () => {
    await svc.close();
  });

  async function page(url: string, token = f.cloudToken): Promise<Page> {
    const res = await svc.call('GET', url, { token });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<Page>();
    // The member is absent on a last page, never null or empty.
    if ('cursor' in body) assert.ok(typeof body.cursor === 'string' && body.cursor.length > 0, res.body);
    return body;
  }

  /**
   * Walks a list `limit` at a time, calling `between` after each page; returns the ids in the order seen
   * and checks no id came twice.
   */
  async function walk(
    url: string,
    member: string,
    idOf: (item: never) => string,
    options: { limit: number; token: string; between?: (pageNumber: number) => Promise<void> },
  ): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let n = 1; n < 1_000; n++) {
      const sep = url.includes('?') ? '&' : '?';
      const query = `${sep}limit=${options.limit}${cursor === undefined ? '' : `&cursor=${cursor}`}`;
      const body = await page(`${url}${query}`, options.token);
      const items = body[member] as never[];
      assert.ok(items.length <= options.limit, `a page of ${items.length} for limit ${options.limit}`);
      if (body.cursor !== undefined)
        assert.equal(items.length, options.limit, 'a cursor after a full page only');
      seen.push(...items.map(idOf));
      cursor = body.cursor;
      if (cursor === undefined) break;
      await options.between?.(n);
    }
    assert.equal(new Set(seen).size, seen.length, `no item twice: ${seen.join(', ')}`);
    return seen;
  }

  async function newVersion(x: Fixture, name: string): Promise<string> {
    const res = await svc.call('POST', `/cloud/games/${x.gameId}/versions`, {
      body: { display_name: name, config: {} },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ version_id: string }>().version_id;
  }

  async function newNamespace(x: Fixture, nameId: string): Promise<string> {
    const res = await svc.call('POST', `/cloud/games/${x.gameId}/namespaces`, {
      body: { name_id: nameId, display_name: 'N', version_id: x.versionId },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ namespace_id: string }>().namespace_id;
  }

  it('versions: newest first; a walk sees every version once while newer ones are added', async () => {
    const x = await createGameFixture(svc, 'lists-v');
    const made = [x.versionId];
    for (let i = 0; i < 9; i++) {
      // Some share a millisecond (the id orders them), some do not.
      if (i % 3 === 0) svc.clock.advance(5);
      made.push(await newVersion(x, `v-${i}`));
    }
    const all = await page(`/cloud/games/${x.gameId}/versions?limit=1000`, x.cloudToken);
    const versions = all.versions as VersionSummary[];
    assert.equal(all.cursor, undefined);
    assert.deepEqual(
      versions.map((v) => v.version_id),
      [...made].reverse(),
      'newest first',
    );
    assert.deepEqual(Object.keys(versions[0] ?? {}).sort(), ['create_ts', 'display_name', 'version_id']);

    let added = 0;
    const seen = await walk(
      `/cloud/games/${x.gameId}/versions`,
      'versions',
      (v: VersionSummary) => v.version_id,
      {
        limit: 3,
        token: x.cloudToken,
        between: async (n) => {
          // In the same millisecond as the newest, and later: both sort before every cursor of this walk.
          if (n % 2 === 0) svc.clock.advance(1);
          await newVersion(x, `during-${n}`);
          added++;
        },
      },
    );
    assert.ok(added >= 3);
    assert.deepEqual(seen, [...made].reverse(), 'each version that existed, once, in order');
  });

  it('namespaces: oldest first; a walk sees every namespace once, those added meanwhile at the end', async () => {
    const x = await createGameFixture(svc, 'lists-n');
    const made = [x.namespaceId];
    for (let i = 0; i < 6; i++) {
      if (i % 2 === 0) svc.clock.advance(3);
      made.push(await newNamespace(x, `ns-${i}`));
    }
    const addedDuring: string[] = [];
    const seen = await walk(
      `/cloud/games/${x.gameId}/namespaces`,
      'namespaces',
      (n: NamespaceSummary) => n.namespace_id,
      {
        limit: 2,
        token: x.cloudToken,
        between: async (n) => {
          // Same millisecond as the page's last item: the id puts it after the cursor.
          if (n === 2) svc.clock.advance(1);
          addedDuring.push(await newNamespace(x, `during-${n}`));
        },
      },
    );
    assert.deepEqual(seen, [...made, ...addedDuring], 'in creation order, the added ones included');
    const first = (await page(`/cloud/games/${x.gameId}/namespaces`, x.cloudToken))
      .namespaces as NamespaceSummary[];
    assert.deepEqual(first[0], {
      namespace_id: x.namespaceId,
      version_id: x.versionId,
      name_id: 'prod',
      display_name: 'Production',
      create_ts: first[0]?.create_ts,
    });
    // The same items as the game's own view (4.2's summaries).
    const game = await svc.call('GET', `/cloud/games/${x.gameId}`, { token: x.cloudToken });
    assert.deepEqual(game.json<{ game: { namespaces: unknown } }>().game.namespaces, first);
  });

  it('tokens: ids, kinds and times, never a token; revoked ones listed with revoke_ts', async () => {
    const x = await createGameFixture(svc, 'lists-t');
    const reporter = await svc.call(
      'POST',
      `/cloud/games/${x.gameId}/namespaces/${x.namespaceId}/tokens/reporter`,
    );
    assert.equal(reporter.statusCode, 200, reporter.body);
    const rep = reporter.json<{ token: string; token_id: string }>();
    svc.clock.advance(1000);
    const gone = await svc.call('POST', `/cloud/games/${x.gameId}/tokens/cloud`);
    const goneToken = gone.json<{ token: string; token_id: string }>();
    assert.equal((await svc.call('DELETE', `/cloud/tokens/${goneToken.token_id}`)).statusCode, 204);

    const res = await svc.call('GET', `/cloud/games/${x.gameId}/tokens`, { token: x.cloudToken });
    assert.equal(res.statusCode, 200, res.body);
    const { tokens } = res.json<{ tokens: TokenSummary[] }>();
    assert.deepEqual(
      tokens.map((t) => t.token_id),
      [goneToken.token_id, rep.token_id, x.cloudTokenId],
      'newest first',
    );
    for (const t of tokens) {
      assert.deepEqual(Object.keys(t).sort(), [
        'create_ts',
        'expire_ts',
        'kind',
        'last_used_ts',
        'namespace_id',
        'revoke_ts',
        'token_id',
      ]);
    }
    const [revoked, reporterItem, cloud] = tokens as [TokenSummary, TokenSummary, TokenSummary];
    assert.equal(revoked.kind, 'cloud');
    assert.equal(revoked.namespace_id, null);
    assert.equal(revoked.revoke_ts, new Date(svc.clock.now()).toISOString());
    assert.equal(reporterItem.kind, 'reporter');
    assert.equal(reporterItem.namespace_id, x.namespaceId);
    assert.equal(reporterItem.revoke_ts, null);
    assert.equal(cloud.kind, 'cloud');
    assert.equal(Date.parse(cloud.expire_ts ?? '') - Date.parse(cloud.create_ts), 365 * 24 * 3600 * 1000);
    // No token text, nor any part of one (a JWT's signature), nor anything hash-like.
    for (const secret of [x.cloudToken, rep.token, goneToken.token]) {
      for (const part of secret.split('.')) assert.ok(!res.body.includes(part), 'a token part in the list');
    }
    assert.doesNotMatch(res.body, /[0-9a-f]{64}/, 'a hash in the list');
    assert.ok(!res.body.includes(svc.operatorToken));
  });

  it('tokens: records the last use at most once a minute, and never for a refused token', async () => {
    const x = await createGameFixture(svc, 'lists-u');
    const lastUsed = async (tokenId: string) => {
      await svc.deps.tokens.settle();
      const { tokens } = await page(`/cloud/games/${x.gameId}/tokens?limit=1000`, svc.operatorToken);
      return (tokens as TokenSummary[]).find((t) => t.token_id === tokenId)?.last_used_ts;
    };
    const iso = () => new Date(svc.clock.now()).toISOString();
    assert.equal(await lastUsed(x.cloudTokenId), null, 'never used');

    assert.equal((await svc.call('GET', '/cloud/auth/inspect', { token: x.cloudToken })).statusCode, 200);
    const first = iso();
    assert.equal(await lastUsed(x.cloudTokenId), first);

    svc.clock.advance(LAST_USE_GRANULARITY_MS / 2);
    // Listing with the token is a use too; under a minute after the recorded one, it is not written.
    assert.equal(await lastUsed(x.cloudTokenId), first);
    await page(`/cloud/games/${x.gameId}/tokens`, x.cloudToken);
    assert.equal(await lastUsed(x.cloudTokenId), first, 'within the minute: not written again');

    svc.clock.advance(LAST_USE_GRANULARITY_MS / 2);
    await page(`/cloud/games/${x.gameId}/tokens`, x.cloudToken);
    const second = iso();
    assert.equal(await lastUsed(x.cloudTokenId), second, 'a minute later: written');

    // A refused use is no use: a revoked token's time stays where it was.
    svc.clock.advance(5 * LAST_USE_GRANULARITY_MS);
    assert.equal((await svc.call('DELETE', `/cloud/tokens/${x.cloudTokenId}`)).statusCode, 204);
    const refused = await svc.call('GET', '/cloud/auth/inspect', { token: x.cloudToken });
    assertError(refused, 401, 'TOKEN_REVOKED');
    assert.equal(await lastUsed(x.cloudTokenId), second);
  });

  it('tokens: a walk across pages sees each token once while tokens are minted', async () => {
    const minted: string[] = [f.cloudTokenId];
    for (let i = 0; i < 7; i++) {
      if (i === 4) svc.clock.advance(2);
      const res = await svc.call('POST', `/cloud/games/${f.gameId}/tokens/cloud`);
      minted.push(res.json<{ token_id: string }>().token_id);
    }
    const seen = await walk(`/cloud/games/${f.gameId}/tokens`, 'tokens', (t: TokenSummary) => t.token_id, {
      limit: 3,
      token: f.cloudToken,
      between: async () => {
        await svc.call('POST', `/cloud/games/${f.gameId}/tokens/cloud`);
        await svc.call('POST', `/cloud/games/${other.gameId}/tokens/cloud`);
      },
    });
    assert.deepEqual(seen, [...minted].reverse());
  });

  it("never shows another game's items; an unknown game is 404", async () => {
    for (const list of ['versions', 'namespaces', 'tokens']) {
      const url = `/cloud/games/${f.gameId}/${list}?limit=1000`;
      assertError(await svc.call('GET', url, { token: other.cloudToken }), 403, 'API_FORBIDDEN');
      const mine = await svc.call('GET', url);
      assert.equal(mine.statusCode, 200, mine.body);
      for (const id of [other.gameId, other.versionId, other.namespaceId, other.cloudTokenId]) {
        assert.ok(!mine.body.includes(id), `${list} shows an id of the other game`);
      }
      // The operator naming no game that exists.
      assertError(
        await svc.call('GET', `/cloud/games/0190a0a0-0000-7000-8000-00000000beef/${list}`),
        404,
        'GAME_NOT_FOUND',
      );
    }
  });

  it('refuses a bad limit or a cursor it did not answer (400 API_BAD_QUERY naming the parameter)', async () => {
    const url = `/cloud/games/${f.gameId}/versions`;
    await newVersion(f, 'bad-cursor-a');
    await newVersion(f, 'bad-cursor-b');
    const versionsCursor = (await page(`${url}?limit=1`)).cursor ?? '';
    await newNamespace(f, 'bad-cursor');
    const namespacesCursor = (await page(`/cloud/games/${f.gameId}/namespaces?limit=1`)).cursor ?? '';
    assert.ok(versionsCursor !== '' && namespacesCursor !== '');

    for (const limit of ['0', '1001', '9999', 'abc', '-1', '1.5', '12345', '']) {
      assertError(await svc.call('GET', `${url}?limit=${limit}`), 400, 'API_BAD_QUERY', 'limit');
    }
    const forged = [
      'garbage!',
      'x'.repeat(129),
      namespacesCursor, // another list's
      `${versionsCursor}=`, // padded: not the text the service wrote
      `${versionsCursor}A`,
      Buffer.from('versions:12:not-a-uuid').toString('base64url'),
      Buffer.from('versions:99999999999999999:0190a0a0-0000-7000-8000-00000000beef').toString('base64url'),
      Buffer.from('versions:012:0190a0a0-0000-7000-8000-00000000beef').toString('base64url'),
      Buffer.from('{"ts":1}').toString('base64url'),
    ];
    for (const cursor of forged) {
      assertError(
        await svc.call('GET', `${url}?cursor=${encodeURIComponent(cursor)}`),
        400,
        'API_BAD_QUERY',
        'cursor',
      );
    }
    // A well-formed cursor is only a position: one the service could have written is answered.
    const made = Buffer.from('versions:0:0190a0a0-0000-7000-8000-00000000beef').toString('base64url');
    assert.deepEqual((await page(`${url}?cursor=${made}`)).versions, []);
  });

  it('builds: a cursor where the list was cut at 1,000; tag filters page too', async () => {
    const x = await createGameFixture(svc, 'lists-b2');
    const base = `/games/${x.gameId}/environments/${x.namespaceId}/builds`;
    const made: string[] = [];
    const tagged: string[] = [];
    for (let i = 0; i < 8; i++) {
      if (i % 3 === 0) svc.clock.advance(7);
      const id = await uploadedBuild(svc, x.gameId, x.namespaceId, `b-${i}`);
      assert.equal((await svc.call('POST', `${base}/${id}/complete`)).statusCode, 204);
      if (i % 2 === 0) {
        const patch = await svc.call('PATCH', `${base}/${id}/tags`, { body: { tags: { even: 'yes' } } });
        assert.equal(patch.statusCode, 204, patch.body);
        tagged.push(id);
      }
      made.push(id);
    }
    // A build prepared but never completed is in no page.
    await uploadedBuild(svc, x.gameId, x.namespaceId, 'incomplete');

    // A client of the original interface: no limit, no cursor, every build (up to 1,000) and no cursor.
    const plain = await page(base, x.cloudToken);
    assert.deepEqual(Object.keys(plain), ['builds']);
    assert.deepEqual(
      (plain.builds as { id: string }[]).map((b) => b.id),
      [...made].reverse(),
    );

    const filter = `tags_json=${encodeURIComponent('{"even":"yes"}')}`;
    const seen = await walk(`${base}?${filter}`, 'builds', (b: { id: string }) => b.id, {
      limit: 2,
      token: x.cloudToken,
      between: async (n) => {
        if (n === 1) svc.clock.advance(1);
        const id = await uploadedBuild(svc, x.gameId, x.namespaceId, `during-${n}`);
        await svc.call('POST', `${base}/${id}/complete`);
        await svc.call('PATCH', `${base}/${id}/tags`, { body: { tags: { even: 'yes' } } });
      },
    });
    assert.deepEqual(seen, [...tagged].reverse(), 'every tagged build once, newest first');
    // Unfiltered, a page at a time: each page starts after the cursor, in the order of the whole list.
    const everyBuild = (await page(base, x.cloudToken)).builds as { id: string }[];
    assert.ok(everyBuild.length > 3);
    const unfiltered = await walk(base, 'builds', (b: { id: string }) => b.id, {
      limit: 3,
      token: x.cloudToken,
    });
    assert.deepEqual(
      unfiltered,
      everyBuild.map((b) => b.id),
    );
    await newVersion(x, 'second');
    const versionsCursor = (await page(`/cloud/games/${x.gameId}/versions?limit=1`, x.cloudToken)).cursor;
    assertError(await svc.call('GET', `${base}?cursor=${versionsCursor}`), 400, 'API_BAD_QUERY', 'cursor');
  });

  it('builds: several tags match only the builds that carry all of them, whichever pair is rarest', async () => {
    const x = await createGameFixture(svc, 'lists-b3');
    const base = `/games/${x.gameId}/environments/${x.namespaceId}/builds`;
    const build = async (name: string, tags: Record<string, string>) => {
      const id = await uploadedBuild(svc, x.gameId, x.namespaceId, name);
      assert.equal((await svc.call('POST', `${base}/${id}/complete`)).statusCode, 204);
      const patch = await svc.call('PATCH', `${base}/${id}/tags`, { body: { tags } });
      assert.equal(patch.statusCode, 204, patch.body);
      return id;
    };
    // region=eu is the rarest pair (2 builds), and one of its two builds is not mode=ranked.
    const both = await build('both', { region: 'eu', mode: 'ranked' });
    await build('region-only', { region: 'eu', mode: 'casual' });
    const ranked: string[] = [both];
    for (let i = 0; i < 3; i++) ranked.push(await build(`ranked-${i}`, { mode: 'ranked' }));
    const ids = async (tags: Record<string, string>) =>
      (
        (await page(`${base}?tags_json=${encodeURIComponent(JSON.stringify(tags))}`, x.cloudToken))
          .builds as { id: string }[]
      ).map((b) => b.id);
    assert.deepEqual(await ids({ region: 'eu', mode: 'ranked' }), [both]);
    assert.deepEqual(await ids({ mode: 'ranked', region: 'eu' }), [both], 'in either order');
    assert.deepEqual(await ids({ mode: 'ranked' }), [...ranked].reverse());
    assert.deepEqual(await ids({ region: 'eu', mode: 'ranked', missing: 'x' }), [], 'a pair no build has');
  });

  it('reads each page along an index in its order: no table scan, no sort', async () => {
    const after = { ts: Date.parse('2026-01-01T00:00:00Z'), id: '0190a0a0-1111-7000-8000-000000000001' };
    const cases = [
      {
        index: 'namespaces_game_create',
        table: 'namespaces',
        q: listNamespacesQuery(svc.deps.db, f.gameId, after, 101),
      },
      {
        index: 'versions_game_create_id',
        table: 'versions',
        q: listVersionsQuery(svc.deps.db, f.gameId, after, 101),
      },
      {
        index: 'tokens_game_create',
        table: 'tokens',
        q: listGameTokensQuery(svc.deps.db, f.gameId, after, 101),
      },
      {
        index: 'builds_namespace_create',
        table: 'builds',
        q: await completeBuildsQuery(
          svc.deps.db,
          { gameId: f.gameId, namespaceId: f.namespaceId },
          new Map(),
          { after, limit: 1001 },
        ),
      },
      {
        // A tag filter walks the tag's index in list order, whatever the namespace holds.
        index: 'build_tags_filter',
        table: 'build_tags',
        alias: 'd',
        q: await completeBuildsQuery(
          svc.deps.db,
          { gameId: f.gameId, namespaceId: f.namespaceId },
          new Map([['channel', 'beta']]),
          {
            after,
            limit: 1001,
          },
        ),
      },
    ];
    for (const { index, table, q, ...rest } of cases) {
      assert.ok(q !== undefined);
      const plan = await queryPlan(svc.deps.db, q.compile());
      if (onPostgres) {
        assert.match(plan, new RegExp(`Index (Only )?Scan (Backward )?using ${index} on ${table}`), plan);
        assert.doesNotMatch(plan, /Seq Scan|Sort/, plan);
      } else {
        const name = 'alias' in rest ? rest.alias : table;
        assert.match(plan, new RegExp(`SEARCH ${name} USING (COVERING )?INDEX ${index} \\(`), plan);
        assert.doesNotMatch(plan, /TEMP B-TREE/, plan);
      }
    }
  });

  it('removes an exclusive tag from the other builds along the tag index, not across the namespace', async () => {
    const q = removeKeysQuery(svc.deps.db, f.namespaceId, '0190a0a0-1111-7000-8000-000000000001', [
      'current',
    ]);
    const plan = await queryPlan(svc.deps.db, q.compile());
    if (onPostgres) {
      assert.match(plan, /Index (Only )?Scan using build_tags_filter on build_tags/, plan);
      assert.doesNotMatch(plan, /Seq Scan/, plan);
    } else {
      assert.match(
        plan,
        /SEARCH build_tags USING (COVERING )?INDEX build_tags_filter \(namespace_id=\? AND tag_key=\?\)/,
        plan,
      );
    }
  });
});
