import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { DashboardBrowser, dashboardSkipReason, LOOKS, launchBrowser } from '../helpers/browser.js';
import { prepareLink } from '../helpers/device-links.js';
import { startListening } from '../helpers/listening.js';
import { addMember, asPerson, giveGame, newTeam, PASSWORD, signIn, type Team } from '../helpers/people.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

/**
 * Getting started in the dashboard: a new person signs up (GCM_SIGNUP=open), makes a team and a game in it;
 * the service's refusals show at their field; only admins see the new-game form; the device link page
 * wears the dashboard's look. In Debian's chromium against a real service; skipped, saying why, where
 * chromium or the built dashboard is absent.
 */
const skip = dashboardSkipReason('dashboard start browser test', { sqliteOnly: true });

/** The service's refusal of a taken slug or name id logs its 400 in Chromium's console. */
const REFUSED = [/status of 400/];

interface Inspect {
  agent: { person: { user_id: string; teams: { team_id: string; role: string }[] } };
}

describe('dashboard: sign up, make a team, make a game', { skip, timeout: 180_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let taken: Team;

  before(async () => {
    ({ svc, publicUrl } = await startListening({ env: { GCM_SIGNUP: 'open' } }));
    // A slug and a name id already in use, for the refusals.
    taken = await newTeam(svc, 'taken');
    const game = await createGameFixture(svc, 'taken-game');
    await giveGame(svc, game.gameId, taken.teamId);
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  async function inspectAs(email: string): Promise<Inspect['agent']['person']> {
    const cookie = await signIn(svc, email);
    const res = await svc.call('GET', '/cloud/auth/inspect', { token: null, headers: asPerson(svc, cookie) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<Inspect>().agent.person;
  }

  it('a new person signs up, makes a team and a game, and the game opens', async () => {
    const email = 'founder@start.example';
    const context = await web.newContext();
    const page = await web.open(context, '/sign-up', REFUSED);
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await page.getByLabel('Name').fill('Founder');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();

    // Home, in no team yet: the way to make one.
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    await page.getByRole('link', { name: 'Make a team' }).click();
    await page.getByRole('heading', { name: 'Make a team' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/teams/new');

    // The slug follows the name as it is typed; a taken one is refused at the field, in the service's words.
    await page.getByLabel('Team name').fill('Taken');
    assert.equal(await page.getByLabel('Slug').inputValue(), 'taken');
    await page.getByRole('button', { name: 'Make team' }).click();
    const slug = page.getByLabel('Slug');
    await page.locator('input[aria-invalid="true"]').waitFor();
    assert.equal(await slug.getAttribute('aria-invalid'), 'true');
    assert.match(await page.locator('.field-error').innerText(), /Organization already exists/);
    assert.equal(await page.getByRole('alert').count(), 0, 'shown at the field, not as a page notice');

    // An invalid slug typed by hand: the service's rule, at the field; then a good one, edited by hand.
    await page.getByLabel('Team name').fill('Ünïcode Stüdio — Ltd.');
    assert.equal(await slug.inputValue(), 'unicode-studio-ltd');
    await slug.fill('Bad Slug');
    await page.getByRole('button', { name: 'Make team' }).click();
    await page.getByText('slug must be 1-48 of a-z, 0-9 and -').waitFor();
    await slug.fill('unicode-studio');
    await page.getByLabel('Team name').fill('Ünïcode Stüdio');
    assert.equal(await slug.inputValue(), 'unicode-studio', 'an edited slug no longer follows the name');
    await page.getByRole('button', { name: 'Make team' }).click();
    await page.getByRole('heading', { name: 'Games' }).waitFor();

    const person = await inspectAs(email);
    assert.equal(person.teams.length, 1);
    const teamId = person.teams[0]?.team_id ?? '';
    assert.equal(person.teams[0]?.role, 'owner');
    assert.equal(new URL(page.url()).pathname, `/teams/${teamId}`);
    // The switcher knows the new team at once.
    assert.equal(
      await page.getByLabel('Team').locator('option:checked').innerText(),
      'Ünïcode Stüdio (owner)',
    );
    await page.getByText('This team has no games yet.').waitFor();

    // A game: a taken name id is refused at its field; then made, and its page opens.
    await page.getByLabel('Display name').fill('Taken Game');
    const nameId = page.getByLabel('Name id');
    assert.equal(await nameId.inputValue(), 'taken-game');
    await page.getByRole('button', { name: 'Make game' }).click();
    await page.getByText('name_id "taken-game" is taken by another game').waitFor();
    assert.equal(await nameId.getAttribute('aria-invalid'), 'true');
    await nameId.fill('Not OK!');
    await page.getByRole('button', { name: 'Make game' }).click();
    await page.getByText('name_id may hold only a-z, 0-9 and "-"').waitFor();
    await page.getByLabel('Display name').fill('Star Hopper');
    await nameId.fill('');
    await page.getByLabel('Display name').fill('Star Hopper!');
    assert.equal(await nameId.inputValue(), 'star-hopper', 'emptied, the name id follows again');
    await page.getByRole('button', { name: 'Make game' }).click();
    await page.getByRole('heading', { name: 'Star Hopper!', level: 1 }).waitFor();

    const games = await svc.call('GET', '/cloud/games');
    const made = games
      .json<{ games: { game_id: string; name_id: string; display_name: string; team_id?: string }[] }>()
      .games.find((g) => g.name_id === 'star-hopper');
    assert.ok(made !== undefined, games.body);
    assert.equal(made.team_id, teamId);
    assert.equal(made.display_name, 'Star Hopper!');
    assert.equal(new URL(page.url()).pathname, `/teams/${teamId}/games/${made.game_id}`);

    // Back on the team's page, the game is listed; a second team comes from the switcher.
    await page.goto(`${publicUrl}/teams/${teamId}`);
    await page.locator('.cards li').first().waitFor();
    assert.deepEqual(await page.locator('.cards li .mono').allInnerTexts(), ['star-hopper']);
    await page.getByLabel('Team').selectOption({ label: 'New team…' });
    await page.getByRole('heading', { name: 'Make a team' }).waitFor();
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('a member or viewer of a team does not see the new-game form; an admin does', async () => {
    for (const [role, sees] of [
      ['member', false],
      ['viewer', false],
      ['admin', true],
    ] as const) {
      const email = `${role}@taken.example`;
      await addMember(svc, taken, email, role);
      const { context, page } = await web.signedIn(email);
      await page.getByRole('heading', { name: 'Games' }).waitFor();
      await page.locator('.cards li').first().waitFor();
      assert.equal(
        await page.getByRole('heading', { name: 'New game' }).count(),
        sees ? 1 : 0,
        `${role} ${sees ? 'sees' : 'does not see'} the form`,
      );
      assert.equal(await page.getByLabel('Name id').count(), sees ? 1 : 0);
      await context.close();
    }
    assert.deepEqual(web.problems, []);
  });

  it('has no serious or critical accessibility violations, at 360 and 1440 px, light and dark', async () => {
    for (const look of LOOKS) {
      const context = await web.newContext({ width: look.width, dark: look.dark, bypassCSP: true });
      const check = (page: Page, name: string) => web.check(page, name, look.suffix);
      const email = `looks-${look.suffix}@start.example`;
      const page = await web.open(context, '/sign-up');
      await page.getByLabel('Name').fill('Looks');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('link', { name: 'Make a team' }).waitFor();
      await check(page, 'home-no-team');

      await page.getByRole('link', { name: 'Make a team' }).click();
      await page.getByLabel('Team name').fill(`Looks ${look.suffix}`);
      await check(page, 'new-team');
      await page.getByRole('button', { name: 'Make team' }).click();
      await page.getByRole('heading', { name: 'New game' }).waitFor();
      await page.getByLabel('Display name').fill('Looks Game');
      await check(page, 'team-games-new-game');

      // The device link page, signed in (the games of the person's teams on offer) and in the same look.
      const teamId = new URL(page.url()).pathname.split('/')[2] ?? '';
      const game = await createGameFixture(svc, `looks-${look.suffix}`);
      await giveGame(svc, game.gameId, teamId);
      const link = await prepareLink(svc);
      const linkPage = await web.open(context, new URL(link.device_link_url).pathname);
      await linkPage.getByRole('heading', { name: 'Link a device' }).waitFor();
      await linkPage.getByLabel('Game').waitFor();
      await check(linkPage, 'device-link');
      await context.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
  });
});
