import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One siteverify call as the provider saw it: the form's fields. */
export interface SiteverifyCall {
  path: string;
  contentType: string | undefined;
  secret: string | null;
  response: string | null;
  remoteip: string | null;
}

/**
 * A local captcha provider speaking hCaptcha's and Turnstile's documented siteverify contract: a form POST of
 * `secret`, `response` and `remoteip`, answered 200 with JSON `{success, "error-codes"}`. It accepts a
 * response only when it is in `accepted` and the secret is `secret`.
 */
export class SiteverifyServer {
  readonly calls: SiteverifyCall[] = [];
  readonly accepted = new Set<string>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly secret: string,
  ) {}

  static async start(secret: string): Promise<SiteverifyServer> {
    let provider: SiteverifyServer | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => provider?.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    provider = new SiteverifyServer(server, `http://127.0.0.1:${port}/siteverify`, secret);
    return provider;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const form = new URLSearchParams(body);
    const call = {
      path: req.url ?? '/',
      contentType: req.headers['content-type'],
      secret: form.get('secret'),
      response: form.get('response'),
      remoteip: form.get('remoteip'),
    };
    this.calls.push(call);
    const errorCodes: string[] = [];
    if (call.secret !== this.secret) errorCodes.push('invalid-input-secret');
    if (call.response === null || !this.accepted.has(call.response))
      errorCodes.push('invalid-input-response');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: errorCodes.length === 0, 'error-codes': errorCodes }));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
