import net from 'node:net';

/**
 * A TCP relay to a real server that a test can cut and restore, as a database restart or a network
 * partition would: `stop` closes the listener and every connection through it; `start` listens again on
 * the same port.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  /** Without `targetPort`, `targetHost` is the path of a unix socket (a Docker engine's). */
  constructor(
    private readonly targetHost: string,
    private readonly targetPort?: number,
  ) {}

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream =
        this.targetPort === undefined
          ? net.connect(this.targetHost)
          : net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A started proxy in front of the database server of `databaseUrl`, and that URL through the proxy. */
export async function proxyDatabase(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
  const direct = new URL(databaseUrl);
  const proxy = new TcpProxy(direct.hostname, Number(direct.port));
  await proxy.start();
  const viaProxy = new URL(direct);
  viaProxy.port = String(proxy.port);
  return { proxy, url: viaProxy.toString() };
}
