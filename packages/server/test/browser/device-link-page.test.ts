import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { DashboardBrowser, dashboardSkipReason, launchBrowser, screenshot } from '../helpers/browser.js';
import {
  completeLink,
  getLink,
  type LinkResult,
  type PreparedLink,
  prepareLink,
} from '../helpers/device-links.js';
import { startListening } from '../helpers/listening.js';
import {
  addMember,
  asPerson,
  authCall,
  giveGame,
  newTeam,
  PASSWORD,
  signIn,
  type Team,
} from '../helpers/people.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

/**
 * The device link page in a real headless browser, wearing the dashboard's look (so the dashboard must be
 * built). Skipped, saying why, where chromium or the built dashboard is absent.
 */
const HOUR_MS = 60 * 60 * 1000;
/** The failed API calls of these tests log their status as console errors in Chromium; nothing else may. */
const REFUSALS = [/Failed to load resource: the server responded with a status of (400|401|410)/];

const skip = dashboardSkipReason('device link page browser test');

describe('device link page in a browser', { skip, timeout: 120_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let context: BrowserContext;
  let games: { first: string; second: string; third: string };
  let team: Team;
  let viewing: Team;

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    games = {
      first: (await createGameFixture(svc, 'first-game')).gameId,
      second: (await createGameFixture(svc, 'second-game')).gameId,
      third: (await createGameFixture(svc, 'third-game')).gameId,
    };
    // The person is a member of the team that owns the first game, and a viewer of the one that owns the
    // third; the second belongs to no team.
    team = await newTeam(svc, 'linkers');
    viewing = await newTeam(svc, 'watchers');
    await giveGame(svc, games.first, team.teamId);
    await giveGame(svc, games.third, viewing.teamId);
    await addMember(svc, team, 'dev@linkers.example', 'member');
    await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: viewing.owner.cookie,
      body: { email: 'dev@linkers.example', role: 'viewer', organizationId: viewing.teamId },
    }).then(async (invite) => {
      const cookie = await signIn(svc, 'dev@linkers.example');
      const accept = await authCall(svc, 'POST', '/organization/accept-invitation', {
        cookie,
        body: { invitationId: invite.json<{ id: string }>().id },
      });
      assert.equal(accept.statusCode, 200, accept.body);
    });
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
    // One profile for every test, as one person's browser: a sign-in on one page holds for the next.
    context = await web.newContext({ width: 800 });
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  /** A link's page; `url` is the whole device_link_url, as the tool prints it. */
  function open(url: string): Promise<Page> {
    return web.open(context, new URL(url).pathname, REFUSALS);
  }

  async function showGames(page: Page, token: string) {
    await page.getByText('Operators: use a token instead').click();
    await page.getByLabel('Operator token').fill(token);
    await page.getByRole('button', { name: 'Show games' }).click();
  }

  it('links a device: paste the operator token, pick the game, confirm', async () => {
    // Started over real HTTP as a command-line tool would, so the page has its address and User-Agent.
    const started = await fetch(`${publicUrl}/cloud/devices/links`, {
      method: 'POST',
      headers: { 'user-agent': 'gcm-cli/1.2.3 (linux; <b>test</b>)' },
    });
    assert.equal(started.status, 200);
    const link = (await started.json()) as PreparedLink;
    assert.ok(link.device_link_url.startsWith(`${publicUrl}/devices/link/`));
    const page = await open(link.device_link_url);
    await page.getByRole('heading', { name: 'Link a device' }).waitFor();
    // The dashboard's look: its header, and its stylesheet in force (the page's background is its --bg).
    assert.equal(await page.getByRole('banner').getByRole('link', { name: 'Game Cloud' }).count(), 1);
    assert.equal(
      await page.evaluate('getComputedStyle(document.body).backgroundColor'),
      'rgb(243, 245, 249)',
    );
    // Who asked, for the person to compare with the terminal: the code, the address, the program, when.
    assert.equal(await page.locator('#user-code').innerText(), link.device_link_user_code);
    assert.match(link.device_link_user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(await page.locator('#origin-address').innerText(), '127.0.0.1');
    assert.equal(await page.locator('#origin-agent').innerText(), 'gcm-cli/1.2.3 (linux; <b>test</b>)');
    assert.equal(await page.locator('#origin-agent b').count(), 0, 'shown as text, not markup');
    assert.match(await page.locator('#origin-time').innerText(), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);

    await showGames(page, svc.operatorToken);
    const select = page.getByLabel('Game');
    await select.waitFor();
    assert.deepEqual(await select.locator('option').allTextContents(), [
      'Test Game (first-game)',
      'Test Game (second-game)',
      'Test Game (third-game)',
    ]);
    await select.selectOption(games.second);
    await screenshot(page, 'device-link-page-pending.png');

    await page.getByRole('button', { name: 'Link this device' }).click();
    const result = page.locator('#result.ok');
    await result.waitFor();
    assert.match(await result.innerText(), /Device linked to Test Game \(second-game\)/);
    assert.equal(await page.getByLabel('Operator token').isVisible(), false, 'the forms are gone');
    await screenshot(page, 'device-link-page-success.png');
    await page.close();

    const got = await getLink(svc, link.device_link_token);
    const cloudToken = got.json<LinkResult>().cloud_token;
    assert.ok(cloudToken !== undefined, got.body);
    const game = await fetch(`${publicUrl}/cloud/games/${games.second}`, {
      headers: { authorization: `Bearer ${cloudToken}` },
    });
    assert.equal(game.status, 200);

    // The same link again: the page says it was used, and offers nothing to do.
    const used = await open(link.device_link_url);
    await used.getByRole('heading', { name: 'This link has already been used' }).waitFor();
    assert.equal(await used.locator('form').count(), 0);
    await screenshot(used, 'device-link-page-used.png');
    await used.close();
  });

  it('links a device for a person who signs in on the page, on their behalf', async () => {
    const started = await fetch(`${publicUrl}/cloud/devices/links`, {
      method: 'POST',
      headers: { 'user-agent': 'gcm-cli/2.0.0' },
    });
    const link = (await started.json()) as PreparedLink;
    const page = await open(link.device_link_url);
    await page.getByRole('heading', { name: 'Link a device' }).waitFor();
    assert.equal(await page.locator('#user-code').innerText(), link.device_link_user_code);
    assert.equal(await page.getByLabel('Operator token').isVisible(), false, 'the token form is tucked away');

    await page.getByLabel('Email').fill('dev@linkers.example');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refused = page.locator('#result.error');
    await refused.waitFor();
    assert.match(await refused.innerText(), /Sign-in failed/);

    await page.getByLabel('Email').fill('dev@linkers.example');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#who:not([hidden])').waitFor();
    assert.equal(await page.locator('#who-email').innerText(), 'dev@linkers.example');
    const select = page.getByLabel('Game');
    await select.waitFor();
    // Only where the person may link: a member of the first game's team; a viewer of the third's.
    assert.deepEqual(await select.locator('option').allTextContents(), ['Test Game (first-game)']);
    await screenshot(page, 'device-link-page-person.png');
    await page.getByRole('button', { name: 'Link this device' }).click();
    const result = page.locator('#result.ok');
    await result.waitFor();
    assert.match(await result.innerText(), /Device linked to Test Game \(first-game\)/);
    await page.close();

    const cloudToken = (await getLink(svc, link.device_link_token)).json<LinkResult>().cloud_token ?? '';
    const who = await svc.call('GET', '/cloud/auth/inspect', { token: cloudToken });
    assert.equal(
      who.json<{ agent: { game_cloud?: { game_id: string } } }>().agent.game_cloud?.game_id,
      games.first,
    );
    // Recorded as the person's: on the token, and in the game's audit log.
    const person = await signIn(svc, 'dev@linkers.example');
    const me = await svc.call('GET', '/cloud/auth/inspect', { token: null, headers: asPerson(svc, person) });
    const userId = me.json<{ agent: { person: { user_id: string } } }>().agent.person.user_id;
    const tokens = await svc.call('GET', `/cloud/games/${games.first}/tokens`);
    const minted = tokens
      .json<{ tokens: { token_id: string; user_id?: string }[] }>()
      .tokens.find((t) => t.user_id === userId);
    assert.ok(minted !== undefined, tokens.body);
    const audit = await svc.call('GET', `/cloud/games/${games.first}/audit?limit=1`);
    const [event] = audit.json<{ events: { operation: string; actor: { user_id?: string } }[] }>().events;
    assert.equal(event?.operation, 'devices.links.complete');
    assert.equal(event?.actor.user_id, userId);

    // Signed in already: the next link's page offers the games at once; signing out there ends the session.
    const next = await prepareLink(svc);
    const again = await open(next.device_link_url);
    await again.getByLabel('Game').waitFor();
    assert.equal(await again.getByLabel('Email').isVisible(), false);
    await again.getByRole('button', { name: 'Sign out' }).click();
    await again.getByLabel('Email').waitFor();
    const cookies = await context.cookies(publicUrl);
    assert.equal(cookies.filter((c) => c.name.includes('session_token')).length, 0, 'the cookie is gone');
    await again.close();

    // Leaving the team ends the token minted for the person.
    const left = await authCall(svc, 'POST', '/organization/leave', {
      cookie: person,
      body: { organizationId: team.teamId },
    });
    assert.equal(left.statusCode, 200, left.body);
    const after = await svc.call('GET', `/cloud/games/${games.first}`, { token: cloudToken });
    assert.equal(after.statusCode, 401, after.body);
    assert.equal(after.json<{ code: string }>().code, 'TOKEN_REVOKED');
  });

  it('says the link has expired', async () => {
    const link = await prepareLink(svc);
    svc.clock.advance(HOUR_MS);
    const page = await open(link.device_link_url);
    await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
    assert.match(await page.locator('main').innerText(), /valid for one hour/);
    assert.equal(await page.locator('form').count(), 0);
    await screenshot(page, 'device-link-page-expired.png');
    await page.close();
  });

  it("shows the API's message for a token that cannot list games", async () => {
    const link = await prepareLink(svc);
    const page = await open(link.device_link_url);
    await showGames(page, 'not-a-token');
    const result = page.locator('#result.error');
    await result.waitFor();
    const text = await result.innerText();
    assert.match(text, /This token cannot list games/);
    assert.match(text, /the bearer token is not valid \(API_UNAUTHORIZED\)/);
    assert.equal(await page.getByLabel('Game').isVisible(), false);
    await page.close();
  });

  it("shows the API's message when the link was used while the page was open", async () => {
    const link = await prepareLink(svc);
    const page = await open(link.device_link_url);
    await showGames(page, svc.operatorToken);
    await page.getByLabel('Game').waitFor();
    assert.equal((await completeLink(svc, link.device_link_token, games.first)).statusCode, 204);

    await page.getByRole('button', { name: 'Link this device' }).click();
    const result = page.locator('#result.warn');
    await result.waitFor();
    const text = await result.innerText();
    assert.match(text, /This link has already been used/);
    assert.match(text, /CLOUD_DEVICE_LINK_ALREADY_COMPLETE/);
    await page.close();
    // Still the token of the first completion.
    const token = (await getLink(svc, link.device_link_token)).json<LinkResult>().cloud_token ?? '';
    const who = await svc.call('GET', '/cloud/auth/inspect', { token });
    assert.equal(
      who.json<{ agent: { game_cloud?: { game_id: string } } }>().agent.game_cloud?.game_id,
      games.first,
    );
  });

  it('ran without console errors or CSP violations', () => {
    // The pages are the tests' above: run alone (a name pattern) it would pass on none, so it fails instead.
    assert.ok(web.pagesOpened > 0, 'no page was opened: this checks the pages of the tests before it');
    assert.deepEqual(web.problems, []);
  });
});
