import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import proxyAddr from '@fastify/proxy-addr';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config, ConnectionConfig } from '../config.js';
import { errors } from '../errors.js';

/**
 * Routes whose body is a stream of any length the client was signed for (an 8 GiB build), kept apart from
 * the body deadline: a healthy large upload outlasts any fixed one. The idle timeout still closes one that
 * stops sending.
 */
const STREAMED_BODY_ROUTES = new Set(['PUT /uploads/:upload_id/parts/:part']);

/** How often a dropped connection may be logged: an attacker at the cap would otherwise flood the log. */
const DROP_LOG_INTERVAL_MS = 10_000;

/**
 * The Node server's own timeouts, as Fastify options:
 * - headersTimeout: a connection that sends no request, or sends its headers a byte at a time, is answered
 *   408 and closed; checked every quarter of the timeout (Node's default is every 30 s) so it is kept to;
 * - keepAliveTimeout: a connection that finished a request and sends no next one is closed;
 * - connectionTimeout (the socket's idle timeout): no byte either way while a request is under way (a
 *   stalled upload, a client that stops reading its answer) closes the connection;
 * - requestTimeout off: Node's would cut every request, the signed upload PUT included, at a fixed time
 *   from its first byte; bodies get their own deadline instead (registerBodyDeadline).
 */
export function connectionServerOptions(config: ConnectionConfig): {
  http: ServerOptions;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
} {
  return {
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: 0,
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(config.headersTimeoutMs / 4))),
    },
    requestTimeout: 0,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionTimeout: config.idleTimeoutMs,
  };
}

/**
 * The connection cap, its per-address share and the body deadline. Past the cap Node closes new
 * connections on accept (each is logged, at most once every 10 s), so the process never meets its
 * open-file limit, where every accept would fail and reset connections until some close; the timeouts above
 * reap the idle and slow ones that hold the cap, so normal clients get in again.
 */
export function registerConnectionLimits(
  app: FastifyInstance,
  config: ConnectionConfig,
  trustProxy: Config['trustProxy'],
): void {
  app.server.maxConnections = config.maxConnections;
  let dropped = 0;
  let loggedAt = 0;
  app.server.on('drop', () => {
    dropped++;
    const now = Date.now();
    if (now - loggedAt < DROP_LOG_INTERVAL_MS) return;
    app.log.warn(
      { max_connections: config.maxConnections, dropped },
      'connection cap reached: new connections are being closed (GCM_MAX_CONNECTIONS)',
    );
    loggedAt = now;
    dropped = 0;
  });
  registerPerAddressCap(app, config, trustProxy);
  registerBodyDeadline(app, config.bodyTimeoutMs);
}

/**
 * At most `maxConnectionsPerAddress` open connections per peer address, counted as the rate limits count a
 * client (an IPv6 peer by its /64, an IPv4-mapped one as IPv4); one more is closed on accept, unanswered,
 * like a connection past the global cap. At accept time the peer is all that is known, so behind a proxy
 * every client shares the proxy's address: the proxies of GCM_TRUST_PROXY are exempt (they hold the
 * connections of many clients, and the global cap still bounds them); a client reaching the service past
 * the proxies is held to the share.
 */
function registerPerAddressCap(
  app: FastifyInstance,
  config: ConnectionConfig,
  trustProxy: Config['trustProxy'],
): void {
  const cap = config.maxConnectionsPerAddress;
  if (cap === 0) return;
  const isTrustedProxy = trustProxy === false ? () => false : proxyAddr.compile([...trustProxy]);
  const open = new Map<string, number>();
  let dropped = 0;
  let loggedAt = 0;
  app.server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // No address: the peer is gone already, and Node closes the socket itself.
    if (address === undefined || isTrustedProxy(address, 0)) return;
    const key = rateLimit.normalizeIP(address);
    const count = open.get(key) ?? 0;
    if (count >= cap) {
      socket.destroy();
      dropped++;
      const now = Date.now();
      if (now - loggedAt >= DROP_LOG_INTERVAL_MS) {
        app.log.warn(
          { max_connections_per_address: cap, address: key, dropped },
          'per-address connection cap reached: new connections from this address are being closed ' +
            '(GCM_MAX_CONNECTIONS_PER_ADDRESS)',
        );
        loggedAt = now;
        dropped = 0;
      }
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
}

/**
 * A body that has not arrived in full `timeoutMs` after its headers is answered 408 API_REQUEST_TIMEOUT and
 * its connection closed: the idle timeout alone would let a client hold a connection by sending a byte now
 * and then. The body is read through a stream of our own only when it had not arrived by the time it is
 * parsed (a body in the same packets as its headers has), so the deadline costs the usual request nothing.
 */
function registerBodyDeadline(app: FastifyInstance, timeoutMs: number): void {
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (
      request.raw.complete ||
      request.method === 'GET' ||
      request.method === 'HEAD' ||
      STREAMED_BODY_ROUTES.has(`${request.method} ${request.routeOptions.url}`)
    ) {
      done(null, payload);
      return;
    }
    const timed = new PassThrough();
    // The parser stops listening once the body is over the limit; a late deadline must not throw then.
    timed.on('error', () => {});
    const timer = setTimeout(() => {
      payload.unpipe(timed);
      // The rest of the body is never read: the connection cannot carry another request.
      reply.header('connection', 'close');
      timed.destroy(errors.requestTimeout(timeoutMs));
    }, timeoutMs);
    // A body nobody reads (an answer sent before it) never ends or errors: the deadline alone must not
    // keep the process alive, or a closed service lingers for the whole timeout.
    timer.unref();
    const stop = () => clearTimeout(timer);
    timed.once('end', stop);
    timed.once('close', stop);
    payload.once('error', (err) => timed.destroy(err));
    payload.pipe(timed);
    done(null, timed);
  });
}
