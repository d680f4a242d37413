import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How often, while closing, connections that finished their last answer are closed. */
const SWEEP_MS = 25;

/**
 * Lets shutdown close every connection as soon as nothing more is owed on it. Node 20's server.close()
 * closes the connections that are idle at that moment, once, and then waits for the others, however long
 * their clients keep them (fetch keeps a keep-alive connection 71 s after Fastify's hint): so
 * - a connection that never sent a request (browsers and proxies open them ahead of need; fetch opens a
 *   spare one after an aborted request), which Node does not count as idle, is closed at once: nothing
 *   was received on it, so nothing is lost;
 * - a connection whose answer was still being worked on (watchers answering at shutdown, any request in
 *   flight) is closed once that answer is sent, by a sweep of idle connections every few milliseconds
 *   until the server has closed;
 * - a connection that arrives while closing is closed at once.
 */
export function trackConnectionsForShutdown(server: Server): { drain(): void } {
  const unused = new Set<Socket>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  server.on('request', (request: { socket: Socket }) => {
    unused.delete(request.socket);
  });
  return {
    drain() {
      if (closing) return;
      closing = true;
      for (const socket of unused) socket.destroy();
      unused.clear();
      if (!server.listening) return;
      const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
      sweep.unref();
      server.once('close', () => clearInterval(sweep));
    },
  };
}
