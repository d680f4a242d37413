import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createService } from '../../src/composition-root.js';
import {
  DashboardBrowser,
  dashboardSkipReason,
  LOOKS,
  launchBrowser,
  signInOnPage,
} from '../helpers/browser.js';
import { startListening } from '../helpers/listening.js';
import { authCall, giveGame, newTeam, PASSWORD, type Team } from '../helpers/people.js';
import { createGameFixture, type TestService, testConfig } from '../helpers/service.js';

/**
 * The web dashboard (packages/dashboard) as the service serves it, in Debian's chromium. Skipped, saying why,
 * where chromium or the built dashboard is absent.
 */
const skip = dashboardSkipReason('dashboard browser test');

describe('web dashboard in a browser', { skip, timeout: 180_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let alpha: Team;
  let alphaGame: string;
  let betaGame: string;

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    alpha = await newTeam(svc, 'alpha');
    const beta = await newTeam(svc, 'beta');
    alphaGame = (await createGameFixture(svc, 'alpha-game')).gameId;
    betaGame = (await createGameFixture(svc, 'beta-game')).gameId;
    await giveGame(svc, alphaGame, alpha.teamId);
    await giveGame(svc, betaGame, beta.teamId);
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  it('a person signs in, sees their team’s game and not another team’s, opens it and signs out', async () => {
    const context = await web.newContext();
    const page = await web.open(context, '/');
    await page.waitForURL(/\/sign-in$/);
    await signInOnPage(page, alpha.owner.email);

    await page.getByRole('heading', { name: 'Games' }).waitFor();
    // The selected team is in the URL, and the switcher names it with the person's role.
    assert.equal(new URL(page.url()).pathname, `/teams/${alpha.teamId}`);
    // Team names come in their own request: wait for the name rather than read the placeholder.
    await page
      .getByLabel('Team')
      .locator('option:checked', { hasText: 'Team alpha' })
      .waitFor({ state: 'attached' });
    assert.equal(await page.getByLabel('Team').locator('option:checked').innerText(), 'Team alpha (owner)');
    const cards = page.locator('.cards li');
    assert.deepEqual(await cards.locator('.mono').allInnerTexts(), ['alpha-game']);
    assert.equal(await page.getByText('beta-game').count(), 0, "another team's game is not shown");

    await page.getByRole('link', { name: /Test Game/ }).click();
    await page.getByRole('heading', { name: 'Test Game', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/teams/${alpha.teamId}/games/${alphaGame}`);
    const row = page.locator('section[aria-labelledby="namespaces"] tbody tr');
    assert.deepEqual(
      await row
        .locator('th, td')
        .allInnerTexts()
        .then((cells) => [...cells.slice(0, 2), ...cells.slice(3, 4)]),
      ['Production', 'prod', 'v1'],
    );

    // The game's address is shareable: opened afresh, it shows the same game.
    // These tabs stay open across the sign-out below: the overview keeps polling its rollouts, and a poll
    // that lands after the sign-out is refused with 401, as it should be.
    const again = await web.open(context, `/teams/${alpha.teamId}/games/${alphaGame}`, [/status of 401/]);
    await again.getByRole('heading', { name: 'Test Game', level: 1 }).waitFor();
    // Another team's game by its address: the service's own refusal is shown, not a blank page.
    const refused = await web.open(context, `/teams/${alpha.teamId}/games/${betaGame}`, [
      /status of 403/,
      /status of 401/,
    ]);
    const alert = refused.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Could not load the game/);
    assert.match(await alert.innerText(), /API_FORBIDDEN · ray id/);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in$/);
    const after = await web.open(context, `/teams/${alpha.teamId}`);
    await after.waitForURL(/\/sign-in\?next=/);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('an invited email signs up through the page and sees the team’s games; others are refused', async () => {
    const email = 'newcomer@alpha.example';
    const invite = await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: alpha.owner.cookie,
      body: { email, role: 'member', organizationId: alpha.teamId },
    });
    assert.equal(invite.statusCode, 200, invite.body);
    const invitationId = invite.json<{ id: string }>().id;

    const context = await web.newContext();
    const page = await web.open(
      context,
      `/sign-up?invitation=${encodeURIComponent(invitationId)}&email=${encodeURIComponent(email)}`,
    );
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), email);
    await page.getByLabel('Name').fill('Newcomer');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Games' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/teams/${alpha.teamId}`);
    // Team names come in their own request: wait for the name rather than read the placeholder.
    await page
      .getByLabel('Team')
      .locator('option:checked', { hasText: 'Team alpha' })
      .waitFor({ state: 'attached' });
    assert.equal(await page.getByLabel('Team').locator('option:checked').innerText(), 'Team alpha (member)');
    assert.deepEqual(await page.locator('.cards li .mono').allInnerTexts(), ['alpha-game']);
    await context.close();

    // Sign-up is by invitation (GCM_SIGNUP's default): the service's refusal is shown in its words.
    const stranger = await web.newContext();
    const refused = await web.open(stranger, '/sign-up', [/status of 40\d/]);
    await refused.getByLabel('Name').fill('Stranger');
    await refused.getByLabel('Email').fill('stranger@example.com');
    await refused.getByLabel('Password').fill(PASSWORD);
    await refused.getByRole('button', { name: 'Create account' }).click();
    const alert = refused.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Could not create the account/);
    await stranger.close();
    assert.deepEqual(web.problems, []);
  });

  it('serves the app at any page URL, keeps API 404s JSON, and caches hashed assets for good', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    const index = await fetch(`${publicUrl}/no/such/page`, { headers: html });
    assert.equal(index.status, 200);
    assert.match(index.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(index.headers.get('referrer-policy') !== null);
    const csp = index.headers.get('content-security-policy') ?? '';
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "connect-src 'self'",
      "img-src 'self' data: blob:",
      "frame-ancestors 'none'",
    ]) {
      assert.ok(csp.includes(directive), `CSP has ${directive}: ${csp}`);
    }
    assert.ok(!csp.includes('unsafe-inline'), csp);
    const page = await index.text();
    assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/.test(page), 'no inline script in index.html');

    for (const url of [
      '/cloud/no-such-thing',
      '/auth/../cloud/nothing',
      '/docs/nothing',
      '/openapi.json/x',
    ]) {
      const api = await fetch(`${publicUrl}${url}`, { headers: html });
      assert.equal(api.status, 404, url);
      assert.match(api.headers.get('content-type') ?? '', /^application\/json/, url);
      assert.equal(((await api.json()) as { code: string }).code, 'API_NOT_FOUND', url);
    }
    // A page URL asked for by a script (no text/html) is not a page: JSON 404 as before.
    const data = await fetch(`${publicUrl}/no/such/page`, { headers: { accept: 'application/json' } });
    assert.equal(data.status, 404);
    assert.equal(((await data.json()) as { code: string }).code, 'API_NOT_FOUND');

    const assets = [...page.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
    assert.ok(assets.length >= 2, `index.html names its script and style: ${assets.join(', ')}`);
    for (const asset of assets) {
      const res = await fetch(`${publicUrl}${asset}`);
      assert.equal(res.status, 200, asset);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
      if (asset.endsWith('.js')) {
        // The bundle goes gzipped to a client that takes it (fetch does, and decodes it).
        assert.equal(res.headers.get('content-encoding'), 'gzip', asset);
        assert.match(res.headers.get('vary') ?? '', /accept-encoding/i, asset);
      }
      const again = await fetch(`${publicUrl}${asset}`, {
        headers: { 'if-none-match': res.headers.get('etag') ?? '' },
      });
      assert.equal(again.status, 304, asset);
    }
    // A bundle that is not there is a 404, never the page (a browser would run HTML as a script).
    const missing = await fetch(`${publicUrl}/assets/missing-0000.js`, { headers: html });
    assert.equal(missing.status, 404);

    // In the browser, an unknown page URL is the app's own "not found" page, inside the signed-in frame.
    const context = await web.newContext();
    const browserPage = await web.open(context, '/no/such/page');
    await signInOnPage(browserPage, alpha.owner.email);
    await browserPage.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.equal(new URL(browserPage.url()).pathname, '/no/such/page');
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('has no serious or critical accessibility violations on any page, at 360 and 1440 px, light and dark', async () => {
    for (const { width, dark, suffix } of LOOKS) {
      const context = await web.newContext({ width, dark, bypassCSP: true });
      const check = (page: Page, name: string) => web.check(page, name, suffix);
      const signUp = await web.open(context, '/sign-up');
      await signUp.getByRole('heading', { name: 'Create your account' }).waitFor();
      await check(signUp, 'sign-up');
      const page = await web.open(context, '/sign-in');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await check(page, 'sign-in');
      await signInOnPage(page, alpha.owner.email);
      await page.getByRole('heading', { name: 'Games' }).waitFor();
      await page.locator('.cards li').first().waitFor();
      await check(page, 'games');
      await page.getByRole('link', { name: /Test Game/ }).click();
      await page.locator('section[aria-labelledby="namespaces"] tbody tr').first().waitFor();
      await check(page, 'game');
      await page.goto(`${publicUrl}/no/such/page`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      await check(page, 'not-found');
      // Keyboard: the first Tab reaches the skip link, which moves focus to the page's content.
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Skip to content');
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate('document.activeElement?.id'), 'main');
      await context.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
  });
});

describe('web dashboard not built', () => {
  it('the service still starts, `/` says how to build it and the API answers as before', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-test-'));
    const { app } = await createService(await testConfig(dataDir), {
      logger: false,
      dashboardDir: path.join(dataDir, 'no-dashboard-here'),
    });
    try {
      const root = await app.inject({ method: 'GET', url: '/' });
      assert.equal(root.statusCode, 200);
      assert.match(root.headers['content-type'] as string, /^text\/plain/);
      assert.match(root.body, /npm run build/);
      const page = await app.inject({ method: 'GET', url: '/teams/x', headers: { accept: 'text/html' } });
      assert.match(page.body, /npm run build/);
      const api = await app.inject({
        method: 'GET',
        url: '/cloud/nothing',
        headers: { accept: 'text/html' },
      });
      assert.equal(api.statusCode, 404);
      assert.equal(api.json<{ code: string }>().code, 'API_NOT_FOUND');
      const asset = await app.inject({ method: 'GET', url: '/assets/index.js' });
      assert.equal(asset.statusCode, 404);
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
