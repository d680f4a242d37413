/**
 * What the service's own log holds, read through its real logger (startTestService's `logLevel`) while
 * requests arrive over real sockets: a client cannot fill the error log at will, and credentials in a path
 * stay out of it however the request line is written.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type LogLine, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

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
});
