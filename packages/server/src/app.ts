import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import type { Deps } from './deps.js';
import { errors } from './errors.js';
import { registerAuth } from './http/auth.js';
import { registerBodylessRoutesParser } from './http/bodyless-routes.js';
import { connectionServerOptions, registerConnectionLimits } from './http/connection-limits.js';
import { answerGameClientCors, registerCors } from './http/cors.js';
import { DEFAULT_DASHBOARD_DIR, dashboardRoutes, dashboardStylesheets } from './http/dashboard.js';
import { frameworkErrorHandler, registerErrorHandling, sendError } from './http/errors.js';
import { registerGameClientLimits } from './http/game-client-limits.js';
import { healthRoutes, Readiness } from './http/health.js';
import { registerIdempotency } from './http/idempotency.js';
import {
  assertCleanBody,
  assertCleanRequestStrings,
  jsonNestingExceeds,
  MAX_JSON_DEPTH,
} from './http/input-guard.js';
import { registerOpenApi } from './http/openapi.js';
import { AuthFailureGuard, registerRouteLimits } from './http/rate-limits.js';
import { recordRoutes } from './http/route-table.js';
import { registerSecurityHeaders, securityHeaders } from './http/security-headers.js';
import { newRayId } from './lib/ids.js';
import { UNMATCHED_ROUTE } from './lib/metrics.js';
import { createLogger, type Logger } from './logger.js';
import { accountsRoutes } from './modules/accounts/accounts.routes.js';
import { teamsRoutes } from './modules/accounts/teams.routes.js';
import { registerAudit } from './modules/audit/audit.recorder.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { backupsRoutes } from './modules/backups/backups.routes.js';
import type { Backups } from './modules/backups/backups.service.js';
import { billingRoutes } from './modules/billing/billing.routes.js';
import { buildsRoutes } from './modules/builds/builds.routes.js';
import { debugRoutes } from './modules/debug/debug.routes.js';
import { deviceLinksRoutes } from './modules/device-links/device-links.routes.js';
import { firstRunRoutes } from './modules/first-run/first-run.routes.js';
import { gamesRoutes } from './modules/games/games.routes.js';
import { lobbyExportsRoutes } from './modules/lobby-exports/lobby-exports.routes.js';
import { lobbyLogsRoutes } from './modules/lobby-logs/lobby-logs.routes.js';
import { lobbyOutputRoutes } from './modules/lobby-output/lobby-output.routes.js';
import { matchmakerRoutes } from './modules/matchmaker/matchmaker.routes.js';
import { matchmakerLobbiesRoutes } from './modules/matchmaker/matchmaker-lobbies.routes.js';
import { matchmakerPlayersRoutes } from './modules/matchmaker/matchmaker-players.routes.js';
import { matchmakerRegionsRoutes } from './modules/matchmaker/matchmaker-regions.routes.js';
import { namespacesRoutes } from './modules/namespaces/namespaces.routes.js';
import type { WithNamespaces } from './modules/namespaces/namespaces.service.js';
import { runtimeRoutes } from './modules/runtime/runtime.routes.js';
import { tokensRoutes } from './modules/tokens/tokens.routes.js';
import { uploadsRoutes } from './modules/uploads/uploads.routes.js';
import { versionsRoutes } from './modules/versions/versions.routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.js';
import { wholeGameRoutes } from './modules/whole-game/whole-game.routes.js';

/** Path parameters may be JWTs (the device link page); ids are bounded by their schemas anyway. */
const MAX_PARAM_LENGTH = 2048;

/** `http://host[:port]` at the start of a request target in absolute form (RFC 9112 3.2.2). */
const ABSOLUTE_FORM_ORIGIN = /^https?:\/\/[^/?#]*/i;

/**
 * A request line may name its target in absolute form (`GET http://host/path HTTP/1.1`), and Node passes it
 * on as the url. Routes, the audit log, better-auth and the access log all expect a path, so it becomes
 * the origin form a proxy would have sent: the same request, however its client wrote it.
 */
function originForm(url: string): string {
  const origin = ABSOLUTE_FORM_ORIGIN.exec(url);
  if (origin === null) return url;
  const rest = url.slice(origin[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

export interface BuildAppOptions {
  /**
   * The service's logger (createLogger; the composition root makes it first and passes it to everything
   * that logs); `false` silences the app (tests). Unset: one at the configured level, on stdout.
   */
  logger?: Logger | false;
  /** The built dashboard to serve at `/` (default: packages/dashboard/dist); a missing folder is allowed. */
  dashboardDir?: string;
}

/** What the routes need: the shared Deps, and the module objects the composition root made over them. */
export type AppDeps = Deps & WithNamespaces & { backups: Backups };

/** Builds the whole HTTP service around `deps`; never listens, so tests drive it with inject or listen(0). */
export async function buildApp(deps: AppDeps, options: BuildAppOptions = {}) {
  const everyAnswer = securityHeaders(deps.config.publicUrl);
  // Fastify's own logger type, so the app's type stays the one every route and plugin is written against.
  const loggerInstance: FastifyBaseLogger | undefined =
    options.logger === false ? undefined : (options.logger ?? createLogger(deps.config));
  const app = Fastify({
    ...(loggerInstance === undefined ? { logger: false } : { loggerInstance }),
    bodyLimit: deps.config.bodyLimitBytes,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    genReqId: newRayId,
    rewriteUrl: (req) => originForm(req.url ?? '/'),
    logController: new LogController({ requestIdLogLabel: 'ray_id' }),
    requestIdHeader: false,
    // Types are never coerced: "5" for a number is a client bug worth a clear 400, not a silent fix.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    // Who the client is (request.ip, which every per-address limit keys on) behind trusted proxies.
    trustProxy: deps.config.trustProxy === false ? false : [...deps.config.trustProxy],
    // Refused by the onRequest hook below instead, with the service's error body and a reason.
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandler(MAX_PARAM_LENGTH, everyAnswer),
    forceCloseConnections: 'idle',
    ...connectionServerOptions(deps.config.connections),
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerConnectionLimits(app, deps.config.connections, deps.config.trustProxy);

  // Bodyless POSTs that still say application/json are common from CLIs; let an empty body through and
  // let the route's schema decide whether it needed one.
  // JSON only for a route with a body: a text/plain one is refused with 415 rather than half-parsed into a
  // string (http/bodyless-routes.ts takes every other type, and ignores it where the route declares no body).
  app.removeContentTypeParser('text/plain');
  const defaultJsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (jsonNestingExceeds(text)) {
      return done(
        errors.badBody(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
          field: null,
          max_depth: MAX_JSON_DEPTH,
        }),
        undefined,
      );
    }
    return defaultJsonParser(request, text, (err, parsed) => {
      if (err !== null) return done(err, undefined);
      try {
        assertCleanBody(parsed);
      } catch (problem) {
        return done(problem as Error, undefined);
      }
      return done(null, parsed);
    });
  });

  registerBodylessRoutesParser(app);

  const readiness = Readiness.overStore(deps.db);
  // First of the preClose hooks: from here on /readyz says so, and new requests are refused (below).
  app.addHook('preClose', (done) => {
    readiness.close();
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-ray-id', request.id);
    // Shutting down: requests that still arrive (on a keep-alive connection) go to another instance.
    if (readiness.shuttingDown) return sendError(request, reply, errors.serviceUnavailable('shutting_down'));
    // The game clients' CORS in this hook rather than one of its own: a hook step fewer per request.
    if (answerGameClientCors(request, reply)) return;
    done();
  });
  registerSecurityHeaders(app, everyAnswer);
  // One histogram observation per answer, by the route's pattern: never the raw path, whose values are
  // unbounded. Paths no route matched share one series.
  const { metrics } = deps;
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  const cookieOrigins = deps.origins;
  // PORT=0 picks the port at listen: only then are the loopback origins of the default public URL known.
  app.addHook('onListen', (done) => {
    const address = app.server.address();
    if (typeof address === 'object' && address !== null) cookieOrigins.listeningOn(address.port);
    done();
  });
  await registerCors(app, { origins: deps.config.corsOrigins, cookieOrigins });
  registerErrorHandling(app, deps.config.bodyLimitBytes);
  // After the auth hook (onRequest) and before the route's schema: no id or query value with a control
  // character reaches a schema, a query or a log line.
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      assertCleanRequestStrings('params', request.params);
      assertCleanRequestStrings('querystring', request.query);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  const routeTable = recordRoutes(app);
  // The docs and the document itself are public; everything else states its rule in routeOptions.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs') || route.url === '/openapi.json') {
      route.config = { ...route.config, auth: 'public', limit: 'publicReads' };
    }
  });
  await registerRouteLimits(app, deps.rateCounters, deps.clock, deps.config.rateLimits, metrics);
  registerGameClientLimits(app, deps.clock, deps.config.rateLimits, metrics);
  const { caches } = deps;
  // On a shared store the instance whose failure uses up an address's limit tells the others (NOTIFY), so a
  // request's token check needs no look at the shared counters to know its address is under the limit.
  const peers = caches.shared
    ? {
        trusted: () => caches.trusted(),
        // Not told (the store is failing): the others still refuse the address at its next failure there.
        tell: (key: string, resetTs: number) =>
          caches.publish(deps.db, { kind: 'rate-over', key, resetTs }).catch(() => undefined),
      }
    : undefined;
  const guard = new AuthFailureGuard(deps.rateCounters, deps.clock, deps.config.rateLimits, metrics, peers);
  caches.listen({
    apply: (told) => {
      if (told.kind === 'rate-over') guard.told(told.key, told.resetTs);
    },
    // Refusals heard are true until their window ends, whatever was missed meanwhile.
    clear: () => {},
  });
  registerAuth(app, {
    tokens: deps.tokens,
    guard,
    people: deps.people,
    trustedOrigins: cookieOrigins,
  });
  registerIdempotency(app, deps.db, deps.clock);
  registerAudit(app, deps);

  await registerOpenApi(app, deps.config.publicUrl);

  gamesRoutes(app, deps);
  wholeGameRoutes(app, deps);
  versionsRoutes(app, deps);
  namespacesRoutes(app, deps);
  lobbyLogsRoutes(app, deps);
  matchmakerRoutes(app, deps);
  matchmakerRegionsRoutes(app, deps);
  matchmakerPlayersRoutes(app, deps);
  matchmakerLobbiesRoutes(app, deps);
  runtimeRoutes(app, deps);
  lobbyOutputRoutes(app, deps);
  lobbyExportsRoutes(app, deps);
  buildsRoutes(app, deps);
  tokensRoutes(app, deps);
  uploadsRoutes(app, deps);
  deviceLinksRoutes(app, deps, {
    stylesheets: dashboardStylesheets(options.dashboardDir ?? DEFAULT_DASHBOARD_DIR),
  });
  billingRoutes(app, deps);
  debugRoutes(app, deps);
  backupsRoutes(app, deps.backups);
  accountsRoutes(app, deps);
  teamsRoutes(app, deps);
  firstRunRoutes(app, deps);
  auditRoutes(app, deps);
  webhooksRoutes(app, deps);
  healthRoutes(app, { readiness, metrics, metricsToken: deps.config.metricsToken });
  // Last, and a wildcard: it answers only what no API route does.
  dashboardRoutes(app, { dir: options.dashboardDir, maxParamLength: MAX_PARAM_LENGTH, s3: deps.config.s3 });

  return Object.assign(app, { routeTable, readiness });
}

export type App = Awaited<ReturnType<typeof buildApp>>;
