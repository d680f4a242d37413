/**
 * What guards people's accounts against strangers, through the real HTTP stack: sign-up answers that do not
 * tell which emails have accounts, the password strength check, the per-account limit on failed sign-ins
 * (shared by instances on PostgreSQL) and the cap on password hashes running at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { authCall, newTeam, PASSWORD, sessionCookie, signIn, signUp } from '../helpers/people.js';
import { secondInstance, startTestService, type TestService } from '../helpers/service.js';
import { Mailbox } from '../helpers/smtp.js';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.js';
// Store-independent work (the validator, the worker pool, address and password checks): the SQLite run
// covers it, and the PostgreSQL run would only pay for it twice.
import { pgOnly, sqliteOnly } from '../helpers/stores.js';
import { HANG_MS, until } from '../helpers/until.js';

/** What a refusal says, without its ray id (which differs per request). */
function refusalOf(res: LightMyRequestResponse) {
  const { ray_id: _ray, ...rest } = res.json<{ ray_id: string }>();
  return { status: res.statusCode, ...rest };
}

describe('sign-up does not tell which emails have accounts', () => {
  for (const mode of ['invite', 'off'] as const) {
    it(`${mode}: an email with an account is refused exactly as one without`, async () => {
      const svc = await startTestService({ env: { GCM_SIGNUP: mode } });
      try {
        const team = await newTeam(svc, `enum-${mode}`);
        const signUp = (email: string) =>
          authCall(svc, 'POST', '/sign-up/email', { body: { email, password: PASSWORD, name: 'Probe' } });
        const known = refusalOf(await signUp(team.owner.email));
        const unknown = refusalOf(await signUp('nobody-here@example.com'));
        assert.ok(known.status >= 400, JSON.stringify(known));
        assert.deepEqual(known, unknown);
      } finally {
        await svc.close();
      }
    });
  }
});

interface WeakRefusal {
  code: string;
  message: string;
  metadata: { field: string; score: number; min_score: number; warning?: string; suggestions: string[] };
}

function assertTooWeak(res: LightMyRequestResponse, field: string): WeakRefusal {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json<WeakRefusal>();
  assert.equal(body.code, 'PASSWORD_TOO_WEAK');
  assert.equal(body.metadata.field, field);
  assert.ok(body.metadata.score < body.metadata.min_score, res.body);
  assert.match(body.message, new RegExp(`^${field} is too easy to guess`));
  assert.ok(
    body.metadata.warning !== undefined || body.metadata.suggestions.length > 0,
    `the estimator's feedback is missing: ${res.body}`,
  );
  return body;
}

describe('new passwords must be hard to guess (zxcvbn)', sqliteOnly, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { GCM_SIGNUP: 'open' } });
  });
  after(() => svc.close());

  it('refuses weak sign-up passwords with the estimator’s feedback, and makes no account', async () => {
    const before = await snapshotStore(svc.deps.db);
    for (const password of ['password12', '1234567890', ' '.repeat(10), 'weakling@example.com']) {
      const res = await authCall(svc, 'POST', '/sign-up/email', {
        body: { email: 'weakling@example.com', password, name: 'Weakling' },
      });
      const body = assertTooWeak(res, 'password');
      if (password === 'password12') assert.match(body.metadata.warning ?? '', /commonly used password/);
    }
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), []);
    await signUp(svc, 'weakling@example.com');
  });

  it('refuses a weak new password at a change and at a reset, which stays usable', async () => {
    const cookie = await signUp(svc, 'changer@example.com');
    const change = await authCall(svc, 'POST', '/change-password', {
      cookie,
      body: { currentPassword: PASSWORD, newPassword: '1234567890' },
    });
    assertTooWeak(change, 'newPassword');
    await signIn(svc, 'changer@example.com', PASSWORD);

    const made = await svc.call('POST', '/cloud/teams', {
      body: { name: 'Reset', slug: 'weak-reset-two', owner_email: 'resetter@example.com' },
    });
    assert.equal(made.statusCode, 200, made.body);
    const token = made.json<{ password_setup: { token: string } }>().password_setup.token;
    const weak = await authCall(svc, 'POST', '/reset-password', {
      body: { token, newPassword: 'qwertyuiop' },
    });
    assertTooWeak(weak, 'newPassword');
    const strong = await authCall(svc, 'POST', '/reset-password', { body: { token, newPassword: PASSWORD } });
    assert.equal(strong.statusCode, 200, strong.body);
    await signIn(svc, 'resetter@example.com');
  });

  it('can be turned off (GCM_PASSWORD_MIN_SCORE=0): only the length rule is left', async () => {
    const lax = await startTestService({ env: { GCM_SIGNUP: 'open', GCM_PASSWORD_MIN_SCORE: '0' } });
    try {
      const res = await authCall(lax, 'POST', '/sign-up/email', {
        body: { email: 'lax@example.com', password: '1234567890', name: 'Lax' },
      });
      assert.equal(res.statusCode, 200, res.body);
    } finally {
      await lax.close();
    }
  });
});

/** A sign-in through a trusted proxy, from `address` (X-Forwarded-For): each address its own client. */
function signInFrom(svc: TestService, address: string, email: string, password: string) {
  return authCall(svc, 'POST', '/sign-in/email', {
    body: { email, password },
    headers: { 'x-forwarded-for': address },
  });
}

function assertPaused(res: LightMyRequestResponse, seconds: number): void {
  assert.equal(res.statusCode, 429, res.body);
  const body = res.json<{ code: string; metadata: { retry_after_seconds: number } }>();
  assert.equal(body.code, 'SIGN_IN_PAUSED');
  assert.equal(body.metadata.retry_after_seconds, seconds);
  assert.equal(res.headers['retry-after'], String(seconds));
}

/** `count` wrong passwords for `email`, each from an address of its own; each must be an ordinary 401. */
async function failSignIns(svc: TestService, email: string, count: number, first = 0): Promise<void> {
  for (let i = first; i < first + count; i += 1) {
    const res = await signInFrom(svc, `203.0.113.${(i % 250) + 1}`, email, `wrong guess number ${i}`);
    assert.equal(res.statusCode, 401, `failure ${i + 1}: ${res.body}`);
  }
}

/**
 * Declares, in the calling suite, a service behind a trusted proxy (open sign-up, `env` added) that mails
 * through a real SMTP server: the getters are for its tests.
 */
function mailedService(env: Record<string, string> = {}) {
  let mailbox: Mailbox | undefined;
  let svc: TestService | undefined;
  before(async () => {
    mailbox = await new Mailbox().start();
    svc = await startTestService({
      env: { GCM_SIGNUP: 'open', GCM_TRUST_PROXY: 'loopback', GCM_SMTP_URL: mailbox.url, ...env },
    });
  });
  after(async () => {
    await svc?.close();
    await mailbox?.close();
  });
  return {
    get svc(): TestService {
      assert.ok(svc !== undefined);
      return svc;
    },
    get mailbox(): Mailbox {
      assert.ok(mailbox !== undefined);
      return mailbox;
    },
  };
}

describe('failed sign-ins per account, from spread addresses (20 per window by default)', () => {
  const world = mailedService();

  it('pauses the account after 20 failures, the right password too, and lets the owner in a minute later', async () => {
    const { svc, mailbox } = world;
    const email = 'guessed@example.com';
    await signUp(svc, email);
    await failSignIns(svc, email, 20);
    assertPaused(await signInFrom(svc, '198.51.100.1', email, PASSWORD), 60);
    assertPaused(await signInFrom(svc, '198.51.100.2', email.toUpperCase(), 'another wrong guess'), 60);
    const mail = await mailbox.mailTo(email, /Failed sign-ins/);
    assert.match(mail.text, /20 times/);

    svc.clock.advance(30_000);
    assertPaused(await signInFrom(svc, '198.51.100.3', email, PASSWORD), 30);
    svc.clock.advance(30_000);
    const owner = await signInFrom(svc, '198.51.100.4', email, PASSWORD);
    assert.equal(owner.statusCode, 200, owner.body);
    sessionCookie(owner);
  });
});

describe('failed sign-ins per account: growing pauses', () => {
  const world = mailedService({ GCM_SIGN_IN_FAILURES_PER_ACCOUNT: '3' });

  it('pauses twice as long each time within a day, mailing the owner once', async () => {
    const { svc, mailbox } = world;
    const email = 'persistent@example.com';
    await signUp(svc, email);
    for (const [round, seconds] of [60, 120, 240].entries()) {
      await failSignIns(svc, email, 3, round * 3);
      assertPaused(await signInFrom(svc, '198.51.100.11', email, PASSWORD), seconds);
      svc.clock.advance(seconds * 1000);
      const owner = await signInFrom(svc, '198.51.100.12', email, PASSWORD);
      assert.equal(owner.statusCode, 200, owner.body);
    }
    await mailbox.mailTo(email, /Failed sign-ins/);
    // Not proof that no later mail is under way, but each pause's notice has had two sign-ins' time to go.
    assert.equal(mailbox.received.filter((m) => m.to.includes(email)).length, 1);
  });

  it('pauses an email with no account alike, and mails nobody', async () => {
    const { svc, mailbox } = world;
    const email = 'no-such-person@example.com';
    await failSignIns(svc, email, 3);
    assertPaused(await signInFrom(svc, '198.51.100.13', email, PASSWORD), 60);
    assert.equal(mailbox.received.filter((m) => m.to.includes(email)).length, 0);
  });

  it('leaves other accounts alone', async () => {
    const { svc } = world;
    await signUp(svc, 'bystander@example.com');
    await failSignIns(svc, 'someone-else@example.com', 3);
    const res = await signInFrom(svc, '203.0.113.1', 'bystander@example.com', PASSWORD);
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('failed sign-ins per account across two instances on one PostgreSQL', () => {
  it('counts the failures of both instances together', pgOnly, async () => {
    const env = { GCM_SIGNUP: 'open', GCM_TRUST_PROXY: 'loopback', GCM_SIGN_IN_FAILURES_PER_ACCOUNT: '6' };
    const first = await startTestService({ env });
    const second = await secondInstance(first, env);
    try {
      const email = 'shared@example.com';
      await signUp(first, email);
      await failSignIns(first, email, 3);
      await failSignIns(second, email, 3, 3);
      assertPaused(await signInFrom(first, '198.51.100.8', email, PASSWORD), 60);
      assertPaused(await signInFrom(second, '198.51.100.9', email, PASSWORD), 60);
      first.clock.advance(60_000);
      assert.equal((await signInFrom(second, '198.51.100.10', email, PASSWORD)).statusCode, 200);
    } finally {
      await second.close();
      await first.close();
    }
  });
});

describe('password hashes run a few at once (GCM_PASSWORD_HASH_CONCURRENCY)', sqliteOnly, () => {
  /** `count` sign-ins at once on a service with `env`: their statuses, and the most hashes that ran at once. */
  async function concurrentSignIns(env: Record<string, string>, count: number) {
    const svc = await startTestService({ env: { GCM_SIGNUP: 'open', ...env } });
    try {
      await signUp(svc, 'crowd@example.com');
      const answers = await Promise.all(
        Array.from({ length: count }, () =>
          authCall(svc, 'POST', '/sign-in/email', {
            body: { email: 'crowd@example.com', password: PASSWORD },
          }),
        ),
      );
      const gauge = await svc.deps.metrics.render();
      return {
        statuses: answers.map((a) => a.statusCode),
        codes: answers.map((a) => (a.statusCode === 200 ? 'ok' : a.json<{ code: string }>().code)),
        stats: svc.deps.passwordHashing.stats,
        gauge,
      };
    } finally {
      await svc.close();
    }
  }

  it('queues 8 sign-ins at once behind a cap of 2: never more than 2 hashes run, and all get in', async () => {
    const capped = await concurrentSignIns({ GCM_PASSWORD_HASH_CONCURRENCY: '2' }, 8);
    assert.deepEqual(capped.statuses, Array(8).fill(200));
    assert.equal(capped.stats.peak, 2);
    assert.match(capped.gauge, /gcm_password_hashes\{state="running"\} 0/);
    assert.match(capped.gauge, /gcm_password_hashes\{state="waiting"\} 0/);
  });

  it('(the same count sees more than 2 at once without the cap: the measure can fail)', async () => {
    const uncapped = await concurrentSignIns({ GCM_PASSWORD_HASH_CONCURRENCY: '0' }, 8);
    assert.deepEqual(uncapped.statuses, Array(8).fill(200));
    assert.ok(uncapped.stats.peak > 2, `peak ${uncapped.stats.peak}`);
  });

  it('refuses 503 PASSWORD_HASHING_BUSY while the queue is full, and takes sign-ins again after', async () => {
    const svc = await startTestService({
      env: { GCM_SIGNUP: 'open', GCM_PASSWORD_HASH_CONCURRENCY: '1', GCM_PASSWORD_HASH_QUEUE_MAX: '1' },
    });
    try {
      await signUp(svc, 'queue@example.com');
      const signInNow = () =>
        authCall(svc, 'POST', '/sign-in/email', { body: { email: 'queue@example.com', password: PASSWORD } });
      const first = signInNow();
      const second = signInNow();
      await until('one hash running and one waiting', HANG_MS, () => {
        const { running, waiting } = svc.deps.passwordHashing.stats;
        return running === 1 && waiting === 1;
      });
      // Sent while the first hash (tens of milliseconds of scrypt at least) still runs.
      const third = await signInNow();
      assert.equal(third.statusCode, 503, third.body);
      assert.equal(third.json<{ code: string }>().code, 'PASSWORD_HASHING_BUSY');
      assert.equal(third.headers['retry-after'], '2');
      assert.equal((await first).statusCode, 200);
      assert.equal((await second).statusCode, 200);
      assert.equal((await signInNow()).statusCode, 200);
      assert.equal(svc.deps.passwordHashing.stats.peak, 1);
    } finally {
      await svc.close();
    }
  });
});
