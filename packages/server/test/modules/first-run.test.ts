/**
 * The first-run setup link (docs/first-run.md) through the real HTTP stack, on SQLite and PostgreSQL: the
 * first start of a store with no team keeps its secret in the store and in the data dir (0600); a restart
 * keeps the same link; wrong, forged and malformed secrets are refused and change nothing; the setup makes
 * the first team and its owner with sign-up's password rules, signs the owner in and is then gone for good
 * (the file too); of setups at once, on one instance or two, exactly one succeeds; a team made by the
 * operator first retires the link; the calls are limited per address like sign-in.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { SETUP_FILE } from '../../src/modules/first-run/first-run.service.js';
import { PASSWORD, sessionCookie } from '../helpers/people.js';
import { dropTestDatabase, onPostgres } from '../helpers/postgres.js';
import { secondInstance, startTestService, type TestService } from '../helpers/service.js';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.js';
import { pgOnly } from '../helpers/stores.js';

function setupSecret(svc: TestService): string {
  return readFileSync(path.join(svc.dataDir, SETUP_FILE), 'utf8').trim();
}

function status(svc: TestService, secret: string) {
  return svc.call('POST', '/cloud/setup/status', { token: null, body: { secret } });
}

function setUp(svc: TestService, secret: string, overrides: Record<string, string> = {}) {
  return svc.call('POST', '/cloud/setup', {
    token: null,
    body: {
      secret,
      team_name: 'First Studio',
      team_slug: 'first-studio',
      name: 'Nina Owner',
      email: 'nina@studio.test',
      password: PASSWORD,
      ...overrides,
    },
  });
}

function code(res: LightMyRequestResponse): string {
  return res.json<{ code: string }>().code;
}

describe('first-run setup link', () => {
  const dirs: string[] = [];
  const services: TestService[] = [];
  after(async () => {
    for (const svc of services) await svc.close();
    for (const dir of dirs) {
      rmSync(dir, { recursive: true, force: true });
      if (onPostgres) await dropTestDatabase(dir);
    }
  });
  /** A service on a data dir this suite owns, so it can be restarted over the same store. */
  async function start(dataDir: string, env: Record<string, string> = {}): Promise<TestService> {
    const svc = await startTestService({ dataDir, env });
    services.push(svc);
    return svc;
  }
  function newDir(): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-first-run-'));
    dirs.push(dir);
    return dir;
  }

  it('refuses wrong, forged and malformed secrets, changing nothing; a restart keeps the same link', async () => {
    const dir = newDir();
    let svc = await start(dir);
    const file = path.join(dir, SETUP_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const secret = setupSecret(svc);
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/, 'a 256-bit secret');

    const before = await snapshotStore(svc.deps.db);
    const forged = randomBytes(32).toString('base64url');
    const almost = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const wrong of [forged, almost, 'x']) {
      const res = await status(svc, wrong);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(code(res), 'SETUP_LINK_INVALID');
      assert.match(res.json<{ message: string }>().message, /copy it again from the start log/);
      const made = await setUp(svc, wrong);
      assert.equal(made.statusCode, 403, made.body);
      assert.equal(code(made), 'SETUP_LINK_INVALID');
    }
    const long = await status(svc, 'a'.repeat(101));
    assert.equal(long.statusCode, 400, long.body);
    assert.equal(code(long), 'API_BAD_BODY');
    // A weak password is refused before the link is claimed: the link stays open.
    const weak = await setUp(svc, secret, { password: 'password12' });
    assert.equal(weak.statusCode, 400, weak.body);
    assert.equal(code(weak), 'PASSWORD_TOO_WEAK');
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), []);

    const open = await status(svc, secret);
    assert.equal(open.statusCode, 200, open.body);
    assert.deepEqual(open.json(), { status: 'open' });

    await svc.close();
    services.splice(services.indexOf(svc), 1);
    svc = await start(dir);
    assert.equal(setupSecret(svc), secret, 'the same link after a restart, until it is used');
    assert.equal((await status(svc, secret)).statusCode, 200);
  });

  it('makes the first team and its owner, signs them in, and is then gone for good', async () => {
    const dir = newDir();
    let svc = await start(dir);
    const secret = setupSecret(svc);
    const res = await setUp(svc, secret);
    assert.equal(res.statusCode, 200, res.body);
    const made = res.json<{ team_id: string; user_id: string; email: string }>();
    assert.equal(made.email, 'nina@studio.test');
    assert.equal(existsSync(path.join(dir, SETUP_FILE)), false, 'the file goes with the link');

    // Signed in: the session the answer set is the owner's, in the new team.
    const cookie = sessionCookie(res);
    const inspect = await svc.call('GET', '/cloud/auth/inspect', {
      token: null,
      headers: { cookie, origin: new URL(svc.deps.config.publicUrl).origin },
    });
    assert.equal(inspect.statusCode, 200, inspect.body);
    const person = inspect.json<{ agent: { person: { email: string; teams: unknown[] } } }>().agent.person;
    assert.equal(person.email, 'nina@studio.test');
    assert.deepEqual(person.teams, [{ team_id: made.team_id, role: 'owner' }]);
    // And the password works for signing in again.
    const signIn = await svc.call('POST', '/auth/sign-in/email', {
      token: null,
      headers: { origin: new URL(svc.deps.config.publicUrl).origin },
      body: { email: 'nina@studio.test', password: PASSWORD },
    });
    assert.equal(signIn.statusCode, 200, signIn.body);

    // Used: whatever the secret, the answer is that the link is gone.
    const before = await snapshotStore(svc.deps.db);
    for (const again of [secret, randomBytes(32).toString('base64url')]) {
      const checked = await status(svc, again);
      assert.equal(checked.statusCode, 410, checked.body);
      assert.equal(code(checked), 'SETUP_DONE');
      assert.match(checked.json<{ message: string }>().message, /it was used; sign in instead/);
      const second = await setUp(svc, again, { team_slug: 'second', email: 'eve@studio.test' });
      assert.equal(second.statusCode, 410, second.body);
      assert.equal(code(second), 'SETUP_DONE');
    }
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), []);

    // A restart makes no new link.
    await svc.close();
    services.splice(services.indexOf(svc), 1);
    svc = await start(dir);
    assert.equal(existsSync(path.join(dir, SETUP_FILE)), false);
    assert.equal((await status(svc, secret)).statusCode, 410);
  });

  it('lets exactly one of several setups at once succeed', async () => {
    const svc = await start(newDir());
    const secret = setupSecret(svc);
    const answers = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        setUp(svc, secret, { team_slug: `studio-${n}`, email: `owner${n}@studio.test` }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.deepEqual(statuses, [200, 410, 410, 410], answers.map((a) => a.body).join('\n'));
    const teams = await svc.deps.db.selectFrom('teams').select('slug').execute();
    assert.equal(teams.length, 1);
    const users = await svc.deps.db.selectFrom('users').select('email').execute();
    assert.equal(users.length, 1, 'the refused setups made no account');
  });

  it('lets exactly one setup succeed across two instances of one store', pgOnly, async () => {
    const first = await start(newDir());
    const second = await secondInstance(first);
    services.push(second);
    const secret = setupSecret(first);
    const answers = await Promise.all([
      setUp(first, secret, { team_slug: 'one', email: 'one@studio.test' }),
      setUp(second, secret, { team_slug: 'two', email: 'two@studio.test' }),
    ]);
    assert.deepEqual(
      answers.map((a) => a.statusCode).sort(),
      [200, 410],
      answers.map((a) => a.body).join('\n'),
    );
    const teams = await first.deps.db.selectFrom('teams').select('slug').execute();
    assert.equal(teams.length, 1);
  });

  it('is retired when the operator made a team first', async () => {
    const dir = newDir();
    let svc = await start(dir);
    const secret = setupSecret(svc);
    const team = await svc.call('POST', '/cloud/teams', {
      body: { name: 'By the operator', slug: 'operator-made', owner_email: 'op@studio.test' },
    });
    assert.equal(team.statusCode, 200, team.body);
    const res = await status(svc, secret);
    assert.equal(res.statusCode, 410, res.body);
    assert.match(res.json<{ message: string }>().message, /a team was made another way/);
    await svc.close();
    services.splice(services.indexOf(svc), 1);
    svc = await start(dir);
    assert.equal(existsSync(path.join(dir, SETUP_FILE)), false, 'no link on a store that has a team');
  });

  it('limits the calls per address like sign-in', async () => {
    const svc = await start(newDir(), { GCM_RATE_LIMIT_ACCOUNT_CALLS: '3' });
    const forged = randomBytes(32).toString('base64url');
    for (let i = 0; i < 3; i += 1) assert.equal((await status(svc, forged)).statusCode, 403);
    const limited = await status(svc, setupSecret(svc));
    assert.equal(limited.statusCode, 429, limited.body);
    assert.equal(code(limited), 'RATE_LIMITED');
  });
});
