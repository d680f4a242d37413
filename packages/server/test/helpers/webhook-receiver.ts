import { createHmac, timingSafeEqual } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookEventBody } from '@gcm/contract';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  event: WebhookEventBody;
}

/**
 * How the receiver answers: `ok` 204; `fail` 500; `drop` closes the connection without an answer;
 * `busy` 503 with Retry-After; `redirect` 302 elsewhere; `hang` reads the request and never answers,
 * holding the connection open (a receiver that is up but stuck).
 */
export type ReceiverMode = 'ok' | 'fail' | 'drop' | 'busy' | 'redirect' | 'hang';

/**
 * A real HTTP server on a free local port that records what the service POSTs to it. Only answered
 * (2xx) requests count as received; every request, answered or not, is in `requests`.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  readonly requests: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  mode: ReceiverMode = 'ok';
  /** Emits `received` with each answered delivery, as it arrives. */
  private readonly arrivals = new EventEmitter();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => receiver?.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}`);
    return receiver;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const path = req.url ?? '/';
    this.requests.push({ path, headers: req.headers, body });
    switch (this.mode) {
      case 'fail':
        res.writeHead(500).end('receiver down');
        return;
      case 'busy':
        res.writeHead(503, { 'retry-after': '120' }).end();
        return;
      case 'redirect':
        res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
        return;
      case 'drop':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'ok': {
        const received = { path, headers: req.headers, body, event: JSON.parse(body) as WebhookEventBody };
        this.received.push(received);
        res.writeHead(204).end();
        this.arrivals.emit('received', received);
      }
    }
  }

  /**
   * The next delivery answered at `path` from now on; fails if none arrives within `withinMs`. A bound on
   * an event, not a sleep: it resolves as soon as the delivery is in.
   */
  async nextAt(path: string, withinMs: number): Promise<Received> {
    const signal = AbortSignal.timeout(withinMs);
    try {
      for (;;) {
        const [received] = (await once(this.arrivals, 'received', { signal })) as [Received];
        if (received.path === path) return received;
      }
    } catch (err) {
      if (signal.aborted) throw new Error(`no delivery at ${path} within ${withinMs} ms`);
      throw err;
    }
  }

  /** Events received at `path`, in arrival order. */
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * What a receiver does with the Gcm-Signature header, written from the README rather than from the
 * service's code: HMAC-SHA256 with the endpoint's secret over `<t>.<raw body>`, compared in constant time.
 */
export function verifySignature(secret: string, header: string | undefined, body: string): boolean {
  if (header === undefined) return false;
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (t === undefined || v1 === undefined || !/^\d+$/.test(t)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
