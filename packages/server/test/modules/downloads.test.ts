import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startListening } from '../helpers/listening.js';
import type { TestService } from '../helpers/service.js';

/** The embedded store's presigned download URLs, fetched over real HTTP as a browser would. */
describe('signed download URLs of the embedded store', () => {
  let svc: TestService;
  const csv = Buffer.from('lobby_id,exit_code\r\n"a,b",0\r\n');

  before(async () => {
    ({ svc } = await startListening());
  });
  after(async () => {
    await svc.close();
  });

  async function presign(key: string, ttlSeconds?: number) {
    await svc.deps.blobs.putObject(key, csv);
    return svc.deps.blobs.presignGet({
      key,
      filename: 'lobby-history.csv',
      contentType: 'text/csv',
      ttlSeconds,
    });
  }

  // A fixed replacement would leave one signature in 64 unchanged: the one already ending in it.
  function withLastCharChanged(sig: string): string {
    return `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
  }

  async function errorCode(res: Response): Promise<string | undefined> {
    return ((await res.json()) as { code?: string }).code;
  }

  it('serves the file as a named text/csv attachment, to HEAD too, with no token', async () => {
    const { url } = await presign('exports/test/good.csv');
    assert.match(url, /\/downloads\/lobby-history\.csv\?/);
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/csv');
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="lobby-history.csv"');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), csv);
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(csv.length));
  });

  it('refuses a URL with any part changed (403), before looking for the file', async () => {
    const { url } = await presign('exports/test/tampered.csv');
    await svc.deps.blobs.putObject('exports/test/secret.csv', Buffer.from('not yours'));
    const edits: [string, (u: URL) => void][] = [
      ['sig', (u) => u.searchParams.set('sig', withLastCharChanged(u.searchParams.get('sig') ?? ''))],
      ['key', (u) => u.searchParams.set('key', 'exports/test/secret.csv')],
      ['missing key', (u) => u.searchParams.set('key', 'exports/test/none.csv')],
      ['type', (u) => u.searchParams.set('type', 'text/html')],
      ['expires', (u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 60))],
      ['filename', (u) => (u.pathname = '/downloads/page.html')],
    ];
    for (const [what, edit] of edits) {
      const tampered = new URL(url);
      edit(tampered);
      const res = await fetch(tampered);
      assert.equal(res.status, 403, what);
      assert.equal(await errorCode(res), 'DOWNLOAD_URL_INVALID_SIGNATURE', what);
    }
    const unsigned = new URL(url);
    unsigned.searchParams.delete('sig');
    const res = await fetch(unsigned);
    assert.equal(res.status, 400);
    assert.equal(await errorCode(res), 'API_BAD_QUERY');
  });

  it('refuses a PUT signature as a GET one: the two are signed apart', async () => {
    const put = await svc.deps.blobs.presignPut({
      key: 'exports/test/put.csv',
      uploadId: '0190f000-0000-7000-8000-000000000001',
      part: 1,
      contentLength: 10,
    });
    const { url } = await presign('exports/test/put.csv');
    const mixed = new URL(url);
    mixed.searchParams.set('sig', new URL(put.url).searchParams.get('sig') ?? '');
    assert.equal((await fetch(mixed)).status, 403);
  });

  it('refuses an expired URL with its own code, and a deleted file with 404', async () => {
    const { url, expireTs } = await presign('exports/test/expiring.csv', 60);
    assert.equal(expireTs, (Math.floor(svc.clock.now() / 1000) + 60) * 1000);
    await svc.deps.blobs.delete('exports/test/expiring.csv');
    const gone = await fetch(url);
    assert.equal(gone.status, 404);
    assert.equal(await errorCode(gone), 'DOWNLOAD_NOT_FOUND');
    svc.clock.advance(60_000);
    const expired = await fetch(url);
    assert.equal(expired.status, 403);
    assert.equal(await errorCode(expired), 'DOWNLOAD_URL_EXPIRED');
  });
});
