import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { DashboardBrowser, dashboardSkipReason, fillEditor, launchBrowser } from '../helpers/browser.js';
import { startListening } from '../helpers/listening.js';
import { PASSWORD } from '../helpers/people.js';
import type { TestService } from '../helpers/service.js';

/**
 * The dashboard's main journey, as a newcomer lives it, in Chromium against a real service on either
 * store: sign up → make a team → make a game → a first version → a namespace → upload a build (multipart)
 * → a version running it, with a typing error shown at its line and fixed → point the namespace at it →
 * a reporter token → a lobby reported by the game server appears live → a plan change made elsewhere
 * appears live. Every step is checked against what the service then says through its API.
 */
const skip = dashboardSkipReason('dashboard journey browser test');

/** The version the journey creates in the editor; `maxPlayers` 300 is beyond the contract's limit. */
const serverConfig = (buildId: string, maxPlayers: number) => `matchmaker:
  max_players: ${maxPlayers}
  game_modes:
    deathmatch:
      container:
        image_id: ${buildId}
        ports:
          game:
            port: 7777
            protocol: udp
`;

describe('dashboard: the newcomer’s journey', { skip, timeout: 240_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  const email = 'founder@journey.example';

  before(async () => {
    ({ svc, publicUrl } = await startListening({ env: { GCM_SIGNUP: 'open' } }));
    // Tokens and billing periods are judged by the browser's clock too: the service's follows it.
    svc.clock.set(Date.now());
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  /** The service's answer to the operator, for checking what the page did. */
  async function read<T>(path: string): Promise<T> {
    const res = await svc.call('GET', path);
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
    return res.json<T>();
  }

  const idFromPath = (page: Page, pattern: RegExp): string => {
    const match = new URL(page.url()).pathname.match(pattern);
    assert.ok(match?.[1] !== undefined, `${pattern} in ${page.url()}`);
    return match[1];
  };

  it('goes from sign-up to a live lobby and a live plan change', async () => {
    const context = await web.newContext({ width: 1280 });
    const page = await web.open(context, '/sign-up');

    // Sign up (GCM_SIGNUP=open), then make a team: the newcomer is its owner.
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await page.getByLabel('Name').fill('Founder');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await page.getByRole('link', { name: 'Make a team' }).click();
    await page.getByLabel('Team name').fill('Journey Studio');
    assert.equal(await page.getByLabel('Slug').inputValue(), 'journey-studio', 'slug proposed from the name');
    await page.getByRole('button', { name: 'Make team' }).click();
    await page.getByRole('heading', { name: 'Games', level: 1 }).waitFor();
    const teamId = idFromPath(page, /^\/teams\/([^/]+)$/);

    // A game in the team.
    await page.getByLabel('Display name').fill('Space Race');
    await page.getByRole('button', { name: 'Make game' }).click();
    await page.getByRole('heading', { name: 'Space Race', level: 1 }).waitFor();
    const gameId = idFromPath(page, /^\/teams\/[^/]+\/games\/([^/]+)$/);
    const game = await read<{ game: { team_id: string; display_name: string } }>(`/cloud/games/${gameId}`);
    assert.equal(game.game.team_id, teamId);
    const base = `/teams/${teamId}/games/${gameId}`;

    // A first version from the starter config, then the namespace that runs it.
    await page.getByRole('link', { name: 'New version' }).click();
    await page.getByRole('heading', { name: 'New version' }).waitFor();
    await page.getByLabel('Version name').fill('first');
    await page.getByText('The config is valid').waitFor();
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: 'first', level: 1 }).waitFor();
    const firstVersion = idFromPath(page, /\/versions\/([^/]+)$/);
    await page.getByRole('link', { name: 'Overview' }).click();
    const nsForm = page.getByRole('form', { name: 'New namespace' });
    await nsForm.getByLabel('Display name').fill('Production');
    await nsForm.getByLabel('Name id').fill('prod');
    await nsForm.getByLabel('Version').selectOption({ label: 'first' });
    await nsForm.getByRole('button', { name: 'Create namespace' }).click();
    await page.getByText('Namespace Production created.').waitFor();
    const afterNs = await read<{ game: { namespaces: { namespace_id: string; version_id: string }[] } }>(
      `/cloud/games/${gameId}`,
    );
    assert.equal(afterNs.game.namespaces.length, 1);
    const namespace = afterNs.game.namespaces[0];
    assert.ok(namespace !== undefined);
    assert.equal(namespace.version_id, firstVersion);

    // A 6 MiB build through the multipart path, its progress bar on the page.
    await page.getByRole('link', { name: 'Builds', exact: true }).click();
    await page.getByRole('heading', { name: 'Upload a build' }).waitFor();
    const image = randomBytes(6 * 1024 * 1024);
    await page.getByLabel('Choose a build file').setInputFiles({
      name: 'server.tar',
      mimeType: 'application/x-tar',
      buffer: image,
    });
    await page.getByLabel('Name', { exact: true }).fill('server');
    await page.getByRole('button', { name: 'Upload build' }).click();
    const uploaded = page.getByRole('status').filter({ hasText: /Uploaded “server”/ });
    await uploaded.waitFor({ timeout: 60_000 });
    const buildId = (await uploaded.innerText()).match(/([0-9a-f]{8}-[0-9a-f-]{27})/)?.[1];
    assert.ok(buildId !== undefined, await uploaded.innerText());
    const build = await read<{ build: { content_length: number } }>(
      `/games/${gameId}/environments/${namespace.namespace_id}/builds/${buildId}`,
    );
    assert.equal(build.build.content_length, image.length);

    // A version running the build: a typing error shows at its line, is fixed, and the version is made.
    await page.goto(`${publicUrl}${base}/versions/new?from=${firstVersion}`);
    await page.getByRole('heading', { name: 'New version' }).waitFor();
    await page.getByLabel('Version name').fill('deathmatch');
    await fillEditor(page, serverConfig(buildId, 300));
    const problem = page.locator('#version-config-problems li').first();
    await problem.waitFor();
    assert.match(
      await problem.innerText(),
      /Line 2, column 16 matchmaker\.max_players\s+.*max_players is 300; at most 256/,
    );
    assert.equal(await page.getByRole('button', { name: 'Create version' }).isDisabled(), true);
    await fillEditor(page, serverConfig(buildId, 16));
    await page.getByText('The config is valid').waitFor();
    await page.getByRole('button', { name: 'Create version' }).click();
    await page.getByRole('heading', { name: 'deathmatch', level: 1 }).waitFor();
    const serverVersion = idFromPath(page, /\/versions\/([^/]+)$/);

    // Its difference from what Production runs, then Production runs it.
    await page.getByLabel('Namespace to compare with').selectOption(namespace.namespace_id);
    await page.locator('.diff-line.added').first().waitFor();
    const runIn = page.getByRole('region', { name: 'Run in a namespace' });
    await runIn.getByRole('combobox').selectOption(namespace.namespace_id);
    await runIn.getByRole('button', { name: 'Run this version' }).click();
    await page.getByText('Production now runs deathmatch.').waitFor();
    const running = await read<{ namespace: { version_id: string } }>(
      `/cloud/games/${gameId}/namespaces/${namespace.namespace_id}`,
    );
    assert.equal(running.namespace.version_id, serverVersion);

    // A reporter token for Production, shown once, for the game server.
    await page.getByRole('link', { name: 'Tokens', exact: true }).click();
    await page.getByLabel('Reporter token: reports one namespace’s lobbies').check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const reporter = await page.getByLabel('Token', { exact: true }).inputValue();
    assert.ok(reporter.length > 20);

    // The game server reports a lobby, then its stop: both appear on the open page without a reload.
    await page.getByRole('link', { name: 'Lobbies', exact: true }).click();
    await page.getByRole('heading', { name: 'Lobbies', level: 1 }).waitFor();
    const logs = `${publicUrl}/cloud/games/${gameId}/namespaces/${namespace.namespace_id}/logs/lobbies`;
    const reported = await fetch(logs, {
      method: 'POST',
      headers: { authorization: `Bearer ${reporter}`, 'content-type': 'application/json' },
      body: JSON.stringify({ lobby_group_name_id: 'deathmatch', region_id: 'lnd-atl' }),
    });
    assert.equal(reported.status, 200, await reported.clone().text());
    const { lobby_id: lobbyId } = (await reported.json()) as { lobby_id: string };
    const row = page.locator('section[aria-labelledby="lobby-log"] tbody tr').filter({ hasText: lobbyId });
    await row.locator('.badge', { hasText: 'Running' }).waitFor({ timeout: 20_000 });
    const stopped = await fetch(`${logs}/${lobbyId}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reporter}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'stop', exit_code: 0 }),
    });
    assert.equal(stopped.status, 204);
    await row.locator('.badge', { hasText: 'Stopped · exit 0' }).waitFor({ timeout: 20_000 });

    // The plan, changed by someone else (here the operator), changes on the open billing page.
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    const chosen = page.locator('dt:text-is("Chosen plan") + dd');
    await chosen.waitFor();
    assert.notEqual(await chosen.innerText(), 'Studio');
    const plan = await svc.call('PUT', `/cloud/games/${gameId}/billing/plan`, { body: { plan: 'studio' } });
    assert.equal(plan.statusCode, 204, plan.body);
    await page.locator('dt:text-is("Chosen plan") + dd', { hasText: 'Studio' }).waitFor({ timeout: 20_000 });

    await context.close();
    assert.deepEqual(web.problems, []);
  });
});
