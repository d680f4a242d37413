/**
 * What /auth bodies may hold: every field of every better-auth endpoint the service serves has one type and
 * a length, checked before better-auth sees it (no 500 for a null name, no object stored as a name past its
 * limit, no number stored as "12345.0"); an unknown field is refused by name; an endpoint the service does
 * not serve is 404. And a role is exactly one of owner, admin, member, viewer wherever it is written: a
 * comma list would give better-auth's combined rights to a membership the service cannot read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH_BODIES } from '../../src/modules/accounts/auth-bodies.js';
import { assertError } from '../helpers/error-answer.js';
import { addMember, asPerson, authCall, newTeam, type Team } from '../helpers/people.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.js';

type Refusal = { code: string; metadata?: { field?: string; max_length?: number; auth_code?: string } };

describe('auth bodies: types and lengths before better-auth', () => {
  let svc: TestService;
  let team: Team;
  before(async () => {
    svc = await startTestService();
    team = await newTeam(svc, 'bodies');
  });
  after(() => svc.close());

  async function nameOf(cookie: string): Promise<string> {
    const res = await authCall(svc, 'GET', '/get-session', { cookie });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ user: { name: string } }>().user.name;
  }

  it('refuses a name that is not a string of 1-100 characters, and keeps the old one', async () => {
    const named = await authCall(svc, 'POST', '/update-user', {
      cookie: team.owner.cookie,
      body: { name: 'Lee' },
    });
    assert.equal(named.statusCode, 200, named.body);
    const before = await snapshotStore(svc.deps.db);
    const refused: [unknown, string][] = [
      [null, 'null'],
      [{}, 'an object'],
      [{ length: 1 }, 'an object with a length'],
      [12345, 'a number'],
      [['Lee'], 'a list'],
      [true, 'a boolean'],
      ['', 'empty'],
      ['x'.repeat(101), 'too long'],
    ];
    for (const [name, what] of refused) {
      const res = await authCall(svc, 'POST', '/update-user', { cookie: team.owner.cookie, body: { name } });
      const body = assertError<Refusal>(res, 400, 'API_BAD_BODY');
      assert.equal(body.metadata?.field, 'name', `${what}: ${res.body}`);
      assert.equal(body.metadata?.max_length, 100, what);
    }
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), []);
    assert.equal(await nameOf(team.owner.cookie), 'Lee');
    const longest = await authCall(svc, 'POST', '/update-user', {
      cookie: team.owner.cookie,
      body: { name: 'y'.repeat(100) },
    });
    assert.equal(longest.statusCode, 200, longest.body);
    assert.equal(await nameOf(team.owner.cookie), 'y'.repeat(100));
  });

  it('refuses a field the call does not take, by name', async () => {
    for (const [path, body, field] of [
      ['/update-user', { name: 'Lee', image: 'https://example.com/a.png' }, 'image'],
      ['/update-user', { email: 'other@example.com' }, 'email'],
      ['/sign-in/email', { email: 'a@example.com', password: 'x', extra: 1 }, 'extra'],
      ['/organization/create', { name: 'T', slug: 't-extra', metadata: { a: 1 } }, 'metadata'],
      ['/organization/update', { data: { name: 'T', logo: 'x' }, organizationId: team.teamId }, 'data.logo'],
      ['/sign-out', { anything: true }, 'anything'],
    ] as const) {
      const res = await authCall(svc, 'POST', path, { cookie: team.owner.cookie, body });
      const refused = assertError<Refusal>(res, 400, 'API_BAD_BODY');
      assert.equal(refused.metadata?.field, field, `${path}: ${res.body}`);
    }
  });

  it('holds every field of every endpoint it serves to its type, and names a missing one', async () => {
    const wrong = { string: 12345, boolean: 'yes', role: 'admin,member', object: ['a'] } as const;
    const checked: string[] = [];
    for (const [path, fields] of Object.entries(AUTH_BODIES)) {
      for (const [field, spec] of Object.entries(fields)) {
        const res = await authCall(svc, 'POST', path, {
          cookie: team.owner.cookie,
          body: { [field]: wrong[spec.type] },
        });
        const body = assertError<Refusal>(res, 400, 'API_BAD_BODY');
        // A required field missing before this one may be named first; this one, given badly, never passes.
        const named = body.metadata?.field;
        assert.ok(
          named === field || (named !== undefined && fields[named]?.required === true),
          `${path} ${field}: ${res.body}`,
        );
        checked.push(`${path} ${field}`);
      }
      const required = Object.entries(fields).filter(([, spec]) => spec.required === true);
      if (required.length > 0) {
        const res = await authCall(svc, 'POST', path, { cookie: team.owner.cookie, body: {} });
        const body = assertError<Refusal>(res, 400, 'API_BAD_BODY');
        assert.equal(body.metadata?.field, required[0]?.[0], `${path}: ${res.body}`);
      }
    }
    assert.ok(checked.length > 30, `only ${checked.length} fields checked`);
  });

  it('refuses a string over its length with the length in metadata', async () => {
    for (const [path, body, field, max] of [
      ['/sign-in/email', { email: `${'a'.repeat(250)}@x.io`, password: 'p' }, 'email', 254],
      ['/sign-in/email', { email: 'a@example.com', password: 'p'.repeat(129) }, 'password', 128],
      ['/organization/create', { name: 'n'.repeat(101), slug: 'ok' }, 'name', 100],
      ['/organization/leave', { organizationId: 'i'.repeat(65) }, 'organizationId', 64],
    ] as const) {
      const res = await authCall(svc, 'POST', path, { cookie: team.owner.cookie, body });
      const refused = assertError<Refusal>(res, 400, 'API_BAD_BODY');
      assert.equal(refused.metadata?.field, field, res.body);
      assert.equal(refused.metadata?.max_length, max, res.body);
    }
  });

  it('refuses a body that is not an object', async () => {
    for (const body of [[1, 2], 'text', 42]) {
      const res = await svc.call('POST', '/auth/sign-in/email', {
        token: null,
        headers: { origin: new URL(svc.deps.config.publicUrl).origin, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assertError(res, 400, 'API_BAD_BODY');
    }
  });

  it('does not serve better-auth endpoints the service does not set up', async () => {
    for (const path of [
      '/delete-user',
      '/update-session',
      '/sign-in/social',
      '/change-email',
      '/verify-password',
    ]) {
      const res = await authCall(svc, 'POST', path, { cookie: team.owner.cookie, body: {} });
      assertError(res, 404, 'API_NOT_FOUND');
    }
  });
});

describe('auth bodies: one role, never a list', () => {
  let svc: TestService;
  let team: Team;
  let memberCookie: string;
  let memberId: string;
  before(async () => {
    svc = await startTestService();
    team = await newTeam(svc, 'one-role');
    memberCookie = await addMember(svc, team, 'plain-member@example.com', 'member');
    const full = await authCall(
      svc,
      'GET',
      `/organization/get-full-organization?organizationId=${team.teamId}`,
      {
        cookie: team.owner.cookie,
      },
    );
    memberId = full
      .json<{ members: { id: string; user: { email: string } }[] }>()
      .members.find((m) => m.user.email === 'plain-member@example.com')?.id as string;
  });
  after(() => svc.close());

  async function rolesOf(cookie: string) {
    const res = await svc.call('GET', '/cloud/auth/inspect', { token: null, headers: asPerson(svc, cookie) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ agent: { person: { teams: { team_id: string; role: string }[] } } }>().agent.person
      .teams;
  }

  const LISTS: unknown[] = [
    'admin,member',
    'member,admin',
    'owner,viewer',
    ['admin', 'member'],
    ['admin'],
    'admin ',
    'Admin',
    '',
  ];

  it('refuses a list as the role of an invitation, and sends none', async () => {
    const before = await snapshotStore(svc.deps.db);
    for (const role of LISTS) {
      const res = await authCall(svc, 'POST', '/organization/invite-member', {
        cookie: team.owner.cookie,
        body: { email: 'listed@example.com', role, organizationId: team.teamId },
      });
      const body = assertError<Refusal>(res, 400, 'API_BAD_BODY');
      assert.equal(body.metadata?.field, 'role', `${JSON.stringify(role)}: ${res.body}`);
    }
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), []);
  });

  it('refuses a list as a member’s new role, and keeps the old one', async () => {
    const before = await snapshotStore(svc.deps.db);
    for (const role of LISTS) {
      const res = await authCall(svc, 'POST', '/organization/update-member-role', {
        cookie: team.owner.cookie,
        body: { memberId, role, organizationId: team.teamId },
      });
      const body = assertError<Refusal>(res, 400, 'API_BAD_BODY');
      assert.equal(body.metadata?.field, 'role', `${JSON.stringify(role)}: ${res.body}`);
    }
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), []);
    assert.deepEqual(await rolesOf(memberCookie), [{ team_id: team.teamId, role: 'member' }]);
    const one = await authCall(svc, 'POST', '/organization/update-member-role', {
      cookie: team.owner.cookie,
      body: { memberId, role: 'admin', organizationId: team.teamId },
    });
    assert.equal(one.statusCode, 200, one.body);
    assert.deepEqual(await rolesOf(memberCookie), [{ team_id: team.teamId, role: 'admin' }]);
  });

  it('refuses a list however better-auth is reached: its server API, or an invitation stored before', async () => {
    const user = await svc.deps.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', team.owner.email)
      .executeTakeFirstOrThrow();
    const other = await newTeam(svc, 'one-role-other');
    await assert.rejects(
      svc.deps.accounts.api.addMember({
        // Typed as better-auth's roles; the list is what a caller of its server API could still pass.
        body: { userId: user.id, role: 'admin,member' as 'admin', organizationId: other.teamId },
      }),
      (err: { body?: { code?: string } }) => err.body?.code === 'INVALID_ROLE',
    );
    // An invitation written with a list before the rule: accepting it makes no membership.
    const invite = await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: other.owner.cookie,
      body: { email: 'plain-member@example.com', role: 'viewer', organizationId: other.teamId },
    });
    assert.equal(invite.statusCode, 200, invite.body);
    const invitationId = invite.json<{ id: string }>().id;
    await svc.deps.db
      .updateTable('team_invitations')
      .set({ role: 'admin,member' })
      .where('id', '=', invitationId)
      .execute();
    const accept = await authCall(svc, 'POST', '/organization/accept-invitation', {
      cookie: memberCookie,
      body: { invitationId },
    });
    const refused = assertError<Refusal>(accept, 400, 'AUTH_REFUSED');
    assert.equal(refused.metadata?.auth_code, 'INVALID_ROLE', accept.body);
    assert.deepEqual(await rolesOf(memberCookie), [{ team_id: team.teamId, role: 'admin' }]);
  });
});
