/**
 * Account mail through a real SMTP server (smtp-server on loopback, with a login): the new owner's password
 * setup, invitations and password resets arrive as mail whose links work, and a mail server that is down
 * holds nobody up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asPerson, authCall, PASSWORD, signIn, signUp } from '../helpers/people.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { Mailbox } from '../helpers/smtp.js';

const FROM = 'Acme Cloud <cloud@acme.example>';

function tokenIn(text: string): string {
  const found = /"token": "([^"]+)"/.exec(text)?.[1];
  assert.ok(found !== undefined, `no token in the mail:\n${text}`);
  return found;
}

describe('account mail through SMTP', () => {
  let mailbox: Mailbox;
  let svc: TestService;
  let teamId: string;
  let ownerCookie: string;
  before(async () => {
    mailbox = await new Mailbox().start();
    svc = await startTestService({ env: { GCM_SMTP_URL: mailbox.url, GCM_MAIL_FROM: FROM } });
  });
  after(async () => {
    await svc.close();
    await mailbox.close();
  });

  it('mails a new owner the password setup link instead of answering it to the operator', async () => {
    const res = await svc.call('POST', '/cloud/teams', {
      body: { name: 'Mailed', slug: 'mailed', owner_email: 'owner@mailed.example' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const made = res.json<{ team_id: string; password_setup?: unknown }>();
    assert.equal(made.password_setup, undefined, 'with SMTP the secret goes to the owner only');
    teamId = made.team_id;
    const mail = await mailbox.mailTo('owner@mailed.example', /account for Mailed/);
    assert.equal(mail.from, 'cloud@acme.example');
    assert.ok(
      mail.text.includes(`${svc.deps.config.publicUrl}/reset-password?token=${tokenIn(mail.text)}`),
      mail.text,
    );
    const reset = await authCall(svc, 'POST', '/reset-password', {
      body: { token: tokenIn(mail.text), newPassword: PASSWORD },
    });
    assert.equal(reset.statusCode, 200, reset.body);
    ownerCookie = await signIn(svc, 'owner@mailed.example');
  });

  it('mails an invitation whose id lets the invited person join', async () => {
    const invite = await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: ownerCookie,
      body: { email: 'new.member@mailed.example', role: 'viewer', organizationId: teamId },
    });
    assert.equal(invite.statusCode, 200, invite.body);
    const mail = await mailbox.mailTo('new.member@mailed.example', /invited/);
    assert.match(mail.subject, /Mailed/);
    assert.match(mail.text, /as viewer/);
    const invitationId = /Invitation id: ([0-9a-f-]{36})/.exec(mail.text)?.[1];
    assert.ok(invitationId !== undefined, mail.text);
    const base = svc.deps.config.publicUrl;
    assert.ok(
      mail.text.includes(
        `${base}/sign-up?invitation=${invitationId}&email=${encodeURIComponent('new.member@mailed.example')}`,
      ),
      `the dashboard's sign-up link is in the mail:\n${mail.text}`,
    );
    assert.ok(mail.text.includes(`${base}/invitations?invitation=${invitationId}`), mail.text);
    const cookie = await signUp(svc, 'new.member@mailed.example');
    const accept = await authCall(svc, 'POST', '/organization/accept-invitation', {
      cookie,
      body: { invitationId },
    });
    assert.equal(accept.statusCode, 200, accept.body);
    const inspect = await svc.call('GET', '/cloud/auth/inspect', {
      token: null,
      headers: asPerson(svc, cookie),
    });
    assert.deepEqual(inspect.json<{ agent: { person: { teams: unknown[] } } }>().agent.person.teams, [
      { team_id: teamId, role: 'viewer' },
    ]);
  });

  it('mails a reset that sets a new password and ends the old sessions', async () => {
    const asked = await authCall(svc, 'POST', '/request-password-reset', {
      body: { email: 'new.member@mailed.example' },
    });
    assert.equal(asked.statusCode, 200, asked.body);
    const before = await signIn(svc, 'new.member@mailed.example');
    const resetMail = await mailbox.mailTo('new.member@mailed.example', /reset/i);
    const token = tokenIn(resetMail.text);
    // The link opens the dashboard's reset page with the token, whatever redirectTo the request named.
    assert.ok(
      resetMail.text.includes(`${svc.deps.config.publicUrl}/reset-password?token=${token}`),
      resetMail.text,
    );
    const reset = await authCall(svc, 'POST', '/reset-password', {
      body: { token, newPassword: 'another long passphrase' },
    });
    assert.equal(reset.statusCode, 200, reset.body);
    const old = await svc.call('GET', '/cloud/auth/inspect', { token: null, headers: asPerson(svc, before) });
    assert.equal(old.statusCode, 401, old.body);
    await signIn(svc, 'new.member@mailed.example', 'another long passphrase');
  });

  it('answers a reset for an unknown email as for a known one, and sends nothing', async () => {
    const count = mailbox.received.length;
    const asked = await authCall(svc, 'POST', '/request-password-reset', {
      body: { email: 'nobody@mailed.example' },
    });
    assert.equal(asked.statusCode, 200, asked.body);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(mailbox.received.length, count);
  });
});

describe('account mail with the SMTP server down', () => {
  it('answers at once and keeps serving; the reset can be asked again later', async () => {
    const gone = await new Mailbox().start();
    const url = gone.url;
    await gone.close();
    const svc = await startTestService({ env: { GCM_SMTP_URL: url } });
    try {
      const made = await svc.call('POST', '/cloud/teams', {
        body: { name: 'Unmailed', slug: 'unmailed', owner_email: 'owner@unmailed.example' },
      });
      assert.equal(made.statusCode, 200, made.body);
      const asked = await authCall(svc, 'POST', '/request-password-reset', {
        body: { email: 'owner@unmailed.example' },
      });
      assert.equal(asked.statusCode, 200, asked.body);
      const games = await svc.call('GET', '/cloud/games');
      assert.equal(games.statusCode, 200, games.body);
    } finally {
      await svc.close();
    }
  });
});
