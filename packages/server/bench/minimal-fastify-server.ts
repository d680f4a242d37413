/**
 * The minimal Fastify baseline: the service's routes that a scenario compares, on Fastify with the hooks any
 * production service of this kind carries, each done the plain way, and nothing else. It is the honest
 * floor for "what does our code cost on top of the framework": the same route patterns and schemas (the
 * contract's), a request id sent back as a header, a bearer-token check against an in-memory set behind a
 * per-address count of failed checks (what the service's GET does: it counts failures, not every request),
 * a per-route rate limit on the find (@fastify/rate-limit's memory store: issue 37 limits finds per address
 * and per token), a security header on every answer, a
 * Prometheus histogram observation per answer, pino at `warn` (as the benchmark runs the service) and a JSON
 * error body. What it answers is canned: `BENCH_NAMESPACE_BODY_FILE` for the namespace GET,
 * `BENCH_FIND_BODY_FILE` for the matchmaker's find; or, with `BENCH_FIND_SQLITE_FILE` or
 * `BENCH_FIND_PG_URL` (and `BENCH_FIND_NAMESPACE`), the find does a find's store work for real
 * (minimal-find-store.ts) and answers the slot it took, the client being X-Forwarded-For from loopback as
 * the service is run. Run as its own process, like the service.
 * Environment: PORT (127.0.0.1), BENCH_TOKEN (the one bearer token it admits), the body files or the store.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { GetNamespaceResponse, NamespaceParams } from '@gcm/contract';
import Fastify, { type FastifyError } from 'fastify';
import { pino } from 'pino';
import { Histogram, Registry } from 'prom-client';
import { Type } from 'typebox';
import { type FindStore, postgresFindStore, sqliteFindStore } from './minimal-find-store.js';

const port = Number(process.env.PORT);
const token = process.env.BENCH_TOKEN;
const namespaceBodyFile = process.env.BENCH_NAMESPACE_BODY_FILE;
const findBodyFile = process.env.BENCH_FIND_BODY_FILE;
if (!Number.isInteger(port) || port <= 0 || token === undefined || token === '') {
  process.stderr.write('minimal-fastify-server needs PORT and BENCH_TOKEN\n');
  process.exit(2);
}
// Parsed, so the route's response schema serializes it as the service's does its object.
const namespaceBody: unknown =
  namespaceBodyFile === undefined ? undefined : JSON.parse(readFileSync(namespaceBodyFile, 'utf8'));
const findBody: unknown =
  findBodyFile === undefined ? undefined : JSON.parse(readFileSync(findBodyFile, 'utf8'));

const sqliteFile = process.env.BENCH_FIND_SQLITE_FILE;
const pgUrl = process.env.BENCH_FIND_PG_URL;
const findNamespace = process.env.BENCH_FIND_NAMESPACE ?? '';
const store: FindStore | undefined =
  sqliteFile !== undefined
    ? await sqliteFindStore(sqliteFile)
    : pgUrl !== undefined
      ? await postgresFindStore(pgUrl)
      : undefined;

const tokens = new Set([token]);
const registry = new Registry();
const requests = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Requests by route pattern',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const app = Fastify({
  loggerInstance: pino({ level: 'warn' }),
  genReqId: () => randomUUID(),
  requestIdHeader: false,
  // The store's find counts slots per client, whose address the load sends as X-Forwarded-For.
  trustProxy: store === undefined ? false : '127.0.0.1',
}).withTypeProvider<TypeBoxTypeProvider>();

app.addHook('onRequest', (request, reply, done) => {
  reply.header('x-ray-id', request.id);
  done();
});
app.addHook('onSend', (_request, reply, payload, done) => {
  reply.header('x-content-type-options', 'nosniff');
  done(null, payload);
});
app.addHook('onResponse', (request, reply, done) => {
  requests.observe(
    { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode },
    reply.elapsedTime / 1000,
  );
  done();
});
app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
  const status = error.statusCode ?? 500;
  const code = error instanceof HttpError ? error.code : status === 400 ? 'API_BAD_REQUEST' : 'ERROR';
  void reply.code(status).send({ code, message: error.message, ray_id: request.id });
});

const AUTH_FAILURES_MAX = 30;
const failures = new Map<string, number>();

/**
 * The token check as a route's onRequest hook, as the service does it: an address past its failed checks is
 * refused before its token is looked at, and only a failed check counts.
 */
function authorize(
  request: { ip: string; headers: { authorization?: string | undefined } },
  _reply: unknown,
  done: (err?: Error) => void,
) {
  if ((failures.get(request.ip) ?? 0) >= AUTH_FAILURES_MAX) {
    done(new HttpError(429, 'API_RATE_LIMITED', 'too many failed token checks from this address'));
    return;
  }
  const header = request.headers.authorization;
  if (header === undefined || !header.startsWith('Bearer ') || !tokens.has(header.slice(7))) {
    failures.set(request.ip, (failures.get(request.ip) ?? 0) + 1);
    done(new HttpError(401, 'API_UNAUTHORIZED', 'a valid token is needed'));
    return;
  }
  done();
}

await app.register(rateLimit, { global: false });
const limited = { rateLimit: { max: 1_000_000_000, timeWindow: 60_000 } };

app.get(
  '/cloud/games/:game_id/namespaces/:namespace_id',
  {
    onRequest: authorize,
    schema: { params: NamespaceParams, response: { 200: GetNamespaceResponse } },
  },
  // biome-ignore lint/suspicious/noExplicitAny: the canned body read from a file stands for the typed answer
  async () => namespaceBody as any,
);

// The find's request shape of the original's Fern definition (FindLobbyRequest), bounded as ours are.
const FindLobbyRequest = Type.Object(
  {
    game_modes: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 32 }),
    regions: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32 })),
    prevent_auto_create_lobby: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 256 }))),
    max_players: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    captcha: Type.Optional(Type.Unknown()),
    verification_data: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
const JoinPort = Type.Object({
  host: Type.Optional(Type.String()),
  hostname: Type.String(),
  port: Type.Optional(Type.Integer()),
  port_range: Type.Optional(Type.Object({ min: Type.Integer(), max: Type.Integer() })),
  is_tls: Type.Boolean(),
});
const JoinPlayer = Type.Object({ token: Type.String() });
const FindLobbyResponse = Type.Object({
  lobby: Type.Object({
    lobby_id: Type.String(),
    region: Type.Object({ region_id: Type.String(), display_name: Type.String() }),
    ports: Type.Record(Type.String(), JoinPort),
    player: JoinPlayer,
  }),
  ports: Type.Record(Type.String(), JoinPort),
  player: JoinPlayer,
});

app.post(
  '/matchmaker/lobbies/find',
  {
    onRequest: authorize,
    config: limited,
    schema: { body: FindLobbyRequest, response: { 200: FindLobbyResponse } },
  },
  async (request) => {
    // biome-ignore lint/suspicious/noExplicitAny: the canned body read from a file stands for the typed answer
    if (store === undefined) return findBody as any;
    const slot = await store.take(findNamespace, request.ip);
    if (slot === undefined) throw new HttpError(503, 'MATCHMAKER_NO_CAPACITY', 'no lobby has room');
    const player = { token: await store.sign(findNamespace, slot, randomUUID()) };
    const ports: Record<string, { host: string; hostname: string; port: number; is_tls: boolean }> = {};
    for (const p of JSON.parse(slot.ports ?? '[]') as { name: string; port: number }[]) {
      ports[p.name] = { host: `127.0.0.1:${p.port}`, hostname: '127.0.0.1', port: p.port, is_tls: false };
    }
    const region = { region_id: slot.region_id, display_name: slot.region_id };
    return { lobby: { lobby_id: slot.lobby_id, region, ports, player }, ports, player };
  },
);

const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
await app.listen({ port, host: '127.0.0.1' });
