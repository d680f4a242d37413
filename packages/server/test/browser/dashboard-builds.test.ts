import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { DashboardBrowser, dashboardSkipReason, LOOKS, launchBrowser } from '../helpers/browser.js';
import { startListening, uploadBuild } from '../helpers/listening.js';
import { addMember, giveGame, newTeam, type Team } from '../helpers/people.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

/**
 * The dashboard's Builds and Settings tabs in chromium against a real service: the list with its tags,
 * tag filters and cursor pages in the address, a multipart upload with its progress bar, tag editing with
 * an exclusive tag, the avatar's drop, preview and upload, and what a viewer may not do.
 */
const skip = dashboardSkipReason('dashboard builds browser test', { sqliteOnly: true });

const MIB = 1024 * 1024;

interface ApiBuild {
  id: string;
  name: string;
  content_length: number;
  tags: Record<string, string>;
}

/** A well-formed PNG (the service walks its chunks and CRCs): `size`² pixels of one colour. */
function png(size: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // truecolour
  const row = Buffer.concat([
    Buffer.from([0]),
    Buffer.from(Array.from({ length: size }, () => [47, 85, 212]).flat()),
  ]);
  const pixels = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Drops a file made in the page from `bytes` on `selector`, as a mouse drag from the desktop would. */
async function dropFile(page: Page, selector: string, file: { name: string; type: string; bytes: Buffer }) {
  // A string, evaluated in the page: the test's own TypeScript has no DOM types.
  const transfer = await page.evaluateHandle(`(() => {
    const bytes = Uint8Array.from(atob(${JSON.stringify(file.bytes.toString('base64'))}), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], ${JSON.stringify(file.name)}, { type: ${JSON.stringify(file.type)} }));
    return transfer;
  })()`);
  await page.locator(selector).dispatchEvent('drop', { dataTransfer: transfer });
}

describe('dashboard builds and game settings in a browser', { skip, timeout: 180_000 }, () => {
  let svc: TestService;
  let publicUrl: string;
  let web: DashboardBrowser;
  let team: Team;
  let gameId: string;
  let namespaceId: string;
  let base: string;
  const viewer = 'viewer@builds.example';
  const ids: Record<string, string> = {};

  /** The builds the API lists for `query` (tags as tags_json), newest first. */
  async function apiBuilds(query: { tags?: Record<string, string>; limit?: number; cursor?: string } = {}) {
    const search = new URLSearchParams();
    if (query.tags !== undefined) search.set('tags_json', JSON.stringify(query.tags));
    if (query.limit !== undefined) search.set('limit', String(query.limit));
    if (query.cursor !== undefined) search.set('cursor', query.cursor);
    const res = await svc.call('GET', `/games/${gameId}/environments/${namespaceId}/builds?${search}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ builds: ApiBuild[]; cursor?: string }>();
  }

  const shownNames = (page: Page) => page.locator('.builds-table tbody th[scope="row"]').allInnerTexts();
  /** The names listed once they are `expected` (the page refetches after each change), or the last seen. */
  async function listedAs(page: Page, expected: string[]) {
    let names = await shownNames(page);
    for (let i = 0; i < 50 && names.join() !== expected.join(); i++) {
      await page.waitForTimeout(100);
      names = await shownNames(page);
    }
    assert.deepEqual(names, expected);
  }
  const rowOf = (page: Page, name: string) =>
    page
      .locator('.builds-table tbody tr')
      .filter({ has: page.getByRole('rowheader', { name, exact: true }) });

  before(async () => {
    // 1 MiB parts (the least allowed): the 6 MiB upload below is six presigned PUTs.
    ({ svc, publicUrl } = await startListening({ env: { GCM_BUILD_PART_SIZE_BYTES: String(MIB) } }));
    team = await newTeam(svc, 'builds');
    const fixture = await createGameFixture(svc, 'builds-game');
    ({ gameId, namespaceId } = fixture);
    await giveGame(svc, gameId, team.teamId);
    await addMember(svc, team, viewer, 'viewer');
    const target = { gameId, namespaceId };
    const made: [string, Record<string, string> | undefined][] = [
      ['server-a', { channel: 'beta', region: 'eu' }],
      ['server-b', { channel: 'stable' }],
      ['server-c', { channel: 'beta' }],
      ['server-d', { current: 'yes' }],
      ['server-e', undefined],
      ['server-f', undefined],
    ];
    for (const [name, tags] of made) {
      ids[name] = await uploadBuild(svc, target, name, tags === undefined ? {} : { tags });
    }
    base = `/teams/${team.teamId}/games/${gameId}`;
    web = new DashboardBrowser(await launchBrowser(), publicUrl);
  });
  after(async () => {
    await web?.browser.close();
    await svc?.close();
  });

  it('lists builds with their tags, narrows them by tags in the URL and pages with a cursor', async () => {
    const { context, page } = await web.signedIn(team.owner.email);
    await page.goto(`${publicUrl}${base}/builds`);
    await page.getByRole('heading', { name: 'Builds in Production' }).waitFor();
    await page.locator('.builds-table').waitFor();
    const all = await apiBuilds();
    assert.deepEqual(
      await shownNames(page),
      all.builds.map((b) => b.name),
    );
    assert.equal(all.builds.length, 6);
    assert.deepEqual(await rowOf(page, 'server-a').locator('.chip').allInnerTexts(), [
      'channel=beta',
      'region=eu',
    ]);
    assert.match(await rowOf(page, 'server-a').innerText(), new RegExp(ids['server-a'] as string));
    assert.match(await rowOf(page, 'server-a').innerText(), /Complete/);

    // A filter typed in goes into the address, and the list is what the API answers for it.
    await page.getByLabel('Filter by tag').fill('channel=beta');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.waitForURL((url) => url.searchParams.getAll('tag').includes('channel=beta'));
    const beta = await apiBuilds({ tags: { channel: 'beta' } });
    await listedAs(
      page,
      beta.builds.map((b) => b.name),
    );
    assert.deepEqual(beta.builds.map((b) => b.name).sort(), ['server-a', 'server-c']);

    // A shared address with two filters: only the build having both; a chip's button removes one.
    await page.goto(`${publicUrl}${base}/builds?namespace=${namespaceId}&tag=channel=beta&tag=region=eu`);
    await page.getByRole('rowheader', { name: 'server-a' }).waitFor();
    assert.deepEqual(await shownNames(page), ['server-a']);
    assert.deepEqual(await page.getByRole('list', { name: 'Tag filters' }).locator('.mono').allInnerTexts(), [
      'channel=beta',
      'region=eu',
    ]);
    await page.getByRole('button', { name: 'Remove filter region=eu' }).click();
    await page.waitForURL((url) => url.searchParams.getAll('tag').join() === 'channel=beta');
    await page.getByRole('rowheader', { name: 'server-c' }).waitFor();
    // A tag chip in the list is a link that filters by it.
    await page.getByRole('button', { name: 'Remove filter channel=beta' }).click();
    await rowOf(page, 'server-b').getByRole('link', { name: 'channel=stable' }).click();
    await page.waitForURL((url) => url.searchParams.getAll('tag').join() === 'channel=stable');
    await listedAs(page, ['server-b']);

    // Pages: the cursor the service answers is in the address; the second page is the API's second page.
    await page.goto(`${publicUrl}${base}/builds?limit=4`);
    await page.locator('.builds-table').waitFor();
    const first = await apiBuilds({ limit: 4 });
    assert.ok(first.cursor !== undefined);
    assert.deepEqual(
      await shownNames(page),
      first.builds.map((b) => b.name),
    );
    await page.getByRole('link', { name: 'Older builds →' }).click();
    await page.waitForURL((url) => url.searchParams.get('cursor') === first.cursor);
    const second = await apiBuilds({ limit: 4, cursor: first.cursor });
    await listedAs(
      page,
      second.builds.map((b) => b.name),
    );
    assert.equal(second.cursor, undefined);
    assert.equal(await page.getByRole('link', { name: 'Older builds →' }).count(), 0);
    await page.getByRole('link', { name: '← Newest builds' }).click();
    await page.waitForURL((url) => !url.searchParams.has('cursor'));
    await page.getByRole('link', { name: 'Older builds →' }).waitFor();
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('uploads a 6 MiB build in parts with a moving progress bar; the build is complete and intact', async () => {
    const { context, page } = await web.signedIn(team.owner.email);
    await page.goto(`${publicUrl}${base}/builds`);
    await page.getByRole('heading', { name: 'Upload a build' }).waitFor();
    const bytes = randomBytes(6 * MIB);
    await page
      .getByLabel('Choose a build file')
      .setInputFiles({ name: 'big-server.tar', mimeType: 'application/x-tar', buffer: bytes });
    await page.getByText('Chosen: big-server.tar (6.0 MiB)').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('big-server');
    await page.getByLabel('Tags (optional)').fill('channel=nightly\nsize=large');
    // Every value the bar takes, as the page sets it.
    await page.evaluate(`(() => {
      window.seen = [];
      new MutationObserver(() => {
        const bar = document.querySelector('.upload-progress progress');
        if (bar !== null) window.seen.push([bar.value, bar.max]);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);
    await page.getByRole('button', { name: 'Upload build' }).click();
    const done = page.getByRole('status').filter({ hasText: 'Uploaded “big-server”' });
    await done.waitFor({ timeout: 30_000 });
    // Once the build is in, the bar goes: the result, with its size, takes its place.
    assert.equal(await page.getByRole('progressbar', { name: 'Uploading big-server.tar' }).count(), 0);
    assert.match(await done.innerText(), /\(6\.0 MiB\)/);
    const seen = (await page.evaluate('window.seen')) as [number, number][];
    assert.ok(
      seen.some(([value, max]) => value > 0 && value < max),
      `the bar moved through values between 0 and the size: ${JSON.stringify(seen.slice(0, 20))}`,
    );

    // The API lists it complete with its tags and size, and the list on the page shows it.
    const listed = (await apiBuilds()).builds.find((b) => b.name === 'big-server');
    assert.ok(listed !== undefined, 'the uploaded build is listed');
    assert.equal(listed.content_length, bytes.length);
    assert.deepEqual(listed.tags, { channel: 'nightly', size: 'large' });
    assert.match(await done.innerText(), new RegExp(listed.id));
    await rowOf(page, 'big-server').waitFor();
    assert.deepEqual(await rowOf(page, 'big-server').locator('.chip').allInnerTexts(), [
      'channel=nightly',
      'size=large',
    ]);
    // The stored file is the one sent, byte for byte.
    const row = await svc.deps.db
      .selectFrom('builds')
      .innerJoin('uploads', 'uploads.upload_id', 'builds.upload_id')
      .select(['uploads.frozen_key', 'uploads.object_key'])
      .where('builds.build_id', '=', listed.id)
      .executeTakeFirstOrThrow();
    const stream = await svc.deps.blobs.openRead(row.frozen_key ?? row.object_key);
    assert.ok(stream !== undefined);
    const hash = createHash('sha256');
    for await (const chunk of stream) hash.update(chunk as Buffer);
    assert.equal(hash.digest('hex'), createHash('sha256').update(bytes).digest('hex'));
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('edits a build’s tags with an exclusive tag, which another build loses; shows the service’s refusal', async () => {
    const context = await web.newContext();
    const page = await web.open(context, '/sign-in', [/status of 400/]);
    await page.getByLabel('Email').fill(team.owner.email);
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/sign-in');
    await page.goto(`${publicUrl}${base}/builds`);
    await page.getByRole('button', { name: 'Edit tags of server-e' }).click();
    await page.waitForURL((url) => url.searchParams.get('edit') === ids['server-e']);
    const editor = page.getByRole('form', { name: 'Tags of server-e' });
    await editor.getByLabel('Tags of server-e').fill('current=yes\nowner=ops');
    await editor.getByLabel('Exclusive: current').check();
    await editor.getByRole('button', { name: 'Save tags' }).click();
    await editor.waitFor({ state: 'detached' });
    await page.waitForURL((url) => !url.searchParams.has('edit'));
    // The keyboard is back on the button that opened the editor.
    await page.getByRole('button', { name: 'Edit tags of server-e' }).waitFor();
    assert.equal(
      await page.evaluate('document.activeElement.getAttribute("aria-label")'),
      'Edit tags of server-e',
    );

    const after = await apiBuilds();
    const tagsOf = (name: string) => after.builds.find((b) => b.name === name)?.tags;
    assert.deepEqual(tagsOf('server-e'), { current: 'yes', owner: 'ops' });
    assert.deepEqual(tagsOf('server-d'), {}, 'the exclusive key left the build that had it');
    await rowOf(page, 'server-e').getByRole('link', { name: 'owner=ops' }).waitFor();
    assert.equal(await rowOf(page, 'server-d').locator('.chip').count(), 0);

    // A key over the service's 64 bytes: its refusal, in its words.
    await page.getByRole('button', { name: 'Edit tags of server-f' }).click();
    const second = page.getByRole('form', { name: 'Tags of server-f' });
    await second.getByLabel('Tags of server-f').fill(`${'k'.repeat(65)}=v`);
    await second.getByRole('button', { name: 'Save tags' }).click();
    const alert = second.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Could not save the tags/);
    assert.match(await alert.innerText(), /is 65 bytes; it needs 1 to 64/);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('takes a dropped avatar, refuses what is not one, previews and uploads it, then shows it', async () => {
    const { context, page } = await web.signedIn(team.owner.email);
    await page.goto(`${publicUrl}${base}/settings`);
    await page.getByRole('heading', { name: 'Avatar' }).waitFor();
    const facts = await page.locator('.facts').innerText();
    for (const fact of ['Test Game', 'builds-game', gameId]) assert.ok(facts.includes(fact), facts);
    await page.getByText('No avatar yet.').waitFor();

    await dropFile(page, '.drop-zone', {
      name: 'notes.txt',
      type: 'text/plain',
      bytes: Buffer.from('hello'),
    });
    assert.match(await page.getByRole('alert').innerText(), /is not a PNG or JPEG image/);
    await dropFile(page, '.drop-zone', {
      name: 'huge.png',
      type: 'image/png',
      bytes: Buffer.alloc(2_000_000),
    });
    assert.match(await page.getByRole('alert').innerText(), /must be under 2,000,000 bytes/);
    assert.ok(await page.getByRole('button', { name: 'Upload avatar' }).isDisabled());

    const image = png(64);
    await dropFile(page, '.drop-zone', { name: 'logo.png', type: 'image/png', bytes: image });
    const preview = page.getByRole('img', { name: 'Preview of the new avatar' });
    await preview.waitFor();
    assert.match((await preview.getAttribute('src')) ?? '', /^blob:/);
    assert.equal(await page.getByRole('alert').count(), 0);
    await page.getByRole('button', { name: 'Upload avatar' }).click();
    await page.getByRole('status').filter({ hasText: 'The avatar is updated.' }).waitFor();

    const game = await svc.call('GET', `/cloud/games/${gameId}`);
    const avatarUrl = game.json<{ game: { avatar_url?: string } }>().game.avatar_url;
    assert.ok(avatarUrl !== undefined, 'the game has an avatar');
    const shown = page.getByRole('img', { name: 'Avatar of Test Game' });
    await shown.waitFor();
    assert.equal(await shown.getAttribute('src'), avatarUrl);
    // Loaded, not only named: the service streams the image the page shows.
    const width = 'document.querySelector(\'img.avatar[alt^="Avatar of"]\').naturalWidth';
    for (let i = 0; i < 50 && (await page.evaluate(width)) !== 64; i++) await page.waitForTimeout(100);
    assert.equal(await page.evaluate(width), 64);
    const served = await fetch(avatarUrl);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), image);

    // The keyboard's way in: the file button, then the same preview.
    await page
      .getByLabel('Choose an image')
      .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: image });
    await preview.waitFor();
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('shows a viewer the builds and settings without upload, tag or avatar actions', async () => {
    const { context, page } = await web.signedIn(viewer);
    await page.goto(`${publicUrl}${base}/builds`);
    await page.locator('.builds-table').waitFor();
    assert.ok((await shownNames(page)).includes('server-a'));
    assert.equal(await page.getByRole('heading', { name: 'Upload a build' }).count(), 0);
    assert.equal(await page.getByLabel('Choose a build file').count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Edit tags/ }).count(), 0);
    await page.goto(`${publicUrl}${base}/settings`);
    await page.getByRole('heading', { name: 'Avatar' }).waitFor();
    await page.getByText('Viewers cannot change the avatar.').waitFor();
    assert.equal(await page.getByLabel('Choose an image').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Upload avatar' }).count(), 0);
    await context.close();
    assert.deepEqual(web.problems, []);
  });

  it('passes axe in every look; screenshots of builds and settings', async () => {
    for (const look of LOOKS) {
      const { context, page } = await web.signedIn(team.owner.email, {
        width: look.width,
        dark: look.dark,
        bypassCSP: true,
      });
      await page.goto(`${publicUrl}${base}/builds?tag=channel=beta&edit=${ids['server-a']}`);
      await page.getByRole('form', { name: 'Tags of server-a' }).waitFor();
      await web.check(page, 'builds', look.suffix);
      await page.goto(`${publicUrl}${base}/settings`);
      await page.getByRole('img', { name: 'Avatar of Test Game' }).waitFor();
      await web.check(page, 'game-settings', look.suffix);
      await context.close();
    }
    assert.deepEqual(web.violations, []);
    assert.deepEqual(web.problems, []);
  });
});
