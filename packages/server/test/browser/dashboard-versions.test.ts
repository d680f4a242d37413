import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  DashboardBrowser,
  dashboardSkipReason,
  fillEditor,
  LOOKS,
  launchBrowser,
} from '../helpers/browser.js';
import { startListening, uploadBuild } from '../helpers/listening.js';
import { addMember, giveGame, newTeam, type Team } from '../helpers/people.js';
import { createGameFixture, type TestService } from '../helpers/service.js';
import { HANG_MS, until } from '../helpers/until.js';

/**
 * The dashboard's version pages in Chromium against a real service: the new-version editor (checked as
 * typed with the contract's validator, each problem at its line), creating a version, the diff against a
 * namespace's version, pointing a namespace at it, a new namespace on the overview, and what a viewer sees.
 */
const skip = dashboardSkipReason('dashboard versions browser test', { sqliteOnly: true });

/** A config whose offline problem is max_players 300 (line 4, column 20); `image` names its build. */
const badConfig = (image: string) => `matchmaker:
  game_modes:
    default:
      max_players: 300
      container:
        image_id: ${image}
        ports:
          game:
            port: 7777
            protocol: udp
`;
const NO_SUCH_BUILD = '0193e3a4-7b1c-7d2e-8f30-4a5b6c7d8e9f';

/** The id of the focused element, and the line of the editor's cursor (its 1-based `.cm-line`). */
async function cursor(page: Page): Promise<{ id: string; line: number }> {
  return (await page.evaluate(`(() => {
    const node = document.getSelection().focusNode;
    const line = (node.nodeType === 1 ? node : node.parentElement).closest('.cm-line');
    return { id: document.activeElement.id, line: [...line.parentElement.children].indexOf(line) + 1 };
  })()`)) as { id: string; line: number };
}

/** The line numbers the editor's lint gutter marks, read from where each mark stands beside the numbers. */
async function markedLines(page: Page): Promise<number[]> {
  return (await page.evaluate(`(() => {
    const numbers = [...document.querySelectorAll('.cm-lineNumbers .cm-gutterElement')];
    return [...document.querySelectorAll('.cm-gutter-lint .cm-lint-marker-error')].map((mark) => {
      const top = mark.closest('.cm-gutterElement').getBoundingClientRect().top;
      const beside = numbers.find((n) => Math.abs(n.getBoundingClientRect().top - top) < 2);
      return Number(beside?.textContent);
    });
  })()`)) as number[];
}

describe('dashboard: versions', { skip, timeout: 150_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let team: Team;
  let gameId: string;
  let namespaceId: string;
  let firstVersion: string;
  let buildId: string;
  const memberEmail = 'member@versions.example';
  const viewerEmail = 'viewer@versions.example';

  before(async () => {
    ({ svc, publicUrl } = await startListening());
    team = await newTeam(svc, 'versions');
    const fixture = await createGameFixture(svc, 'versions-game');
    ({ gameId, namespaceId, versionId: firstVersion } = fixture);
    await giveGame(svc, gameId, team.teamId);
    buildId = await uploadBuild(svc, { gameId, namespaceId }, 'server');
    await addMember(svc, team, memberEmail, 'member');
    await addMember(svc, team, viewerEmail, 'viewer');
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  /** Signed in as `email`; the service's refusals a test provokes (400) are not problems. */
  const signedIn = (email: string, options: Parameters<DashboardBrowser['newContext']>[0] = {}) =>
    web.signedIn(email, options, [/status of 400/]);
  const gamePath = () => `/teams/${team.teamId}/games/${gameId}`;
  const getJson = async <T>(url: string): Promise<T> => {
    const res = await svc.call('GET', url);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<T>();
  };

  it('an owner writes a version with an error shown at its line, fixes it, creates it, diffs and runs it', async () => {
    const { context, page } = await signedIn(team.owner.email);
    await page.goto(`${publicUrl}${gamePath()}`);
    await page.getByRole('link', { name: 'New version' }).click();
    await page.getByRole('heading', { name: 'New version', level: 1 }).waitFor();
    const config = page.getByLabel('Configuration (YAML)');
    // The starter config is valid as it stands.
    await page.getByText('The config is valid').waitFor();
    await page.getByLabel('Version name').fill('v2');

    // A value over its limit: the contract's message, at the value's line and column, described to a screen reader.
    await fillEditor(page, badConfig(buildId));
    const problems = page.locator('#version-config-problems li');
    await problems.first().waitFor();
    const problem = await problems.first().innerText();
    assert.match(problem, /Line 4, column 20/);
    assert.match(problem, /matchmaker\.game_modes\.default\.max_players/);
    assert.match(problem, /game mode "default": max_players is 300; at most 256/);
    assert.equal(await config.getAttribute('aria-invalid'), 'true');
    assert.match((await config.getAttribute('aria-describedby')) ?? '', /version-config-problems/);
    assert.ok(await page.getByRole('button', { name: 'Create version' }).isDisabled());
    // max_players_direct and max_players_party follow max_players unwritten: one problem, not three.
    await page.getByText('1 problem in the config').waitFor();
    // The editor's lint gutter marks the same line.
    await until('the gutter marks line 4', HANG_MS, async () => (await markedLines(page)).join() === '4');
    // Choosing the problem puts the cursor on its line.
    await problems.first().getByRole('button', { name: 'Line 4, column 20' }).click();
    assert.deepEqual(await cursor(page), { id: 'version-config', line: 4 });

    // Broken YAML is shown the same way.
    await fillEditor(page, 'matchmaker:\n  game_modes: [\n');
    await page.locator('#version-config-problems li', { hasText: 'YAML syntax' }).first().waitFor();

    // Fixed offline, but the build does not exist: the service's refusal, at the image_id it is about (line 6,
    // column 19, its value), marked in the gutter there, said once and in the page's terms.
    await fillEditor(page, badConfig(NO_SUCH_BUILD).replace('max_players: 300', 'max_players: 8'));
    await page.getByText('The config is valid').waitFor();
    await page.getByRole('button', { name: 'Create version' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Could not create the version/);
    assert.match(
      await alert.innerText(),
      /a problem the page could not check by itself, marked in the config/,
    );
    const answered = page.locator('#version-config-problems li', { hasText: 'service' });
    await answered.waitFor();
    assert.match(await answered.innerText(), /Line 6, column 19/);
    assert.match(await answered.innerText(), /matchmaker\.game_modes\.default\.container\.image_id/);
    assert.match(
      await answered.innerText(),
      /is not a completed build of this game; choose one with "Insert a build"/,
    );
    assert.doesNotMatch(await answered.innerText(), /POST \/games/);
    assert.equal(await page.getByText('is not a completed build of this game').count(), 1, 'said once');
    await until('the gutter marks line 6', HANG_MS, async () => (await markedLines(page)).join() === '6');

    // Fixed with the build picker: the build, by name, replaces the image_id's value.
    const picker = page.getByLabel('Insert a build');
    const option = picker.locator('option', { hasText: 'server' });
    await option.waitFor({ state: 'attached' });
    assert.equal(await option.getAttribute('value'), buildId);
    await picker.selectOption(buildId);
    await page.getByText('The config is valid').waitFor();
    assert.match(await config.innerText(), new RegExp(`\\n {8}image_id: ${buildId}\\n`));
    assert.equal(await alert.count(), 0, 'an edit clears the last answer');
    assert.deepEqual(await markedLines(page), []);
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: 'v2', level: 1 }).waitFor();
    const versionId = /\/versions\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname)?.[1];
    assert.ok(versionId !== undefined, page.url());
    const made = await getJson<{ version: { display_name: string; config: Record<string, unknown> } }>(
      `/cloud/games/${gameId}/versions/${versionId}`,
    );
    assert.equal(made.version.display_name, 'v2');
    assert.deepEqual(made.version.config, {
      matchmaker: {
        game_modes: {
          default: {
            max_players: 8,
            container: { image_id: buildId, ports: { game: { port: 7777, protocol: 'udp' } } },
          },
        },
      },
    });
    assert.match(await page.locator('.code-block').innerText(), /max_players: 8/);

    // The diff against what Production runs (v1, an empty config), chosen by URL.
    await page.getByLabel('Namespace to compare with').selectOption({ label: 'Production (prod)' });
    await page.waitForURL((url) => url.searchParams.get('against') === namespaceId);
    const added = page.locator('.diff-line.added', { hasText: 'max_players: 8' });
    await added.waitFor();
    // Marked by a sign and by words, not by colour alone.
    assert.match(await added.innerText(), /^\+\s*Added:/);
    assert.match(await page.locator('.diff-summary').innerText(), /only in v1 \(running in Production\)/);
    assert.equal(await page.locator('.diff-line.removed').count(), 1, 'the "{}" of v1');

    // Point Production at it.
    await page.getByRole('button', { name: 'Run this version' }).click();
    await page.getByText('Production now runs v2.').waitFor();
    const ns = await getJson<{ namespace: { version_id: string } }>(
      `/cloud/games/${gameId}/namespaces/${namespaceId}`,
    );
    assert.equal(ns.namespace.version_id, versionId);
    await page.getByText('Production runs this version: nothing differs.').waitFor();

    // "Edit": a new version from this one starts with its config.
    await page.getByRole('link', { name: 'New version from this' }).click();
    await page.getByText('Starting from').waitFor();
    await page.getByText('The config is valid').waitFor();
    assert.match(await config.innerText(), /image_id: [0-9a-f-]{36}\n/);
    assert.match(new URL(page.url()).search, new RegExp(`from=${versionId}`));

    // The overview names the versions with links, and shows what Production runs now.
    await page.goto(`${publicUrl}${gamePath()}`);
    const row = page.locator('section[aria-labelledby="namespaces"] tbody tr', { hasText: 'Production' });
    assert.match(await row.innerText(), /v2/);
    await page.locator('section[aria-labelledby="versions"]').getByRole('link', { name: 'v1' }).click();
    await page.getByRole('heading', { name: 'v1', level: 1 }).waitFor();
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it("admits the editor's <style> by a nonce new with each page, and no other inline style", async () => {
    const load = async () => {
      const res = await fetch(`${publicUrl}${gamePath()}/versions/new`, { headers: { accept: 'text/html' } });
      const csp = res.headers.get('content-security-policy') ?? '';
      const meta = /<meta name="gcm-style-nonce" content="([^"]+)">/.exec(await res.text())?.[1];
      assert.equal(res.headers.get('etag'), null, 'no validator for a page that changes every time');
      assert.ok(!csp.includes('unsafe-inline'), csp);
      assert.match(csp, new RegExp(`style-src 'self' 'nonce-${meta?.replace(/[+/]/g, '\\$&')}';`));
      return meta;
    };
    assert.notEqual(await load(), await load());
  });

  it('a member creates a namespace on the overview; a name id in use is refused at its field', async () => {
    const { context, page } = await signedIn(memberEmail);
    await page.goto(`${publicUrl}${gamePath()}`);
    const form = page.getByRole('form', { name: 'New namespace' });
    await form.getByLabel('Display name').fill('Staging');
    await form.getByLabel('Name id').fill('prod');
    await form.getByLabel('Version').selectOption({ label: 'v1' });
    await form.getByRole('button', { name: 'Create namespace' }).click();
    const refused = form.locator('#new-namespace-name_id-problems');
    await refused.waitFor();
    assert.match(await refused.innerText(), /prod/);
    assert.equal(await form.getByLabel('Name id').getAttribute('aria-invalid'), 'true');

    await form.getByLabel('Name id').fill('staging');
    await form.getByRole('button', { name: 'Create namespace' }).click();
    await form.getByText('Namespace Staging created.').waitFor();
    await page.locator('section[aria-labelledby="namespaces"] tbody tr', { hasText: 'Staging' }).waitFor();
    const game = await getJson<{ game: { namespaces: { name_id: string; version_id: string }[] } }>(
      `/cloud/games/${gameId}`,
    );
    assert.equal(game.game.namespaces.find((n) => n.name_id === 'staging')?.version_id, firstVersion);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('a viewer sees versions and diffs but no way to create or run them', async () => {
    const { context, page } = await signedIn(viewerEmail);
    await page.goto(`${publicUrl}${gamePath()}`);
    await page.getByRole('heading', { name: 'Versions' }).waitFor();
    await page.locator('section[aria-labelledby="versions"] tbody tr').first().waitFor();
    assert.equal(await page.getByRole('link', { name: 'New version' }).count(), 0);
    assert.equal(await page.getByRole('form', { name: 'New namespace' }).count(), 0);
    await page.goto(`${publicUrl}${gamePath()}/versions/${firstVersion}?against=${namespaceId}`);
    await page.getByRole('heading', { name: 'v1', level: 1 }).waitFor();
    await page.locator('.diff-line.removed').first().waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Run in a namespace' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'New version from this' }).count(), 0);
    await page.goto(`${publicUrl}${gamePath()}/versions/new`);
    await page.getByText('Members and above of the team create versions').waitFor();
    assert.equal(await page.getByLabel('Configuration (YAML)').count(), 0);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('has no serious or critical accessibility violations, at 360 and 1440 px, light and dark', async () => {
    const v1 = firstVersion;
    const latest = (
      await getJson<{ versions: { version_id: string }[] }>(`/cloud/games/${gameId}/versions?limit=1`)
    ).versions[0]?.version_id;
    for (const look of LOOKS) {
      const { context, page } = await signedIn(team.owner.email, { ...look, bypassCSP: true });
      await page.goto(`${publicUrl}${gamePath()}/versions/new?from=${latest}`);
      await page.getByText('The config is valid').waitFor();
      await fillEditor(page, badConfig(buildId));
      await page.locator('#version-config-problems li').first().waitFor();
      await web.check(page, 'version-new', look.suffix);
      await page.goto(`${publicUrl}${gamePath()}/versions/${latest}?against=${namespaceId}`);
      await page.getByRole('heading', { name: 'Configuration' }).waitFor();
      // Production runs the latest: compare with Staging, which runs v1.
      await page.getByLabel('Namespace to compare with').selectOption({ label: 'Staging (staging)' });
      await page.locator('.diff-line.added').first().waitFor();
      await web.check(page, 'version', look.suffix);
      assert.ok(v1 !== latest);
      await context.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
  });
});
