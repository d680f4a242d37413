import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { LobbiesTable } from '../../src/db/database.js';
import { createGameWorld, type GameWorld } from '../helpers/api-world.js';
import { DashboardBrowser, dashboardSkipReason, LOOKS, launchBrowser } from '../helpers/browser.js';
import { startListening } from '../helpers/listening.js';
import { addMember, giveGame, newTeam, type Team } from '../helpers/people.js';
import {
  find,
  mintPublicToken,
  seedRuntimeLobby,
  switchToRuntimeVersion,
} from '../helpers/runtime-lobbies.js';
import type { TestService } from '../helpers/service.js';

/**
 * The dashboard's view of the lobbies the service runs, in Debian's chromium against a real listening
 * service: their live state, players, version and stop reason on the Lobbies page, a member's Stop
 * (checked in the service's lobby row), none for a viewer, and each namespace's rollout on the overview.
 * The lobby rows are seeded as the reconciler writes them (helpers/runtime-lobbies.ts). The service runs
 * with GCM_RUNTIME=docker (what makes the overview read rollouts) on regions whose engine socket nothing
 * listens on: its reconciler's passes fail before they change anything, so the seeded rows stay as written
 * and no Docker engine is needed. A service with GCM_RUNTIME=none reads no rollout at all.
 */
const skip = dashboardSkipReason('dashboard runtime lobbies browser test', { sqliteOnly: true });

const LIVE_WAIT = { timeout: 15_000 };

describe('dashboard: lobbies the service runs', { skip, timeout: 240_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let team: Team;
  let world: GameWorld;
  let v2: string;
  const memberEmail = 'member-runtime@example.com';
  const viewerEmail = 'viewer-runtime@example.com';
  let base: string;
  // The lobbies seeded below, by what they are.
  let busyOld: string;
  let idle: string;
  let starting: string;
  let failed: string;
  let noEngine: string | undefined;

  const seed = (options: Parameters<typeof seedRuntimeLobby>[2], versionId = v2) =>
    seedRuntimeLobby(svc, { namespaceId: world.namespaceId, versionId }, options).then((l) => l.lobbyId);

  /** What the reconciler would write as a lobby moves on. */
  const setLobby = (lobbyId: string, values: Partial<Omit<LobbiesTable, 'lobby_id'>>) =>
    svc.deps.db.updateTable('lobbies').set(values).where('lobby_id', '=', lobbyId).execute();

  const lobbyRow = (svcId: string) =>
    svc.deps.db
      .selectFrom('lobbies')
      .select(['run_state', 'stop_reason'])
      .where('lobby_id', '=', svcId)
      .executeTakeFirstOrThrow();

  before(async () => {
    noEngine = mkdtempSync(path.join(tmpdir(), 'gcm-no-engine-'));
    const socket = `unix://${path.join(noEngine, 'docker.sock')}`;
    ({ svc, publicUrl } = await startListening({
      env: {
        GCM_RUNTIME: 'docker',
        GCM_REGIONS: 'lnd-atl,lnd-fra',
        GCM_RUNTIME_HOSTS: `lnd-atl=${socket},lnd-fra=${socket}`,
      },
    }));
    svc.clock.set(Date.now());
    team = await newTeam(svc, 'runtime');
    await addMember(svc, team, memberEmail, 'member');
    await addMember(svc, team, viewerEmail, 'viewer');
    world = await createGameWorld(svc, 'runtime-game');
    await giveGame(svc, world.gameId, team.teamId);
    v2 = await switchToRuntimeVersion(svc, world, { min: 1, max: 4 });
    // The old version still has a busy lobby draining; the new one has atl's idle lobby ready, another
    // starting, and one that failed in fra, which has no idle lobby yet: the rollout is in progress.
    busyOld = await seed({ runState: 'ready', playerCount: 3, maxPlayers: 8 }, world.versionId);
    idle = await seed({ runState: 'ready', maxPlayers: 4 });
    starting = await seed({ runState: 'starting' });
    failed = await seed({
      runState: 'stopped',
      region: 'lnd-fra',
      failed: { exitCode: 137, reason: 'ready-timeout' },
    });
    base = `/teams/${team.teamId}/games/${world.gameId}`;
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
    if (noEngine !== undefined) rmSync(noEngine, { recursive: true, force: true });
  });

  const rows = (page: Page) => page.locator('section[aria-labelledby="lobby-log"] tbody tr');
  const row = (page: Page, lobbyId: string) =>
    rows(page).filter({ has: page.locator(`th .mono:text-is("${lobbyId}")`) });
  const cell = (page: Page, lobbyId: string, label: string) =>
    row(page, lobbyId).locator(`td[data-label="${label}"]`);

  it('shows each running lobby’s state, players and version; a viewer sees no Stop', async () => {
    const { context, page } = await web.signedIn(viewerEmail);
    await page.goto(`${publicUrl}${base}/lobbies`);
    await row(page, busyOld).waitFor();
    assert.equal(await cell(page, busyOld, 'Status').innerText(), 'Ready');
    assert.equal(await cell(page, busyOld, 'Players').innerText(), '3 / 8');
    assert.equal(await cell(page, idle, 'Players').innerText(), '0 / 4');
    assert.equal(await cell(page, starting, 'Status').innerText(), 'Starting');
    assert.equal(await cell(page, failed, 'Status').innerText(), 'Stopped · exit 137 · failed');
    // A stopped lobby says why, and which version it ran.
    assert.equal(await cell(page, failed, 'Stop reason').innerText(), 'ready-timeout');
    assert.equal(
      await cell(page, failed, 'Version').getByRole('link').getAttribute('href'),
      `${base}/versions/${v2}`,
    );
    assert.equal(await cell(page, idle, 'Stop reason').innerText(), '—');
    // The version by its short id, linked to its page.
    const version = cell(page, busyOld, 'Version').getByRole('link');
    assert.equal(await version.innerText(), world.versionId.slice(0, 8));
    assert.equal(await version.getAttribute('href'), `${base}/versions/${world.versionId}`);
    assert.equal(
      await cell(page, idle, 'Version').getByRole('link').getAttribute('href'),
      `${base}/versions/${v2}`,
    );
    // The lobby the data plane reported is still just running, with no players or version.
    assert.equal(await cell(page, world.lobbyId, 'Status').innerText(), 'Running');
    assert.equal(await cell(page, world.lobbyId, 'Players').innerText(), '—');
    assert.equal(await cell(page, world.lobbyId, 'Version').innerText(), '—');
    assert.equal(await page.getByRole('button', { name: /^Stop lobby/ }).count(), 0, 'a viewer may not stop');
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('shows each namespace’s rollout on the overview, and follows it live', async () => {
    const { context, page } = await web.signedIn(viewerEmail);
    await page.goto(`${publicUrl}${base}`);
    const card = page.locator('section.rollout', {
      has: page.getByRole('heading', { name: /^Production/, level: 3 }),
    });
    await card.waitFor();
    assert.equal(await card.locator('h3 .badge').innerText(), 'In progress');
    const group = (versionId: string, region: string) =>
      card
        .locator('tbody tr')
        .filter({ has: page.locator(`a[href="${base}/versions/${versionId}"]`) })
        .filter({ has: page.locator(`td[data-label="Region"]:text-is("${region}")`) });
    const counts = async (versionId: string, region: string) =>
      Object.fromEntries(
        await group(versionId, region)
          .locator('td[data-label]')
          .evaluateAll((tds) => tds.map((td) => [td.getAttribute('data-label'), td.textContent])),
      );
    assert.deepEqual(await counts(v2, 'lnd-atl'), {
      'Game mode': 'default',
      Region: 'lnd-atl',
      Starting: '1',
      'Ready, idle': '1',
      'Ready, busy': '0',
      Closed: '0',
      Stopping: '0',
      'Idle wanted': '1',
    });
    assert.equal((await counts(v2, 'lnd-fra'))['Ready, idle'], '0');
    assert.equal((await counts(world.versionId, 'lnd-atl'))['Ready, busy'], '1');
    assert.match(await group(v2, 'lnd-atl').locator('th').innerText(), /\(current\)/);
    // The failed lobby, with its exit code and reason.
    const failure = card.locator('tbody tr', { has: page.locator(`.mono:text-is("${failed}")`) });
    assert.equal(await failure.locator('td[data-label="Exit code"]').innerText(), '137');
    assert.equal(await failure.locator('td[data-label="Reason"]').innerText(), 'ready-timeout');

    // fra's idle lobby comes up while the page is open: the rollout completes without a reload.
    await seed({ runState: 'ready', region: 'lnd-fra' });
    await card.locator('h3 .badge', { hasText: 'Complete' }).waitFor(LIVE_WAIT);
    assert.equal((await counts(v2, 'lnd-fra'))['Ready, idle'], '1');
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('lets a member stop a lobby after confirming: it shows stopping, then stopped', async () => {
    const { context, page } = await web.signedIn(memberEmail);
    await page.goto(`${publicUrl}${base}/lobbies`);
    await row(page, idle).waitFor();
    // Only lobbies still running have a Stop: not the failed one, nor the reported one.
    assert.equal(
      await row(page, failed)
        .getByRole('button', { name: /^Stop lobby/ })
        .count(),
      0,
    );
    assert.equal(
      await row(page, world.lobbyId)
        .getByRole('button', { name: /^Stop lobby/ })
        .count(),
      0,
    );

    const short = idle.slice(0, 8);
    await row(page, idle)
      .getByRole('button', { name: `Stop lobby ${short}` })
      .click();
    await row(page, idle).getByText('Stop it?').waitFor();
    // Keeping it asks the service nothing.
    await row(page, idle).getByRole('button', { name: 'Keep it' }).click();
    assert.equal((await lobbyRow(idle)).run_state, 'ready');
    await row(page, idle)
      .getByRole('button', { name: `Stop lobby ${short}` })
      .click();
    await row(page, idle).getByRole('button', { name: 'Yes, stop' }).click();
    await row(page, idle).getByRole('status').filter({ hasText: 'Stop requested.' }).waitFor();
    await cell(page, idle, 'Status').getByText('Stopping', { exact: true }).waitFor(LIVE_WAIT);
    assert.deepEqual(await lobbyRow(idle), { run_state: 'stopping', stop_reason: 'studio' });
    await page.locator('.live-note', { hasText: '1 lobby changed status' }).waitFor(LIVE_WAIT);

    // The reconciler sees the container exit on the signal and records the stop: the page follows.
    const now = svc.clock.now();
    await setLobby(idle, { run_state: 'stopped', stop_ts: now, exit_code: 0, failed: 0 });
    await cell(page, idle, 'Status').getByText('Stopped · exit 0', { exact: true }).waitFor(LIVE_WAIT);
    assert.equal(await cell(page, idle, 'Players').innerText(), '—');
    assert.equal(await cell(page, idle, 'Stop reason').innerText(), 'studio');
    assert.equal(await cell(page, idle, 'Version').innerText(), v2.slice(0, 8));
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  const liveRows = (page: Page) => page.locator('section[aria-labelledby="live-lobbies"] tbody tr');
  const liveCell = (page: Page, lobbyId: string, label: string) =>
    liveRows(page)
      .filter({ has: page.locator(`th .mono:text-is("${lobbyId}")`) })
      .locator(`td[data-label="${label}"]`);

  it('shows each live lobby’s players, and a player found into one without a reload', async () => {
    // A game of its own: find fills the fullest lobby with room, which here is the one lobby seeded.
    const game = await createGameWorld(svc, 'runtime-live');
    await giveGame(svc, game.gameId, team.teamId);
    const version = await switchToRuntimeVersion(svc, game, { min: 0, max: 0 });
    const publicToken = await mintPublicToken(svc, game);
    const lobby = await seedRuntimeLobby(
      svc,
      { namespaceId: game.namespaceId, versionId: version },
      {
        runState: 'ready',
        maxPlayers: 4,
      },
    );
    const gone = await seedRuntimeLobby(
      svc,
      { namespaceId: game.namespaceId, versionId: version },
      {
        runState: 'stopped',
      },
    );
    const { context, page } = await web.signedIn(viewerEmail);
    await page.goto(`${publicUrl}/teams/${team.teamId}/games/${game.gameId}/lobbies`);
    const players = liveCell(page, lobby.lobbyId, 'Players');
    await players.filter({ hasText: /^0 \/ 4$/ }).waitFor(LIVE_WAIT);
    assert.equal(await liveCell(page, lobby.lobbyId, 'State').innerText(), 'Idle');
    assert.equal(await liveCell(page, lobby.lobbyId, 'Connected').innerText(), '0');
    assert.equal(await liveRows(page).count(), 1, `no stopped lobby (${gone.lobbyId}) or reported one`);
    // A mark on the document: a reload would lose it.
    await page.evaluate('document.body.dataset.unreloaded = "yes"');
    const found = await find(svc, publicToken);
    assert.equal(found.statusCode, 200, found.body);
    await players.filter({ hasText: /^1 \/ 4$/ }).waitFor(LIVE_WAIT);
    assert.equal(await liveCell(page, lobby.lobbyId, 'State').innerText(), 'Ready');
    assert.equal(await page.evaluate('document.body.dataset.unreloaded'), 'yes', 'no reload');
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('has no serious or critical accessibility violations, at 360 and 1440 px, light and dark', async () => {
    for (const look of LOOKS) {
      const { context, page } = await web.signedIn(memberEmail, { ...look, bypassCSP: true });
      await page.goto(`${publicUrl}${base}/lobbies`);
      await row(page, starting).waitFor();
      await liveRows(page).first().waitFor();
      await row(page, starting)
        .getByRole('button', { name: /^Stop lobby/ })
        .click();
      await row(page, starting).getByRole('button', { name: 'Yes, stop' }).waitFor();
      await web.check(page, 'runtime-lobbies', look.suffix);
      await page.getByRole('link', { name: 'Overview' }).click();
      await page.locator('section.rollout').first().waitFor();
      await web.check(page, 'rollouts', look.suffix);
      await context.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
  });

  it('reads a rollout with nothing moving in it less often', async () => {
    // The old version's last lobby ends and the starting one is ready: every region has its idle lobby.
    const now = svc.clock.now();
    await setLobby(busyOld, { run_state: 'stopped', stop_ts: now, exit_code: 0, failed: 0 });
    await setLobby(starting, { run_state: 'ready', ready_ts: now });
    const { context, page } = await web.signedIn(viewerEmail);
    let rollouts = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('/rollout')) rollouts += 1;
    });
    const figureRead = () =>
      page.waitForRequest((r) => new URL(r.url()).pathname.endsWith('/logs/lobbies'), { timeout: 30_000 });
    await page.goto(`${publicUrl}${base}`);
    await page.locator('section.rollout h3 .badge', { hasText: 'Complete' }).waitFor();
    // The live-lobby figure is read every 10 s: between two of its reads a settled rollout is read at most
    // once (every 15 s), where one in progress is read every 3 s.
    await figureRead();
    const before = rollouts;
    await figureRead();
    assert.ok(rollouts - before <= 1, `${rollouts - before} reads of a settled rollout in 10 s`);
    await context.close();
    assert.deepEqual(web.problems, []);
  });
});

describe('dashboard: a service whose lobbies a data plane reports', { skip, timeout: 240_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let team: Team;
  let world: GameWorld;
  const viewerEmail = 'viewer-reported@example.com';

  before(async () => {
    // GCM_RUNTIME=none, the default.
    ({ svc, publicUrl } = await startListening());
    team = await newTeam(svc, 'reported');
    await addMember(svc, team, viewerEmail, 'viewer');
    world = await createGameWorld(svc, 'reported-game');
    await giveGame(svc, world.gameId, team.teamId);
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  it('reads no rollout on the overview, however long it stays open', async () => {
    const { context, page } = await web.signedIn(viewerEmail);
    const rollouts: string[] = [];
    const figures: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.endsWith('/rollout')) rollouts.push(url.pathname);
      if (url.pathname.endsWith('/logs/lobbies')) figures.push(url.pathname);
    });
    await page.goto(`${publicUrl}/teams/${team.teamId}/games/${world.gameId}`);
    // The page's own state: its live-lobby figure read (the reported lobby, running).
    await page
      .locator('.figure', { hasText: 'live lobbies' })
      .locator('.figure-value', { hasText: '1' })
      .waitFor();
    // The figure is read again every 10 s: two more reads are more than six of the rollouts' 3 s periods.
    const reads = figures.length;
    await page.waitForRequest((r) => r.url().includes('/logs/lobbies'), { timeout: 30_000 });
    await page.waitForRequest((r) => r.url().includes('/logs/lobbies'), { timeout: 30_000 });
    assert.ok(figures.length >= reads + 2);
    assert.deepEqual(rollouts, [], 'no rollout is read where the service runs no lobbies');
    assert.equal(await page.locator('section.rollout').count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Rollouts' }).count(), 0);
    await context.close();
    assert.deepEqual(web.problems, []);
  });
});
