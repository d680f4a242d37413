/**
 * What the service's own log holds, read through its real logger (startTestService's `logLevel`) while
 * requests arrive over real sockets: a client cannot fill the error log at will, and credentials in a path
 * stay out of it however the request line is written.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { redactUrl } from '../../src/http/redact.js';
import { prepareLink } from '../helpers/device-links.js';
import { type LogLine, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

/** Sends a bodyless request's `head` on a fresh connection; resolves with all the server answered until it closed. */
async function rawRequest(port: number, head: string): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk: Buffer) => {
    answer += chunk.toString('latin1');
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(`${head}\r\n\r\n`);
  await closed;
  return answer;
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
}

describe('the log', () => {
  let svc: TestService;
  let port: number;
  before(async () => {
    svc = await startTestService({ logLevel: 'debug' });
    await svc.app.listen({ port: 0, host: '127.0.0.1' });
    port = (svc.app.server.address() as net.AddressInfo).port;
  });
  after(() => svc.close());

  const linesOf = (rayId: string) => svc.logs.filter((l) => l.ray_id === rayId);
  /** The ray id of the request that came in with `url` (its "incoming request" line). */
  const rayIdOf = (url: string) =>
    svc.logs.find((l) => l.msg === 'incoming request' && (l.req as { url: string }).url === url)?.ray_id as
      | string
      | undefined;

  it('takes a client that hangs up mid-body for what it is, not for a database outage', async () => {
    const path = `/cloud/games?aborted=${randomBytes(6).toString('hex')}`;
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${svc.operatorToken}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"name_id":"half-a-bo',
    );
    await until('the request is in', 5_000, () => rayIdOf(path) !== undefined);
    socket.destroy();
    const rayId = rayIdOf(path) as string;
    // The line the error handler writes about it: the sign the service is done with the request.
    await until('the abort is handled', 5_000, () => linesOf(rayId).length > 1);
    const lines: LogLine[] = linesOf(rayId);
    assert.deepEqual(
      lines.filter((l) => l.level >= 40),
      [],
      'a client hanging up is no warning, let alone an error',
    );
    assert.ok(!JSON.stringify(lines).includes('database'), JSON.stringify(lines));
    assert.ok(lines.some((l) => l.level === 20 && /client closed the connection/.test(String(l.msg))));
    // The service is no worse for it.
    const created = await svc.call('POST', '/cloud/games', {
      body: { name_id: 'after-abort', display_name: 'A' },
    });
    assert.equal(created.statusCode, 200, created.body);
  });

  it('keeps a device link token out of it, whatever form the request target takes', async () => {
    const forms = (token: string) => [
      `http://127.0.0.1:${port}/devices/link/${token}`,
      `HTTPS://gcm.example/devices/link/${token}?x=1`,
      `http://user:pass@gcm.example/devices/link/${token}`,
      `/devices/%6Cink/${token}`,
    ];
    for (const [i] of forms('').entries()) {
      const { device_link_token: token } = await prepareLink(svc);
      const url = forms(token)[i] as string;
      const answer = await rawRequest(port, `GET ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close`);
      assert.equal(statusOf(answer), 200, `${url}: the link page answered\n${answer.slice(0, 300)}`);
      const logged = svc.logs.filter((l) => JSON.stringify(l).includes(token));
      assert.deepEqual(logged, [], `${url} left the token in the log`);
      assert.ok(
        !svc.logs.some((l) => JSON.stringify(l).includes('user:pass')),
        'userinfo is a credential too',
      );
    }
  });

  it('redacts by path in the other places that print a url (traces)', () => {
    assert.equal(
      redactUrl('http://u:p@gcm.example/devices/link/aaa.bbb?device_link_token=ccc'),
      'http://[redacted]@gcm.example/devices/link/[redacted]?device_link_token=%5Bredacted%5D',
    );
    assert.equal(redactUrl('/x/../auth/reset-password/abc/more'), '/auth/reset-password/[redacted]/more');
    assert.equal(redactUrl('/devices/links?watch_index=1'), '/devices/links?watch_index=1');
  });

  it('keeps a password reset token out of it, and answers an absolute-form auth call', async () => {
    const token = randomBytes(12).toString('hex');
    for (const target of [
      `http://127.0.0.1:${port}/auth/reset-password/${token}?callbackURL=%2F`,
      `/auth/./reset-password/${token}?callbackURL=%2F`,
    ]) {
      const answer = await rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close`);
      // better-auth sends a browser back to callbackURL with the token's verdict.
      assert.equal(statusOf(answer), 302, `${target}\n${answer.slice(0, 300)}`);
      assert.match(answer, /INVALID_TOKEN/);
      assert.deepEqual(
        svc.logs.filter((l) => JSON.stringify(l).includes(token)),
        [],
        `${target} left the token in the log`,
      );
    }
  });
});
