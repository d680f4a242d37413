/**
 * People and teams through the real HTTP stack: better-auth's /auth endpoints as mounted by the service,
 * the operator's team call, session cookies as callers of /cloud routes with each role, CSRF refusals,
 * invitations (accept, decline, cancel, expire), sign-out and session revocation (across two instances on
 * PostgreSQL), and the per-address limit on /auth.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revokeStrandedPersonTokens } from '../../src/modules/tokens/tokens.service.js';
import {
  addMember,
  asPerson,
  authCall,
  giveGame,
  newTeam,
  PASSWORD,
  sessionCookie,
  signIn,
  signUp,
  type Team,
} from '../helpers/people.js';
import { createGameFixture, secondInstance, startTestService, type TestService } from '../helpers/service.js';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.js';
import { pgOnly } from '../helpers/stores.js';

function code(res: { json: <T>() => T }): string {
  return res.json<{ code: string }>().code;
}

describe('accounts: sign-up, sign-in, sessions', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('is by invitation by default: an email nobody invited cannot sign up, and nothing is written', async () => {
    const before = await snapshotStore(svc.deps.db);
    const res = await authCall(svc, 'POST', '/sign-up/email', {
      body: { email: 'stranger@example.com', password: PASSWORD, name: 'Stranger' },
    });
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(
      res.json<{ metadata: { auth_code: string } }>().metadata.auth_code,
      'SIGN_UP_BY_INVITATION_ONLY',
    );
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), []);
  });

  it('lets the operator make a team for a new owner, who sets a password with the setup token', async () => {
    const team = await newTeam(svc, 'first-studio');
    const inspect = await svc.call('GET', '/cloud/auth/inspect', {
      token: null,
      headers: asPerson(svc, team.owner.cookie),
    });
    assert.equal(inspect.statusCode, 200, inspect.body);
    const person = inspect.json<{ agent: { person: { email: string; teams: unknown[] } } }>().agent.person;
    assert.equal(person.email, team.owner.email);
    assert.deepEqual(person.teams, [{ team_id: team.teamId, role: 'owner' }]);
  });

  it('adds an existing account as the owner of another team, with no setup token', async () => {
    const first = await newTeam(svc, 'studio-two');
    const res = await svc.call('POST', '/cloud/teams', {
      body: { name: 'Second', slug: 'studio-two-b', owner_email: first.owner.email.toUpperCase() },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json<{ owner: { new_account: boolean }; password_setup?: unknown }>();
    assert.equal(body.owner.new_account, false);
    assert.equal(body.password_setup, undefined);
  });

  it('refuses a taken slug before making any account', async () => {
    await newTeam(svc, 'taken-slug');
    const before = await snapshotStore(svc.deps.db);
    const res = await svc.call('POST', '/cloud/teams', {
      body: { name: 'Again', slug: 'taken-slug', owner_email: 'someone-new@example.com' },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json<{ metadata: { field: string } }>().metadata.field, 'slug');
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), []);
  });

  it('sets an HttpOnly, SameSite=Lax session cookie and never puts the session token in a body', async () => {
    const team = await newTeam(svc, 'cookie-check');
    const res = await authCall(svc, 'POST', '/sign-in/email', {
      body: { email: team.owner.email, password: PASSWORD },
    });
    assert.equal(res.statusCode, 200, res.body);
    const raw = String(res.headers['set-cookie']);
    assert.match(raw, /HttpOnly/);
    assert.match(raw, /SameSite=Lax/);
    assert.doesNotMatch(raw, /Secure/, 'plain http public URL: no Secure attribute');
    const token = sessionCookie(res).split('=')[1]?.split('.')[0] as string;
    assert.ok(token.length > 10);
    assert.ok(!res.body.includes(token), 'the sign-in answer holds the session token');
    const session = await authCall(svc, 'GET', '/get-session', { cookie: sessionCookie(res) });
    assert.equal(session.statusCode, 200, session.body);
    assert.ok(!session.body.includes(token), 'get-session holds the session token');
    assert.equal(session.json<{ user: { email: string } }>().user.email, team.owner.email);
  });

  it('refuses a wrong password with 401 and better-auth’s code', async () => {
    const team = await newTeam(svc, 'wrong-password');
    const res = await authCall(svc, 'POST', '/sign-in/email', {
      body: { email: team.owner.email, password: 'not the password' },
    });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(code(res), 'API_UNAUTHORIZED');
    assert.equal(
      res.json<{ metadata: { auth_code: string } }>().metadata.auth_code,
      'INVALID_EMAIL_OR_PASSWORD',
    );
  });

  it('ends a session at sign-out: the old cookie is refused at once', async () => {
    const team = await newTeam(svc, 'sign-out');
    const cookie = await signIn(svc, team.owner.email);
    const ok = await svc.call('GET', '/cloud/games', { token: null, headers: asPerson(svc, cookie) });
    assert.equal(ok.statusCode, 200, ok.body);
    const out = await authCall(svc, 'POST', '/sign-out', { cookie });
    assert.equal(out.statusCode, 200, out.body);
    const after = await svc.call('GET', '/cloud/games', { token: null, headers: asPerson(svc, cookie) });
    assert.equal(after.statusCode, 401, after.body);
    assert.equal(code(after), 'API_UNAUTHORIZED');
  });

  it('changes a password, ending the other sessions when asked', async () => {
    const team = await newTeam(svc, 'change-password');
    const other = await signIn(svc, team.owner.email);
    const res = await authCall(svc, 'POST', '/change-password', {
      cookie: team.owner.cookie,
      body: { currentPassword: PASSWORD, newPassword: 'a brand new passphrase', revokeOtherSessions: true },
    });
    assert.equal(res.statusCode, 200, res.body);
    const stale = await svc.call('GET', '/cloud/games', { token: null, headers: asPerson(svc, other) });
    assert.equal(stale.statusCode, 401, stale.body);
    await signIn(svc, team.owner.email, 'a brand new passphrase');
  });

  it('refuses strings over the limit with a message naming the field', async () => {
    const res = await authCall(svc, 'POST', '/sign-in/email', {
      body: { email: 'a@example.com', password: 'x'.repeat(5000) },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(code(res), 'API_BAD_BODY');
    assert.match(res.json<{ message: string }>().message, /password/);
  });
});

describe('accounts: sign-up modes', () => {
  it('open: anyone signs up; off: nobody does', async () => {
    const open = await startTestService({ env: { GCM_SIGNUP: 'open' } });
    try {
      await signUp(open, 'walk-in@example.com');
    } finally {
      await open.close();
    }
    const off = await startTestService({ env: { GCM_SIGNUP: 'off' } });
    try {
      const res = await authCall(off, 'POST', '/sign-up/email', {
        body: { email: 'walk-in@example.com', password: PASSWORD, name: 'Walk In' },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(
        res.json<{ metadata: { auth_code: string } }>().metadata.auth_code,
        'EMAIL_PASSWORD_SIGN_UP_DISABLED',
      );
    } finally {
      await off.close();
    }
  });

  it('marks the cookie Secure when the public URL is https', async () => {
    const secure = await startTestService({
      env: { GCM_PUBLIC_URL: 'https://cloud.example.com', GCM_SIGNUP: 'open' },
    });
    try {
      const res = await secure.call('POST', '/auth/sign-up/email', {
        token: null,
        headers: { origin: 'https://cloud.example.com' },
        body: { email: 'secure@example.com', password: PASSWORD, name: 'Secure' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['set-cookie']), /__Secure-gcm\.session_token=.*; Secure/);
    } finally {
      await secure.close();
    }
  });
});

describe('accounts: teams, roles and CSRF', () => {
  let svc: TestService;
  let team: Team;
  let gameId: string;
  let member: string;
  let viewer: string;
  let outsider: Team;
  before(async () => {
    svc = await startTestService({ env: { GCM_TRUSTED_ORIGINS: 'https://dash.example.com' } });
    team = await newTeam(svc, 'roles');
    outsider = await newTeam(svc, 'outsiders');
    gameId = (await createGameFixture(svc, 'roles-game')).gameId;
    await giveGame(svc, gameId, team.teamId);
    member = await addMember(svc, team, 'member@example.com', 'member');
    viewer = await addMember(svc, team, 'viewer@example.com', 'viewer');
  });
  after(() => svc.close());

  it('shows each person the games of their teams only', async () => {
    const mine = await svc.call('GET', '/cloud/games', { token: null, headers: asPerson(svc, viewer) });
    assert.deepEqual(
      mine.json<{ games: { game_id: string }[] }>().games.map((g) => g.game_id),
      [gameId],
    );
    const theirs = await svc.call('GET', '/cloud/games', {
      token: null,
      headers: asPerson(svc, outsider.owner.cookie),
    });
    assert.deepEqual(theirs.json<{ games: unknown[] }>().games, []);
    const read = await svc.call('GET', `/cloud/games/${gameId}`, {
      token: null,
      headers: asPerson(svc, outsider.owner.cookie),
    });
    assert.equal(read.statusCode, 403, read.body);
  });

  it('lets a viewer read but not write, and a member write', async () => {
    const read = await svc.call('GET', `/cloud/games/${gameId}`, {
      token: null,
      headers: asPerson(svc, viewer),
    });
    assert.equal(read.statusCode, 200, read.body);
    const body = { display_name: 'by a person', config: {} };
    const refused = await svc.call('POST', `/cloud/games/${gameId}/versions`, {
      token: null,
      headers: asPerson(svc, viewer),
      body,
    });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.match(refused.json<{ message: string }>().message, /member role/);
    const made = await svc.call('POST', `/cloud/games/${gameId}/versions`, {
      token: null,
      headers: asPerson(svc, member),
      body,
    });
    assert.equal(made.statusCode, 200, made.body);
  });

  it('lets an owner make a game in their team, and nobody in a team they are not admin of', async () => {
    const made = await svc.call('POST', '/cloud/games', {
      token: null,
      headers: asPerson(svc, team.owner.cookie),
      body: { name_id: 'owned-by-team', display_name: 'Owned', team_id: team.teamId },
    });
    assert.equal(made.statusCode, 200, made.body);
    const list = await svc.call('GET', '/cloud/games', { token: null, headers: asPerson(svc, member) });
    assert.ok(list.body.includes('owned-by-team'));
    const missing = await svc.call('POST', '/cloud/games', {
      token: null,
      headers: asPerson(svc, team.owner.cookie),
      body: { name_id: 'no-team', display_name: 'No team' },
    });
    assert.equal(missing.statusCode, 400, missing.body);
    assert.equal(missing.json<{ metadata: { field: string } }>().metadata.field, 'team_id');
    const elsewhere = await svc.call('POST', '/cloud/games', {
      token: null,
      headers: asPerson(svc, outsider.owner.cookie),
      body: { name_id: 'not-theirs', display_name: 'Not theirs', team_id: team.teamId },
    });
    assert.equal(elsewhere.statusCode, 403, elsewhere.body);
  });

  it('refuses a cookie write from another origin, or with no origin at all, and changes nothing', async () => {
    const before = await snapshotStore(svc.deps.db);
    const refusedHeaders: Record<string, string>[] = [
      { cookie: member, origin: 'https://evil.example' },
      { cookie: member },
      { cookie: member, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of refusedHeaders) {
      const res = await svc.call('POST', `/cloud/games/${gameId}/versions`, {
        token: null,
        headers,
        body: { display_name: 'csrf', config: {} },
      });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(code(res), 'AUTH_CROSS_ORIGIN');
    }
    assert.deepEqual(diffSnapshots(before, await snapshotStore(svc.deps.db)), []);
    const trusted = await svc.call('POST', `/cloud/games/${gameId}/versions`, {
      token: null,
      headers: { cookie: member, origin: 'https://dash.example.com' },
      body: { display_name: 'from the dashboard', config: {} },
    });
    assert.equal(trusted.statusCode, 200, trusted.body);
    const sameOrigin = await svc.call('POST', `/cloud/games/${gameId}/versions`, {
      token: null,
      headers: { cookie: member, 'sec-fetch-site': 'same-origin' },
      body: { display_name: 'same origin', config: {} },
    });
    assert.equal(sameOrigin.statusCode, 200, sameOrigin.body);
  });

  it('refuses better-auth’s own cookie writes from another origin', async () => {
    const res = await svc.call('POST', '/auth/organization/create', {
      token: null,
      headers: { cookie: member, origin: 'https://evil.example' },
      body: { name: 'Evil', slug: 'evil' },
    });
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json<{ code: string }>().code, 'AUTH_CROSS_ORIGIN');
  });

  it('lets a bearer token win over a cookie', async () => {
    const res = await svc.call('GET', `/cloud/games/${gameId}`, {
      headers: { cookie: outsider.owner.cookie },
    });
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('accounts: invitations', () => {
  let svc: TestService;
  let team: Team;
  /** A service whose invitations live a few seconds: long enough to sign up by one on a loaded machine. */
  let shortLived: TestService;
  let shortTeam: Team;
  const SHORT_TTL_MS = 4_000;
  before(async () => {
    svc = await startTestService();
    team = await newTeam(svc, 'inviting');
    shortLived = await startTestService({ env: { GCM_INVITATION_TTL_SECONDS: String(SHORT_TTL_MS / 1000) } });
    shortTeam = await newTeam(shortLived, 'short');
  });
  after(async () => {
    await svc.close();
    await shortLived.close();
  });

  async function invite(email: string, role = 'member', on = { svc, team }): Promise<string> {
    const res = await authCall(on.svc, 'POST', '/organization/invite-member', {
      cookie: on.team.owner.cookie,
      body: { email, role, organizationId: on.team.teamId },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ id: string }>().id;
  }

  it('lets an invited person decline, and then not accept', async () => {
    const id = await invite('decliner@example.com');
    const cookie = await signUp(svc, 'decliner@example.com');
    const no = await authCall(svc, 'POST', '/organization/reject-invitation', {
      cookie,
      body: { invitationId: id },
    });
    assert.equal(no.statusCode, 200, no.body);
    const yes = await authCall(svc, 'POST', '/organization/accept-invitation', {
      cookie,
      body: { invitationId: id },
    });
    assert.equal(yes.statusCode, 400, yes.body);
  });

  it('refuses an invitation the admin cancelled', async () => {
    const id = await invite('cancelled@example.com');
    const cookie = await signUp(svc, 'cancelled@example.com');
    const cancel = await authCall(svc, 'POST', '/organization/cancel-invitation', {
      cookie: team.owner.cookie,
      body: { invitationId: id },
    });
    assert.equal(cancel.statusCode, 200, cancel.body);
    const yes = await authCall(svc, 'POST', '/organization/accept-invitation', {
      cookie,
      body: { invitationId: id },
    });
    assert.equal(yes.statusCode, 400, yes.body);
    const inspect = await svc.call('GET', '/cloud/auth/inspect', {
      token: null,
      headers: asPerson(svc, cookie),
    });
    assert.deepEqual(inspect.json<{ agent: { person: { teams: unknown[] } } }>().agent.person.teams, []);
  });

  it('refuses an expired invitation, and sign-up by it', async () => {
    const on = { svc: shortLived, team: shortTeam };
    const other = await invite('late-but-signed-up@example.com', 'member', on);
    const cookie = await signUp(shortLived, 'late-but-signed-up@example.com');
    const id = await invite('late@example.com', 'member', on);
    await new Promise((resolve) => setTimeout(resolve, SHORT_TTL_MS + 200));
    const signUpLate = await authCall(shortLived, 'POST', '/sign-up/email', {
      body: { email: 'late@example.com', password: PASSWORD, name: 'Late' },
    });
    assert.equal(signUpLate.statusCode, 403, signUpLate.body);
    for (const invitationId of [id, other]) {
      const yes = await authCall(shortLived, 'POST', '/organization/accept-invitation', {
        cookie,
        body: { invitationId },
      });
      assert.ok(yes.statusCode === 400 || yes.statusCode === 403, yes.body);
    }
  });
});

describe('accounts: a person’s own invitations', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('lists them once an accepted invitation has proven the email, not before', async () => {
    const first = await newTeam(svc, 'first-inviter');
    const second = await newTeam(svc, 'second-inviter');
    const invite = async (team: Team) => {
      const res = await authCall(svc, 'POST', '/organization/invite-member', {
        cookie: team.owner.cookie,
        body: { email: 'lister@example.com', role: 'member', organizationId: team.teamId },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json<{ id: string }>().id;
    };
    const firstId = await invite(first);
    const cookie = await signUp(svc, 'lister@example.com');
    const unproven = await authCall(svc, 'GET', '/organization/list-user-invitations', { cookie });
    assert.equal(unproven.statusCode, 403, unproven.body);
    assert.equal(
      unproven.json<{ metadata: { auth_code: string } }>().metadata.auth_code,
      'EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION',
    );
    // The id alone is proof enough to read and answer that one invitation.
    const one = await authCall(svc, 'GET', `/organization/get-invitation?id=${firstId}`, { cookie });
    assert.equal(one.statusCode, 200, one.body);
    const accept = await authCall(svc, 'POST', '/organization/accept-invitation', {
      cookie,
      body: { invitationId: firstId },
    });
    assert.equal(accept.statusCode, 200, accept.body);

    const secondId = await invite(second);
    const listed = await authCall(svc, 'GET', '/organization/list-user-invitations', { cookie });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json<Array<{ id: string; organizationName: string; status: string }>>().map((i) => ({
        id: i.id,
        team: i.organizationName,
        status: i.status,
      })),
      [{ id: secondId, team: 'Team second-inviter', status: 'pending' }],
    );
    // An owner who set their password with the setup token proved their email the same way.
    const owners = await authCall(svc, 'GET', '/organization/list-user-invitations', {
      cookie: first.owner.cookie,
    });
    assert.equal(owners.statusCode, 200, owners.body);
    assert.deepEqual(owners.json(), []);
  });
});

describe('accounts: tokens minted for people', () => {
  let svc: TestService;
  let team: Team;
  let gameId: string;
  before(async () => {
    svc = await startTestService();
    team = await newTeam(svc, 'minting');
    gameId = (await createGameFixture(svc, 'minted-game')).gameId;
    await giveGame(svc, gameId, team.teamId);
  });
  after(() => svc.close());

  async function mintAs(cookie: string): Promise<{ token: string; token_id: string }> {
    const res = await svc.call('POST', `/cloud/games/${gameId}/tokens/cloud`, {
      token: null,
      headers: asPerson(svc, cookie),
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ token: string; token_id: string }>();
  }

  async function userIdOf(cookie: string): Promise<string> {
    const me = await svc.call('GET', '/cloud/auth/inspect', { token: null, headers: asPerson(svc, cookie) });
    return me.json<{ agent: { person: { user_id: string } } }>().agent.person.user_id;
  }

  it('records the person a token was minted for, and revokes it when they become a viewer', async () => {
    const admin = await addMember(svc, team, 'admin@minting.example', 'admin');
    const minted = await mintAs(admin);
    const list = await svc.call('GET', `/cloud/games/${gameId}/tokens`);
    const row = list
      .json<{ tokens: { token_id: string; user_id?: string }[] }>()
      .tokens.find((t) => t.token_id === minted.token_id);
    assert.equal(row?.user_id, await userIdOf(admin));
    const operatorMinted = await svc.call('POST', `/cloud/games/${gameId}/tokens/cloud`);
    assert.equal((await svc.call('GET', `/cloud/games/${gameId}`, { token: minted.token })).statusCode, 200);

    const members = await authCall(
      svc,
      'GET',
      `/organization/get-full-organization?organizationId=${team.teamId}`,
      {
        cookie: team.owner.cookie,
      },
    );
    const memberId = members
      .json<{ members: { id: string; user: { email: string } }[] }>()
      .members.find((m) => m.user.email === 'admin@minting.example')?.id;
    const demote = await authCall(svc, 'POST', '/organization/update-member-role', {
      cookie: team.owner.cookie,
      body: { memberId, role: 'viewer', organizationId: team.teamId },
    });
    assert.equal(demote.statusCode, 200, demote.body);
    const after = await svc.call('GET', `/cloud/games/${gameId}`, { token: minted.token });
    assert.equal(after.statusCode, 401, after.body);
    assert.equal(after.json<{ code: string }>().code, 'TOKEN_REVOKED');
    // The operator's token has no person behind it and stays.
    const kept = operatorMinted.json<{ token: string }>().token;
    assert.equal((await svc.call('GET', `/cloud/games/${gameId}`, { token: kept })).statusCode, 200);
  });

  it('sweeps up a token whose person lost the role without the service seeing it', async () => {
    const admin = await addMember(svc, team, 'swept@minting.example', 'admin');
    const minted = await mintAs(admin);
    // As if the change reached the store past the service (an older instance, a manual fix).
    await svc.deps.db
      .deleteFrom('team_members')
      .where('user_id', '=', await userIdOf(admin))
      .execute();
    assert.equal((await svc.call('GET', `/cloud/games/${gameId}`, { token: minted.token })).statusCode, 200);
    assert.equal(await revokeStrandedPersonTokens(svc.deps, 'all'), 1);
    const after = await svc.call('GET', `/cloud/games/${gameId}`, { token: minted.token });
    assert.equal(after.statusCode, 401, after.body);
    assert.equal(await revokeStrandedPersonTokens(svc.deps, 'all'), 0, 'nothing left to sweep');
  });

  it('revokes the tokens of the old team’s people when the game changes teams', async () => {
    const admin = await addMember(svc, team, 'admin2@minting.example', 'admin');
    const minted = await mintAs(admin);
    const elsewhere = await newTeam(svc, 'elsewhere-minting');
    await giveGame(svc, gameId, elsewhere.teamId);
    const after = await svc.call('GET', `/cloud/games/${gameId}`, { token: minted.token });
    assert.equal(after.statusCode, 401, after.body);
  });
});

describe('accounts: limits', () => {
  it('counts /auth calls per address: sign-in guesses are limited', async () => {
    const svc = await startTestService({ env: { GCM_RATE_LIMIT_ACCOUNT_CALLS: '3' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await authCall(svc, 'POST', '/sign-in/email', {
          body: { email: 'guess@example.com', password: `guess number ${i}` },
        });
        statuses.push(res.statusCode);
      }
      assert.deepEqual(statuses, [401, 401, 401, 429]);
    } finally {
      await svc.close();
    }
  });

  it('counts sign-ups too, per address: the refused one makes no account, another address goes on', async () => {
    const svc = await startTestService({
      env: { GCM_RATE_LIMIT_ACCOUNT_CALLS: '2', GCM_SIGNUP: 'open', GCM_TRUST_PROXY: 'loopback' },
    });
    try {
      const from = (address: string, email: string) =>
        authCall(svc, 'POST', '/sign-up/email', {
          body: { email, password: PASSWORD, name: 'Flood' },
          headers: { 'x-forwarded-for': address },
        });
      assert.equal((await from('203.0.113.7', 'one@flood.example')).statusCode, 200);
      assert.equal((await from('203.0.113.7', 'two@flood.example')).statusCode, 200);
      const third = await from('203.0.113.7', 'three@flood.example');
      assert.equal(third.statusCode, 429, third.body);
      assert.equal(third.json<{ code: string }>().code, 'RATE_LIMITED');
      const made = await svc.deps.db
        .selectFrom('users')
        .select('email')
        .where('email', 'like', '%@flood.example')
        .execute();
      assert.deepEqual(made.map((u) => u.email).sort(), ['one@flood.example', 'two@flood.example']);
      assert.equal((await from('198.51.100.9', 'three@flood.example')).statusCode, 200);
    } finally {
      await svc.close();
    }
  });
});

describe('accounts: two instances on one PostgreSQL', () => {
  it('ends a session on every instance the moment it is signed out on one', pgOnly, async () => {
    const first = await startTestService();
    const second = await secondInstance(first);
    try {
      const team = await newTeam(first, 'two-instances');
      const cookie = await signIn(second, team.owner.email);
      for (const svc of [first, second]) {
        const res = await svc.call('GET', '/cloud/games', { token: null, headers: asPerson(svc, cookie) });
        assert.equal(res.statusCode, 200, res.body);
      }
      const out = await authCall(first, 'POST', '/sign-out', { cookie });
      assert.equal(out.statusCode, 200, out.body);
      for (const svc of [first, second]) {
        const res = await svc.call('GET', '/cloud/games', { token: null, headers: asPerson(svc, cookie) });
        assert.equal(res.statusCode, 401, res.body);
      }
    } finally {
      await second.close();
      await first.close();
    }
  });
});
