/**
 * Webhooks through the real HTTP stack to a real HTTP receiver on a local port: endpoints of a game and of
 * a team, each event type, signatures a receiver can check, retries with backoff while the receiver fails
 * and delivery once it recovers, order per resource, the delivery log, give-up and redelivery, a restart
 * with deliveries queued, the URL rules (https, no internal hosts, also when resolved), limits, retention.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import {
  type CreateWebhookResponse,
  WEBHOOK_ATTEMPTS_MAX,
  type WebhookDelivery,
  type WebhookDeliveryList,
  type WebhookEventBody,
  type WebhookList,
} from '@gcm/contract';
import {
  dueDeliveriesQuery,
  endpointsWithPendingQuery,
} from '../../src/modules/webhooks/webhooks.repository.js';
import { deleteExpiredDeliveries } from '../../src/modules/webhooks/webhooks.service.js';
import { newLobby, uploadedBuild } from '../helpers/api-world.js';
import { addMember, asPerson, giveGame, newTeam, type Team } from '../helpers/people.js';
import { dropTestDatabase, onPostgres } from '../helpers/postgres.js';
import { queryPlan } from '../helpers/query-plan.js';
import { createGameFixture, secondInstance, startTestService, type TestService } from '../helpers/service.js';
import { pgOnly } from '../helpers/stores.js';
import { until } from '../helpers/until.js';
import { type Received, verifySignature, WebhookReceiver } from '../helpers/webhook-receiver.js';

/** The receiver listens on 127.0.0.1 over http: the operator allows both, as for a receiver on their network. */
const METRICS_TOKEN = 'webhooks-test-metrics-token-of-32-characters';
const LOCAL_RECEIVER = {
  GCM_METRICS_TOKEN: METRICS_TOKEN,
  GCM_WEBHOOK_ALLOW_HTTP: 'true',
  GCM_WEBHOOK_ALLOW_INTERNAL: 'true',
  GCM_WEBHOOK_POLL_MS: '50',
};
/** A hang-catcher, not a timing assertion: deliveries go out within a poll or two. */
const WAIT_MS = 15_000;
/**
 * How soon one game's delivery must arrive while another game's receiver hangs: well under the 10 s a
 * hanging receiver holds a request, so a delivery that waited for one of them fails.
 */
const B_ARRIVES_MS = 5_000;

type Game = Awaited<ReturnType<typeof createGameFixture>>;

async function create(
  svc: TestService,
  base: string,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<CreateWebhookResponse> {
  const res = await svc.call('POST', `${base}/webhooks`, { body, ...(headers ? { headers } : {}) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<CreateWebhookResponse>();
}

async function deliveries(svc: TestService, base: string, webhookId: string): Promise<WebhookDelivery[]> {
  const res = await svc.call('GET', `${base}/webhooks/${webhookId}/deliveries?limit=100`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json<WebhookDeliveryList>().deliveries;
}

function ofType(received: Received[], type: string): WebhookEventBody[] {
  return received.filter((r) => r.event.type === type).map((r) => r.event);
}

describe('webhooks', () => {
  let svc: TestService;
  let receiver: WebhookReceiver;
  let team: Team;
  let game: Game;
  let other: Game;
  let gameHook: CreateWebhookResponse;
  let teamHook: CreateWebhookResponse;
  let otherHook: CreateWebhookResponse;
  const gameBase = () => `/cloud/games/${game.gameId}`;
  const teamBase = () => `/cloud/teams/${team.teamId}`;

  before(async () => {
    receiver = await WebhookReceiver.start();
    svc = await startTestService({ env: LOCAL_RECEIVER });
    team = await newTeam(svc, 'hooks');
    game = await createGameFixture(svc, 'hooked');
    other = await createGameFixture(svc, 'unhooked');
    await giveGame(svc, game.gameId, team.teamId);
    gameHook = await create(svc, gameBase(), {
      url: `${receiver.url}/game`,
      events: ['lobby.created', 'lobby.stopped', 'build.completed', 'version.deployed', 'plan.changed'],
      description: 'game events',
    });
    teamHook = await create(svc, teamBase(), {
      url: `${receiver.url}/team`,
      events: ['member.joined', 'lobby.created'],
    });
    otherHook = await create(svc, `/cloud/games/${other.gameId}`, {
      url: `${receiver.url}/other`,
      events: ['lobby.created', 'lobby.stopped', 'build.completed', 'version.deployed', 'plan.changed'],
    });
  });

  after(async () => {
    await svc.close();
    await receiver.close();
  });

  it('answers the secret once, never in reads, and lists the endpoints', async () => {
    assert.match(gameHook.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.equal(gameHook.webhook.enabled, true);
    assert.equal(gameHook.webhook.game_id, game.gameId);
    const one = await svc.call('GET', `${gameBase()}/webhooks/${gameHook.webhook.webhook_id}`);
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json(), { webhook: gameHook.webhook });
    assert.ok(!one.body.includes(gameHook.secret));
    const list = (await svc.call('GET', `${teamBase()}/webhooks`)).json<WebhookList>();
    assert.deepEqual(
      list.webhooks.map((w) => w.webhook_id),
      [teamHook.webhook.webhook_id],
    );
    // Another scope's id is not found here, whoever asks.
    const elsewhere = await svc.call('GET', `${gameBase()}/webhooks/${otherHook.webhook.webhook_id}`);
    assert.equal(elsewhere.statusCode, 404);
    assert.equal(elsewhere.json<{ code: string }>().code, 'WEBHOOK_NOT_FOUND');
  });

  it('tells each event to the endpoints that hear it, signed, and nothing to other games', async () => {
    const lobbyId = await newLobby(svc, game.gameId, game.namespaceId);
    const stop = await svc.call(
      'POST',
      `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/logs/lobbies/${lobbyId}/events`,
      { body: { kind: 'stop', exit_code: 3 } },
    );
    assert.equal(stop.statusCode, 204, stop.body);
    const buildId = await uploadedBuild(svc, game.gameId, game.namespaceId, 'hooked-build');
    const complete = await svc.call(
      'POST',
      `/games/${game.gameId}/environments/${game.namespaceId}/builds/${buildId}/complete`,
    );
    assert.equal(complete.statusCode, 204, complete.body);
    const version = await svc.call('POST', `/cloud/games/${game.gameId}/versions`, {
      body: { display_name: 'v2', config: {} },
    });
    const versionId = version.json<{ version_id: string }>().version_id;
    const deploy = await svc.call(
      'PUT',
      `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/version`,
      { body: { version_id: versionId } },
    );
    assert.equal(deploy.statusCode, 204, deploy.body);
    const plan = await svc.call('PUT', `/cloud/games/${game.gameId}/billing/plan`, {
      body: { plan: 'indie' },
    });
    assert.equal(plan.statusCode, 204, plan.body);
    await addMember(svc, team, 'joiner@example.com', 'member');

    await until('game events delivered', WAIT_MS, () => receiver.at('/game').length >= 5);
    await until('team events delivered', WAIT_MS, () => receiver.at('/team').length >= 2);
    const gameEvents = receiver.at('/game');
    assert.deepEqual(gameEvents.map((r) => r.event.type).sort(), [
      'build.completed',
      'lobby.created',
      'lobby.stopped',
      'plan.changed',
      'version.deployed',
    ]);
    for (const r of [...gameEvents, ...receiver.at('/team')]) {
      const secret = r.path === '/game' ? gameHook.secret : teamHook.secret;
      assert.ok(
        verifySignature(secret, r.headers['gcm-signature'] as string, r.body),
        'signed with its secret',
      );
      assert.ok(!verifySignature(otherHook.secret, r.headers['gcm-signature'] as string, r.body));
      assert.equal(r.headers['gcm-event'], r.event.type);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.match(r.headers['gcm-delivery-id'] as string, /^[0-9a-f-]{36}$/);
      assert.equal(r.headers['gcm-event-id'], r.event.event_id);
    }
    const [created] = ofType(gameEvents, 'lobby.created');
    assert.equal(created?.game_id, game.gameId);
    assert.equal(created?.team_id, team.teamId);
    assert.deepEqual(
      { ...created?.data, create_ts: undefined },
      {
        namespace_id: game.namespaceId,
        lobby_id: lobbyId,
        lobby_group_name_id: 'default',
        region_id: 'lnd-atl',
        create_ts: undefined,
      },
    );
    const [stopped] = ofType(gameEvents, 'lobby.stopped');
    assert.equal(stopped?.data.exit_code, 3);
    assert.equal(stopped?.data.failed, true);
    // One lobby's events arrive in the order they happened.
    const order = gameEvents.map((r) => r.event.type).filter((t) => t.startsWith('lobby.'));
    assert.deepEqual(order, ['lobby.created', 'lobby.stopped']);
    assert.equal(ofType(gameEvents, 'build.completed')[0]?.data.build_id, buildId);
    assert.deepEqual(ofType(gameEvents, 'version.deployed')[0]?.data, {
      namespace_id: game.namespaceId,
      version_id: versionId,
      previous_version_id: game.versionId,
    });
    const planChanged = ofType(gameEvents, 'plan.changed')[0]?.data as {
      plan: string;
      previous: { plan: string };
    };
    assert.equal(planChanged.plan, 'indie');
    assert.equal(planChanged.previous.plan, 'trial');
    // The team endpoint hears the game's lobby.created and its own member.joined, not what it did not ask for.
    const teamTypes = receiver
      .at('/team')
      .map((r) => r.event.type)
      .sort();
    assert.deepEqual(teamTypes, ['lobby.created', 'member.joined']);
    const joined = ofType(receiver.at('/team'), 'member.joined')[0];
    assert.equal(joined?.data.email, 'joiner@example.com');
    assert.equal(joined?.data.role, 'member');
    assert.equal(joined?.team_id, team.teamId);
    // The other game's endpoint heard nothing of this game.
    assert.equal(receiver.at('/other').length, 0);

    const log = await deliveries(svc, gameBase(), gameHook.webhook.webhook_id);
    assert.equal(log.length, 5);
    for (const d of log) {
      assert.equal(d.state, 'delivered');
      assert.equal(d.attempts.length, 1);
      assert.equal(d.attempts[0]?.status_code, 204);
    }
  });

  it('queues a retried lobby report once', async () => {
    const before = receiver.at('/game').length;
    const lobbyId = '00000000-0000-4000-8000-00000000cafe';
    const url = `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/logs/lobbies`;
    const body = { lobby_id: lobbyId, lobby_group_name_id: 'default', region_id: 'lnd-atl' };
    for (let i = 0; i < 3; i++) assert.equal((await svc.call('POST', url, { body })).statusCode, 200);
    await until('the report delivered', WAIT_MS, () => receiver.at('/game').length > before);
    const ping = await svc.call('POST', `${gameBase()}/webhooks/${gameHook.webhook.webhook_id}/ping`);
    const pingId = ping.json<{ delivery_id: string }>().delivery_id;
    await until('the ping delivered', WAIT_MS, () =>
      receiver.at('/game').some((r) => r.headers['gcm-delivery-id'] === pingId),
    );
    const created = receiver.at('/game').filter((r) => r.event.data.lobby_id === lobbyId);
    assert.equal(created.length, 1);
  });

  it('retries a failing receiver with backoff, keeps one lobby in order, and delivers once it recovers', async () => {
    receiver.mode = 'fail';
    const hook = gameHook.webhook.webhook_id;
    const lobbyId = await newLobby(svc, game.gameId, game.namespaceId);
    await svc.call(
      'POST',
      `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/logs/lobbies/${lobbyId}/events`,
      { body: { kind: 'stop', exit_code: 0 } },
    );
    const mine = async () =>
      (await deliveries(svc, gameBase(), hook)).filter(
        (d) => (d.payload as WebhookEventBody).data.lobby_id === lobbyId,
      );
    await until('a first failed attempt', WAIT_MS, async () =>
      (await mine()).some((d) => d.attempts.length === 1),
    );
    let [stopped, created] = await mine();
    assert.equal(created?.event_type, 'lobby.created');
    assert.equal(created?.state, 'pending');
    assert.equal(created?.attempts[0]?.status_code, 500);
    // The stop waits behind the create: not even tried while the create is pending.
    assert.equal(stopped?.attempts.length, 0);
    const due = Date.parse(created?.next_attempt_ts ?? '') - svc.clock.now();
    assert.ok(due >= 9_000 && due <= 11_000, `first retry ~10 s later (${due} ms)`);

    // Not retried before it is due, however many passes run.
    const requests = receiver.requests.length;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.requests.length, requests);

    receiver.mode = 'drop';
    svc.clock.advance(due);
    await until('a second attempt', WAIT_MS, async () => ((await mine())[1]?.attempts.length ?? 0) === 2);
    [stopped, created] = await mine();
    assert.equal(created?.attempts[1]?.status_code, undefined);
    assert.match(created?.attempts[1]?.error ?? '', /socket hang up|ECONNRESET/);
    const second = Date.parse(created?.next_attempt_ts ?? '') - svc.clock.now();
    assert.ok(second >= 27_000 && second <= 33_000, `second retry ~30 s later (${second} ms)`);

    receiver.mode = 'ok';
    svc.clock.advance(second);
    await until('both delivered', WAIT_MS, async () => (await mine()).every((d) => d.state === 'delivered'));
    [stopped, created] = await mine();
    assert.deepEqual(
      created?.attempts.map((a) => a.status_code),
      [500, undefined, 204],
    );
    assert.equal(stopped?.attempts.length, 1);
    const arrived = receiver.at('/game').filter((r) => r.event.data.lobby_id === lobbyId);
    assert.deepEqual(
      arrived.map((r) => r.event.type),
      ['lobby.created', 'lobby.stopped'],
    );
    // The attempts are counted by result where the operator's monitoring looks.
    const scraped = await svc.call('GET', '/metrics', { token: METRICS_TOKEN });
    assert.equal(scraped.statusCode, 200);
    const count = (result: string) =>
      Number(
        new RegExp(`^gcm_webhook_attempts_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(
          scraped.body,
        )?.[1],
      );
    assert.ok(count('retry') >= 2, 'the two failed attempts');
    assert.ok(count('delivered') >= 7, 'the deliveries so far');
    assert.equal(count('failed'), 0);
  });

  it('honours Retry-After, refuses to follow redirects, and gives up after the last attempt', async () => {
    const made = await create(svc, gameBase(), { url: `${receiver.url}/doomed`, events: ['plan.changed'] });
    const hook = made.webhook.webhook_id;
    receiver.mode = 'busy';
    const ping = await svc.call('POST', `${gameBase()}/webhooks/${hook}/ping`);
    const pingId = ping.json<{ delivery_id: string }>().delivery_id;
    const current = async () =>
      (await deliveries(svc, gameBase(), hook)).find((d) => d.delivery_id === pingId);
    await until('a refused attempt', WAIT_MS, async () => ((await current())?.attempts.length ?? 0) === 1);
    const wait = Date.parse((await current())?.next_attempt_ts ?? '') - svc.clock.now();
    assert.ok(wait >= 119_000, `Retry-After 120 s honoured over the 10 s backoff (${wait} ms)`);

    receiver.mode = 'redirect';
    for (let n = 2; n <= WEBHOOK_ATTEMPTS_MAX; n++) {
      svc.clock.advance(9 * 3_600_000);
      await until(`attempt ${n}`, WAIT_MS, async () => ((await current())?.attempts.length ?? 0) === n);
    }
    const given = await current();
    assert.equal(given?.state, 'failed');
    assert.equal(given?.next_attempt_ts, undefined);
    assert.equal(given?.attempts.at(-1)?.status_code, 302);
    assert.equal(receiver.at('/elsewhere').length, 0);

    receiver.mode = 'ok';
    const again = await svc.call('POST', `${gameBase()}/webhooks/${hook}/deliveries/${pingId}/redeliver`);
    assert.equal(again.statusCode, 200, again.body);
    const againId = again.json<{ delivery_id: string }>().delivery_id;
    assert.notEqual(againId, pingId);
    await until('the redelivery', WAIT_MS, () =>
      receiver.at('/doomed').some((r) => r.headers['gcm-delivery-id'] === againId),
    );
    const [redelivered] = receiver.at('/doomed');
    assert.equal(redelivered?.event.type, 'ping');
    assert.equal(redelivered?.event.event_id, given?.event_id, 'the same event');
    const missing = await svc.call(
      'POST',
      `${gameBase()}/webhooks/${hook}/deliveries/${gameHook.webhook.webhook_id}/redeliver`,
    );
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json<{ code: string }>().code, 'WEBHOOK_DELIVERY_NOT_FOUND');
    assert.equal((await svc.call('DELETE', `${gameBase()}/webhooks/${hook}`)).statusCode, 204);
  });

  it('signs with a rotated secret from then on, and sends nothing to a disabled endpoint', async () => {
    const hook = gameHook.webhook.webhook_id;
    const rotated = await svc.call('POST', `${gameBase()}/webhooks/${hook}/secret`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    const secret = rotated.json<{ secret: string }>().secret;
    assert.notEqual(secret, gameHook.secret);
    const ping = await svc.call('POST', `${gameBase()}/webhooks/${hook}/ping`);
    const pingId = ping.json<{ delivery_id: string }>().delivery_id;
    await until('the ping', WAIT_MS, () =>
      receiver.at('/game').some((r) => r.headers['gcm-delivery-id'] === pingId),
    );
    const got = receiver.at('/game').find((r) => r.headers['gcm-delivery-id'] === pingId);
    assert.ok(got !== undefined && verifySignature(secret, got.headers['gcm-signature'] as string, got.body));
    assert.ok(!verifySignature(gameHook.secret, got.headers['gcm-signature'] as string, got.body));
    gameHook = { ...gameHook, secret };

    const off = await svc.call('PATCH', `${gameBase()}/webhooks/${hook}`, { body: { enabled: false } });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json<{ webhook: { enabled: boolean } }>().webhook.enabled, false);
    const count = receiver.at('/game').length;
    await newLobby(svc, game.gameId, game.namespaceId);
    const teamCount = receiver.at('/team').length;
    await until('the team endpoint still hears it', WAIT_MS, () => receiver.at('/team').length > teamCount);
    assert.equal(receiver.at('/game').length, count);
    const on = await svc.call('PATCH', `${gameBase()}/webhooks/${hook}`, { body: { enabled: true } });
    assert.equal(on.statusCode, 200);
  });

  it('refuses bad bodies with the field named, and an eleventh endpoint', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ url: 'not a url', events: ['lobby.created'] }, 'url'],
      [{ url: `${receiver.url}/x`, events: [] }, 'events'],
      [{ url: `${receiver.url}/x`, events: ['lobby.created', 'lobby.created'] }, 'events'],
      [{ url: `${receiver.url}/x`, events: ['lobby.exploded'] }, 'events'],
      [{ url: `${receiver.url}/${'x'.repeat(2100)}`, events: ['lobby.created'] }, 'url'],
      [{ url: `${receiver.url}/x`, events: ['lobby.created'], secret: 'mine' }, 'secret'],
    ];
    for (const [body, field] of bad) {
      const res = await svc.call('POST', `${gameBase()}/webhooks`, { body });
      assert.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.body}`);
      assert.match(res.json<{ message: string }>().message, new RegExp(field));
    }
    const patch = await svc.call('PATCH', `${gameBase()}/webhooks/${gameHook.webhook.webhook_id}`, {
      body: {},
    });
    assert.equal(patch.statusCode, 400);

    const base = `/cloud/games/${other.gameId}`;
    const made: string[] = [];
    for (
      let i = (await svc.call('GET', `${base}/webhooks`)).json<WebhookList>().webhooks.length;
      i < 10;
      i++
    ) {
      made.push(
        (await create(svc, base, { url: `${receiver.url}/n${i}`, events: ['plan.changed'] })).webhook
          .webhook_id,
      );
    }
    const eleventh = await svc.call('POST', `${base}/webhooks`, {
      body: { url: `${receiver.url}/n10`, events: ['plan.changed'] },
    });
    assert.equal(eleventh.statusCode, 409);
    assert.equal(eleventh.json<{ code: string }>().code, 'WEBHOOK_LIMIT_REACHED');
    for (const id of made) assert.equal((await svc.call('DELETE', `${base}/webhooks/${id}`)).statusCode, 204);
  });

  it('lets team admins and the game token manage a game endpoint, not members', async () => {
    const member = await addMember(svc, team, 'hook-member@example.com', 'member');
    const admin = await addMember(svc, team, 'hook-admin@example.com', 'admin');
    const asMember = await svc.call('GET', `${gameBase()}/webhooks`, {
      token: null,
      headers: asPerson(svc, member),
    });
    assert.equal(asMember.statusCode, 403);
    const asAdmin = await svc.call('GET', `${gameBase()}/webhooks`, {
      token: null,
      headers: asPerson(svc, admin),
    });
    assert.equal(asAdmin.statusCode, 200);
    const asToken = await svc.call('GET', `${gameBase()}/webhooks`, { token: game.cloudToken });
    assert.equal(asToken.statusCode, 200);
    const otherToken = await svc.call('GET', `${gameBase()}/webhooks`, { token: other.cloudToken });
    assert.equal(otherToken.statusCode, 403);
  });

  it('pages the delivery log and deletes deliveries past retention', async () => {
    const hook = gameHook.webhook.webhook_id;
    const all = await deliveries(svc, gameBase(), hook);
    const first = await svc.call('GET', `${gameBase()}/webhooks/${hook}/deliveries?limit=2`);
    const page = first.json<WebhookDeliveryList>();
    assert.equal(page.deliveries.length, 2);
    assert.ok(page.cursor !== undefined);
    const next = await svc.call(
      'GET',
      `${gameBase()}/webhooks/${hook}/deliveries?limit=100&cursor=${page.cursor}`,
    );
    assert.deepEqual(
      [...page.deliveries, ...next.json<WebhookDeliveryList>().deliveries].map((d) => d.delivery_id),
      all.map((d) => d.delivery_id),
    );
    const wrong = await svc.call('GET', `${gameBase()}/webhooks/${hook}/deliveries?cursor=bm9wZQ`);
    assert.equal(wrong.statusCode, 400);

    svc.clock.advance(31 * 86_400_000);
    assert.ok((await deleteExpiredDeliveries(svc.deps)) >= all.length);
    assert.deepEqual(await deliveries(svc, gameBase(), hook), []);
  });
});

describe('webhook URLs', () => {
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('are https:// to public hosts unless the operator allows more', async () => {
    const game = await createGameFixture(svc, 'strict');
    const cases: [string, string][] = [
      ['http://hooks.example.com/x', 'url.invalid-scheme'],
      ['ftp://hooks.example.com/x', 'url.invalid-scheme'],
      ['https://127.0.0.1/x', 'url.internal-host'],
      ['https://10.2.3.4/x', 'url.internal-host'],
      ['https://100.64.0.1/x', 'url.internal-host'],
      ['https://169.254.169.254/latest/meta-data', 'url.internal-host'],
      ['https://0.0.0.0/x', 'url.internal-host'],
      ['https://[::1]/x', 'url.internal-host'],
      ['https://[::ffff:127.0.0.1]/x', 'url.internal-host'],
      ['https://[fd00::1]/x', 'url.internal-host'],
      ['https://localhost/x', 'url.internal-host'],
      ['https://printer.local/x', 'url.internal-host'],
      ['https://0x7f000001/x', 'url.internal-host'],
      ['https://user:pw@hooks.example.com/x', 'url.credentials'],
      ['https://hooks.example.com/x#frag', 'url.fragment'],
    ];
    for (const [url, rule] of cases) {
      const res = await svc.call('POST', `/cloud/games/${game.gameId}/webhooks`, {
        body: { url, events: ['lobby.created'] },
      });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      const body = res.json<{ code: string; metadata: { errors: { path: string[] }[] } }>();
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.equal(body.metadata.errors[0]?.path.join('.'), rule, url);
    }
    const fine = await svc.call('POST', `/cloud/games/${game.gameId}/webhooks`, {
      body: { url: 'https://hooks.example.com/gcm', events: ['lobby.created'] },
    });
    assert.equal(fine.statusCode, 200, fine.body);
  });
});

describe('webhook deliveries across a restart', () => {
  it('keeps what is queued, and refuses internal addresses at delivery once they are no longer allowed', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-hooks-'));
    const receiver = await WebhookReceiver.start();
    try {
      let svc = await startTestService({ dataDir, env: LOCAL_RECEIVER });
      const game = await createGameFixture(svc, 'restarted');
      const byIp = await create(svc, `/cloud/games/${game.gameId}`, {
        url: `${receiver.url}/kept`,
        events: ['lobby.created'],
      });
      const byName = await create(svc, `/cloud/games/${game.gameId}`, {
        url: `${receiver.url.replace('127.0.0.1', 'localhost')}/named`,
        events: ['lobby.created'],
      });
      receiver.mode = 'fail';
      const lobbyId = await newLobby(svc, game.gameId, game.namespaceId);
      // Both endpoints' first attempts recorded before the stop, so both are due again 10 s (±10 %) later.
      await until('a failed attempt to each', WAIT_MS, async () => {
        const [a] = await deliveries(svc, `/cloud/games/${game.gameId}`, byIp.webhook.webhook_id);
        const [b] = await deliveries(svc, `/cloud/games/${game.gameId}`, byName.webhook.webhook_id);
        return a?.attempts.length === 1 && b?.attempts.length === 1;
      });
      const clock = svc.clock;
      await svc.close();

      // The same store, started again: the queued delivery goes out once due and the receiver is back.
      receiver.mode = 'ok';
      svc = await startTestService({ dataDir, clock, env: LOCAL_RECEIVER });
      clock.advance(11_000);
      await until('delivered after the restart', WAIT_MS, () => receiver.at('/kept').length === 1);
      assert.equal(receiver.at('/kept')[0]?.event.data.lobby_id, lobbyId);
      await until('the named endpoint too', WAIT_MS, () => receiver.at('/named').length === 1);
      await svc.close();

      // The operator no longer allows internal receivers: saved URLs to them are refused when sending,
      // the literal address before connecting and the name once it resolves to one.
      svc = await startTestService({
        dataDir,
        clock,
        env: { GCM_WEBHOOK_ALLOW_HTTP: 'true', GCM_WEBHOOK_POLL_MS: '50' },
      });
      await newLobby(svc, game.gameId, game.namespaceId);
      const base = `/cloud/games/${game.gameId}`;
      await until('both attempted', WAIT_MS, async () => {
        const [a] = await deliveries(svc, base, byIp.webhook.webhook_id);
        const [b] = await deliveries(svc, base, byName.webhook.webhook_id);
        return a?.attempts.length === 1 && b?.attempts.length === 1;
      });
      const [ip] = await deliveries(svc, base, byIp.webhook.webhook_id);
      const [name] = await deliveries(svc, base, byName.webhook.webhook_id);
      assert.match(ip?.attempts[0]?.error ?? '', /internal address/);
      assert.match(name?.attempts[0]?.error ?? '', /internal address/);
      assert.equal(receiver.received.length, 2, 'nothing more reached the receiver');
      await svc.close();
    } finally {
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (onPostgres) await dropTestDatabase(dataDir);
    }
  });
});

describe('webhook deliveries of two tenants', () => {
  it("sends one game's deliveries while another game's receiver hangs", async (t) => {
    const stuck = await WebhookReceiver.start();
    const healthy = await WebhookReceiver.start();
    stuck.mode = 'hang';
    const svc = await startTestService({ env: LOCAL_RECEIVER });
    try {
      const a = await createGameFixture(svc, 'tenant-a');
      const b = await createGameFixture(svc, 'tenant-b');
      const hookA = await create(svc, `/cloud/games/${a.gameId}`, {
        url: `${stuck.url}/a`,
        events: ['lobby.created'],
      });
      const hookB = await create(svc, `/cloud/games/${b.gameId}`, {
        url: `${healthy.url}/b`,
        events: ['lobby.created'],
      });
      // 30 pings, each its own resource: none waits behind another, all due at once.
      for (let i = 0; i < 30; i++) {
        const ping = await svc.call(
          'POST',
          `/cloud/games/${a.gameId}/webhooks/${hookA.webhook.webhook_id}/ping`,
        );
        assert.equal(ping.statusCode, 200, ping.body);
      }
      await until('A’s receiver holds requests', WAIT_MS, () => stuck.requests.length > 0);

      const started = performance.now();
      const arrival = healthy.nextAt('/b', B_ARRIVES_MS);
      const ping = await svc.call(
        'POST',
        `/cloud/games/${b.gameId}/webhooks/${hookB.webhook.webhook_id}/ping`,
      );
      assert.equal(ping.statusCode, 200, ping.body);
      const received = await arrival;
      const delayMs = Math.round(performance.now() - started);
      t.diagnostic(`B's ping arrived ${delayMs} ms after it was queued, A's receiver hanging`);
      assert.equal(received.event.type, 'ping');
      assert.equal(received.headers['gcm-delivery-id'], ping.json<{ delivery_id: string }>().delivery_id);
      // A's endpoint has its own share, 2 requests in flight, not every slot.
      assert.equal(stuck.requests.length, 2);
    } finally {
      // With A's requests still held: stopping cuts them short rather than waiting out their timeout.
      await svc.close();
      await stuck.close();
      await healthy.close();
    }
  });
});

describe('webhook due queries', () => {
  it("read each endpoint's queue through its index: no scan of the outbox, no sort", async () => {
    const svc = await startTestService();
    try {
      const db = svc.deps.db;
      const take = new Map([
        ['01a00000-0000-7000-8000-000000000001', 2],
        ['01a00000-0000-7000-8000-000000000002', 1],
      ]);
      for (const compiled of [
        endpointsWithPendingQuery(db, 1024).compile(),
        dueDeliveriesQuery(db, 0, take).compile(),
      ]) {
        const plan = await queryPlan(db, compiled);
        assert.match(plan, /webhook_deliveries_queue/, plan);
        if (onPostgres) assert.doesNotMatch(plan, /Seq Scan on webhook_deliveries|Sort/, plan);
        else assert.doesNotMatch(plan, /SCAN (webhook_deliveries|d|p|n)\b|TEMP B-TREE/, plan);
      }
    } finally {
      await svc.close();
    }
  });
});

describe('webhooks on two instances', {
  ...pgOnly,
}, () => {
  it('hears an endpoint made on the other instance, and sends each event once from the shared outbox', async () => {
    const receiver = await WebhookReceiver.start();
    const a = await startTestService({ env: LOCAL_RECEIVER });
    const b = await secondInstance(a, LOCAL_RECEIVER);
    try {
      const game = await createGameFixture(a, 'two-instances');
      const base = `/cloud/games/${game.gameId}`;
      // B has served a report before the endpoint exists: its cached "nobody listens" must not outlive it.
      await newLobby(b, game.gameId, game.namespaceId);
      await create(a, base, { url: `${receiver.url}/both`, events: ['lobby.created', 'lobby.stopped'] });
      const lobbies: string[] = [];
      await until(
        'B hears of the endpoint',
        WAIT_MS,
        async () => {
          lobbies.push(await newLobby(b, game.gameId, game.namespaceId));
          return receiver.at('/both').length > 0;
        },
        200,
      );
      for (let i = 0; i < 10; i++)
        lobbies.push(await newLobby(i % 2 === 0 ? a : b, game.gameId, game.namespaceId));
      const heard = () => new Set(receiver.at('/both').map((r) => r.event.data.lobby_id));
      await until('every later lobby told', WAIT_MS, () => lobbies.slice(-10).every((id) => heard().has(id)));
      // Both instances run the delivery job's timer; the lease and the claim send each delivery once.
      await new Promise((r) => setTimeout(r, 500));
      const ids = receiver.at('/both').map((r) => r.headers['gcm-delivery-id']);
      assert.equal(new Set(ids).size, ids.length, 'no delivery sent twice');
    } finally {
      await b.close();
      await a.close();
      await receiver.close();
    }
  });
});
