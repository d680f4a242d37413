/**
 * Every write that finds its rows by a key other than the caller's game or namespace (a build's tag key, a
 * lobby id, a CDN user name, a token id, a device link, an upload id, a webhook or delivery id), made in one
 * environment of one game of a world of two games with two environments each, where the other tenants hold
 * rows under the very same keys (the same exclusive tag keys, lobby ids and CDN user names). Each test
 * checks the write did what it should, and through store snapshots that every other environment and the
 * other game kept every row as it was: a scoping filter dropped from a repository fails here.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { addCdnUser, newNamespace, newWebhook, uploadedAvatar, uploadedBuild } from '../helpers/api-world.js';
import { choosePlan, readBilling } from '../helpers/billing.js';
import {
  completeLink,
  getLink,
  type LinkResult,
  type PreparedLink,
  prepareLink,
} from '../helpers/device-links.js';
import { assertError } from '../helpers/error-answer.js';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';
import {
  diffSnapshots,
  rowsOfGame,
  rowsOfNamespace,
  type StoreSnapshot,
  snapshotStore,
} from '../helpers/store-snapshot.js';

/** One lobby id in all four environments: a lobby is (namespace, id), so these are four lobbies. */
const SHARED_LOBBY_ID = '0190a0a0-0000-7000-8000-00000000cafe';
/** One CDN user name in all four environments. */
const SHARED_CDN_USER = 'alice';
/** Another well-formed bcrypt hash, to tell a changed password from the world's. */
const OTHER_HASH = `$2b$10$${'b'.repeat(53)}`;

interface Env {
  namespaceId: string;
  reporterToken: string;
  reporterTokenId: string;
  /** Completed, tagged channel=live. */
  liveBuildId: string;
  /** Completed, tagged channel=beta. */
  betaBuildId: string;
  /** Uploaded, never completed. */
  pendingBuildId: string;
}

interface Tenant {
  gameId: string;
  versionId: string;
  /** A second version, for moving a namespace to. */
  otherVersionId: string;
  cloudToken: string;
  cloudTokenId: string;
  envs: [Env, Env];
  /** An avatar uploaded but not completed. */
  avatarUploadId: string;
  webhookId: string;
  webhookDeliveryId: string;
  /** A device link completed for this game. */
  completedLinkToken: string;
}

function ok(res: LightMyRequestResponse, what: string): LightMyRequestResponse {
  assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${what}: ${res.statusCode} ${res.body}`);
  return res;
}

async function makeEnv(svc: TestService, gameId: string, namespaceId: string): Promise<Env> {
  const reporter = ok(
    await svc.call('POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/tokens/reporter`),
    'reporter token',
  ).json<{ token: string; token_id: string }>();
  const builds = `/games/${gameId}/environments/${namespaceId}/builds`;
  const completedBuild = async (name: string, channel: string) => {
    const buildId = await uploadedBuild(svc, gameId, namespaceId, name);
    ok(await svc.call('POST', `${builds}/${buildId}/complete`), 'complete build');
    ok(
      await svc.call('PATCH', `${builds}/${buildId}/tags`, { body: { tags: { channel, shared: 'yes' } } }),
      'tag build',
    );
    return buildId;
  };
  const liveBuildId = await completedBuild('live', 'live');
  const betaBuildId = await completedBuild('beta', 'beta');
  const pendingBuildId = await uploadedBuild(svc, gameId, namespaceId, 'pending');
  const created = await svc.call('POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/logs/lobbies`, {
    token: reporter.token,
    body: { lobby_id: SHARED_LOBBY_ID, lobby_group_name_id: 'default', region_id: 'lnd-atl' },
  });
  if (created.statusCode === 409) {
    // A reporter cannot take an id another namespace has; rows from before that rule may still share one,
    // and those must stay apart too: this namespace's is written as such a row was.
    assert.equal(created.json<{ code: string }>().code, 'LOBBY_ALREADY_EXISTS');
    const first = await svc.deps.db
      .selectFrom('lobbies')
      .selectAll()
      .where('lobby_id', '=', SHARED_LOBBY_ID)
      .limit(1)
      .executeTakeFirstOrThrow();
    await svc.deps.db
      .insertInto('lobbies')
      .values({ ...first, namespace_id: namespaceId })
      .execute();
  } else {
    ok(created, 'create lobby');
  }
  await addCdnUser(svc, gameId, namespaceId, SHARED_CDN_USER);
  return {
    namespaceId,
    reporterToken: reporter.token,
    reporterTokenId: reporter.token_id,
    liveBuildId,
    betaBuildId,
    pendingBuildId,
  };
}

async function makeTenant(svc: TestService, nameId: string): Promise<Tenant> {
  const fx = await createGameFixture(svc, nameId);
  const otherVersionId = ok(
    await svc.call('POST', `/cloud/games/${fx.gameId}/versions`, {
      body: { display_name: 'v2', config: {} },
    }),
    'second version',
  ).json<{ version_id: string }>().version_id;
  const staging = await newNamespace(svc, fx.gameId, fx.versionId, 'staging');
  const envs: [Env, Env] = [
    await makeEnv(svc, fx.gameId, fx.namespaceId),
    await makeEnv(svc, fx.gameId, staging),
  ];
  const avatarUploadId = await uploadedAvatar(svc, fx.gameId);
  const webhook = await newWebhook(svc, `/cloud/games/${fx.gameId}`, nameId);
  await choosePlan(svc, fx.gameId, 'indie');
  const link = await prepareLink(svc);
  ok(await completeLink(svc, link.device_link_token, fx.gameId), 'complete device link');
  return {
    gameId: fx.gameId,
    versionId: fx.versionId,
    otherVersionId,
    cloudToken: fx.cloudToken,
    cloudTokenId: fx.cloudTokenId,
    envs,
    avatarUploadId,
    ...webhook,
    completedLinkToken: link.device_link_token,
  };
}

describe('tenant isolation: writes keyed by something other than the caller stay in their tenant', () => {
  let svc: TestService;
  let a: Tenant;
  let b: Tenant;
  /** Links started and never completed: they belong to no game until one completes them. */
  let pendingLinks: PreparedLink[];

  before(async () => {
    // No timers: only the requests write, so any change a snapshot shows is the request's.
    svc = await startTestService({
      env: { GCM_BILLING_TICK_MS: '0', GCM_PURGE_INTERVAL_MS: '0', GCM_WEBHOOK_POLL_MS: '0' },
    });
    a = await makeTenant(svc, 'tenant-a');
    b = await makeTenant(svc, 'tenant-b');
    pendingLinks = [await prepareLink(svc), await prepareLink(svc)];
  });

  after(async () => {
    await svc?.close();
  });

  const snapshot = (): Promise<StoreSnapshot> => snapshotStore(svc.deps.db);

  /**
   * Asserts that, from `before` to `after`, game B's rows and every environment of game A but `touched`
   * stayed as they were.
   */
  function assertOthersUnchanged(before: StoreSnapshot, after: StoreSnapshot, touched: string[] = []) {
    assert.deepEqual(diffSnapshots(rowsOfGame(before, b.gameId), rowsOfGame(after, b.gameId)), [], 'game B');
    for (const env of a.envs) {
      if (touched.includes(env.namespaceId)) continue;
      assert.deepEqual(
        diffSnapshots(rowsOfNamespace(before, env.namespaceId), rowsOfNamespace(after, env.namespaceId)),
        [],
        `environment ${env.namespaceId} of game A`,
      );
    }
  }

  /** A refused request changes nothing at all (its own refused audit event aside, see store-snapshot). */
  async function assertRefusedWithoutChange(
    send: () => Promise<LightMyRequestResponse>,
    status: number,
    code: string,
  ) {
    const before = await snapshot();
    assertError(await send(), status, code);
    assert.deepEqual(diffSnapshots(before, await snapshot()), []);
  }

  const buildsOf = (t: Tenant, env: Env) => `/games/${t.gameId}/environments/${env.namespaceId}/builds`;

  async function tagsOf(t: Tenant, env: Env, buildId: string): Promise<Record<string, string>> {
    const res = ok(await svc.call('GET', `${buildsOf(t, env)}/${buildId}`), 'get build');
    return res.json<{ build: { tags: Record<string, string> } }>().build.tags;
  }

  it('the world has the same keys in every tenant (else the tests below prove nothing)', async () => {
    for (const t of [a, b]) {
      for (const env of t.envs) {
        assert.deepEqual(await tagsOf(t, env, env.betaBuildId), {
          kind: 'fixture',
          channel: 'beta',
          shared: 'yes',
        });
        const lobby = await svc.call(
          'GET',
          `/cloud/games/${t.gameId}/namespaces/${env.namespaceId}/logs/lobbies/${SHARED_LOBBY_ID}`,
        );
        assert.equal(lobby.statusCode, 200, lobby.body);
      }
    }
  });

  it('an exclusive tag leaves the builds of other environments and games alone', async () => {
    const env = a.envs[0];
    const before = await snapshot();
    ok(
      await svc.call('PATCH', `${buildsOf(a, env)}/${env.liveBuildId}/tags`, {
        token: a.cloudToken,
        body: { tags: { channel: 'live' }, exclusive_tags: ['channel'] },
      }),
      'exclusive tag',
    );
    const after = await snapshot();
    // The rule itself: the key now names this build alone in its environment.
    assert.deepEqual(await tagsOf(a, env, env.betaBuildId), { kind: 'fixture', shared: 'yes' });
    assert.equal((await tagsOf(a, env, env.liveBuildId)).channel, 'live');
    assertOthersUnchanged(before, after, [env.namespaceId]);
    for (const other of [a.envs[1], ...b.envs]) {
      const owner = other === a.envs[1] ? a : b;
      assert.equal((await tagsOf(owner, other, other.betaBuildId)).channel, 'beta');
    }
  });

  it("a lobby event changes its namespace's lobby only, though three more share its id", async () => {
    const env = a.envs[0];
    const url = `/cloud/games/${a.gameId}/namespaces/${env.namespaceId}/logs/lobbies/${SHARED_LOBBY_ID}`;
    for (const event of [{ kind: 'start' }, { kind: 'ready' }, { kind: 'stop', exit_code: 3 }]) {
      const before = await snapshot();
      ok(await svc.call('POST', `${url}/events`, { token: env.reporterToken, body: event }), event.kind);
      assertOthersUnchanged(before, await snapshot(), [env.namespaceId]);
    }
    const lobby = ok(await svc.call('GET', url), 'get lobby').json<{
      lobby: { start_ts?: string; status: { stopped?: { exit_code: number } } };
    }>().lobby;
    assert.equal(lobby.status.stopped?.exit_code, 3);
    assert.ok(lobby.start_ts !== undefined);
  });

  it('a namespace edit changes that namespace only', async () => {
    const env = a.envs[0];
    const base = `/cloud/games/${a.gameId}/namespaces/${env.namespaceId}`;
    const edits: [string, () => Promise<LightMyRequestResponse>][] = [
      [
        'mm-config',
        () => svc.call('POST', `${base}/mm-config`, { body: { lobby_count_max: 7, max_players: 9 } }),
      ],
      [
        'CDN user password',
        () =>
          svc.call('POST', `${base}/auth-user`, { body: { user: SHARED_CDN_USER, password: OTHER_HASH } }),
      ],
      ['CDN auth type', () => svc.call('PUT', `${base}/cdn-auth`, { body: { auth_type: 'basic' } })],
      [
        'domain public auth',
        () => svc.call('PUT', `${base}/domain-public-auth`, { body: { enabled: true } }),
      ],
      ['version', () => svc.call('PUT', `${base}/version`, { body: { version_id: a.otherVersionId } })],
      ['CDN user removal', () => svc.call('DELETE', `${base}/auth-user/${SHARED_CDN_USER}`)],
    ];
    for (const [what, edit] of edits) {
      const before = await snapshot();
      ok(await edit(), what);
      const after = await snapshot();
      assert.notDeepEqual(
        diffSnapshots(rowsOfNamespace(before, env.namespaceId), rowsOfNamespace(after, env.namespaceId)),
        [],
        `${what} changed its namespace`,
      );
      assertOthersUnchanged(before, after, [env.namespaceId]);
    }
    const ns = ok(await svc.call('GET', base), 'get namespace').json<{
      namespace: { version_id: string; config: { cdn: { auth_user_list: { user: string }[] } } };
    }>().namespace;
    assert.equal(ns.version_id, a.otherVersionId);
    assert.deepEqual(ns.config.cdn.auth_user_list, []);
    // The same user of the sibling environment is still there.
    const sibling = ok(
      await svc.call('GET', `/cloud/games/${a.gameId}/namespaces/${a.envs[1].namespaceId}`),
      'get sibling',
    ).json<{ namespace: { config: { cdn: { auth_user_list: { user: string }[] } } } }>().namespace;
    assert.deepEqual(sibling.config.cdn.auth_user_list, [{ user: SHARED_CDN_USER }]);
  });

  it("a token is revoked only by its own game, and revoking one touches no other's", async () => {
    await assertRefusedWithoutChange(
      () => svc.call('DELETE', `/cloud/tokens/${b.cloudTokenId}`, { token: a.cloudToken }),
      404,
      'TOKEN_NOT_FOUND',
    );
    await assertRefusedWithoutChange(
      () => svc.call('DELETE', `/cloud/tokens/${b.envs[0].reporterTokenId}`, { token: a.cloudToken }),
      404,
      'TOKEN_NOT_FOUND',
    );
    const env = a.envs[0];
    const before = await snapshot();
    ok(
      await svc.call('DELETE', `/cloud/tokens/${env.reporterTokenId}`, { token: a.cloudToken }),
      'revoke own reporter token',
    );
    const after = await snapshot();
    assertOthersUnchanged(before, after, [env.namespaceId]);
    // Of game A's tokens, only that one changed.
    const changed = diffSnapshots(before, after).filter((line) => line.startsWith('tokens '));
    assert.equal(changed.length, 2, changed.join('\n'));
    assert.ok(
      changed.every((line) => line.includes(env.reporterTokenId)),
      changed.join('\n'),
    );
    const refused = await svc.call(
      'POST',
      `/cloud/games/${a.gameId}/namespaces/${env.namespaceId}/logs/lobbies`,
      {
        token: env.reporterToken,
        body: { lobby_group_name_id: 'default', region_id: 'lnd-atl' },
      },
    );
    assert.equal(refused.statusCode, 401, refused.body);
  });

  it('completing a device link attaches a token to that link only', async () => {
    const [mine, theirs] = pendingLinks as [PreparedLink, PreparedLink];
    // A game's token completes links for its own game only; a completed link takes no second token.
    await assertRefusedWithoutChange(
      () => completeLink(svc, mine.device_link_token, b.gameId, a.cloudToken),
      403,
      'API_FORBIDDEN',
    );
    await assertRefusedWithoutChange(
      () => completeLink(svc, b.completedLinkToken, a.gameId, a.cloudToken),
      400,
      'CLOUD_DEVICE_LINK_ALREADY_COMPLETE',
    );
    const before = await snapshot();
    ok(await completeLink(svc, mine.device_link_token, a.gameId, a.cloudToken), 'complete link');
    const after = await snapshot();
    assertOthersUnchanged(before, after);
    // Pending links belong to no game yet: the other link rows are checked by id.
    const changedLinks = diffSnapshots(before, after)
      .filter((line) => line.startsWith('device_links '))
      .map((line) => (JSON.parse(line.slice(line.indexOf('{'))) as { link_id: string }).link_id);
    assert.deepEqual(changedLinks, [mine.device_link_id, mine.device_link_id]);
    const minted = (await getLink(svc, mine.device_link_token)).json<LinkResult>().cloud_token;
    assert.ok(minted !== undefined);
    assert.equal((await getLink(svc, theirs.device_link_token)).json<LinkResult>().cloud_token, undefined);
    for (const token of [a.completedLinkToken, b.completedLinkToken]) {
      const cloudToken = (await getLink(svc, token)).json<LinkResult>().cloud_token;
      assert.ok(cloudToken !== undefined && cloudToken !== minted);
    }
  });

  it("an upload is completed only by its game, and an avatar changes that game's row only", async () => {
    await assertRefusedWithoutChange(
      () => svc.call('POST', `/cloud/uploads/${b.avatarUploadId}/complete`, { token: a.cloudToken }),
      404,
      'UPLOAD_NOT_FOUND',
    );
    // Even the operator cannot complete B's upload as game A's avatar.
    await assertRefusedWithoutChange(
      () => svc.call('POST', `/cloud/games/${a.gameId}/avatar-upload/${b.avatarUploadId}/complete`),
      404,
      'UPLOAD_NOT_FOUND',
    );
    const before = await snapshot();
    ok(
      await svc.call('POST', `/cloud/uploads/${a.avatarUploadId}/complete`, { token: a.cloudToken }),
      'complete own avatar',
    );
    const after = await snapshot();
    assertOthersUnchanged(before, after);
    const game = ok(await svc.call('GET', `/cloud/games/${a.gameId}`), 'get game').json<{
      game: { avatar_url?: string | null };
    }>().game;
    assert.ok(game.avatar_url?.endsWith(`/avatars/${a.avatarUploadId}`), JSON.stringify(game));
  });

  it("a build is completed only in its own environment, and completing one touches no other's", async () => {
    const [env, sibling] = a.envs;
    await assertRefusedWithoutChange(
      () =>
        svc.call('POST', `${buildsOf(a, env)}/${sibling.pendingBuildId}/complete`, { token: a.cloudToken }),
      404,
      'BUILD_NOT_FOUND',
    );
    await assertRefusedWithoutChange(
      () =>
        svc.call('POST', `${buildsOf(a, env)}/${b.envs[0].pendingBuildId}/complete`, { token: a.cloudToken }),
      404,
      'BUILD_NOT_FOUND',
    );
    const before = await snapshot();
    ok(
      await svc.call('POST', `${buildsOf(a, env)}/${env.pendingBuildId}/complete`, { token: a.cloudToken }),
      'complete build',
    );
    assertOthersUnchanged(before, await snapshot(), [env.namespaceId]);
    ok(await svc.call('GET', `${buildsOf(a, env)}/${env.pendingBuildId}`), 'completed build is listed');
  });

  it("a plan change writes its game's billing only", async () => {
    await assertRefusedWithoutChange(
      () =>
        svc.call('PUT', `/cloud/games/${b.gameId}/billing/plan`, {
          token: a.cloudToken,
          body: { plan: 'studio' },
        }),
      403,
      'API_FORBIDDEN',
    );
    const theirs = await readBilling(svc, b.gameId);
    const before = await snapshot();
    await choosePlan(svc, a.gameId, 'studio');
    const after = await snapshot();
    assertOthersUnchanged(before, after);
    assert.equal((await readBilling(svc, a.gameId)).plan, 'studio');
    assert.deepEqual(await readBilling(svc, b.gameId), theirs);
  });

  it("a game's webhook calls never reach another game's endpoints or deliveries", async () => {
    const mine = `/cloud/games/${a.gameId}/webhooks`;
    const calls: [string, () => Promise<LightMyRequestResponse>][] = [
      [
        'update',
        () => svc.call('PATCH', `${mine}/${b.webhookId}`, { token: a.cloudToken, body: { enabled: false } }),
      ],
      ['rotate', () => svc.call('POST', `${mine}/${b.webhookId}/secret`, { token: a.cloudToken })],
      ['ping', () => svc.call('POST', `${mine}/${b.webhookId}/ping`, { token: a.cloudToken })],
      ['delete', () => svc.call('DELETE', `${mine}/${b.webhookId}`, { token: a.cloudToken })],
    ];
    for (const [, call] of calls) await assertRefusedWithoutChange(call, 404, 'WEBHOOK_NOT_FOUND');
    await assertRefusedWithoutChange(
      () =>
        svc.call('POST', `${mine}/${a.webhookId}/deliveries/${b.webhookDeliveryId}/redeliver`, {
          token: a.cloudToken,
        }),
      404,
      'WEBHOOK_DELIVERY_NOT_FOUND',
    );
    for (const [what, change] of [
      [
        'update',
        () => svc.call('PATCH', `${mine}/${a.webhookId}`, { token: a.cloudToken, body: { enabled: false } }),
      ],
      ['rotate', () => svc.call('POST', `${mine}/${a.webhookId}/secret`, { token: a.cloudToken })],
      [
        'redeliver',
        () =>
          svc.call('POST', `${mine}/${a.webhookId}/deliveries/${a.webhookDeliveryId}/redeliver`, {
            token: a.cloudToken,
          }),
      ],
      ['delete', () => svc.call('DELETE', `${mine}/${a.webhookId}`, { token: a.cloudToken })],
    ] as const) {
      const before = await snapshot();
      ok(await change(), what);
      assertOthersUnchanged(before, await snapshot());
    }
    const list = ok(await svc.call('GET', `/cloud/games/${b.gameId}/webhooks`), 'list B').json<{
      webhooks: { webhook_id: string }[];
    }>();
    assert.deepEqual(
      list.webhooks.map((w) => w.webhook_id),
      [b.webhookId],
    );
  });

  it('deleting a namespace leaves its sibling and the other game alone', async () => {
    const env = a.envs[1];
    const before = await snapshot();
    ok(
      await svc.call('DELETE', `/cloud/games/${a.gameId}/namespaces/${env.namespaceId}`),
      'delete namespace',
    );
    const after = await snapshot();
    assertOthersUnchanged(before, after, [env.namespaceId]);
    const gone = await svc.call('GET', `/cloud/games/${a.gameId}/namespaces/${env.namespaceId}`);
    assert.equal(gone.statusCode, 404, gone.body);
  });
});
