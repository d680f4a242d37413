/**
 * What find, join and create ask of a player before a slot (issue 37, admission.ts): the version's captcha,
 * checked with a local server speaking the providers' siteverify contract, its pass remembered per namespace
 * and client address (requests_before_reverify, verification_ttl) in the store's counters; and the game mode
 * action's verification hook, a real local HTTP receiver under the webhooks' SSRF rules.
 *
 * admitPlayer is called on a real service's deps: the players' find/join/create routes are another
 * engineer's item of the issue, and the HTTP tests through POST /matchmaker/lobbies/find come with them.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { type AdmissionRequest, admitPlayer } from '../../src/modules/matchmaker/admission.js';
import { secondInstance, startTestService, type TestService } from '../helpers/service.js';
import { SiteverifyServer } from '../helpers/siteverify-server.js';
import { pgOnly } from '../helpers/stores.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const NAMESPACE = '0190a0a0-0000-7000-8000-0000000000a1';
const OTHER_NAMESPACE = '0190a0a0-0000-7000-8000-0000000000a2';

function request(overrides: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    action: 'find',
    namespaceId: NAMESPACE,
    gameId: '0190a0a0-0000-7000-8000-0000000000f1',
    gameMode: 'duel',
    verification: null,
    captcha: null,
    regions: ['lnd-fra'],
    clientAddr: '198.51.100.20',
    tokenId: '0190a0a0-0000-7000-8000-0000000000c1',
    ...overrides,
  };
}

/** Asserts `admitPlayer` refuses with `code`; answers the refusal's metadata. */
async function refused(
  svc: TestService,
  req: AdmissionRequest,
  code: string,
): Promise<Record<string, unknown> | undefined> {
  let metadata: Record<string, unknown> | undefined;
  await assert.rejects(admitPlayer(svc.deps, req), (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code, err.message);
    metadata = err.metadata;
    return true;
  });
  return metadata;
}

describe('the verification hook', () => {
  let svc: TestService;
  let receiver: WebhookReceiver;

  before(async () => {
    svc = await startTestService({
      env: { GCM_WEBHOOK_ALLOW_HTTP: 'true', GCM_WEBHOOK_ALLOW_INTERNAL: 'true' },
    });
    receiver = await WebhookReceiver.start();
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });
  beforeEach(() => {
    receiver.mode = 'ok';
  });

  const hooked = (path: string, overrides: Partial<AdmissionRequest> = {}) =>
    request({
      verification: { url: `${receiver.url}${path}`, headers: { 'x-studio-key': 'sk-123' } },
      ...overrides,
    });

  it('admits on a 2xx, having POSTed the original’s request body with the hook’s headers', async () => {
    await admitPlayer(
      svc.deps,
      hooked('/find', {
        action: 'join',
        verificationData: { ticket: 'abc' },
        userAgent: 'game/1.0',
        lobby: { lobby_id: 'l-1', region_id: 'lnd-fra', state: { round: 2 } },
      }),
    );
    const [call] = receiver.requests.filter((r) => r.path === '/find');
    assert.ok(call);
    assert.equal(call.headers['x-studio-key'], 'sk-123');
    assert.equal(call.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(call.body), {
      verification_data: { ticket: 'abc' },
      game: {
        namespace_id: NAMESPACE,
        game_mode_id: 'duel',
        game_mode_name_id: 'duel',
        lobby: { lobby_id: 'l-1', region_id: 'lnd-fra', region_name_id: 'lnd-fra' },
        state: { round: 2 },
        config: null,
        tags: {},
        dynamic_max_players: null,
      },
      clients: { '198.51.100.20': { user_agent: 'game/1.0', latitude: null, longitude: null } },
      join_kind: 'Normal',
      kind: 'Join',
    });
  });

  it('refuses any other answer with its status, and no answer with status null', async () => {
    receiver.mode = 'fail';
    assert.deepEqual(await refused(svc, hooked('/fail'), 'MATCHMAKER_VERIFICATION_FAILED'), { status: 500 });
    receiver.mode = 'redirect';
    assert.deepEqual(await refused(svc, hooked('/redirect'), 'MATCHMAKER_VERIFICATION_FAILED'), {
      status: 302,
    });
    receiver.mode = 'drop';
    assert.deepEqual(await refused(svc, hooked('/drop'), 'MATCHMAKER_VERIFICATION_FAILED'), {
      status: null,
    });
    const closed = await WebhookReceiver.start();
    const url = closed.url;
    await closed.close();
    const gone = request({ verification: { url: `${url}/gone`, headers: {} } });
    assert.deepEqual(await refused(svc, gone, 'MATCHMAKER_VERIFICATION_FAILED'), { status: null });
  });

  it('refuses a hook that does not answer within 5 s', async () => {
    receiver.mode = 'hang';
    const started = Date.now();
    assert.deepEqual(await refused(svc, hooked('/hang'), 'MATCHMAKER_VERIFICATION_FAILED'), { status: null });
    const waited = Date.now() - started;
    assert.ok(waited >= 4_900 && waited < 15_000, `waited ${waited} ms`);
  });
});

describe('the verification hook under the webhooks’ SSRF rules (defaults)', () => {
  let svc: TestService;
  let receiver: WebhookReceiver;

  before(async () => {
    svc = await startTestService();
    receiver = await WebhookReceiver.start();
  });
  after(async () => {
    await receiver?.close();
    await svc?.close();
  });

  it('never calls an http:// hook, nor one on an internal address, whatever its name', async () => {
    const http = request({ verification: { url: `${receiver.url}/plain`, headers: {} } });
    assert.deepEqual(await refused(svc, http, 'MATCHMAKER_VERIFICATION_FAILED'), { status: null });
    for (const url of ['https://127.0.0.1:1/x', 'https://[::ffff:7f00:1]:1/x', 'https://localhost:1/x']) {
      const internal = request({ verification: { url, headers: {} } });
      assert.deepEqual(await refused(svc, internal, 'MATCHMAKER_VERIFICATION_FAILED'), { status: null });
    }
    assert.equal(receiver.requests.length, 0);
  });
});

describe('the captcha', () => {
  let svc: TestService;
  let hcaptcha: SiteverifyServer;
  let turnstile: SiteverifyServer;

  const captcha = {
    captcha_provider_a: { site_key: 'site-a', secret_key: 'secret-a' },
    captcha_provider_b: { site_key: 'site-b', secret_key: 'secret-b' },
    requests_before_reverify: 2,
    verification_ttl: 60_000,
  };
  const withCaptcha = (overrides: Partial<AdmissionRequest> = {}) => request({ captcha, ...overrides });

  before(async () => {
    hcaptcha = await SiteverifyServer.start('secret-a');
    turnstile = await SiteverifyServer.start('secret-b');
    svc = await startTestService({
      env: { GCM_CAPTCHA_A_VERIFY_URL: hcaptcha.url, GCM_CAPTCHA_B_VERIFY_URL: turnstile.url },
    });
    hcaptcha.accepted.add('solved-a');
    turnstile.accepted.add('solved-b');
  });
  after(async () => {
    await svc?.close();
    await hcaptcha?.close();
    await turnstile?.close();
  });

  it('asks for it with the configured providers’ site keys when none was passed', async () => {
    const metadata = await refused(
      svc,
      withCaptcha({ clientAddr: '192.0.2.1' }),
      'MATCHMAKER_CAPTCHA_REQUIRED',
    );
    assert.deepEqual(metadata, {
      providers: { hcaptcha: { site_key: 'site-a' }, turnstile: { site_key: 'site-b' } },
    });
    const onlyB = { ...captcha, captcha_provider_a: null };
    assert.deepEqual(
      await refused(svc, request({ captcha: onlyB, clientAddr: '192.0.2.1' }), 'MATCHMAKER_CAPTCHA_REQUIRED'),
      { providers: { turnstile: { site_key: 'site-b' } } },
    );
  });

  it('checks an answer with its provider’s siteverify, then admits requests_before_reverify more', async () => {
    const addr = '192.0.2.2';
    const answered = withCaptcha({
      clientAddr: addr,
      captchaAnswer: { hcaptcha: { client_response: 'solved-a' } },
    });
    await admitPlayer(svc.deps, answered);
    assert.deepEqual(hcaptcha.calls.at(-1), {
      path: '/siteverify',
      contentType: 'application/x-www-form-urlencoded',
      secret: 'secret-a',
      response: 'solved-a',
      remoteip: addr,
    });
    await admitPlayer(svc.deps, withCaptcha({ clientAddr: addr }));
    await admitPlayer(svc.deps, withCaptcha({ clientAddr: addr, action: 'join' }));
    await refused(svc, withCaptcha({ clientAddr: addr }), 'MATCHMAKER_CAPTCHA_REQUIRED');
    // The pass is this client's in this namespace only.
    await admitPlayer(svc.deps, answered);
    await refused(svc, withCaptcha({ clientAddr: '192.0.2.3' }), 'MATCHMAKER_CAPTCHA_REQUIRED');
    await refused(
      svc,
      withCaptcha({ clientAddr: addr, namespaceId: OTHER_NAMESPACE }),
      'MATCHMAKER_CAPTCHA_REQUIRED',
    );
  });

  it('forgets a pass after verification_ttl', async () => {
    const addr = '192.0.2.4';
    const ttl = { ...captcha, requests_before_reverify: 100, verification_ttl: 30_000 };
    await admitPlayer(
      svc.deps,
      request({
        captcha: ttl,
        clientAddr: addr,
        captchaAnswer: { turnstile: { client_response: 'solved-b' } },
      }),
    );
    assert.equal(turnstile.calls.at(-1)?.secret, 'secret-b');
    svc.clock.advance(29_000);
    await admitPlayer(svc.deps, request({ captcha: ttl, clientAddr: addr }));
    svc.clock.advance(1_000);
    await refused(svc, request({ captcha: ttl, clientAddr: addr }), 'MATCHMAKER_CAPTCHA_REQUIRED');
  });

  it('refuses an answer the provider does not accept, or of a provider the game does not use', async () => {
    const addr = '192.0.2.5';
    await refused(
      svc,
      withCaptcha({ clientAddr: addr, captchaAnswer: { turnstile: { client_response: 'guessed' } } }),
      'MATCHMAKER_CAPTCHA_INVALID',
    );
    assert.equal(turnstile.calls.at(-1)?.response, 'guessed');
    const before = hcaptcha.calls.length;
    await refused(
      svc,
      request({
        captcha: { ...captcha, captcha_provider_a: null },
        clientAddr: addr,
        captchaAnswer: { hcaptcha: { client_response: 'solved-a' } },
      }),
      'MATCHMAKER_CAPTCHA_INVALID',
    );
    assert.equal(hcaptcha.calls.length, before);
    // A refused answer is no pass.
    await refused(svc, withCaptcha({ clientAddr: addr }), 'MATCHMAKER_CAPTCHA_REQUIRED');
  });

  it(
    'shares a pass between instances on one PostgreSQL, and counts their requests together',
    pgOnly,
    async () => {
      const other = await secondInstance(svc, {
        GCM_CAPTCHA_A_VERIFY_URL: hcaptcha.url,
        GCM_CAPTCHA_B_VERIFY_URL: turnstile.url,
      });
      try {
        const addr = '192.0.2.7';
        await admitPlayer(
          svc.deps,
          withCaptcha({ clientAddr: addr, captchaAnswer: { hcaptcha: { client_response: 'solved-a' } } }),
        );
        await admitPlayer(other.deps, withCaptcha({ clientAddr: addr }));
        await admitPlayer(svc.deps, withCaptcha({ clientAddr: addr }));
        await refused(other, withCaptcha({ clientAddr: addr }), 'MATCHMAKER_CAPTCHA_REQUIRED');
      } finally {
        await other.close();
      }
    },
  );

  it('checks the captcha before calling the verification hook', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const both = withCaptcha({
        clientAddr: '192.0.2.6',
        verification: { url: `${receiver.url}/v`, headers: {} },
      });
      await refused(svc, both, 'MATCHMAKER_CAPTCHA_REQUIRED');
      assert.equal(receiver.requests.length, 0);
    } finally {
      await receiver.close();
    }
  });
});
