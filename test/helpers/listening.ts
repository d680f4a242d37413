import net from 'node:net';
import { startTestService } from './service.js';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(),
      );
    });
  });
}

/**
 * A service that really listens, with GCM_PUBLIC_URL naming the port it listens on, so the presigned URLs
 * it hands out are the ones a client would use. `port` reuses a port (a restart).
 */
export async function startListening(
  options: { dataDir?: string; port?: number; env?: Record<string, string> } = {},
) {
  const port = options.port ?? (await freePort());
  const publicUrl = `http://127.0.0.1:${port}`;
  const svc = await startTestService({
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    env: { ...options.env, GCM_PUBLIC_URL: publicUrl },
  });
  await svc.app.listen({ port, host: '127.0.0.1' });
  return { svc, port, publicUrl };
}
