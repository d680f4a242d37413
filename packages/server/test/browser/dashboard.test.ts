import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { createService } from '../../src/composition-root.js';
import { DEFAULT_DASHBOARD_DIR } from '../../src/http/dashboard.js';
import { startListening } from '../helpers/listening.js';
import { authCall, giveGame, newTeam, PASSWORD, type Team } from '../helpers/people.js';
import { createGameFixture, type TestService, testConfig } from '../helpers/service.js';

/**
 * The web dashboard (packages/dashboard) as the service serves it, in Debian's chromium driven by
 * playwright-core (which downloads nothing). Skipped, saying why, where chromium or the built dashboard is
 * absent. Screenshots of every page at 360 and 1440 px go to the temp dir as dashboard-<page>-<width>.png.
 */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOTS = os.tmpdir();
const WIDTHS = [360, 1440] as const;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const skip = !existsSync(CHROMIUM)
  ? `${CHROMIUM} not found: install Debian's chromium (apt-get install chromium) to run the browser test`
  : !existsSync(path.join(DEFAULT_DASHBOARD_DIR, 'index.html'))
    ? 'the dashboard is not built: run `npm run build` at the repository root'
    : false;
if (skip !== false) console.log(`# dashboard browser test skipped: ${skip}`);

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[];
}

describe('web dashboard in a browser', { skip, timeout: 180_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let browser: Browser;
  let alpha: Team;
  let alphaGame: string;
  let betaGame: string;
  /** Console errors and uncaught exceptions of every page (a CSP violation is one). */
  const problems: string[] = [];

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    alpha = await newTeam(svc, 'alpha');
    const beta = await newTeam(svc, 'beta');
    alphaGame = (await createGameFixture(svc, 'alpha-game')).gameId;
    betaGame = (await createGameFixture(svc, 'beta-game')).gameId;
    await giveGame(svc, alphaGame, alpha.teamId);
    await giveGame(svc, betaGame, beta.teamId);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });

  /** A browser profile of its own (cookies included); `bypassCSP` only where axe must be injected. */
  function newContext(
    options: { width?: number; dark?: boolean; bypassCSP?: boolean } = {},
  ): Promise<BrowserContext> {
    return browser.newContext({
      viewport: { width: options.width ?? 1024, height: 800 },
      colorScheme: options.dark === true ? 'dark' : 'light',
      bypassCSP: options.bypassCSP === true,
    });
  }

  async function open(context: BrowserContext, url: string, expected: RegExp[] = []): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (message) => {
      const text = message.text();
      if (message.type() === 'error' && !expected.some((e) => e.test(text))) {
        problems.push(`console: ${text}`);
      }
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    const response = await page.goto(`${publicUrl}${url}`);
    assert.ok(response !== null);
    return page;
  }

  async function signInOnPage(page: Page, email: string) {
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('a person signs in, sees their team’s game and not another team’s, opens it and signs out', async () => {
    const context = await newContext();
    const page = await open(context, '/');
    await page.waitForURL(/\/sign-in$/);
    await signInOnPage(page, alpha.owner.email);

    await page.getByRole('heading', { name: 'Games' }).waitFor();
    // The selected team is in the URL, and the switcher names it with the person's role.
    assert.equal(new URL(page.url()).pathname, `/teams/${alpha.teamId}`);
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
        .then((cells) => cells.slice(0, 3)),
      ['Production', 'prod', 'v1'],
    );

    // The game's address is shareable: opened afresh, it shows the same game.
    const again = await open(context, `/teams/${alpha.teamId}/games/${alphaGame}`);
    await again.getByRole('heading', { name: 'Test Game', level: 1 }).waitFor();
    // Another team's game by its address: the service's own refusal is shown, not a blank page.
    const refused = await open(context, `/teams/${alpha.teamId}/games/${betaGame}`, [/status of 403/]);
    const alert = refused.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Could not load the game/);
    assert.match(await alert.innerText(), /API_FORBIDDEN · ray id/);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in$/);
    const after = await open(context, `/teams/${alpha.teamId}`);
    await after.waitForURL(/\/sign-in\?next=/);
    await context.close();
    assert.deepEqual(problems, []);
  });

  it('an invited email signs up through the page and sees the team’s games; others are refused', async () => {
    const email = 'newcomer@alpha.example';
    const invite = await authCall(svc, 'POST', '/organization/invite-member', {
      cookie: alpha.owner.cookie,
      body: { email, role: 'member', organizationId: alpha.teamId },
    });
    assert.equal(invite.statusCode, 200, invite.body);
    const invitationId = invite.json<{ id: string }>().id;

    const context = await newContext();
    const page = await open(
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
    assert.equal(await page.getByLabel('Team').locator('option:checked').innerText(), 'Team alpha (member)');
    assert.deepEqual(await page.locator('.cards li .mono').allInnerTexts(), ['alpha-game']);
    await context.close();

    // Sign-up is by invitation (GCM_SIGNUP's default): the service's refusal is shown in its words.
    const stranger = await newContext();
    const refused = await open(stranger, '/sign-up', [/status of 40\d/]);
    await refused.getByLabel('Name').fill('Stranger');
    await refused.getByLabel('Email').fill('stranger@example.com');
    await refused.getByLabel('Password').fill(PASSWORD);
    await refused.getByRole('button', { name: 'Create account' }).click();
    const alert = refused.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Could not create the account/);
    await stranger.close();
    assert.deepEqual(problems, []);
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
    const context = await newContext();
    const browserPage = await open(context, '/no/such/page');
    await signInOnPage(browserPage, alpha.owner.email);
    await browserPage.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.equal(new URL(browserPage.url()).pathname, '/no/such/page');
    await context.close();
    assert.deepEqual(problems, []);
  });

  it('has no serious or critical accessibility violations on any page, at 360 and 1440 px, light and dark', async () => {
    const found: string[] = [];
    const looks = [
      ...WIDTHS.map((width) => ({ width, dark: false, suffix: `${width}` })),
      { width: 1440, dark: true, suffix: '1440-dark' },
    ];
    for (const { width, dark, suffix } of looks) {
      const context = await newContext({ width, dark, bypassCSP: true });
      const check = async (page: Page, name: string) => {
        await page.addScriptTag({ content: AXE_SOURCE });
        // A string, evaluated in the page: the test's own TypeScript has no DOM types.
        const result = (await page.evaluate('axe.run()')) as AxeResult;
        for (const v of result.violations) {
          if (v.impact === 'serious' || v.impact === 'critical') {
            found.push(
              `${name} at ${suffix}: ${v.id} (${v.impact}) ${v.help}: ${JSON.stringify(v.nodes.map((n) => n.target))}`,
            );
          }
        }
        await page.screenshot({
          path: path.join(SCREENSHOTS, `dashboard-${name}-${suffix}.png`),
          fullPage: true,
        });
      };
      const signUp = await open(context, '/sign-up');
      await signUp.getByRole('heading', { name: 'Create your account' }).waitFor();
      await check(signUp, 'sign-up');
      const page = await open(context, '/sign-in');
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
    assert.deepEqual(found, []);
    assert.deepEqual(problems, []);
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
