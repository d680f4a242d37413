import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type BrowserContext, chromium } from 'playwright-core';
import { screenshot } from '../helpers/browser.js';
import { startListening } from '../helpers/listening.js';
import type { TestService } from '../helpers/service.js';

/**
 * The `/docs` page in a real headless browser (Debian's chromium, as in device-link-page.test.ts): it is
 * titled for the service, reads `/openapi.json` (not the plugin's own copy) and renders its operations,
 * all within its Content-Security-Policy (the browser reports no violation).
 */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
];

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: install Debian's chromium (apt-get install chromium) to run the browser test`;
if (skip !== false) console.log(`# browser test skipped: ${skip}`);

describe('docs page in a browser', { skip, timeout: 120_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let profileDir: string;
  let context: BrowserContext;

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    profileDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-chromium-'));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      args: ARGS,
      headless: true,
      viewport: { width: 1000, height: 800 },
    });
  });
  after(async () => {
    await context?.close();
    await svc?.close();
    if (profileDir !== undefined) rmSync(profileDir, { recursive: true, force: true });
  });

  it('shows the operations of /openapi.json under the service title', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    // Chromium reports each CSP violation (a refused script, style, image or fetch) on the console.
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));

    const answer = await page.goto(`${publicUrl}/docs`);
    assert.match((await answer?.allHeaders())?.['content-security-policy'] ?? '', /script-src 'self'/);
    assert.equal(await page.title(), 'Game Cloud Management API');
    await page.locator('.info .title', { hasText: 'Game Cloud Management API' }).waitFor();
    // An operation of each kind is listed: one that needs a token and one that does not.
    await page
      .locator('.opblock-summary-path', { hasText: '/cloud/games/{game_id}/namespaces' })
      .first()
      .waitFor();
    await page.locator('.opblock-summary-path', { hasText: '/cloud/devices/links' }).first().waitFor();
    await screenshot(page, 'docs-page.png', { fullPage: false });

    assert.ok(requested.includes('/openapi.json'), requested.join(' '));
    assert.ok(!requested.includes('/docs/json'), 'the page read the plugin copy, not /openapi.json');
    assert.equal(
      await page.locator('.errors-wrapper').count(),
      0,
      'swagger-ui reports errors in the document',
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});
