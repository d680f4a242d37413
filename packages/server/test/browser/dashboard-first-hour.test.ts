import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ALL_LOOKS, DashboardBrowser, dashboardSkipReason, launchBrowser } from '../helpers/browser.js';
import { startListening, uploadBuild } from '../helpers/listening.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { giveGame, newTeam, type Team } from '../helpers/people.js';
import type { TestService } from '../helpers/service.js';

/**
 * A new studio's first hour in the dashboard, in Chromium against a real service: an empty game's overview
 * (its figures and first-run checklist, ticked step by step), a new namespace whose name id is proposed
 * from its name at a word boundary and whose version defaults to the newest, tables as card lists at
 * 360 px with a copy button on every id, long tag values cut with the whole value kept, the audit log
 * in sentences, and the game renamed in Settings.
 */
const skip = dashboardSkipReason('dashboard first-hour browser test', { sqliteOnly: true });

/** docs/screenshots of the repository: where the README's pictures live. */
const DOCS_SCREENSHOTS = path.join(REPO_ROOT, 'docs/screenshots');
/** The README's pictures this test takes each run, by the page and look they show. */
const DOCS_PICTURES: Record<string, string> = {
  'first-hour-overview 1440': 'dashboard-overview-1440.png',
  'first-hour-tables 360': 'dashboard-tables-360.png',
};

/** Checks the page (DashboardBrowser.check), and keeps its picture in `pictures` if the README shows it. */
async function checkAndPicture(
  web: DashboardBrowser,
  pictures: Map<string, Buffer>,
  page: Page,
  name: string,
  look: string,
) {
  await web.check(page, name, look);
  const picture = DOCS_PICTURES[`${name} ${look}`];
  if (picture !== undefined) pictures.set(picture, await page.screenshot({ fullPage: true }));
}

const LONG_VALUE = `commit-${'0123456789abcdef'.repeat(4)}`;

/** The computed `display` of the first element `selector` finds. */
function displayOf(page: Page, selector: string): Promise<string> {
  return page.evaluate(
    `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).display`,
  ) as Promise<string>;
}

describe('dashboard: the first hour of a new studio', { skip, timeout: 240_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let team: Team;
  let gameId: string;
  let emptyGameId: string;
  const versions: Record<string, string> = {};

  const createGame = async (nameId: string, displayName: string) => {
    const res = await svc.call('POST', '/cloud/games', {
      body: { name_id: nameId, display_name: displayName },
    });
    assert.equal(res.statusCode, 200, res.body);
    const id = res.json<{ game_id: string }>().game_id;
    await giveGame(svc, id, team.teamId);
    return id;
  };
  const createVersion = async (name: string) => {
    const res = await svc.call('POST', `/cloud/games/${gameId}/versions`, {
      body: { display_name: name, config: {} },
    });
    assert.equal(res.statusCode, 200, res.body);
    versions[name] = res.json<{ version_id: string }>().version_id;
  };
  const namespaces = async () => {
    const res = await svc.call('GET', `/cloud/games/${gameId}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{
      game: { namespaces: { namespace_id: string; name_id: string; version_id: string }[] };
    }>().game.namespaces;
  };
  const overview = (id = gameId) => `/teams/${team.teamId}/games/${id}`;
  /** The checklist's "N of 4 done" line, once it says `done`. */
  const stepsDone = (page: Page, done: number) =>
    page.getByRole('region', { name: 'First steps' }).getByText(`${done} of 4 done`).waitFor();
  /** A figure's value, by its label. */
  const figure = (page: Page, label: string) =>
    page.locator('.figure', { has: page.locator('.figure-label', { hasText: new RegExp(`^${label}$`) }) });

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    team = await newTeam(svc, 'firsthour');
    gameId = await createGame('raiders', 'Star Raiders');
    emptyGameId = await createGame('empty', 'Empty Game');
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  it('an empty game shows its figures and first steps, each ticked as it is done', async () => {
    const { context, page } = await web.signedIn(team.owner.email);
    await page.goto(`${publicUrl}${overview()}`);
    await stepsDone(page, 0);
    for (const label of ['namespaces', 'builds', 'live lobbies']) {
      await figure(page, label).locator('.figure-value', { hasText: /^0$/ }).waitFor();
    }
    const steps = page.getByRole('region', { name: 'First steps' });
    // Each step links to where it is done.
    assert.equal(
      await steps.getByRole('link', { name: 'Create a version' }).getAttribute('href'),
      `${overview()}/versions/new`,
    );
    assert.equal(
      await steps.getByRole('link', { name: 'Upload a build' }).getAttribute('href'),
      `${overview()}/builds`,
    );
    assert.equal(
      await steps.getByRole('link', { name: 'Mint a token' }).getAttribute('href'),
      `${overview()}/tokens`,
    );
    // The main action is a button-like link, with an icon.
    await page.getByRole('link', { name: 'New version' }).waitFor();
    assert.equal(
      await page.evaluate(`getComputedStyle(document.querySelector('a.button')).textDecorationLine`),
      'none',
    );

    await createVersion('v1');
    await createVersion('v2');
    await page.reload();
    await stepsDone(page, 1);
    await steps.getByText('Create a version (done)').waitFor();

    // A new namespace: its name id proposed from the name, cut at a word boundary; the newest version chosen.
    const form = page.getByRole('form', { name: 'New namespace' });
    // Nothing typed: refused here, nothing sent.
    await form.getByRole('button', { name: 'Create namespace' }).click();
    await form.getByText('Give the namespace a name.').waitFor();
    assert.deepEqual(await namespaces(), []);
    await form.getByLabel('Display name').fill('Star Raiders: Online!');
    assert.equal(await form.getByLabel('Name id').inputValue(), 'star-raiders');
    assert.equal(await form.getByLabel('Version').inputValue(), versions.v2);
    await form.getByRole('button', { name: 'Create namespace' }).click();
    await form.getByText('Namespace Star Raiders: Online! created.').waitFor();
    const [made] = await namespaces();
    assert.equal(made?.name_id, 'star-raiders');
    assert.equal(made?.version_id, versions.v2);
    await stepsDone(page, 2);
    await figure(page, 'namespace').locator('.figure-value', { hasText: /^1$/ }).waitFor();

    await uploadBuild(svc, { gameId, namespaceId: made.namespace_id }, 'server', {
      tags: { commit: LONG_VALUE },
    });
    await page.reload();
    await stepsDone(page, 3);
    await figure(page, 'builds').locator('.figure-value', { hasText: /^1$/ }).waitFor();

    const token = await svc.call('POST', `/cloud/games/${gameId}/tokens/cloud`);
    assert.equal(token.statusCode, 200, token.body);
    await page.reload();
    await figure(page, 'builds').locator('.figure-value', { hasText: /^1$/ }).waitFor();
    // All done: the checklist has done its work and goes.
    await page.getByRole('heading', { name: 'Namespaces' }).waitFor();
    await page.waitForFunction(`document.querySelector('.checklist') === null`);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('every table is a card list at 360 px; every id has a copy button; long tags are cut, kept whole', async () => {
    const narrow = await web.signedIn(team.owner.email, { width: 360 });
    for (const tab of ['', '/tokens', '/audit']) {
      await narrow.page.goto(`${publicUrl}${overview()}${tab}`);
      await narrow.page.locator('.table-wrap tbody tr').first().waitFor();
      assert.equal(await displayOf(narrow.page, '.table-wrap tbody tr'), 'block', `a card at 360 px: ${tab}`);
      assert.equal(await displayOf(narrow.page, '.table-wrap td[data-label]'), 'block');
    }
    await narrow.context.close();

    const { context, page } = await web.signedIn(team.owner.email, { width: 1440 });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: publicUrl });
    await page.goto(`${publicUrl}${overview()}`);
    await page.locator('.table-wrap tbody tr').first().waitFor();
    assert.equal(await displayOf(page, '.table-wrap tbody tr'), 'table-row');
    await page.getByRole('button', { name: 'Copy id of version v2' }).click();
    await page.getByRole('button', { name: 'Copied id of version v2' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), versions.v2);

    await page.goto(`${publicUrl}${overview()}/builds`);
    const tag = page.locator('.chip .tag-text').first();
    await tag.waitFor();
    assert.equal(await tag.getAttribute('title'), `commit=${LONG_VALUE}: show only builds tagged so`);
    assert.ok(
      (await page.evaluate(
        `(() => { const t = document.querySelector('.chip .tag-text'); return t.scrollWidth > t.clientWidth; })()`,
      )) === true,
      'a long tag value is cut on a wide screen',
    );
    await page.getByRole('button', { name: 'Copy value of tag commit' }).click();
    await page.getByRole('button', { name: 'Copied value of tag commit' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), LONG_VALUE);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('the audit log reads as sentences, ids as names with links', async () => {
    const { context, page } = await web.signedIn(team.owner.email);
    await page.goto(`${publicUrl}${overview()}/audit`);
    const row = page.locator('tbody tr', { hasText: `${team.owner.email} created namespace` });
    await row.waitFor();
    const link = row.getByRole('link', { name: 'Star Raiders: Online!' });
    assert.equal(await link.getAttribute('href'), `${overview()}/lobbies?namespace=star-raiders`);
    const version = page.locator('tbody tr', { hasText: 'The operator created version v2' });
    assert.equal(
      await version.getByRole('link', { name: 'v2' }).getAttribute('href'),
      `${overview()}/versions/${versions.v2}`,
    );
    // No operation ids or paths full of ids in the words.
    assert.doesNotMatch(await page.locator('tbody').innerText(), /games\.versions|\/cloud\/games/);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('renames the game in Settings; its name id stays', async () => {
    const { context, page } = await web.signedIn(team.owner.email);
    await page.goto(`${publicUrl}${overview(emptyGameId)}/settings`);
    const form = page.getByRole('form', { name: 'Rename the game' });
    await form.getByLabel('New display name').fill('Empty Game II');
    await form.getByRole('button', { name: 'Save name' }).click();
    await form.getByText('Renamed to Empty Game II.').waitFor();
    // The page's frame reads the game again: the new name shows at once.
    await page
      .getByRole('definition')
      .filter({ hasText: /^Empty Game II$/ })
      .waitFor();
    const game = (await svc.call('GET', `/cloud/games/${emptyGameId}`)).json<{
      game: { display_name: string; name_id: string };
    }>().game;
    assert.deepEqual(game, { ...game, display_name: 'Empty Game II', name_id: 'empty' });
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('passes axe in every look; screenshots of the new overview and a 360 px card list', async () => {
    const pictures = new Map<string, Buffer>();
    // Every look, not LOOKS: the README's overview picture is the 1440 px light one.
    for (const look of ALL_LOOKS) {
      const { context, page } = await web.signedIn(team.owner.email, {
        width: look.width,
        dark: look.dark,
        bypassCSP: true,
      });
      await page.goto(`${publicUrl}${overview(emptyGameId)}`);
      await stepsDone(page, 0);
      await checkAndPicture(web, pictures, page, 'first-hour-overview', look.suffix);
      for (const [name, tab] of [
        ['first-hour-tables', ''],
        ['first-hour-audit', '/audit'],
        ['first-hour-builds', '/builds'],
      ] as const) {
        await page.goto(`${publicUrl}${overview()}${tab}`);
        await page.locator('.table-wrap tbody tr').first().waitFor();
        await checkAndPicture(web, pictures, page, name, look.suffix);
      }
      await context.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
    // Only pages that passed replace the README's pictures.
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    for (const [file, png] of pictures) writeFileSync(path.join(DOCS_SCREENSHOTS, file), png);
  });
});
