import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { DashboardBrowser, dashboardSkipReason, LOOKS, launchBrowser } from '../helpers/browser.js';
import { dockerSkipReason } from '../helpers/dockerd.js';
import { addMember, giveGame, newTeam } from '../helpers/people.js';
import {
  deploy,
  type LobbyRow,
  lobbiesOf,
  runtimeGame,
  sayToLobby,
  startRuntimeService,
  uploadBuild,
  useRuntimeEngine,
} from '../helpers/runtime-world.js';
import type { TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

/**
 * The lobby page in Debian's chromium, with a real lobby of the busybox test server on the private Docker
 * engine: opened from the Lobbies list, its lifecycle, its output read back (virtualized, older pages on
 * scrolling up), a line printed while the page is open appearing live, scrolling up pausing the follow,
 * search, the other stream, a download, and axe.
 */
const skip =
  dashboardSkipReason('dashboard-lobby-page.test.ts', { sqliteOnly: true }) ||
  dockerSkipReason('dashboard-lobby-page.test.ts', { sqliteOnly: true });
const PORTS = '29300-29319';
const PRINTED = 1500;
const LIVE_WAIT = { timeout: 15_000 };

/** Sends one line to the lobby's game port and answers its reply, once the server listens. */
async function tell(port: number, line: string): Promise<string> {
  let answer: string | undefined;
  await until(`port ${port} answers`, 10_000, async () => {
    answer = await sayToLobby('127.0.0.1', port, line).catch(() => undefined);
    return answer !== undefined;
  });
  return answer as string;
}

describe('dashboard: a lobby’s page', { skip, timeout: 300_000 }, () => {
  const engine = useRuntimeEngine();
  let svc: TestService;
  let web: DashboardBrowser;
  let lobby: LobbyRow;
  let port: number;
  let base: string;
  const viewer = 'viewer-lobby-page@example.com';

  before(async () => {
    let publicUrl: string;
    ({ svc, publicUrl } = await startRuntimeService({
      dockerHost: engine.dockerd.dockerHost,
      portRange: PORTS,
    }));
    const team = await newTeam(svc, 'lobby-page');
    await addMember(svc, team, viewer, 'viewer');
    const ids = await runtimeGame(svc, 'lobby-page-game');
    await giveGame(svc, ids.gameId, team.teamId);
    const buildId = await uploadBuild(svc, ids.gameId, ids.namespaceId, engine.image.archive);
    await deploy(svc, ids, {
      default: { buildId, min: 1, max: 1, env: { TEST_PRINT_LINES: String(PRINTED) } },
    });
    await until('a ready lobby', 90_000, async () => {
      const found = (await lobbiesOf(svc, ids.namespaceId)).find((r) => r.run_state === 'ready');
      if (found !== undefined) lobby = found;
      return found !== undefined;
    });
    port = (JSON.parse(lobby.ports ?? '[]') as { port: number }[])[0]?.port ?? 0;
    base = `/teams/${team.teamId}/games/${ids.gameId}`;
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  const logBox = (page: Page) => page.getByRole('tabpanel');
  const row = (page: Page, text: string) => logBox(page).locator('.log-text', { hasText: text });
  const setScroll = (page: Page, top: 'top' | 'middle') =>
    logBox(page).evaluate((el, where) => {
      el.scrollTop = where === 'top' ? 0 : el.scrollHeight / 2;
    }, top);

  async function openFromList(page: Page) {
    await page.goto(`${web.publicUrl}${base}/lobbies`);
    await page
      .getByRole('link', { name: `Open lobby ${lobby.lobby_id.slice(0, 8)}: its lifecycle and output` })
      .click();
    await page.getByRole('heading', { name: 'Lifecycle' }).waitFor();
  }

  it('shows the lobby’s life and output, follows it live, pauses on scrolling up, searches', async () => {
    const { context, page } = await web.signedIn(viewer);
    await openFromList(page);
    assert.match(await page.locator('.lobby-facts').first().innerText(), /Ready/);
    // The newest page: the last lines printed, the binary bytes shown with U+FFFD.
    await row(page, `server: printed ${PRINTED} lines`).waitFor(LIVE_WAIT);
    assert.match(await row(page, 'binary').innerText(), /\uFFFD/);
    // Virtualized: far fewer rows in the document than lines loaded.
    const drawn = await logBox(page).locator('.log-row').count();
    assert.ok(drawn > 0 && drawn < 150, `${drawn} rows drawn`);
    await page.getByText('Following new output.').waitFor();

    // A line printed while the page is open shows without a reload.
    assert.equal(await tell(port, 'print hello from the test'), 'printed');
    await row(page, 'hello from the test').waitFor(LIVE_WAIT);

    // Scrolling up stops following: a new line does not pull the view down, and Jump to latest does.
    await setScroll(page, 'middle');
    await page.getByRole('button', { name: 'Jump to latest' }).waitFor();
    await page.getByText('Paused: scrolled up from the latest output.').waitFor();
    assert.equal(await tell(port, 'print while paused'), 'printed');
    // The follow still reads it (the search finds it) but the view stays where it was.
    await page.getByLabel('Search loaded lines').fill('while paused');
    await page.getByText('1 matching lines.').waitFor(LIVE_WAIT);
    assert.equal(await row(page, 'while paused').count(), 0);
    await page.getByRole('button', { name: 'Jump to latest' }).click();
    await row(page, 'while paused').waitFor();
    await page.getByText('Following new output.').waitFor();

    // Scrolling to the top loads the older page: the first lines the server printed.
    await page.getByLabel('Search loaded lines').fill('');
    await setScroll(page, 'top');
    await until('the older page', 15_000, async () => {
      await setScroll(page, 'top');
      return (await row(page, 'server: starting').count()) > 0;
    });

    // Search finds a line, next brings it into view highlighted.
    await page.getByLabel('Search loaded lines').fill('line 777');
    await page.getByText('1 matching lines.').waitFor();
    await page.getByRole('button', { name: 'Next match' }).click();
    await page.getByText('Match 1 of 1.').waitFor();
    assert.equal(await logBox(page).locator('.log-current mark').innerText(), 'line 777');

    // The other stream.
    await page.getByRole('tab', { name: 'stderr' }).click();
    await row(page, 'server: stderr works').waitFor(LIVE_WAIT);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('downloads the whole stream through the export', async (t) => {
    // The export route lands apart from the page: until it does, there is nothing to download.
    const route = '/cloud/games/:game_id/matchmaker/lobbies/:lobby_id/logs/export';
    if (!svc.app.hasRoute({ method: 'POST', url: route })) return t.skip(`POST ${route} is not served yet`);
    const { context, page } = await web.signedIn(viewer);
    await openFromList(page);
    await row(page, `server: printed ${PRINTED} lines`).waitFor(LIVE_WAIT);
    // The URL the export answered is what the page opens.
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/logs/export')),
      page.getByRole('button', { name: 'Download stdout' }).click(),
    ]);
    assert.equal(answer.status(), 200);
    const { url } = (await answer.json()) as { url: string };
    await context
      .waitForEvent('page', { predicate: (p) => p !== page, timeout: 10_000 })
      .catch(() => undefined);
    const text = await (await fetch(url)).text();
    const lines = text.split('\n');
    assert.equal(lines.filter((l) => /^line \d+$/.test(l)).length, PRINTED);
    assert.ok(lines.includes('hello from the test'));
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('has no serious or critical accessibility violations, at 360 and 1440 px, light and dark', async () => {
    for (const look of LOOKS) {
      const { context, page } = await web.signedIn(viewer, { ...look, bypassCSP: true });
      await openFromList(page);
      await row(page, `server: printed ${PRINTED} lines`).waitFor(LIVE_WAIT);
      await page.getByLabel('Search loaded lines').fill('line 1');
      await web.check(page, 'lobby-page', look.suffix);
      await context.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
  });
});
