/**
 * The Idempotency-Key header (src/http/idempotency.ts) through HTTP: which operations honour it (every one
 * that creates something, read off the OpenAPI document), replays, a key used for another request, a key
 * still in flight, keys scoped to their caller, only successes stored, no secret stored, 24 h expiry and
 * the clean-up, and two instances on one PostgreSQL racing for the same key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IDEMPOTENCY_KEY_TTL_MS, Text } from '@gcm/contract';
import type { LightMyRequestResponse } from 'fastify';
import { Type } from 'typebox';
import {
  deleteExpiredIdempotencyKeys,
  IDEMPOTENCY_CLAIM_MS,
  MAX_STORED_ANSWER_BYTES,
} from '../../src/http/idempotency.js';
import { deleteExpiredKeys } from '../../src/http/idempotency.repository.js';
import { routeOptions } from '../../src/http/route-options.js';
import { putPresigned } from '../helpers/api-world.js';
import { prepareLink } from '../helpers/device-links.js';
import { assertError } from '../helpers/error-answer.js';
import { listOperations, readOpenApi } from '../helpers/openapi.js';
import { createGameFixture, secondInstance, startTestService, type TestService } from '../helpers/service.js';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.js';
import { pgOnly } from '../helpers/stores.js';
import { until } from '../helpers/until.js';

type Fixture = Awaited<ReturnType<typeof createGameFixture>> & { reporterToken: string };

interface Call {
  url: string;
  body?: unknown;
  /** The bearer token; the operator's when absent. */
  token?: string;
}

/**
 * Every operation that creates something, with a request that succeeds: each must declare the header,
 * and each is replayed below. `seq` makes names unique.
 */
const CREATING: Record<string, (svc: TestService, fx: Fixture, seq: number) => Promise<Call> | Call> = {
  'games.createGame': (_svc, _fx, seq) => ({
    url: '/cloud/games',
    body: { name_id: `made-${seq}`, display_name: 'Made' },
  }),
  'games.versions.createGameVersion': (_svc, fx, seq) => ({
    url: `/cloud/games/${fx.gameId}/versions`,
    body: { display_name: `v-${seq}`, config: {} },
    token: fx.cloudToken,
  }),
  'games.namespaces.createGameNamespace': (_svc, fx, seq) => ({
    url: `/cloud/games/${fx.gameId}/namespaces`,
    body: { name_id: `ns-${seq}`, display_name: 'Namespace', version_id: fx.versionId },
    token: fx.cloudToken,
  }),
  'games.namespaces.logs.createNamespaceLobby': (_svc, fx) => ({
    url: `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}/logs/lobbies`,
    body: { lobby_group_name_id: 'default', region_id: 'lnd-atl' },
    token: fx.reporterToken,
  }),
  'games.tokens.createCloudToken': (_svc, fx) => ({ url: `/cloud/games/${fx.gameId}/tokens/cloud` }),
  'games.namespaces.tokens.createReporterToken': (_svc, fx) => ({
    url: `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}/tokens/reporter`,
  }),
  'games.namespaces.tokens.createGameNamespaceTokenPublic': (_svc, fx) => ({
    url: `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}/tokens/public`,
    token: fx.cloudToken,
  }),
  'games.namespaces.tokens.createGameNamespaceTokenDevelopment': (_svc, fx) => ({
    url: `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}/tokens/development`,
    body: { hostname: '10.0.0.5', ports: { game: { port: 7777, protocol: 'udp' } } },
    token: fx.cloudToken,
  }),
  'builds.prepare': (_svc, fx, seq) => ({
    url: `/games/${fx.gameId}/environments/${fx.namespaceId}/builds/prepare`,
    body: { name: `build-${seq}`, image_file: { path: 'image.tar', content_length: 16 } },
    token: fx.cloudToken,
  }),
  'games.avatars.prepareCustomAvatarUpload': (_svc, fx) => ({
    url: `/cloud/games/${fx.gameId}/prepare`,
    body: { path: 'avatar.png', mime: 'image/png', content_length: 64 },
    token: fx.cloudToken,
  }),
  'devices.links.complete': async (svc, fx) => ({
    url: '/cloud/devices/links/complete',
    body: { device_link_token: (await prepareLink(svc)).device_link_token, game_id: fx.gameId },
  }),
  'teams.createTeam': (_svc, _fx, seq) => ({
    url: '/cloud/teams',
    body: { name: `Team ${seq}`, slug: `idem-team-${seq}`, owner_email: `idem-${seq}@example.com` },
  }),
  ...webhookCalls('games'),
  ...webhookCalls('teams'),
};

/**
 * The webhook operations that make something (an endpoint, a secret, a queued delivery), on a game's
 * endpoints and on a team's: the replay of a creation answers the endpoint's secret again, read back.
 */
function webhookCalls(
  kind: 'games' | 'teams',
): Record<string, (svc: TestService, fx: Fixture, seq: number) => Promise<Call>> {
  const scope = async (svc: TestService, fx: Fixture, seq: number) => {
    if (kind === 'games') return `/cloud/games/${fx.gameId}`;
    const team = await svc.call('POST', '/cloud/teams', {
      body: { name: `Hooks ${seq}`, slug: `idem-hooks-${seq}`, owner_email: `idem-hooks-${seq}@example.com` },
    });
    assert.equal(team.statusCode, 200, team.body);
    return `/cloud/teams/${team.json<{ team_id: string }>().team_id}`;
  };
  const endpoint = async (svc: TestService, fx: Fixture, seq: number) => {
    const base = await scope(svc, fx, seq);
    const res = await svc.call('POST', `${base}/webhooks`, {
      body: { url: `https://hooks.example.com/e-${seq}`, events: ['plan.changed'] },
    });
    assert.equal(res.statusCode, 200, res.body);
    return `${base}/webhooks/${res.json<{ webhook: { webhook_id: string } }>().webhook.webhook_id}`;
  };
  return {
    [`${kind}.webhooks.create`]: async (svc, fx, seq) => ({
      url: `${await scope(svc, fx, seq)}/webhooks`,
      body: { url: `https://hooks.example.com/c-${seq}`, events: ['lobby.created'] },
    }),
    [`${kind}.webhooks.rotateSecret`]: async (svc, fx, seq) => ({
      url: `${await endpoint(svc, fx, seq)}/secret`,
    }),
    [`${kind}.webhooks.ping`]: async (svc, fx, seq) => ({ url: `${await endpoint(svc, fx, seq)}/ping` }),
    [`${kind}.webhooks.redeliver`]: async (svc, fx, seq) => {
      const hook = await endpoint(svc, fx, seq);
      const ping = await svc.call('POST', `${hook}/ping`);
      assert.equal(ping.statusCode, 200, ping.body);
      return { url: `${hook}/deliveries/${ping.json<{ delivery_id: string }>().delivery_id}/redeliver` };
    },
  };
}

/** The other POSTs, and why a repeat needs no key. A POST in neither list fails the test: decide. */
const NOT_CREATING: Record<string, string> = {
  'games.validateGame': 'creates nothing',
  'games.versions.validateGameVersion': 'creates nothing',
  'games.namespaces.tokens.validateGameNamespaceTokenDevelopment': 'creates nothing',
  'games.namespaces.updateGameNamespaceMatchmakerConfig': 'replaces the config: a repeat is the same',
  'games.namespaces.updateNamespaceCdnAuthUser': 'sets the user: a repeat is the same',
  'games.namespaces.logs.recordNamespaceLobbyEvent': 'a repeated event is a no-op',
  'matchmaker.lobbies.ready': 'a repeated ready is a no-op',
  'matchmaker.players.connected': 'a player token admits once: a repeat is refused and changes nothing',
  'matchmaker.lobbies.join':
    'a game client: a repeat takes another slot of the lobby, which expires unused within GCM_PLAYER_CONNECT_TIMEOUT',
  'matchmaker.lobbies.find':
    'a game client (no person, no key store per player): a repeat takes another slot, which expires unused within GCM_PLAYER_CONNECT_TIMEOUT',
  'matchmaker.lobbies.create':
    'a game client (no person, no key store per player): a repeat makes another lobby, within lobby_count_max and max_players_per_client',
  'matchmaker.players.disconnected': 'a player token not counted is a no-op',
  'builds.complete': 'completing twice is a no-op',
  'games.avatars.completeCustomAvatarUpload': 'completing twice is a no-op',
  'cloud.uploads.completeUpload': 'completing twice is a no-op',
  'devices.links.prepare': 'public: no caller to scope a key to; a repeat makes another link, harmless',
  'setup.getStatus': "reads the setup link's state: creates nothing",
  'games.matchmaker.exportLobbyLogs':
    'a read made into a file that is deleted within a day: a repeat makes another file, harmless',
  'games.matchmaker.exportMatchmakerLobbyHistory':
    'a read made into a file that is deleted within a day: a repeat makes another file, harmless',
  'setup.complete':
    'public, and works once: the store claims the link atomically, so a repeat answers 410 SETUP_DONE and makes nothing',
};

function send(svc: TestService, call: Call, key: string | undefined): Promise<LightMyRequestResponse> {
  return svc.call('POST', call.url, {
    ...(call.token === undefined ? {} : { token: call.token }),
    ...(call.body === undefined ? {} : { body: call.body }),
    ...(key === undefined ? {} : { headers: { 'idempotency-key': key } }),
  });
}

/** Secrets a replay leaves out: they are never stored, and a replay is what was stored. */
const REPLAY_LEAVES_OUT: Record<string, string> = { 'teams.createTeam': 'password_setup' };

function assertReplay(first: LightMyRequestResponse, again: LightMyRequestResponse, leftOut?: string): void {
  assert.equal(again.statusCode, first.statusCode, again.body);
  if (leftOut === undefined) assert.equal(again.body, first.body);
  else {
    const { [leftOut]: secret, ...kept } = first.json<Record<string, unknown>>();
    assert.notEqual(secret, undefined, `the first answer has ${leftOut}`);
    assert.deepEqual(again.json(), kept);
  }
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(first.headers['idempotent-replayed'], undefined);
}

async function fixture(svc: TestService, nameId: string): Promise<Fixture> {
  const fx = await createGameFixture(svc, nameId);
  const res = await svc.call(
    'POST',
    `/cloud/games/${fx.gameId}/namespaces/${fx.namespaceId}/tokens/reporter`,
  );
  assert.equal(res.statusCode, 200, res.body);
  return { ...fx, reporterToken: res.json<{ token: string }>().token };
}

/**
 * A test-only creating route whose handler waits until released, so a request can be held in flight:
 * registered before the app's first request, like any route. Each run answers its own number.
 */
function addGatedRoute(svc: TestService) {
  const gate = {
    runs: 0,
    waiting: [] as (() => void)[],
    releaseAll() {
      for (const release of gate.waiting.splice(0)) release();
    },
  };
  svc.app.post(
    '/test/gated',
    routeOptions(
      { operationId: 'test.gated', auth: 'operator', summary: 'test', tag: 'test', idempotent: true },
      { body: Type.Object({ label: Text(64) }), response: { 200: Type.Object({ run: Type.Number() }) } },
    ),
    async () => {
      gate.runs += 1;
      const run = gate.runs;
      await new Promise<void>((resolve) => gate.waiting.push(resolve));
      return { run };
    },
  );
  svc.app.post(
    '/test/big',
    routeOptions(
      { operationId: 'test.big', auth: 'operator', summary: 'test', tag: 'test', idempotent: true },
      { response: { 200: Type.Object({ text: Type.String() }) } },
    ),
    async () => ({ text: 'x'.repeat(MAX_STORED_ANSWER_BYTES) }),
  );
  return gate;
}

function gated(svc: TestService, key: string, label = 'a') {
  return svc.call('POST', '/test/gated', { body: { label }, headers: { 'idempotency-key': key } });
}

async function keyRows(svc: TestService) {
  return svc.deps.db.selectFrom('idempotency_keys').selectAll().execute();
}

describe('Idempotency-Key', () => {
  let svc: TestService;
  let gate: ReturnType<typeof addGatedRoute>;
  let fx: Fixture;
  let seq = 0;

  before(async () => {
    // No webhook deliveries in the background: each replay checks that the store did not change at all.
    svc = await startTestService({ env: { GCM_WEBHOOK_POLL_MS: '0' } });
    gate = addGatedRoute(svc);
    fx = await fixture(svc, 'idem-game');
  });
  after(async () => {
    gate.releaseAll();
    await svc.close();
  });

  it('is declared (OpenAPI header parameter) by every POST that creates, and by nothing else', async () => {
    const ops = listOperations(await readOpenApi(svc)).filter((o) => !o.operationId.startsWith('test.'));
    const declaring = ops.filter((o) => (o.op.parameters ?? []).some((p) => p.in === 'header'));
    for (const o of declaring) {
      const header = (o.op.parameters ?? []).find((p) => p.in === 'header');
      assert.equal(header?.name, 'Idempotency-Key', o.operationId);
      assert.equal(header?.required, false, o.operationId);
    }
    assert.deepEqual(declaring.map((o) => o.operationId).sort(), Object.keys(CREATING).sort());
    for (const o of ops.filter((o) => o.method === 'POST')) {
      assert.ok(
        o.operationId in CREATING || o.operationId in NOT_CREATING,
        `${o.operationId}: does it create something? List it in CREATING (and declare idempotent) or NOT_CREATING`,
      );
    }
  });

  for (const operationId of Object.keys(CREATING)) {
    it(`${operationId}: a retry with the key answers the first answer and creates nothing more`, async () => {
      const call = await (CREATING[operationId] as (typeof CREATING)[string])(svc, fx, ++seq);
      const key = `replay-${operationId}`;
      const first = await send(svc, call, key);
      assert.ok(first.statusCode >= 200 && first.statusCode < 300, first.body);
      const stored = await snapshotStore(svc.deps.db);
      const again = await send(svc, call, key);
      assertReplay(first, again, REPLAY_LEAVES_OUT[operationId]);
      assert.deepEqual(diffSnapshots(stored, await snapshotStore(svc.deps.db)), []);
    });
  }

  it('creates again without a key, and for a new key', async () => {
    const call = { url: `/cloud/games/${fx.gameId}/tokens/cloud` };
    const ids = new Set<string>();
    for (const key of [undefined, undefined, 'new-1', 'new-2']) {
      const res = await send(svc, call, key);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['idempotent-replayed'], undefined);
      ids.add(res.json<{ token_id: string }>().token_id);
    }
    assert.equal(ids.size, 4);
  });

  it('treats the same JSON in another key order as the same request', async () => {
    const url = `/cloud/games/${fx.gameId}/versions`;
    const first = await send(svc, { url, body: { display_name: 'ordered', config: {} } }, 'order');
    const again = await send(svc, { url, body: { config: {}, display_name: 'ordered' } }, 'order');
    assertReplay(first, again);
  });

  it('refuses a key used for another body, other path parameters or another operation (422)', async () => {
    const other = await fixture(svc, 'idem-other');
    const url = `/cloud/games/${fx.gameId}/versions`;
    const first = await send(svc, { url, body: { display_name: 'one', config: {} } }, 'reused');
    assert.equal(first.statusCode, 200, first.body);
    const before = await snapshotStore(svc.deps.db);
    const body = assertError(
      await send(svc, { url, body: { display_name: 'two', config: {} } }, 'reused'),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    assert.match(body.message, /another body/);
    assert.deepEqual(body.metadata, { field: 'Idempotency-Key' });
    assertError(
      await send(
        svc,
        { url: `/cloud/games/${other.gameId}/versions`, body: { display_name: 'one', config: {} } },
        'reused',
      ),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    const route = assertError(
      await send(svc, { url: `/cloud/games/${fx.gameId}/tokens/cloud` }, 'reused'),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
    assert.match(route.message, /another operation \(POST \/cloud\/games\/:game_id\/versions\)/);
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), [], 'a refusal writes nothing');
    assertReplay(first, await send(svc, { url, body: { display_name: 'one', config: {} } }, 'reused'));
  });

  it('bounds the key: 1-255 visible ASCII characters, one header, else 400 naming the header', async () => {
    const url = `/cloud/games/${fx.gameId}/versions`;
    const body = { display_name: 'keyed', config: {} };
    for (const key of ['', ' ', 'a b', 'k'.repeat(256), 'clé', 'tab\there', 'del\x7f']) {
      const res = await svc.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${svc.operatorToken}`, 'idempotency-key': key },
        payload: body,
      });
      const error = assertError(res, 400, 'IDEMPOTENCY_KEY_INVALID');
      assert.deepEqual(error.metadata, { field: 'Idempotency-Key', max_length: 255 }, JSON.stringify(key));
      assert.match(error.message, /Idempotency-Key/);
    }
    const longest = `${'k'.repeat(254)}~`;
    const first = await send(svc, { url, body }, longest);
    assert.equal(first.statusCode, 200, first.body);
    assertReplay(first, await send(svc, { url, body }, longest));
  });

  it('refuses two Idempotency-Key headers (HTTP joins them with ", ")', async () => {
    const address = await svc.app.listen({ port: 0, host: '127.0.0.1' });
    const { request } = await import('node:http');
    const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${address}/cloud/games/${fx.gameId}/tokens/cloud`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.operatorToken}`, 'idempotency-key': ['k1', 'k2'] },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status.status, 400, status.body);
    assert.equal(JSON.parse(status.body).code, 'IDEMPOTENCY_KEY_INVALID');
  });

  it('is ignored by operations that create nothing', async () => {
    const before = (await keyRows(svc)).length;
    for (let i = 0; i < 2; i++) {
      const res = await svc.call('POST', '/cloud/games/validate', {
        body: { display_name: 'Valid Name' },
        headers: { 'idempotency-key': 'not here' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    }
    assert.equal((await keyRows(svc)).length, before);
  });

  it('stores only successes: after a refusal the same key runs the corrected request', async () => {
    const url = `/cloud/games/${fx.gameId}/namespaces`;
    const wrong = {
      name_id: 'fixed',
      display_name: 'Fixed',
      version_id: '01900000-0000-7000-8000-000000000000',
    };
    const before = await snapshotStore(svc.deps.db);
    const refused = await send(svc, { url, body: wrong }, 'fix-then-retry');
    assert.equal(refused.statusCode, 404, refused.body);
    assert.deepEqual(
      diffSnapshots(before, await snapshotStore(svc.deps.db)),
      [],
      'nothing kept of a refusal',
    );
    const right = { ...wrong, version_id: fx.versionId };
    const created = await send(svc, { url, body: right }, 'fix-then-retry');
    assert.equal(created.statusCode, 200, created.body);
    assertReplay(created, await send(svc, { url, body: right }, 'fix-then-retry'));
    assertError(await send(svc, { url, body: wrong }, 'fix-then-retry'), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('keeps each caller its own keys: two games, the operator and two reporters never share an answer', async () => {
    const a = fx;
    const b = await fixture(svc, 'idem-scope-b');
    const body = { path: 'avatar.png', mime: 'image/png', content_length: 64 };
    const avatar = (f: Fixture, token?: string) => ({
      url: `/cloud/games/${f.gameId}/prepare`,
      body,
      ...(token === undefined ? {} : { token }),
    });
    const ofA = await send(svc, avatar(a, a.cloudToken), 'k');
    const ofB = await send(svc, avatar(b, b.cloudToken), 'k');
    const ofOperator = await send(svc, avatar(a), 'k');
    const ids = [ofA, ofB, ofOperator].map((res) => {
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['idempotent-replayed'], undefined);
      return res.json<{ upload_id: string }>().upload_id;
    });
    assert.equal(new Set(ids).size, 3);
    // Another cloud token of the same game is the same caller: the game's key.
    const second = await svc.call('POST', `/cloud/games/${a.gameId}/tokens/cloud`);
    const { token } = second.json<{ token: string }>();
    assertReplay(ofA, await send(svc, avatar(a, token), 'k'));

    const lobby = { lobby_group_name_id: 'default', region_id: 'lnd-atl' };
    const lobbyOf = (f: Fixture) =>
      send(
        svc,
        {
          url: `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/logs/lobbies`,
          body: lobby,
          token: f.reporterToken,
        },
        'lobby-key',
      );
    const [la, lb] = [await lobbyOf(a), await lobbyOf(b)];
    assert.equal(la.headers['idempotent-replayed'], undefined);
    assert.equal(lb.headers['idempotent-replayed'], undefined);
    assert.notEqual(la.json<{ lobby_id: string }>().lobby_id, lb.json<{ lobby_id: string }>().lobby_id);
  });

  it('never stores a token or a presigned URL: replays sign them again', async () => {
    const minted = await send(svc, { url: `/cloud/games/${fx.gameId}/tokens/cloud` }, 'secret-token');
    const { token, token_id } = minted.json<{ token: string; token_id: string }>();
    const replayed = await send(svc, { url: `/cloud/games/${fx.gameId}/tokens/cloud` }, 'secret-token');
    assertReplay(minted, replayed);
    const inspect = await svc.call('GET', '/cloud/auth/inspect', { token });
    assert.equal(inspect.statusCode, 200, inspect.body);

    const prepared = await send(
      svc,
      {
        url: `/games/${fx.gameId}/environments/${fx.namespaceId}/builds/prepare`,
        body: { name: 'secret-build', image_file: { path: 'image.tar', content_length: 16 } },
      },
      'secret-urls',
    );
    const url = prepared.json<{ presigned_requests: { url: string }[] }>().presigned_requests[0]?.url ?? '';
    const sig = new URL(url).searchParams.get('sig') ?? '';
    assert.ok(sig.length > 10);

    const rows = JSON.stringify(await keyRows(svc));
    assert.ok(rows.includes(token_id), 'the token is stored by reference');
    assert.ok(!rows.includes(token), 'the token text is not stored');
    assert.ok(!rows.includes(token.split('.')[2] as string), 'nor its signature');
    assert.ok(!rows.includes(sig), 'nor a presigned URL');
  });

  it('presigns a replayed prepare afresh, and says so once the upload is complete', async () => {
    const call = {
      url: `/cloud/games/${fx.gameId}/prepare`,
      body: { path: 'avatar.png', mime: 'image/png', content_length: 64 },
    };
    const first = await send(svc, call, 'avatar-later');
    const { upload_id, presigned_request } = first.json<{
      upload_id: string;
      presigned_request: { url: string };
    }>();
    svc.clock.advance(2 * 60 * 60 * 1000);
    const again = await send(svc, call, 'avatar-later');
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const replayed = again.json<{ upload_id: string; presigned_request: { url: string } }>();
    assert.equal(replayed.upload_id, upload_id);
    assert.notEqual(replayed.presigned_request.url, presigned_request.url);
    const { pngImage } = await import('../helpers/images.js');
    assertError(await putPresigned(svc, presigned_request.url, pngImage(64)), 403, 'UPLOAD_URL_EXPIRED');
    assert.equal((await putPresigned(svc, replayed.presigned_request.url, pngImage(64))).statusCode, 200);
    const done = await svc.call('POST', `/cloud/games/${fx.gameId}/avatar-upload/${upload_id}/complete`);
    assert.equal(done.statusCode, 204, done.body);
    assertError(await send(svc, call, 'avatar-later'), 409, 'UPLOAD_ALREADY_COMPLETE');
  });

  it('answers 409 to a retry while the first request is in flight, then its answer', async () => {
    const first = gated(svc, 'in-flight');
    await until('the first request runs', 10_000, () => gate.waiting.length === 1, 2);
    const busy = await gated(svc, 'in-flight');
    const error = assertError(busy, 409, 'IDEMPOTENCY_KEY_IN_USE');
    assert.equal(busy.headers['retry-after'], '1');
    assert.equal(error.metadata?.retry_after_seconds, 1);
    assertError(await gated(svc, 'in-flight', 'other'), 422, 'IDEMPOTENCY_KEY_REUSED');
    const runs = gate.runs;
    gate.releaseAll();
    const answered = await first;
    assert.equal(answered.statusCode, 200, answered.body);
    assertReplay(answered, await gated(svc, 'in-flight'));
    assert.equal(gate.runs, runs, 'ran once');
  });

  it('lets a retry take over a claim whose request never answered, once the claim runs out', async () => {
    const stuck = gated(svc, 'abandoned');
    await until('the first request runs', 10_000, () => gate.waiting.length === 1, 2);
    svc.clock.advance(IDEMPOTENCY_CLAIM_MS - 1);
    assertError(await gated(svc, 'abandoned'), 409, 'IDEMPOTENCY_KEY_IN_USE');
    svc.clock.advance(1);
    const retry = gated(svc, 'abandoned');
    await until('the retry runs', 10_000, () => gate.waiting.length === 2, 2);
    gate.releaseAll();
    const [late, taken] = await Promise.all([stuck, retry]);
    assert.equal(late.statusCode, 200);
    assert.equal(taken.statusCode, 200);
    assert.notEqual(late.body, taken.body);
    // The late first answer lost its claim: the stored answer is the one that took over.
    assertReplay(taken, await gated(svc, 'abandoned'));
  });

  it('stores no answer over the size bound: the key is freed and a retry runs again', async () => {
    const call = () => svc.call('POST', '/test/big', { headers: { 'idempotency-key': 'big' } });
    const first = await call();
    const second = await call();
    assert.equal(first.statusCode, 200);
    assert.equal(second.statusCode, 200);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.equal((await keyRows(svc)).filter((r) => r.idem_key === 'big').length, 0);
  });

  it('lives 24 h: then the key is free, and the clean-up deletes expired keys only', async () => {
    const url = `/cloud/games/${fx.gameId}/tokens/cloud`;
    const first = await send(svc, { url }, 'day-old');
    svc.clock.advance(IDEMPOTENCY_KEY_TTL_MS / 2);
    const younger = await send(svc, { url }, 'half-day-old');
    assert.equal(younger.statusCode, 200);
    svc.clock.advance(IDEMPOTENCY_KEY_TTL_MS / 2 - 1);
    assertReplay(first, await send(svc, { url }, 'day-old'));
    svc.clock.advance(1);
    const keys = (await keyRows(svc)).map((r) => r.idem_key);
    assert.ok(keys.includes('day-old') && keys.includes('half-day-old'));
    const deleted = await deleteExpiredIdempotencyKeys(svc.deps.db, svc.clock);
    assert.ok(deleted >= 1);
    const left = (await keyRows(svc)).map((r) => r.idem_key);
    assert.ok(!left.includes('day-old'), 'expired: deleted');
    assert.ok(left.includes('half-day-old'), 'not expired: kept');
    assert.ok(
      left.every((k) => k !== 'replay-games.createGame'),
      'keys of the first tests expired too',
    );
    const fresh = await send(svc, { url }, 'day-old');
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
    assert.notEqual(fresh.json<{ token_id: string }>().token_id, first.json<{ token_id: string }>().token_id);
  });

  it('sweeps expired keys a batch per statement until none is left', async () => {
    await deleteExpiredIdempotencyKeys(svc.deps.db, svc.clock);
    const now = svc.clock.now();
    const row = (idem_key: string, expire_ts: number) => ({
      scope: 'operator',
      idem_key,
      route: 'POST /sweep',
      request_sha256: 'x',
      claim_id: null,
      claim_expire_ts: null,
      status_code: 200,
      answer: '{}',
      create_ts: now - IDEMPOTENCY_KEY_TTL_MS,
      expire_ts,
    });
    const expired = Array.from({ length: 25 }, (_, i) => row(`sweep-${i}`, now - i));
    await svc.deps.db
      .insertInto('idempotency_keys')
      .values([...expired, row('sweep-live', now + 1)])
      .execute();
    assert.equal(await deleteExpiredKeys(svc.deps.db, now, 10), 10, 'one statement deletes one batch');
    assert.equal(await deleteExpiredIdempotencyKeys(svc.deps.db, svc.clock, 10), 15, 'the rest, in two');
    const left = (await keyRows(svc)).filter((r) => r.idem_key.startsWith('sweep-'));
    assert.deepEqual(
      left.map((r) => r.idem_key),
      ['sweep-live'],
    );
  });

  it('takes an expired key over for a new request before the clean-up has run', async () => {
    const url = `/cloud/games/${fx.gameId}/tokens/cloud`;
    const first = await send(svc, { url }, 'unswept');
    svc.clock.advance(IDEMPOTENCY_KEY_TTL_MS);
    const other = await send(
      svc,
      { url: `/cloud/games/${fx.gameId}/versions`, body: { display_name: 'unswept', config: {} } },
      'unswept',
    );
    assert.equal(other.statusCode, 200, other.body);
    assert.equal(other.headers['idempotent-replayed'], undefined);
    assertError(await send(svc, { url }, 'unswept'), 422, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(first.statusCode, 200);
  });
});

describe('Idempotency-Key across instances on one PostgreSQL', pgOnly, () => {
  let a: TestService;
  let b: TestService;
  let gateA: ReturnType<typeof addGatedRoute>;
  let gateB: ReturnType<typeof addGatedRoute>;
  let fx: Fixture;

  before(async () => {
    a = await startTestService();
    gateA = addGatedRoute(a);
    b = await secondInstance(a);
    gateB = addGatedRoute(b);
    fx = await fixture(a, 'idem-shared');
  });
  after(async () => {
    gateA.releaseAll();
    gateB.releaseAll();
    await b.close();
    await a.close();
  });

  async function tokenCount(): Promise<number> {
    const rows = await a.deps.db
      .selectFrom('tokens')
      .select('token_id')
      .where('game_id', '=', fx.gameId)
      .execute();
    return rows.length;
  }

  it('mints once per key when both instances get the same retry at once', async () => {
    const url = `/cloud/games/${fx.gameId}/tokens/cloud`;
    const before = await tokenCount();
    const rounds = 12;
    for (let i = 0; i < rounds; i++) {
      const answers = await Promise.all([a, b, a, b].map((svc) => send(svc, { url }, `race-${i}`)));
      const ok = answers.filter((res) => res.statusCode === 200);
      for (const res of answers) {
        if (res.statusCode !== 200) assertError(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
      }
      assert.ok(ok.length >= 1);
      assert.equal(new Set(ok.map((res) => res.body)).size, 1, 'every success is the one answer');
    }
    assert.equal((await tokenCount()) - before, rounds);
    for (let i = 0; i < rounds; i++) {
      const [fromA, fromB] = [await send(a, { url }, `race-${i}`), await send(b, { url }, `race-${i}`)];
      assert.equal(fromA.body, fromB.body);
      assert.equal(fromB.headers['idempotent-replayed'], 'true');
    }
  });

  it("answers 409 on one instance while the other runs the key's request, then its answer", async () => {
    const first = gated(a, 'held-by-a');
    await until('a runs the request', 10_000, () => gateA.waiting.length === 1, 2);
    assertError(await gated(b, 'held-by-a'), 409, 'IDEMPOTENCY_KEY_IN_USE');
    gateA.releaseAll();
    const answered = await first;
    assertReplay(answered, await gated(b, 'held-by-a'));
    assert.equal(gateB.runs, 0);
  });

  it('keeps scopes apart across instances', async () => {
    const other = await fixture(b, 'idem-shared-b');
    const body = { display_name: 'shared', config: {} };
    const one = await send(a, { url: `/cloud/games/${fx.gameId}/versions`, body, token: fx.cloudToken }, 's');
    const two = await send(
      b,
      { url: `/cloud/games/${other.gameId}/versions`, body, token: other.cloudToken },
      's',
    );
    assert.equal(two.headers['idempotent-replayed'], undefined);
    assert.notEqual(one.body, two.body);
  });
});
