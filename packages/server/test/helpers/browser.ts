import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { DEFAULT_DASHBOARD_DIR } from '../../src/http/dashboard.js';
import { PASSWORD } from './people.js';

/**
 * The dashboard's browser tests: Debian's chromium driven by playwright-core (which downloads nothing).
 * With GCM_SCREENSHOTS set, screenshots go to that directory as dashboard-<page>-<look>.png.
 */
export const CHROMIUM = '/usr/bin/chromium';
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
/**
 * Where screenshots of the checked pages go: the directory GCM_SCREENSHOTS names; none when it is unset. No
 * test reads them, and each cost chromium a full-page render and a PNG encode (seconds of a loaded CI run's
 * CPU per file); set it to look at the pages or to refresh a picture of docs/screenshots.
 */
export const SCREENSHOTS: string | undefined = process.env.GCM_SCREENSHOTS || undefined;

/** A screenshot of the page (of all of it unless `fullPage` is false) as `file` in SCREENSHOTS, when set. */
export async function screenshot(page: Page, file: string, options: { fullPage?: boolean } = {}) {
  if (SCREENSHOTS === undefined) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, file), fullPage: options.fullPage ?? true });
}
export const ALL_LOOKS = [
  { width: 360, dark: false, suffix: '360' },
  { width: 1440, dark: false, suffix: '1440' },
  { width: 1440, dark: true, suffix: '1440-dark' },
] as const;
export type Look = (typeof ALL_LOOKS)[number];
/**
 * The looks every page is checked (and, with GCM_SCREENSHOTS, photographed) in. Without screenshots, 360 px
 * light and 1440 px dark: a width changes the layout whatever the theme and a theme the contrast whatever
 * the width, so those two meet each width and each theme once; the third look cost a third of the axe
 * passes, about a minute of a CI run's wall time, and found nothing the two did not.
 */
export const LOOKS: readonly Look[] =
  SCREENSHOTS === undefined ? ALL_LOOKS.filter((look) => look.suffix !== '1440') : ALL_LOOKS;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Why a dashboard browser test cannot run here, or false. Printed once by each file that skips.
 * `sqliteOnly`: a page's own test, whose store is incidental. (`npm run test:pg` leaves test/browser/ out
 * altogether, scripts/test-files.sh; this stands for a file run by hand on PostgreSQL.)
 */
export function dashboardSkipReason(file: string, options: { sqliteOnly?: boolean } = {}): string | false {
  const skip = !existsSync(CHROMIUM)
    ? `${CHROMIUM} not found: install Debian's chromium (apt-get install chromium) to run the browser test`
    : !existsSync(path.join(DEFAULT_DASHBOARD_DIR, 'index.html'))
      ? 'the dashboard is not built: run `npm run build` at the repository root'
      : options.sqliteOnly === true && process.env.GCM_TEST_DATABASE_URL !== undefined
        ? 'a page test runs on SQLite only: the dashboard reaches the store through the API, tested on both'
        : false;
  if (skip !== false) console.log(`# ${file} skipped: ${skip}`);
  return skip;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[];
}

/**
 * One browser and the service's public URL, collecting every page's console errors and uncaught exceptions
 * (a CSP violation is one) in `problems`, which each test ends by asserting empty.
 */
export class DashboardBrowser {
  readonly problems: string[] = [];
  /** Serious or critical axe violations found by `check`. */
  readonly violations: string[] = [];
  /** Pages opened so far: a check of `problems` over no page at all checks nothing. */
  pagesOpened = 0;

  constructor(
    readonly browser: Browser,
    readonly publicUrl: string,
  ) {}

  /** A browser profile of its own (cookies included); `bypassCSP` only where axe must be injected. */
  newContext(options: { width?: number; dark?: boolean; bypassCSP?: boolean } = {}): Promise<BrowserContext> {
    return this.browser.newContext({
      viewport: { width: options.width ?? 1024, height: 800 },
      colorScheme: options.dark === true ? 'dark' : 'light',
      bypassCSP: options.bypassCSP === true,
    });
  }

  /** Opens `url` (a path of the service) in a new tab; console errors matching `expected` are not problems. */
  async open(context: BrowserContext, url: string, expected: RegExp[] = []): Promise<Page> {
    const page = await context.newPage();
    this.pagesOpened += 1;
    page.on('console', (message) => {
      const text = message.text();
      if (message.type() === 'error' && !expected.some((e) => e.test(text))) {
        this.problems.push(`console: ${text}`);
      }
    });
    page.on('pageerror', (err) => this.problems.push(`page error: ${err.message}`));
    const response = await page.goto(`${this.publicUrl}${url}`);
    assert.ok(response !== null);
    return page;
  }

  /**
   * A new context signed in as `email` through the sign-in page, ending on the page after it; console
   * errors matching `expected` (refusals a test provokes) are not problems.
   */
  async signedIn(
    email: string,
    options: Parameters<DashboardBrowser['newContext']>[0] = {},
    expected: RegExp[] = [],
  ) {
    const context = await this.newContext(options);
    const page = await this.open(context, '/sign-in', expected);
    await signInOnPage(page, email);
    await page.waitForURL((url) => url.pathname !== '/sign-in');
    return { context, page };
  }

  /**
   * Runs axe on the page as it is (the context must bypass CSP) and keeps serious and critical violations,
   * then takes a screenshot dashboard-<name>-<look>.png (when GCM_SCREENSHOTS is set).
   */
  async check(page: Page, name: string, look: string): Promise<void> {
    await page.addScriptTag({ content: AXE_SOURCE });
    // A string, evaluated in the page: the test's own TypeScript has no DOM types. Only violations are
    // read, and leaving out the details of passes and incomplete checks takes a third off axe's time.
    const result = (await page.evaluate("axe.run({ resultTypes: ['violations'] })")) as AxeResult;
    for (const v of result.violations) {
      if (v.impact === 'serious' || v.impact === 'critical') {
        this.violations.push(
          `${name} at ${look}: ${v.id} (${v.impact}) ${v.help}: ${JSON.stringify(v.nodes.map((n) => n.target))}`,
        );
      }
    }
    await screenshot(page, `dashboard-${name}-${look}.png`);
  }
}

export async function signInOnPage(page: Page, email: string, password = PASSWORD) {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Replaces the editor's text as a person pasting it would: all selected, then a paste. (Playwright's fill
 * types into a contenteditable as the browser's editing commands do, spaces turned into no-break spaces.)
 */
export async function fillEditor(page: Page, text: string): Promise<void> {
  await page.getByLabel('Configuration (YAML)').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.evaluate(`(() => {
    const data = new DataTransfer();
    data.setData('text/plain', ${JSON.stringify(text)});
    document.activeElement.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  })()`);
}
