/**
 * Fuzz: requests generated from each route's schemas in the OpenAPI document (valid shapes and shapes
 * outside them: wrong types, huge and empty strings, NUL and other control characters, unicode, long arrays,
 * nesting thousands deep, numbers at and beyond limits, unknown and `__proto__` keys, malformed ids and
 * percent-encodings) sent through the real HTTP stack with the operator token and with the game's cloud
 * token (and, on a lobby's own /matchmaker calls, mostly with a running lobby's token). For every request: no 5xx (and no 429), every non-2xx is the JSON error body, the answer is under
 * 4 MiB, the service still answers the next request, and a 4xx changed nothing in the store.
 *
 * Every operation of the document gets a property; one the suite cannot build requests for fails. The seed
 * is fixed (FUZZ_SEED overrides it) and FUZZ_RUNS cases are spread over the operations (`npm run fuzz`
 * runs many more than the default).
 *
 * The operations are dealt to FUZZ_SHARDS files (fuzz.<k>.test.ts set FUZZ_SHARD before importing this) so
 * the test runner fuzzes them side by side: on PostgreSQL one file was the suite's longest pole.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { AUTH_DESCRIPTIONS } from '../../src/http/auth.js';
import {
  BCRYPT_HASH,
  createGameWorld,
  newDeviceLinkToken,
  newGame,
  newNamespace,
  newWebhook,
  pngBytes,
  prepareAvatar,
  ROUTE_WALK_ENV,
  uploadedAvatar,
} from '../helpers/api-world.js';
import {
  type DocOperation,
  fillPath,
  hiddenRouteKeys,
  jsonBodySchema,
  listOperations,
  readOpenApi,
} from '../helpers/openapi.js';
import { seedRuntimeLobby } from '../helpers/runtime-lobbies.js';
import {
  fuzzArb,
  hostileString,
  type JsonSchema,
  type Pools,
  rarely,
  toJsonText,
} from '../helpers/schema-arbitrary.js';
import { startTestService } from '../helpers/service.js';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 3_000);
export const FUZZ_SHARDS = 3;
/** 1..FUZZ_SHARDS: which share of the operations this process fuzzes; unset, all of them. */
const SHARD = process.env.FUZZ_SHARD === undefined ? undefined : Number(process.env.FUZZ_SHARD);
if (SHARD !== undefined && !(Number.isInteger(SHARD) && SHARD >= 1 && SHARD <= FUZZ_SHARDS)) {
  throw new Error(`FUZZ_SHARD must be 1..${FUZZ_SHARDS}, not ${process.env.FUZZ_SHARD}`);
}
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_101);
/** Answers above this are a service that lets one request make it build (and send) too much. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const ERROR_KEYS = new Set(['code', 'message', 'ray_id', 'documentation', 'metadata']);

const svc = await startTestService({ env: { ...ROUTE_WALK_ENV } });
const game = await createGameWorld(svc, 'fuzz-game');
const other = await createGameWorld(svc, 'fuzz-other');
// A running lobby of the game, as the reconciler writes its row: the lobby calls' caller. Room for every
// player the suite connects, so its requests explore more than LOBBY_FULL.
const lobby = await seedRuntimeLobby(svc, game, { runState: 'ready', maxPlayers: 1_000_000 });
// A game client of the game's namespace: the caller of the routes whose rule is `matchmaker`.
const clientMint = await svc.call(
  'POST',
  `/cloud/games/${game.gameId}/namespaces/${game.namespaceId}/tokens/public`,
);
if (clientMint.statusCode !== 200)
  throw new Error(`public token: ${clientMint.statusCode} ${clientMint.body}`);
const clientToken = clientMint.json<{ token: string }>().token;
/**
 * Routes the public document leaves out (operators' figures), described here by hand so they are fuzzed
 * like the rest; a hidden route missing here fails the suite. The docs page's assets are swagger-ui's own.
 */
const HIDDEN_OPERATIONS: DocOperation[] = [
  {
    method: 'GET',
    path: '/cloud/debug/watchers',
    operationId: 'debug.getWatchers',
    op: { operationId: 'debug.getWatchers', parameters: [] },
  },
  {
    method: 'POST',
    path: '/cloud/admin/backups',
    operationId: 'admin.createBackup',
    op: { operationId: 'admin.createBackup', parameters: [] },
  },
  {
    method: 'GET',
    path: '/cloud/admin/runtime',
    operationId: 'admin.getRuntime',
    op: { operationId: 'admin.getRuntime', parameters: [] },
  },
  // Probes and metrics (src/http/health.ts): no input. No GCM_METRICS_TOKEN here, so /metrics answers 404.
  {
    method: 'GET',
    path: '/healthz',
    operationId: 'health.getLiveness',
    op: { operationId: 'health.getLiveness', parameters: [] },
  },
  {
    method: 'GET',
    path: '/readyz',
    operationId: 'health.getReadiness',
    op: { operationId: 'health.getReadiness', parameters: [] },
  },
  {
    method: 'GET',
    path: '/metrics',
    operationId: 'metrics.getMetrics',
    op: { operationId: 'metrics.getMetrics', parameters: [] },
  },
  // The web dashboard's files and pages: the request picks a path of DASHBOARD_PATHS.
  {
    method: 'GET',
    path: '/*',
    operationId: 'dashboard.get',
    op: { operationId: 'dashboard.get', parameters: [] },
  },
  // better-auth's endpoints: the request picks one of them (AUTH_ENDPOINTS) and sends it any JSON body.
  {
    method: 'GET',
    path: '/auth/*',
    operationId: 'auth.get',
    op: { operationId: 'auth.get', parameters: [] },
  },
  {
    method: 'POST',
    path: '/auth/*',
    operationId: 'auth.post',
    op: {
      operationId: 'auth.post',
      parameters: [],
      requestBody: {
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                email: { type: 'string', maxLength: 300 },
                password: { type: 'string', maxLength: 200 },
                newPassword: { type: 'string', maxLength: 200 },
                currentPassword: { type: 'string', maxLength: 200 },
                name: { type: 'string', maxLength: 2000 },
                slug: { type: 'string', maxLength: 100 },
                token: { type: 'string', maxLength: 100 },
                organizationId: { type: 'string', maxLength: 100 },
                invitationId: { type: 'string', maxLength: 100 },
                role: { type: 'string', maxLength: 20 },
              },
            },
          },
        },
      },
    },
  },
];
/** Where the dashboard's wildcard is sent: its page, app URLs, files that are and are not there, API paths. */
const DASHBOARD_PATHS = [
  '/',
  '/teams/x/games/y',
  '/index.html',
  '/favicon.svg',
  '/assets/',
  '/assets/missing.js',
  '/assets/../index.html',
  '/assets/%2e%2e/index.html',
  '/%00',
  '/a%zz',
  '/cloud/nothing-here',
  '/openapi.json/x',
  `/${'a'.repeat(3_000)}`,
];
/** Where the /auth requests go: better-auth's endpoints a studio's people use, and one that is not. */
const AUTH_ENDPOINTS = {
  GET: ['/auth/get-session', '/auth/organization/list', '/auth/list-sessions', '/auth/nothing-here'],
  POST: [
    '/auth/sign-up/email',
    '/auth/sign-in/email',
    '/auth/sign-out',
    '/auth/request-password-reset',
    '/auth/reset-password',
    '/auth/change-password',
    '/auth/organization/create',
    '/auth/organization/invite-member',
    '/auth/organization/accept-invitation',
    '/auth/organization/reject-invitation',
    '/auth/nothing-here',
  ],
} as const;
// The document itself takes no input; it is fetched above and by every suite.
const hiddenRoutes = hiddenRouteKeys(svc).filter((key) => key !== 'GET /openapi.json');
const operations = [...listOperations(await readOpenApi(svc)), ...HIDDEN_OPERATIONS];

const linkTokens = [await newDeviceLinkToken(svc), await newDeviceLinkToken(svc)];
const fuzzTeam = await svc.call('POST', '/cloud/teams', {
  body: { name: 'Fuzz team', slug: 'fuzz-team', owner_email: 'fuzz-owner@example.com' },
});
if (fuzzTeam.statusCode !== 200) throw new Error(`team: ${fuzzTeam.statusCode} ${fuzzTeam.body}`);
const teamId = fuzzTeam.json<{ team_id: string }>().team_id;
const teamWebhook = await newWebhook(svc, `/cloud/teams/${teamId}`, 'fuzz-team');
const pendingAvatar = await uploadedAvatar(svc, game.gameId);
/** Signed PUT URLs (path and query) of avatar uploads waiting for their bytes. */
const signedPuts = await Promise.all(
  [1, 2, 3].map(async () => {
    const { pathname, search } = new URL((await prepareAvatar(svc, game.gameId)).url);
    return `${pathname}${search}`;
  }),
);

/** Signed download URLs (path and query): of a stored file, of a file gone, and one soon expired. */
await svc.deps.blobs.putObject('exports/fuzz/kept.csv', Buffer.from('a,b\n1,2\n'));
const signedGets = await Promise.all(
  [
    { key: 'exports/fuzz/kept.csv' },
    { key: 'exports/fuzz/gone.csv' },
    { key: 'exports/fuzz/kept.csv', ttlSeconds: 1 },
  ].map(async (target) => {
    const presigned = await svc.deps.blobs.presignGet({
      ...target,
      filename: 'f.csv',
      contentType: 'text/csv',
    });
    const { pathname, search } = new URL(presigned.url);
    return `${pathname}${search}`;
  }),
);

/** Cursors the lists really answered (a page of one), so the fuzzer also reaches pages after the first. */
const cursors = (
  await Promise.all(
    [
      `/cloud/games/${game.gameId}/tokens`,
      `/cloud/games/${game.gameId}/versions`,
      `/cloud/games/${game.gameId}/namespaces`,
      `/games/${game.gameId}/environments/${game.namespaceId}/builds`,
      `/cloud/games/${game.gameId}/audit`,
      `/cloud/teams/${teamId}/audit`,
      '/cloud/audit',
    ].map(async (url) => (await svc.call('GET', `${url}?limit=1`)).json<{ cursor?: string }>().cursor),
  )
).filter((c): c is string => c !== undefined);

/** Real values by the name of the path parameter, query parameter or body member they fill. */
const POOLS: Pools = {
  game_id: [game.gameId, other.gameId],
  namespace_id: [game.namespaceId],
  environment_id: [game.namespaceId],
  version_id: [game.versionId],
  lobby_id: [game.lobbyId, randomUUID()],
  build_id: [game.buildId],
  upload_id: [game.avatarUploadId, pendingAvatar],
  token_id: [game.revokedTokenId],
  team_id: [teamId, randomUUID()],
  webhook_id: [game.webhookId, teamWebhook.webhookId, randomUUID()],
  delivery_id: [game.webhookDeliveryId, teamWebhook.webhookDeliveryId],
  url: ['https://hooks.example.com/fuzz', 'http://127.0.0.1/x'],
  events: [['lobby.created'], ['plan.changed', 'member.joined']],
  description: ['fuzz'],
  enabled: [true, false],
  user: [game.cdnUser, 'fuzz-user'],
  token: linkTokens,
  device_link_token: linkTokens,
  part: ['1'],
  watch_index: ['0', '1', '2', '999999999'],
  tags_json: ['{}', '{"kind":"fixture"}'],
  limit: ['1', '2', '1000'],
  cursor: cursors,
  resolved: ['true', 'false'],
  region_id: ['lnd-atl'],
  hostname: ['127.0.0.1', 'dev.example'],
  lobby_group_name_id: ['default'],
  is_closed: [true, false],
  player_token: ['player-1', 'player-2'],
  plan: ['trial', 'indie', 'studio'],
  name_id: ['fuzz-a', 'fuzz-b'],
  display_name: ['Fuzz'],
  password: [BCRYPT_HASH],
  path: ['a.png', 'image.tar', `${'x'.repeat(400)}.tar`],
  // Multipart builds of nearly the most parts allowed (999 GiB in 100 MiB parts): the largest answers.
  content_length: [64, 999 * 1024 ** 3],
  multipart_upload: [true],
  mime: ['image/png'],
};

/**
 * Routes that delete what their path names get things of their own to delete: the worlds every other route
 * is fuzzed against must stay whole, whatever order the routes run in.
 */
const OPERATION_POOLS: Record<string, Pools> = {
  'downloads.getDownload': { filename: ['f.csv', 'lobby-history.csv'] },
  'games.namespaces.deleteGameNamespace': {
    namespace_id: await Promise.all(
      [1, 2, 3].map((i) => newNamespace(svc, game.gameId, game.versionId, `fuzz-del-${i}`)),
    ),
  },
  'games.webhooks.delete': {
    webhook_id: await Promise.all(
      [1, 2, 3].map(
        async (i) => (await newWebhook(svc, `/cloud/games/${game.gameId}`, `fuzz-del-${i}`)).webhookId,
      ),
    ),
  },
  'teams.webhooks.delete': {
    webhook_id: await Promise.all(
      [1, 2, 3].map(
        async (i) => (await newWebhook(svc, `/cloud/teams/${teamId}`, `fuzz-del-${i}`)).webhookId,
      ),
    ),
  },
  'games.deleteGame': {
    game_id: await Promise.all([1, 2, 3].map((i) => newGame(svc, `fuzz-retire-${i}`))),
  },
  'games.matchmaker.deleteMatchmakerLobby': {
    lobby_id: [
      ...(await Promise.all([1, 2, 3].map(async () => (await seedRuntimeLobby(svc, game)).lobbyId))),
      game.lobbyId,
      randomUUID(),
    ],
  },
};

/** Path segments that are not what any encoder would write: bad percent-encodings, NUL, dot segments. */
const RAW_SEGMENTS = [
  '%00',
  'a%00',
  '%',
  '%zz',
  '%ff',
  '%c0%af',
  '%2e%2e',
  '..',
  '.',
  '%2F',
  '%0d%0a',
  '%ed%a0%80',
  '00000000-0000-0000-0000-000000000000',
  '0190AAAA-0000-7000-8000-00000000000G',
  `${'a'.repeat(3_000)}`,
];

/** Percent-encodes every byte of the UTF-8 form, which never throws (encodeURIComponent does on lone surrogates). */
function encodeBytes(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeBytes(value);
  }
}

function pathValue(name: string, schema: JsonSchema | undefined, pools: Pools): fc.Arbitrary<string> {
  const pool = pools[name] ?? [];
  return fc.oneof(
    {
      weight: pool.length > 0 ? 4 : 0,
      arbitrary: fc.constantFrom(...(pool.length > 0 ? pool : [''])).map(String),
    },
    { weight: 2, arbitrary: fuzzString(schema).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  );
}

/** Query and path values are strings: a schema-shaped one or a hostile one. */
function fuzzString(schema: JsonSchema | undefined): fc.Arbitrary<string> {
  return fc.oneof(
    fuzzArb(schema ?? { type: 'string' }).map((v) => (typeof v === 'string' ? v : toJsonText(v))),
    hostileString,
  );
}

/** One generated request, printed short in fast-check's counterexamples. */
type Sender = 'operator' | 'game' | 'lobby' | 'client';

class FuzzRequest {
  constructor(
    readonly method: DocOperation['method'],
    readonly url: string,
    readonly as: Sender,
    readonly contentType: string | undefined,
    readonly payload: string | Buffer | undefined,
  ) {}

  [fc.toStringMethod](): string {
    const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);
    const body =
      this.payload === undefined
        ? ''
        : ` [${this.contentType ?? 'no content-type'}] ${Buffer.byteLength(this.payload)} bytes: ${cut(
            JSON.stringify(typeof this.payload === 'string' ? this.payload : this.payload.toString('latin1')),
          )}`;
    return `${this.method} ${cut(this.url)} as ${this.as}${body}`;
  }
}

const JSON_TYPE = 'application/json';
const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant<string | undefined>(JSON_TYPE) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16',
      'multipart/form-data; boundary=x',
      'application/json\u0000',
    ),
  },
);

/** Bodies as text: mostly schema-shaped, sometimes no object at all, broken JSON or too big to accept. */
function jsonPayload(schema: JsonSchema | undefined): fc.Arbitrary<string | undefined> {
  const shaped = schema === undefined ? fc.jsonValue({ maxDepth: 2 }) : fuzzArb(schema, POOLS);
  return fc.oneof(
    { weight: schema === undefined ? 2 : 14, arbitrary: shaped.map(toJsonText) },
    { weight: schema === undefined ? 6 : 0, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        'null',
        '[]',
        '"x"',
        '0',
        '{',
        '{"a":',
        '{"a":1}}',
        '\u0000',
        '{"a":1,}',
      ),
    },
    { weight: 1, arbitrary: fc.constant(`{"x":"${'a'.repeat(1_100_000)}"}`) },
  );
}

function queryString(op: DocOperation): fc.Arbitrary<string> {
  const declared = (op.op.parameters ?? []).filter((p) => p.in === 'query');
  const pairs = declared.map((p) => {
    const pool = POOLS[p.name] ?? [];
    const value = fc.oneof(
      {
        weight: pool.length > 0 ? 3 : 0,
        arbitrary: fc.constantFrom(...(pool.length > 0 ? pool : [''])).map(String),
      },
      { weight: 2, arbitrary: fuzzString(p.schema) },
    );
    const pair = fc.oneof(
      { weight: 4, arbitrary: value.map((v) => [`${p.name}=${encode(v)}`]) },
      // Repeated: the parser makes it an array.
      {
        weight: 1,
        arbitrary: fc
          .tuple(value, value)
          .map(([a, b]) => [`${p.name}=${encode(a)}`, `${p.name}=${encode(b)}`]),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom([`${p.name}=%`], [`${p.name}=%00`], [p.name], [`${p.name}[]=1`]),
      },
    );
    return p.required === true ? pair : fc.option(pair, { nil: [] as string[], freq: 3 });
  });
  const stray = rarely(
    fc.constantFrom(['__proto__=x'], ['constructor[prototype][a]=1'], ['unknown=1'], ['a=1&a=2'], ['%=%']),
  );
  return fc.tuple(fc.tuple(...pairs), stray).map(([ps, s]) => {
    const all = [...ps.flat(), ...(s ?? [])];
    return all.length === 0 ? '' : `?${all.join('&')}`;
  });
}

/** Everything the suite needs to send a route's requests, or why it cannot (which fails that route). */
function requestArb(op: DocOperation): fc.Arbitrary<FuzzRequest> {
  const bodyTypes = Object.keys(op.op.requestBody?.content ?? {});
  const unknownType = bodyTypes.find((t) => t !== JSON_TYPE);
  if (unknownType !== undefined)
    throw new Error(`${op.operationId}: the suite cannot send a ${unknownType} body`);
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const paramSchemas = new Map(
    (op.op.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, p.schema]),
  );
  const pools: Pools = { ...POOLS, ...OPERATION_POOLS[op.operationId] };
  const missing = names.filter((n) => pools[n] === undefined);
  if (missing.length > 0)
    throw new Error(`${op.operationId}: no real values for path parameter(s) ${missing.join(', ')}`);
  const params = fc.record(
    Object.fromEntries(names.map((n) => [n, pathValue(n, paramSchemas.get(n), pools)])),
  );
  const generic =
    op.path === '/auth/*'
      ? fc.constantFrom(...AUTH_ENDPOINTS[op.method as 'GET' | 'POST'])
      : op.path === '/*'
        ? fc.constantFrom(...DASHBOARD_PATHS)
        : fc.tuple(params, queryString(op)).map(([p, q]) => `${fillPath(op.path, p)}${q}`);
  // A lobby's own calls take its token alone: the other callers are there to see them refused.
  // A game client's calls (rule `matchmaker`, named in the operation's description) take its token alone.
  const own: Sender | undefined = op.op.description?.startsWith(AUTH_DESCRIPTIONS.matchmaker)
    ? 'client'
    : op.path.startsWith('/matchmaker/')
      ? 'lobby'
      : undefined;
  const as: fc.Arbitrary<Sender> =
    own === undefined
      ? fc.constantFrom('operator', 'game')
      : fc.oneof(
          { weight: 4, arbitrary: fc.constant(own) },
          fc.constantFrom('operator', 'game', 'client', 'lobby'),
        );

  if (op.operationId === 'uploads.putUploadPart') {
    // Not JSON: bytes to a signed URL, mostly a real one (so the handler runs) with a body of any length.
    const url = fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...signedPuts) },
      { weight: 1, arbitrary: generic },
    );
    const bytes = fc.oneof(
      fc.constant(pngBytes(64)),
      fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
      fc.integer({ min: 65, max: 300_000 }).map((n) => pngBytes(n)),
    );
    const type = fc.constantFrom<string | undefined>(
      undefined,
      'image/png',
      'application/octet-stream',
      JSON_TYPE,
      'text/plain',
    );
    return fc.tuple(url, as, type, bytes).map(([u, a, t, b]) => new FuzzRequest(op.method, u, a, t, b));
  }
  if (op.operationId === 'downloads.getDownload') {
    // Mostly a really signed URL, as is or with one character of it changed, so the handler runs.
    const edited = fc
      .tuple(fc.constantFrom(...signedGets), fc.nat(), fc.constantFrom('A', '0', '%2F', '.'))
      .map(([u, at, c]) => {
        const i = at % u.length;
        return `${u.slice(0, i)}${c}${u.slice(i + 1)}`;
      });
    const url = fc.oneof(fc.constantFrom(...signedGets), edited, generic);
    return fc.tuple(url, as).map(([u, a]) => new FuzzRequest(op.method, u, a, undefined, undefined));
  }
  const schema = jsonBodySchema(op.op);
  return fc
    .tuple(generic, as, contentType, jsonPayload(schema))
    .map(([u, a, t, p]) => new FuzzRequest(op.method, u, a, p === undefined ? undefined : t, p));
}

function send(req: FuzzRequest): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${
      { operator: svc.operatorToken, game: game.cloudToken, lobby: lobby.token, client: clientToken }[req.as]
    }`,
  };
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  return svc.app.inject({
    method: req.method,
    url: req.url,
    headers,
    ...(req.payload === undefined ? {} : { payload: req.payload }),
  });
}

/** Why the answer breaks the contract, or undefined. */
function contractBreach(op: DocOperation, res: LightMyRequestResponse): string | undefined {
  const status = res.statusCode;
  if (status >= 500) return `${status} from the service`;
  if (status === 429) return '429: rate limited (relax the limit in ROUTE_WALK_ENV)';
  if (res.rawPayload.length > MAX_ANSWER_BYTES) return `a ${status} answer over ${MAX_ANSWER_BYTES} bytes`;
  if (status < 300) {
    if (!String(res.headers['content-type'] ?? '').startsWith(JSON_TYPE)) return undefined;
    // A 2xx may be JSON null (better-auth's get-session without a session).
    return errorItemsBreach((JSON.parse(res.body) as { errors?: unknown } | null)?.errors);
  }
  const type = String(res.headers['content-type'] ?? '');
  // The device link page answers a bad or expired link as a page (400/410), for the person reading it.
  if (
    op.operationId === 'devices.links.page' &&
    type.startsWith('text/html') &&
    (status === 400 || status === 410)
  ) {
    return undefined;
  }
  if (!type.startsWith(JSON_TYPE)) return `a ${status} answer of type ${type.split(';')[0]}`;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `a ${status} answer that is not JSON`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return `a ${status} error body that is not an object`;
  const fields = body as Record<string, unknown>;
  if (Object.keys(fields).some((k) => !ERROR_KEYS.has(k)))
    return `a ${status} error body with keys ${Object.keys(fields).sort().join(',')}`;
  if (typeof fields.code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(fields.code)) return 'no UPPER_SNAKE code';
  if (typeof fields.message !== 'string' || fields.message === '') return 'no message';
  if (fields.ray_id !== res.headers['x-ray-id']) return 'ray_id is not the x-ray-id header';
  if ('metadata' in fields && (typeof fields.metadata !== 'object' || Array.isArray(fields.metadata))) {
    return 'metadata is not an object';
  }
  if (fields.code === 'VALIDATION_ERROR') {
    return errorItemsBreach((fields.metadata as { errors?: unknown } | undefined)?.errors ?? null);
  }
  return undefined;
}

/**
 * Validation error items, wherever a route produces them (the validate answers' `errors`, a
 * VALIDATION_ERROR's metadata.errors): each a path of strings and a sentence of its own.
 */
function errorItemsBreach(items: unknown): string | undefined {
  if (items === undefined) return undefined;
  if (!Array.isArray(items)) return 'validation errors that are not a list';
  for (const item of items as { path?: unknown; message?: unknown }[]) {
    if (!Array.isArray(item.path) || item.path.some((segment) => typeof segment !== 'string')) {
      return 'a validation error without a path of strings';
    }
    if (typeof item.message !== 'string' || item.message.trim() === '') {
      return 'a validation error without a message';
    }
  }
  return undefined;
}

const perOperation = Math.max(10, Math.ceil(RUNS / operations.length));
/** Survey mode: record every breach (grouped by kind) rather than stop at a route's first one. */
const COLLECT = process.env.FUZZ_COLLECT === '1';

/** What a breach is (grouping equal defects) and the answer that showed it. */
interface Breach {
  kind: string;
  detail: string;
}

/** The `code` of a JSON answer, if it has one: what names a defect in a group. */
function codeOf(res: LightMyRequestResponse): string {
  try {
    const code = (JSON.parse(res.body) as { code?: unknown }).code;
    return typeof code === 'string' ? code : '';
  } catch {
    return '';
  }
}

/** Sends one request and checks everything the contract promises; returns what was broken, if anything. */
async function check(
  op: DocOperation,
  req: FuzzRequest,
  statuses: Map<number, number>,
): Promise<Breach | undefined> {
  const before = await snapshotStore(svc.deps.db);
  const res = await send(req);
  statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  const answer = `${res.statusCode} ${res.body.slice(0, 300)}`;
  const breach = contractBreach(op, res);
  if (breach !== undefined) return { kind: `${breach} ${codeOf(res)}`, detail: answer };
  const ping = await svc.call('GET', '/cloud/regions');
  if (ping.statusCode !== 200)
    return { kind: `the next request answered ${ping.statusCode}`, detail: answer };
  if (res.statusCode >= 400) {
    const changed = diffSnapshots(before, await snapshotStore(svc.deps.db));
    if (changed.length > 0) {
      return {
        kind: `a ${res.statusCode} ${codeOf(res)} changed the store`,
        detail: `${answer}; changed: ${changed.join('; ').slice(0, 500)}`,
      };
    }
  }
  return undefined;
}

const mine = operations.filter((_, i) => SHARD === undefined || i % FUZZ_SHARDS === SHARD - 1);
const shardName = SHARD === undefined ? '' : `, share ${SHARD} of ${FUZZ_SHARDS}`;

describe(`fuzz: ${perOperation} generated requests per route (seed ${SEED}${shardName})`, () => {
  after(async () => {
    await svc.close();
  });

  it('the document lists routes', () => {
    assert.ok(operations.length > 0);
  });

  it('describes every route the document leaves out', () => {
    const described = new Set(HIDDEN_OPERATIONS.map((o) => `${o.method} ${o.path}`));
    const missing = hiddenRoutes.filter((key) => !described.has(key));
    assert.deepEqual(missing, [], 'hidden routes without a HIDDEN_OPERATIONS entry');
  });

  for (const op of mine) {
    it(`${op.operationId}: ${op.method} ${op.path}`, async (t) => {
      const requests = requestArb(op);
      const statuses = new Map<number, number>();
      const found = new Map<string, { count: number; example: string }>();
      await fc.assert(
        fc.asyncProperty(requests, async (req) => {
          const breach = await check(op, req, statuses);
          if (breach === undefined) return;
          if (!COLLECT) assert.fail(`${breach.kind}: ${breach.detail}`);
          const seen = found.get(breach.kind);
          if (seen === undefined) {
            found.set(breach.kind, {
              count: 1,
              example: `${req[fc.toStringMethod]()}\n    → ${breach.detail}`,
            });
          } else {
            seen.count += 1;
          }
        }),
        {
          seed: SEED,
          numRuns: perOperation,
          timeout: 30_000,
          // Shrinking re-runs costly requests many times; FUZZ_SHRINK=1 asks for the smallest failing one.
          endOnFailure: process.env.FUZZ_SHRINK !== '1',
        },
      );
      // How far the requests got: a route whose cases all end in 400/404 is not being explored.
      t.diagnostic(
        `statuses: ${[...statuses]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
      );
      const summary = [...found].map(([kind, f]) => `${f.count}× ${kind}: ${f.example}`);
      assert.deepEqual(
        summary,
        [],
        `${op.operationId}: ${summary.length} kinds of breach\n${summary.join('\n')}`,
      );
    });
  }
});
