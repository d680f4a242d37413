import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  DashboardBrowser,
  dashboardSkipReason,
  LOOKS,
  launchBrowser,
  signInOnPage,
} from '../helpers/browser.js';
import { startListening } from '../helpers/listening.js';
import { addMember, authCall, giveGame, newTeam, PASSWORD, type Team } from '../helpers/people.js';
import { createGameFixture, type TestService } from '../helpers/service.js';
import { Mailbox } from '../helpers/smtp.js';

/**
 * The dashboard's people pages in Debian's chromium against a real service: team members and invitations,
 * a person's invitations, the password reset through a real mail, and the audit log of a team and a game.
 */
const skip = dashboardSkipReason('dashboard people browser test', { sqliteOnly: true });

interface FullTeam {
  members: { id: string; role: string; user: { email: string } }[];
  invitations: { id: string; email: string; role: string; status: string }[];
}

/** Polls `check` until it holds (the page's writes land a moment after its click). */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('web dashboard: people, invitations, password reset, audit', { skip, timeout: 180_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let alpha: Team;
  let beta: Team;
  let gameId: string;

  const fullTeam = async (team: Team): Promise<FullTeam> => {
    const res = await authCall(
      svc,
      'GET',
      `/organization/get-full-organization?organizationId=${team.teamId}`,
      {
        cookie: team.owner.cookie,
      },
    );
    assert.equal(res.statusCode, 200, res.body);
    return res.json<FullTeam>();
  };
  const roleOf = async (email: string) =>
    (await fullTeam(alpha)).members.find((m) => m.user.email === email)?.role;

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    alpha = await newTeam(svc, 'alpha');
    beta = await newTeam(svc, 'beta');
    gameId = (await createGameFixture(svc, 'alpha-game')).gameId;
    await giveGame(svc, gameId, alpha.teamId);
    // Already has an account (a member of beta, by an accepted invitation), so may list their invitations.
    await addMember(svc, beta, 'outsider@beta.example', 'member');
    await addMember(svc, alpha, 'admin@alpha.example', 'admin');
    await addMember(svc, alpha, 'member@alpha.example', 'member');
    await addMember(svc, alpha, 'viewer@alpha.example', 'viewer');
    await addMember(svc, alpha, 'promoted@alpha.example', 'member');
    await addMember(svc, alpha, 'leaving@alpha.example', 'member');
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  it('an owner invites an email; its person accepts on /invitations and the switcher lists the team', async () => {
    const owner = await web.signedIn(alpha.owner.email);
    const page = await web.open(owner.context, `/teams/${alpha.teamId}/members`);
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page
      .getByRole('row', { name: /member@alpha\.example/ })
      .first()
      .waitFor();
    await page.getByLabel('Email', { exact: true }).fill('outsider@beta.example');
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('outsider@beta.example is invited as member').waitFor();
    const invited = (await fullTeam(alpha)).invitations.find((i) => i.email === 'outsider@beta.example');
    assert.ok(invited !== undefined && invited.status === 'pending', 'the invitation is pending');
    assert.equal(new URL(page.url()).searchParams.get('invited'), invited.id);
    assert.equal(
      await page.getByLabel('Link for a new account', { exact: true }).inputValue(),
      `${publicUrl}/sign-up?invitation=${invited.id}&email=${encodeURIComponent('outsider@beta.example')}`,
    );
    await page.getByRole('row', { name: /outsider@beta\.example/ }).waitFor();
    await owner.context.close();

    const invitee = await web.signedIn('outsider@beta.example');
    const nav = invitee.page.getByRole('link', { name: /Invitations 1 pending/ });
    await nav.click();
    await invitee.page.getByRole('heading', { name: 'Invitations', level: 1 }).waitFor();
    await invitee.page.getByRole('heading', { name: 'Team alpha', level: 3 }).waitFor();
    await invitee.page.getByRole('button', { name: 'Accept the invitation to Team alpha' }).click();
    await invitee.page.getByText('You joined Team alpha.').waitFor();
    await invitee.page.getByText('No pending invitations.').waitFor();
    await eventually('the switcher lists the new team', async () =>
      (await invitee.page.getByLabel('Team').locator('option').allInnerTexts()).includes(
        'Team alpha (member)',
      ),
    );
    assert.equal(await invitee.page.getByRole('link', { name: /Invitations \d/ }).count(), 0);
    assert.equal(await roleOf('outsider@beta.example'), 'member');
    await invitee.context.close();
    assert.deepEqual(web.problems, []);
  });

  it('an admin changes a role, removes a member and cancels an invitation; a viewer sees no controls', async () => {
    const cancelled = await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: alpha.owner.cookie,
      body: { email: 'cancel-me@example.com', role: 'viewer', organizationId: alpha.teamId },
    });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const admin = await web.signedIn('admin@alpha.example');
    const page = await web.open(admin.context, `/teams/${alpha.teamId}/members`);
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    // An admin may not touch an owner: no controls on the owner's row.
    await page.getByRole('combobox', { name: 'Role of promoted@alpha.example' }).selectOption('admin');
    assert.equal(await page.getByRole('combobox', { name: `Role of ${alpha.owner.email}` }).count(), 0);
    assert.equal(await page.getByRole('button', { name: `Remove ${alpha.owner.email}` }).count(), 0);
    await eventually('the role changed', async () => (await roleOf('promoted@alpha.example')) === 'admin');

    await page.getByRole('button', { name: 'Remove leaving@alpha.example' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await page.getByText('leaving@alpha.example is no longer in the team.').waitFor();
    assert.equal(await roleOf('leaving@alpha.example'), undefined);
    assert.equal(await page.getByRole('row', { name: /leaving@alpha\.example/ }).count(), 0);

    await page.getByRole('button', { name: 'Cancel the invitation of cancel-me@example.com' }).click();
    await page.getByRole('row', { name: /cancel-me@example\.com/ }).waitFor({ state: 'detached' });
    const after = (await fullTeam(alpha)).invitations.find((i) => i.email === 'cancel-me@example.com');
    assert.equal(after?.status, 'canceled');
    await admin.context.close();

    const viewer = await web.signedIn('viewer@alpha.example');
    const read = await web.open(viewer.context, `/teams/${alpha.teamId}/members`);
    await read.getByRole('row', { name: /promoted@alpha\.example/ }).waitFor();
    assert.equal(await read.getByRole('combobox', { name: /Role of/ }).count(), 0);
    assert.equal(await read.getByRole('button', { name: /Remove|Cancel|Send invitation/ }).count(), 0);
    assert.equal(await read.getByRole('heading', { name: /Pending invitations/ }).count(), 0);
    await read.getByText('You are a viewer in this team').waitFor();
    // Nor does the header offer the audit log to a viewer.
    assert.equal(await read.getByRole('link', { name: 'Audit log' }).count(), 0);
    await viewer.context.close();
    assert.deepEqual(web.problems, []);
  });

  it('resets a password through the mailed link: the new one signs in, the old one no longer', async () => {
    const mailbox = await new Mailbox().start();
    const mailed = await startListening({ env: { GCM_SMTP_URL: mailbox.url } });
    const mailWeb = new DashboardBrowser(web.browser, mailed.publicUrl);
    try {
      const email = 'forgetful@mailed.example';
      const made = await mailed.svc.call('POST', '/cloud/teams', {
        body: { name: 'Mailed', slug: 'mailed', owner_email: email },
      });
      assert.equal(made.statusCode, 200, made.body);
      const setup = await mailbox.mailTo(email, /account for Mailed/);
      const setupToken = /"token": "([^"]+)"/.exec(setup.text)?.[1] ?? '';
      const set = await authCall(mailed.svc, 'POST', '/reset-password', {
        body: { token: setupToken, newPassword: PASSWORD },
      });
      assert.equal(set.statusCode, 200, set.body);

      const context = await mailWeb.newContext();
      const signInPage = await mailWeb.open(context, '/sign-in');
      await signInPage.getByRole('link', { name: 'Forgot your password?' }).click();
      await signInPage.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
      // An unknown email gets the same answer as a known one.
      await signInPage.getByLabel('Email').fill('nobody@mailed.example');
      await signInPage.getByRole('button', { name: 'Send the link' }).click();
      await signInPage.getByText('If an account exists for nobody@mailed.example').waitFor();
      const page = await mailWeb.open(context, '/forgot-password');
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Send the link' }).click();
      await page.getByText(`If an account exists for ${email}, we sent it a link`).waitFor();
      const mail = await mailbox.mailTo(email, /Reset/);
      const link = new RegExp(`${mailed.publicUrl}/reset-password\\?token=\\S+`).exec(mail.text)?.[0];
      assert.ok(link !== undefined, `the mail links the reset page:\n${mail.text}`);

      const reset = await mailWeb.open(context, link.slice(mailed.publicUrl.length));
      await reset.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      await reset.getByLabel('New password', { exact: true }).fill('short');
      await reset.getByLabel('New password again').fill('short');
      await reset.getByRole('button', { name: 'Set the new password' }).click();
      await reset.getByText('The password must be at least 10 characters.').waitFor();
      await reset.getByLabel('New password', { exact: true }).fill('a brand new passphrase');
      await reset.getByLabel('New password again').fill('a brand new passphrase!');
      await reset.getByRole('button', { name: 'Set the new password' }).click();
      await reset.getByText('The two passwords differ.').waitFor();
      await reset.getByLabel('New password again').fill('a brand new passphrase');
      await reset.getByRole('button', { name: 'Set the new password' }).click();
      await reset.waitForURL(/\/sign-in\?reset=done$/);
      await reset.getByText('Your new password is set. Sign in with it.').waitFor();
      await signInOnPage(reset, email, 'a brand new passphrase');
      await reset.waitForURL((url) => url.pathname !== '/sign-in');
      const old = await authCall(mailed.svc, 'POST', '/sign-in/email', {
        body: { email, password: PASSWORD },
      });
      assert.equal(old.statusCode, 401, old.body);

      // The same link again: the token is used up, and the service says so in its words.
      const again = await mailWeb.open(context, link.slice(mailed.publicUrl.length), [/status of 400/]);
      await again.getByLabel('New password', { exact: true }).fill('yet another passphrase');
      await again.getByLabel('New password again').fill('yet another passphrase');
      await again.getByRole('button', { name: 'Set the new password' }).click();
      await again.getByRole('alert').filter({ hasText: 'Invalid token' }).waitFor();
      await again.getByRole('link', { name: 'Ask for a new link' }).waitFor();
      await context.close();
    } finally {
      await mailed.svc.close();
      await mailbox.close();
    }
    assert.deepEqual(mailWeb.problems, []);
    assert.deepEqual(web.problems, []);
  });

  it('shows the audit log newest first with the actor, paged by cursor; members get the admins state', async () => {
    const probe = await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: alpha.owner.cookie,
      body: { email: 'audit-probe@example.com', role: 'viewer', organizationId: alpha.teamId },
    });
    assert.equal(probe.statusCode, 200, probe.body);
    const owner = await web.signedIn(alpha.owner.email);
    const page = await web.open(owner.context, `/teams/${alpha.teamId}/audit?limit=4`);
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const rows = page.locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 4);
    // In words: who did what, then how it ended.
    const first = await rows.first().locator('td').allInnerTexts();
    assert.equal(first[0], `${alpha.owner.email} invited a member`);
    assert.match(first[1] ?? '', /succeeded 200/);
    // Just before it: the cancellation the admin made through the page, under the admin's email.
    const second = await rows.nth(1).locator('td').allInnerTexts();
    assert.equal(second[0], 'admin@alpha.example cancelled an invitation');

    const firstPage = await rows.locator('td:last-child').allInnerTexts();
    await page.getByRole('link', { name: 'Older events' }).click();
    await page.waitForURL(/[?&]cursor=/);
    assert.equal(new URL(page.url()).searchParams.get('limit'), '4');
    await eventually('the older page shows', async () => {
      const shown = await rows.locator('td:last-child').allInnerTexts();
      return shown.length > 0 && !shown.some((ray) => firstPage.includes(ray));
    });
    await page.getByRole('link', { name: 'Newest events' }).waitFor();
    // The page's address is the page: opened afresh it shows the same events.
    const shared = await web.open(owner.context, new URL(page.url()).pathname + new URL(page.url()).search);
    await shared.locator('tbody tr').first().waitFor();
    assert.deepEqual(
      await shared.locator('tbody td:last-child').allInnerTexts(),
      await rows.locator('td:last-child').allInnerTexts(),
    );

    const game = await web.open(owner.context, `/teams/${alpha.teamId}/games/${gameId}/audit`);
    await game.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await game.locator('tbody tr').first().waitFor();
    const said = await game.locator('tbody td:nth-child(2)').allInnerTexts();
    assert.ok(said.includes('The operator created namespace Production'), said.join(', '));
    await owner.context.close();

    const member = await web.signedIn('member@alpha.example');
    for (const url of [`/teams/${alpha.teamId}/audit`, `/teams/${alpha.teamId}/games/${gameId}/audit`]) {
      const denied = await web.open(member.context, url);
      await denied.getByText("Only the team's admins and owners read the audit log.").waitFor();
      assert.equal(await denied.locator('table').count(), 0);
    }
    await member.context.close();
    assert.deepEqual(web.problems, []);
  });

  it('has no serious or critical accessibility violations on its pages, at 360 and 1440 px, light and dark', async () => {
    // Something to show: a pending invitation of alpha's, and one for alpha's owner from beta.
    const shown = await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: alpha.owner.cookie,
      body: { email: 'newcomer@example.com', role: 'member', organizationId: alpha.teamId },
    });
    assert.equal(shown.statusCode, 200, shown.body);
    const toOwner = await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: beta.owner.cookie,
      body: { email: alpha.owner.email, role: 'admin', organizationId: beta.teamId },
    });
    assert.equal(toOwner.statusCode, 200, toOwner.body);
    const invitationId = shown.json<{ id: string }>().id;
    for (const look of LOOKS) {
      const { context, page } = await web.signedIn(alpha.owner.email, { ...look, bypassCSP: true });
      const check = async (url: string, name: string, ready: (p: Page) => Promise<void>) => {
        await page.goto(`${publicUrl}${url}`);
        await ready(page);
        await web.check(page, name, look.suffix);
        // Wide tables scroll inside their frame; the page itself never scrolls sideways.
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        assert.ok(Number(overflow) <= 0, `${name} at ${look.suffix} is ${String(overflow)} px too wide`);
      };
      await check(`/teams/${alpha.teamId}/members?invited=${invitationId}`, 'members', (p) =>
        p.getByLabel('Link for a new account', { exact: true }).waitFor(),
      );
      await check('/invitations', 'invitations', (p) =>
        p.getByRole('heading', { name: 'Team beta' }).waitFor(),
      );
      await check(`/teams/${alpha.teamId}/audit`, 'team-audit', (p) =>
        p.locator('tbody tr').first().waitFor(),
      );
      await check(`/teams/${alpha.teamId}/games/${gameId}/audit`, 'game-audit', (p) =>
        p.locator('tbody tr').first().waitFor(),
      );
      await check('/forgot-password', 'forgot-password', (p) =>
        p.getByRole('heading', { name: 'Forgot your password?' }).waitFor(),
      );
      await check('/reset-password?token=from-the-mail', 'reset-password', (p) =>
        p.getByRole('heading', { name: 'Choose a new password' }).waitFor(),
      );
      await context.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
  });
});
