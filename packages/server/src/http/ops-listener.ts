import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type AppError, errors } from '../errors.js';
import { newRayId } from '../lib/ids.js';
import { bearerMatches, type OperationsEndpoints } from './health.js';

/** A scraper or probe that has not sent its whole request in this long is cut off. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * GCM_METRICS_LISTEN: a second, bare HTTP listener with /metrics, /healthz and /readyz and nothing else, for
 * an address only the monitoring network reaches (127.0.0.1:9464). /metrics needs no token here unless
 * GCM_METRICS_TOKEN is set, since the address is the protection; while the service runs lobbies the
 * configuration insists on the token, as a host-networked lobby reaches every address of its host. It answers through shutdown, so a
 * probe sees `shutting_down` rather than a refused connection, until the service has closed: it is closed
 * by the last of `app`'s close hooks, so call this once the service has added its own (before it listens).
 */
export async function listenForOperations(
  app: FastifyInstance,
  ops: OperationsEndpoints,
  address: { host: string; port: number },
): Promise<Server> {
  const server = createServer((request, response) => {
    answer(ops, request, response).catch(() => response.destroy());
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = REQUEST_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Every connection with it, a scraper's keep-alive one included.
  app.addHook('onClose', async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  });
  return server;
}

/** The port the listener got (GCM_METRICS_LISTEN's port 0 picks one). */
export function listenerPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}

async function answer(ops: OperationsEndpoints, request: IncomingMessage, response: ServerResponse) {
  const rayId = newRayId();
  response.setHeader('x-ray-id', rayId);
  const method = request.method ?? 'GET';
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  const send = (status: number, type: string, body: string) => {
    response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    response.end(method === 'HEAD' ? undefined : body);
  };
  const fail = (e: AppError) =>
    send(
      e.statusCode,
      'application/json; charset=utf-8',
      JSON.stringify({
        code: e.code,
        message: e.message,
        ray_id: rayId,
        ...(e.metadata === undefined ? {} : { metadata: e.metadata }),
      }),
    );
  const json = 'application/json; charset=utf-8';
  if (method !== 'GET' && method !== 'HEAD') return fail(errors.routeNotFound(method, path.slice(0, 200)));
  switch (path) {
    case '/healthz':
      return send(200, json, '{"status":"ok"}');
    case '/readyz': {
      const reason = await ops.readiness.check();
      return reason === undefined
        ? send(200, json, '{"status":"ready"}')
        : fail(errors.serviceUnavailable(reason));
    }
    case '/metrics':
      if (ops.metricsToken !== undefined && !bearerMatches(ops.metricsToken, request.headers.authorization)) {
        return fail(errors.metricsUnauthorized());
      }
      return send(200, ops.metrics.contentType, await ops.metrics.render());
    default:
      return fail(errors.routeNotFound(method, path.slice(0, 200)));
  }
}
