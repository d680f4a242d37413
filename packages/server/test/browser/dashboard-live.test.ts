import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { DashboardBrowser, dashboardSkipReason, LOOKS, launchBrowser } from '../helpers/browser.js';
import { startListening } from '../helpers/listening.js';
import { addMember, giveGame, newTeam, type Team } from '../helpers/people.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

/**
 * The dashboard's live pages of a game (lobbies, billing, tokens) in Debian's chromium against a real
 * listening service: what they show, what they do (checked through the API), and that changes made
 * through the API show without a reload.
 */
const skip = dashboardSkipReason('dashboard live pages browser test', { sqliteOnly: true });

const LIVE_WAIT = { timeout: 15_000 };

describe('dashboard: lobbies, billing and tokens', { skip, timeout: 180_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let team: Team;
  const memberEmail = 'member-live@example.com';
  let gameId: string;
  let namespaceId: string;
  let reporter: string;
  let base: string;
  // Lobbies are reported an hour back, a second apart, oldest first.
  let t0: number;
  const iso = (ms: number) => new Date(ms).toISOString();

  const logs = (suffix = '') => `/cloud/games/${gameId}/namespaces/${namespaceId}/logs/lobbies${suffix}`;

  async function report(createTs: number): Promise<string> {
    const res = await svc.call('POST', logs(), {
      token: reporter,
      body: { lobby_group_name_id: 'deathmatch', region_id: 'lnd-atl', create_ts: iso(createTs) },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ lobby_id: string }>().lobby_id;
  }

  async function stop(lobbyId: string, exitCode: number): Promise<void> {
    const res = await svc.call('POST', logs(`/${lobbyId}/events`), {
      token: reporter,
      body: { kind: 'stop', exit_code: exitCode },
    });
    assert.equal(res.statusCode, 204, res.body);
  }

  async function billing() {
    const res = await svc.call('GET', `/cloud/games/${gameId}/billing`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ active_plan: string; plan: string }>();
  }

  async function setPlan(plan: string) {
    const res = await svc.call('PUT', `/cloud/games/${gameId}/billing/plan`, { body: { plan } });
    assert.equal(res.statusCode, 204, res.body);
  }

  const inspectWith = (token: string) =>
    fetch(`${publicUrl}/cloud/auth/inspect`, { headers: { authorization: `Bearer ${token}` } });

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    // The browser judges expiry by its own clock: the service's follows it.
    svc.clock.set(Date.now());
    t0 = Date.now() - 3_600_000;
    team = await newTeam(svc, 'live');
    await addMember(svc, team, memberEmail, 'member');
    ({ gameId, namespaceId } = await createGameFixture(svc, 'live-game'));
    await giveGame(svc, gameId, team.teamId);
    const tok = await svc.call('POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/tokens/reporter`);
    assert.equal(tok.statusCode, 200, tok.body);
    reporter = tok.json<{ token: string }>().token;
    // More than a page (64): 70 lobbies; the newest stopped cleanly, the one before it failed.
    const ids = await Promise.all(Array.from({ length: 70 }, (_, i) => report(t0 + i * 1000)));
    await stop(ids[69] as string, 0);
    await stop(ids[68] as string, 137);
    base = `/teams/${team.teamId}/games/${gameId}`;
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  const rows = (page: Page) => page.locator('section[aria-labelledby="lobby-log"] tbody tr');

  it('lists lobbies newest first with status badges, pages by cursor in the URL, and updates live', async () => {
    const { context, page } = await web.signedIn(team.owner.email);
    await page.goto(`${publicUrl}${base}/lobbies`);
    await page.getByRole('heading', { name: 'Lobbies', level: 1 }).waitFor();
    await rows(page).first().waitFor();
    assert.equal(await rows(page).count(), 64, 'one page of 64');
    assert.equal(
      await page.getByLabel('Namespace', { exact: true }).locator('option:checked').innerText(),
      'Production (prod)',
    );
    const badges = rows(page).locator('.badge');
    assert.equal(await badges.nth(0).innerText(), 'Stopped · exit 0');
    assert.equal(await badges.nth(1).innerText(), 'Stopped · exit 137 · failed');
    assert.equal(await badges.nth(2).innerText(), 'Running');
    const created = await rows(page)
      .locator('time')
      .evaluateAll((els) => els.map((e) => e.getAttribute('datetime')));
    assert.equal(created[0], iso(t0 + 69_000));
    assert.deepEqual(created, [...created].sort().reverse(), 'newest first');

    // Older: the cursor is in the URL, so the page can be shared; the last six lobbies are on it.
    await page.getByRole('link', { name: 'Older' }).click();
    await page.waitForURL(/cursor=/);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('namespace'), 'prod');
    // The URL changes before the older page renders: wait for its first lobby, not for any sixth row.
    await rows(page)
      .first()
      .locator(`time[datetime="${iso(t0 + 5_000)}"]`)
      .waitFor();
    assert.equal(await rows(page).count(), 6);
    assert.equal(await rows(page).first().locator('time').getAttribute('datetime'), iso(t0 + 5_000));
    assert.equal(await page.getByRole('link', { name: 'Older' }).count(), 0, 'no page after the last');
    const shared = await web.open(context, `${url.pathname}${url.search}`);
    await rows(shared).nth(5).waitFor();
    assert.equal(await rows(shared).count(), 6);
    await shared.close();

    await page.getByRole('link', { name: 'Newest' }).click();
    await page.waitForURL((u) => !u.search.includes('cursor='));
    await rows(page).nth(63).waitFor();

    // Reported while the page is open: it shows on top, announced politely, without a reload.
    const fresh = await report(t0 + 100_000);
    const top = rows(page).first();
    await page.locator(`tbody th .mono:text-is("${fresh}")`).waitFor(LIVE_WAIT);
    // The row's header: its id, then the link to its page.
    assert.equal((await top.locator('th').innerText()).split('\n')[0]?.trim(), fresh);
    assert.equal(await top.locator('.badge').innerText(), 'Running');
    await page.locator('.live-note', { hasText: '1 new lobby' }).waitFor(LIVE_WAIT);
    // And its stop, too.
    await stop(fresh, 3);
    await top.locator('.badge', { hasText: 'Stopped · exit 3 · failed' }).waitFor(LIVE_WAIT);
    await page.locator('.live-note', { hasText: 'changed status' }).waitFor(LIVE_WAIT);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('billing shows the plan, follows changes made through the API, and lets only the owner change it', async () => {
    const { context, page } = await web.signedIn(team.owner.email);
    await page.goto(`${publicUrl}${base}/billing`);
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    const inForce = page.locator('dt:text-is("Plan in force") + dd');
    await inForce.waitFor();
    assert.equal(await inForce.innerText(), 'Trial (free)');

    // A change made elsewhere arrives through the watch, without a reload.
    await setPlan('studio');
    await page.locator('dt:text-is("Plan in force") + dd', { hasText: 'Studio' }).waitFor(LIVE_WAIT);
    await page.locator('dt:text-is("Renews")').waitFor();

    // The owner downgrades through the page, with a confirm step; the service says so too.
    await page.getByLabel('Plan', { exact: true }).selectOption('indie');
    await page.getByRole('button', { name: 'Change plan' }).click();
    await page.getByText(/A downgrade: Studio stays in force until the end of the current period/).waitFor();
    await page.getByRole('button', { name: 'Confirm change' }).click();
    await page.getByText('Pending downgrade').waitFor(LIVE_WAIT);
    const after = await billing();
    assert.equal(after.active_plan, 'studio');
    assert.equal(after.plan, 'indie');
    assert.match(
      await page.locator('.live-pending').innerText(),
      /Studio stays in force until the period ends on/,
    );
    await context.close();

    // A member sees the plan, and no way to change it.
    const member = await web.signedIn(memberEmail);
    await member.page.goto(`${publicUrl}${base}/billing`);
    await member.page.locator('dt:text-is("Plan in force") + dd', { hasText: 'Studio' }).waitFor();
    await member.page.getByText('Only the team’s owner can change the plan; your role is member.').waitFor();
    assert.equal(await member.page.getByRole('button', { name: 'Change plan' }).count(), 0);
    assert.equal(await member.page.getByLabel('Plan', { exact: true }).count(), 0);
    await member.context.close();
    assert.deepEqual(web.problems, []);
  });

  it('tokens: a new one is shown once and works, the list shows it, revoking it makes the API refuse it', async () => {
    const { context, page } = await web.signedIn(team.owner.email);
    await page.goto(`${publicUrl}${base}/tokens`);
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Your new cloud token' }).waitFor();
    await page.getByText('you will not see it again').waitFor();
    const field = page.getByLabel('Token', { exact: true });
    assert.equal(await field.getAttribute('readonly'), '');
    const token = await field.inputValue();
    const inspect = await inspectWith(token);
    assert.equal(inspect.status, 200);
    const tokenId = (
      (await inspect.json()) as { agent: { game_cloud: { token_id: string; game_id: string } } }
    ).agent.game_cloud.token_id;
    // Copy works, or says how to copy when the browser does not allow it.
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText(/Copied to the clipboard|select the token and copy it yourself/).waitFor();

    const row = page.locator('section[aria-labelledby="token-list"] tbody tr', { hasText: tokenId });
    await row.waitFor();
    assert.match(await row.innerText(), /Cloud[\s\S]*you/);

    // Reporter tokens name their namespace.
    await page.getByLabel(/Reporter token/).check();
    await page.getByLabel('Namespace', { exact: true }).selectOption({ label: 'Production (prod)' });
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Your new reporter token for Production' }).waitFor();
    const reporterToken = await page.getByLabel('Token', { exact: true }).inputValue();
    assert.equal((await inspectWith(reporterToken)).status, 200);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await page.getByLabel('Token', { exact: true }).count(), 0);

    // Revoke, with a confirm step: the list says so and the API refuses the token.
    await row.getByRole('button', { name: `Revoke token ${tokenId.slice(0, 8)}` }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await row.getByText('Revoked').waitFor();
    assert.equal((await inspectWith(token)).status, 401);

    // Gone for good: back on the page, no token text is shown anywhere.
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Tokens of this game' }).waitFor();
    assert.equal(await page.getByLabel('Token', { exact: true }).count(), 0);
    assert.ok(!(await page.content()).includes(reporterToken));
    await context.close();

    // A member is told who manages tokens; the page asks the service nothing it would refuse.
    const member = await web.signedIn(memberEmail);
    await member.page.goto(`${publicUrl}${base}/tokens`);
    await member.page.getByText('Admins manage tokens.').waitFor();
    assert.equal(await member.page.getByRole('button', { name: 'Create token' }).count(), 0);
    assert.equal(await member.page.getByRole('alert').count(), 0);
    await member.context.close();
    assert.deepEqual(web.problems, []);
  });

  it('has no serious or critical accessibility violations, at 360 and 1440 px, light and dark', async () => {
    for (const look of LOOKS) {
      const { context, page } = await web.signedIn(team.owner.email, { ...look, bypassCSP: true });
      await page.goto(`${publicUrl}${base}/lobbies`);
      await rows(page).first().waitFor();
      await web.check(page, 'lobbies', look.suffix);
      await page.getByRole('link', { name: 'Billing' }).click();
      await page.locator('dt:text-is("Plan in force")').waitFor();
      await web.check(page, 'billing', look.suffix);
      await page.getByRole('link', { name: 'Tokens' }).click();
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('heading', { name: 'Your new cloud token' }).waitFor();
      await page.locator('section[aria-labelledby="token-list"] tbody tr').first().waitFor();
      await web.check(page, 'tokens', look.suffix);
      await context.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
  });
});
