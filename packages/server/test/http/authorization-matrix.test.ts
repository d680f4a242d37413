/**
 * Who may call what: every operation of the OpenAPI document (and the public routes it hides) called by
 * every kind of caller, forged and revoked tokens included, reporter tokens of another namespace of the
 * same game and of another game, and a game's own token on another game's ids. Each row states the operation's rule (src/http/auth.ts, README "Operations"); the expected answer
 * for each caller follows from it. After every call the other game's rows are what they were, and a refused
 * call (401/403) changed nothing at all. A route without a row, or a row without a route, fails the test.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TEAM_ROLES, type TeamRole } from '@gcm/contract';
import type { LightMyRequestResponse } from 'fastify';
import type { AuthRule } from '../../src/http/auth.js';
import { SETUP_FILE } from '../../src/modules/first-run/first-run.service.js';
import {
  addCdnUser,
  algNoneToken,
  BCRYPT_HASH,
  createGameWorld,
  type GameWorld,
  keepOnlyWebhook,
  newCloudToken,
  newDeviceLinkToken,
  newGame,
  newLobby,
  newNamespace,
  newWebhook,
  prepareAvatar,
  putPresigned,
  ROUTE_WALK_ENV,
  uploadedAvatar,
  uploadedBuild,
} from '../helpers/api-world.js';
import { getLink, type LinkResult, prepareLink } from '../helpers/device-links.js';
import {
  fillPath,
  type HttpMethod,
  hiddenRouteKeys,
  isDocsAsset,
  listOperations,
  readOpenApi,
} from '../helpers/openapi.js';
import { addMember, asPerson, authCall, giveGame, newTeam, signIn } from '../helpers/people.js';
import { onPostgres } from '../helpers/postgres.js';
import { issuePlayerToken, seedRuntimeLobby, switchToRuntimeVersion } from '../helpers/runtime-lobbies.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { diffSnapshots, rowsOfGame, snapshotStore } from '../helpers/store-snapshot.js';

const METRICS_TOKEN = 'matrix-metrics-token-of-at-least-32-characters';

/** Callers without a valid token: every route but the public ones answers them 401. */
const INVALID_CALLERS = [
  'none',
  'garbage',
  'alg-none-game',
  'alg-none-operator',
  'device-link',
  'revoked',
  'person-signed-out',
] as const;
/** Signed-in people: one of each role in the target game's team, and the owner of the other game's team. */
const PEOPLE = [
  'person-owner',
  'person-admin',
  'person-member',
  'person-viewer',
  'person-other-team',
] as const;
const CALLERS = [
  ...INVALID_CALLERS,
  'other-game',
  'reporter',
  'sibling-reporter',
  'other-reporter',
  'game-on-other-ids',
  'game',
  'game-of-admin',
  'game-of-member',
  'game-of-other-team',
  'operator',
  // A running lobby of the target game, by its GCM_LOBBY_TOKEN; and one that has stopped.
  'lobby',
  'stopped-lobby',
  // A game client of the target namespace, by its public and its development token; another game's public one.
  'public',
  'development',
  'other-public',
  ...PEOPLE,
] as const;
type CallerKind = (typeof CALLERS)[number];
type PersonKind = (typeof PEOPLE)[number];

/**
 * Cloud tokens minted for a person by a device link (gcm login): the target team's admin's and member's, of
 * the target game, and the other team's owner's, of the other game. Each is a cloud token of its game like
 * any (`game`, `other-game`), except on the operator routes that take a person's token (`personTokens`).
 */
const PERSON_TOKENS = {
  'game-of-admin': { as: 'game', role: 'admin' },
  'game-of-member': { as: 'game', role: 'member' },
  'game-of-other-team': { as: 'other-game', role: 'owner' },
} as const satisfies Partial<Record<CallerKind, { as: CallerKind; role: TeamRole }>>;
type PersonTokenKind = keyof typeof PERSON_TOKENS;

function isPersonToken(caller: CallerKind): caller is PersonTokenKind {
  return caller in PERSON_TOKENS;
}

function isPerson(caller: CallerKind): caller is PersonKind | 'person-signed-out' {
  return caller.startsWith('person-');
}

/**
 * README "People and teams": the role a signed-in person needs on a route that names none. Written out
 * here, not imported, so that a change of the service's default fails this test until the README agrees.
 */
function defaultPeople(rule: AuthRule, method: HttpMethod): TeamRole | null {
  if (rule === 'public' || rule === 'operator' || rule === 'matchmaker' || rule === 'reader') return null;
  if (rule === 'self' || rule === 'any') return 'viewer';
  return method === 'GET' ? 'viewer' : 'member';
}

function covers(held: TeamRole, needed: TeamRole): boolean {
  return TEAM_ROLES.indexOf(held) <= TEAM_ROLES.indexOf(needed);
}

/** A person's answer: by their role in the team that owns the game the request names. */
function personExpect(rule: AuthRule, needed: TeamRole | null, caller: PersonKind): Expect {
  if (rule === 'public') return '2xx';
  if (needed === null) return 403;
  if (rule === 'self') return '2xx';
  // `any` routes show a person their own teams' things; a game-scoped route of another team is refused.
  if (caller === 'person-other-team') return rule === 'any' ? '2xx' : 403;
  return covers(caller.slice('person-'.length) as TeamRole, needed) ? '2xx' : 403;
}

/** What a caller must get: a 2xx, or a refusal with this status (an `any` route hides others' ids: 404). */
type Expect = '2xx' | 401 | 403 | 404 | 409 | 410 | 503;

const INVALID: ReadonlySet<CallerKind> = new Set(INVALID_CALLERS);
/** Game clients' tokens: they matchmake in their namespace, and nothing else. */
const GAME_CLIENTS: ReadonlySet<CallerKind> = new Set(['public', 'development', 'other-public']);

/** The answer each rule gives each caller; rows override it where the service limits what a caller sees. */
function expectedFor(rule: AuthRule, caller: CallerKind, people: TeamRole | null): Expect {
  if (rule === 'public') return '2xx';
  if (INVALID.has(caller) || caller === 'stopped-lobby') return 401;
  // A lobby's token makes its lobby's own calls, and those take no other caller, the operator included.
  if (caller === 'lobby') return rule === 'lobby' || rule === 'reader' ? '2xx' : 403;
  if (rule === 'lobby') return 403;
  // A game client's token matchmakes in its own namespace (which no path names), and calls nothing else.
  // `reader` routes take both: a lobby's namespace's game clients read what it publishes for them.
  if (GAME_CLIENTS.has(caller)) return rule === 'matchmaker' || rule === 'reader' ? '2xx' : 403;
  if (rule === 'matchmaker' || rule === 'reader') return 403;
  if (caller === 'operator') return '2xx';
  if (isPerson(caller)) return personExpect(rule, people, caller as PersonKind);
  switch (rule) {
    case 'self':
      return '2xx';
    case 'any':
      return caller.endsWith('reporter') ? 403 : '2xx';
    case 'game':
      return caller === 'game' ? '2xx' : 403;
    case 'reporter':
      return caller === 'reporter' ? '2xx' : 403;
    case 'operator':
      return 403;
  }
}

/** The `lobby` caller's token (set in `before`): the lobby that player tokens are issued for. */
let matrixLobbyToken = '';

interface Ctx {
  svc: TestService;
  /** The webhook endpoint (with a queued delivery) of the team that owns `world`'s game. */
  teamWebhook: { webhookId: string; webhookDeliveryId: string };
  /** The game whose ids the request names: the target, or the other game for `game-on-other-ids`. */
  world: GameWorld;
  /** The team that owns `world`'s game. */
  teamId: string;
  /** Unique per call, for names that must not collide. */
  seq: number;
}

interface Req {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** Sent as is (not JSON): the signed upload PUT. */
  raw?: { bytes: Buffer; url: string };
  /** The URL itself, for a route whose path is a wildcard (better-auth's under /auth). */
  url?: string;
}

interface Row {
  rule: AuthRule;
  /** Builds a request that reaches the handler and succeeds for an allowed caller; may make what it needs. */
  request?: (ctx: Ctx) => Promise<Req> | Req;
  /** Callers whose answer differs from what the rule alone gives. */
  expect?: Partial<Record<CallerKind, Expect>>;
  /** The role a signed-in person needs, where the route names one (null: no person may call). */
  people?: TeamRole | null;
  /** The error code of every refusal, where the route answers with its own (not the token check's). */
  code?: string;
  /**
   * An operator route a person's cloud token may call as that person (src/http/auth.ts `personTokens`):
   * on its own game only, when the person's role there covers `people`.
   */
  personTokens?: true;
}

/** The first-run setup link's secret, from the data dir (docs/first-run.md). */
function firstRunSecret(svc: TestService): string {
  return readFileSync(path.join(svc.dataDir, SETUP_FILE), 'utf8').trim();
}

/** Operations an `any` token may call, but only on its own game's things: others' are "not found". */
const OWN_GAME_ONLY: Partial<Record<CallerKind, Expect>> = { 'other-game': 404, 'game-on-other-ids': 404 };

/** What `caller` must get from `row`'s route: a person's cloud token as the cloud token it is, but where it speaks for its person. */
function expectFor(row: Row, caller: CallerKind, people: TeamRole | null): Expect {
  if (!isPersonToken(caller)) return expectedFor(row.rule, caller, people);
  const { as, role } = PERSON_TOKENS[caller];
  if (row.rule === 'operator' && row.personTokens === true && people !== null) {
    return as === 'game' && covers(role, people) ? '2xx' : 403;
  }
  return row.expect?.[as] ?? expectedFor(row.rule, as, people);
}

/** One row per operationId of the document, plus the routes the document hides (keyed by method and path). */
const MATRIX: Record<string, Row> = {
  'games.validateGame': {
    rule: 'operator',
    people: 'admin',
    request: ({ teamId }) => ({ body: { display_name: 'Valid Name', team_id: teamId } }),
  },
  'games.createGame': {
    rule: 'operator',
    people: 'admin',
    request: ({ seq, teamId }) => ({
      body: { name_id: `made-${seq}`, display_name: 'Made', team_id: teamId },
    }),
  },
  'games.getGames': { rule: 'any' },
  'games.getGameById': { rule: 'game' },
  // Each call retires a game of its own, made for it: the worlds the other rows use stay.
  'games.deleteGame': {
    rule: 'operator',
    people: 'owner',
    request: async ({ svc, seq, teamId }) => {
      const gameId = await newGame(svc, `retire-${seq}`);
      await giveGame(svc, gameId, teamId);
      return { params: { game_id: gameId } };
    },
  },
  'games.updateGame': { rule: 'game', request: () => ({ body: { display_name: 'Renamed' } }) },
  'games.setGameHostNetworking': { rule: 'operator', request: () => ({ body: { enabled: true } }) },
  'games.versions.validateGameVersion': {
    rule: 'game',
    request: ({ seq }) => ({ body: { display_name: `v-${seq}`, config: {} } }),
  },
  'games.versions.createGameVersion': {
    rule: 'game',
    request: ({ seq }) => ({ body: { display_name: `v-${seq}`, config: {} } }),
  },
  'games.versions.getGameVersionById': { rule: 'game', request: () => ({ query: { resolved: 'true' } }) },
  'games.versions.listGameVersions': { rule: 'game', request: () => ({ query: { limit: '10' } }) },
  'cloud.regions.listRegions': { rule: 'any' },
  'games.namespaces.createGameNamespace': {
    rule: 'game',
    request: ({ seq, world }) => ({
      body: { name_id: `ns-${seq}`, display_name: 'Made', version_id: world.versionId },
    }),
  },
  'games.namespaces.listGameNamespaces': { rule: 'game', request: () => ({ query: { limit: '10' } }) },
  'games.namespaces.getGameNamespaceById': { rule: 'game' },
  // Each call deletes a namespace of its own, made for it in the game the path names.
  'games.namespaces.deleteGameNamespace': {
    rule: 'game',
    request: async ({ svc, world, seq }) => ({
      params: { namespace_id: await newNamespace(svc, world.gameId, world.versionId, `del-${seq}`) },
    }),
  },
  'games.namespaces.updateGameNamespaceVersion': {
    rule: 'game',
    request: ({ world }) => ({ body: { version_id: world.versionId } }),
  },
  'games.namespaces.updateGameNamespaceMatchmakerConfig': {
    rule: 'game',
    // Caps that leave the find row's calls room (they all come from one address).
    request: () => ({ body: { lobby_count_max: 1_000, max_players: 100_000 } }),
  },
  'games.namespaces.updateNamespaceCdnAuthUser': {
    rule: 'game',
    request: ({ seq }) => ({ body: { user: `user-${seq}`, password: BCRYPT_HASH } }),
  },
  'games.namespaces.setNamespaceCdnAuthType': {
    rule: 'game',
    request: () => ({ body: { auth_type: 'basic' } }),
  },
  'games.namespaces.toggleNamespaceDomainPublicAuth': {
    rule: 'game',
    request: () => ({ body: { enabled: true } }),
  },
  'games.namespaces.removeNamespaceCdnAuthUser': {
    rule: 'game',
    request: async ({ svc, world, seq }) => {
      await addCdnUser(svc, world.gameId, world.namespaceId, `gone-${seq}`);
      return { params: { user: `gone-${seq}` } };
    },
  },
  'games.namespaces.logs.listNamespaceLobbies': { rule: 'game' },
  'games.namespaces.logs.createNamespaceLobby': {
    rule: 'reporter',
    request: () => ({ body: { lobby_group_name_id: 'default', region_id: 'lnd-atl' } }),
  },
  'games.namespaces.logs.getNamespaceLobby': { rule: 'game' },
  'games.namespaces.logs.recordNamespaceLobbyEvent': {
    rule: 'reporter',
    request: async ({ svc, world }) => ({
      params: { lobby_id: await newLobby(svc, world.gameId, world.namespaceId) },
      body: { kind: 'start' },
    }),
  },
  // A lobby's own calls: on the lobby its token names (seeded in `before`), whatever the path.
  'matchmaker.lobbies.ready': { rule: 'lobby' },
  'matchmaker.lobbies.setClosed': { rule: 'lobby', request: () => ({ body: { is_closed: false } }) },
  'matchmaker.players.connected': {
    rule: 'lobby',
    // A token find would have issued for the lobby caller's lobby, new for each call (a token admits once).
    request: async ({ svc, seq }) => ({
      body: { player_token: await issuePlayerToken(svc, matrixLobbyToken, `player-${seq}`) },
    }),
  },
  'matchmaker.players.disconnected': {
    rule: 'lobby',
    request: ({ seq }) => ({ body: { player_token: `player-${seq - 1}` } }),
  },
  // Each call stops a runtime lobby of its own, made for it in the game the path names.
  'games.matchmaker.deleteMatchmakerLobby': {
    rule: 'game',
    request: async ({ svc, world }) => ({
      params: { lobby_id: (await seedRuntimeLobby(svc, world)).lobbyId },
    }),
  },
  // The world's lobby: reported, not run, so it answers no lines (and complete) to whoever may read it.
  'games.matchmaker.exportMatchmakerLobbyHistory': {
    rule: 'game',
    // A read, though a POST: a viewer may export.
    people: 'viewer',
    request: () => ({ body: { query_start: 0, query_end: 86_400_000 } }),
  },
  'games.matchmaker.getLobbyLogs': { rule: 'game', request: () => ({ query: { stream: 'std_out' } }) },
  // A read, though a POST: a viewer may export.
  'games.matchmaker.exportLobbyLogs': {
    rule: 'game',
    people: 'viewer',
    request: () => ({ body: { stream: 'std_err' } }),
  },
  'games.namespaces.getNamespaceRollout': { rule: 'game' },
  // A viewer's read, like the lobby log's: the world's lobby (reported, so no samples: an empty history).
  'games.matchmaker.getLobbyResources': { rule: 'game' },
  'games.namespaces.analytics.getAnalyticsMatchmakerLive': { rule: 'game' },
  'builds.prepare': {
    rule: 'game',
    request: ({ seq }) => ({ body: { name: `b-${seq}`, image_file: { path: 'b.tar', content_length: 16 } } }),
  },
  'builds.complete': {
    rule: 'game',
    request: async ({ svc, world, seq }) => ({
      params: { build_id: await uploadedBuild(svc, world.gameId, world.namespaceId, `c-${seq}`) },
    }),
  },
  'builds.get': { rule: 'game', request: () => ({ query: { tags_json: '{"kind":"fixture"}' } }) },
  'builds.list': { rule: 'game', request: () => ({ query: { tags_json: '{}', limit: '10' } }) },
  'builds.getUploadParts': {
    rule: 'game',
    // A build whose upload is not completed yet: a completed one has no parts left to sign (409).
    request: async ({ svc, world, seq }) => ({
      params: { build_id: await uploadedBuild(svc, world.gameId, world.namespaceId, `p-${seq}`) },
      query: { from_part: '1' },
    }),
  },
  'builds.patchTags': { rule: 'game', request: ({ seq }) => ({ body: { tags: { seen: String(seq) } } }) },
  'games.tokens.createCloudToken': { rule: 'operator', people: 'admin', personTokens: true },
  'games.tokens.listTokens': { rule: 'game', people: 'admin', request: () => ({ query: { limit: '10' } }) },
  'games.namespaces.tokens.createReporterToken': { rule: 'operator', people: 'admin', personTokens: true },
  'games.namespaces.tokens.createGameNamespaceTokenPublic': { rule: 'game' },
  'games.namespaces.tokens.createGameNamespaceTokenDevelopment': {
    rule: 'game',
    request: () => ({ body: { hostname: 'dev.example', ports: { game: { port: 7777, protocol: 'udp' } } } }),
  },
  'games.namespaces.tokens.validateGameNamespaceTokenDevelopment': {
    rule: 'game',
    request: () => ({ body: { hostname: 'dev.example', lobby_ports: [] } }),
  },
  // A game client's own calls: in the namespace its token names, whatever the path.
  'matchmaker.regions.list': { rule: 'matchmaker' },
  'matchmaker.lobbies.find': {
    rule: 'matchmaker',
    request: () => ({ body: { game_modes: ['default'] } }),
    // Its own namespace has no ready lobby: the target's, with room, is not its to take.
    expect: { 'other-public': 503 },
  },
  'matchmaker.lobbies.join': {
    rule: 'matchmaker',
    request: async ({ svc, world }) => ({
      body: { lobby_id: (await seedRuntimeLobby(svc, world, { runState: 'ready' })).lobbyId },
    }),
    // The lobby is the target namespace's: not one the other game's client may join.
    expect: { 'other-public': 404 },
  },
  // The matrix's service runs no lobbies (GCM_RUNTIME=none): a public token's create is admitted, then told
  // so (503); a development token's is answered with the developer's own server.
  'matchmaker.lobbies.create': {
    rule: 'matchmaker',
    request: () => ({ body: { game_mode: 'default' } }),
    expect: { public: 503, 'other-public': 503 },
  },
  'matchmaker.lobbies.list': { rule: 'matchmaker' },
  'matchmaker.lobbies.setState': { rule: 'lobby', request: () => ({ body: { round: 1 } }) },
  // Another game's public token reads no lobby of this namespace: not found, as any unknown id.
  'matchmaker.lobbies.getState': {
    rule: 'reader',
    request: async ({ svc, world }) => ({
      params: { lobby_id: (await seedRuntimeLobby(svc, world)).lobbyId },
    }),
    expect: { 'other-public': 404 },
  },
  'tokens.revokeToken': {
    rule: 'any',
    request: async ({ svc, world }) => ({
      params: { token_id: (await newCloudToken(svc, world.gameId)).token_id },
    }),
    // Admins revoke; another team's tokens are not found.
    expect: { ...OWN_GAME_ONLY, 'person-member': 403, 'person-viewer': 403, 'person-other-team': 404 },
  },
  'auth.inspect': { rule: 'self' },
  'games.avatars.prepareCustomAvatarUpload': {
    rule: 'game',
    request: () => ({ body: { path: 'a.png', content_length: 64 } }),
  },
  'games.avatars.completeCustomAvatarUpload': {
    rule: 'game',
    request: async ({ svc, world }) => ({ params: { upload_id: await uploadedAvatar(svc, world.gameId) } }),
  },
  'cloud.uploads.completeUpload': {
    rule: 'any',
    request: async ({ svc, world }) => ({ params: { upload_id: await uploadedAvatar(svc, world.gameId) } }),
    expect: { ...OWN_GAME_ONLY, 'person-viewer': 403, 'person-other-team': 404 },
  },
  'uploads.putUploadPart': {
    rule: 'public',
    request: async ({ svc, world }) => {
      const avatar = await prepareAvatar(svc, world.gameId);
      return { raw: { url: avatar.url, bytes: avatar.bytes } };
    },
  },
  'avatars.getAvatar': { rule: 'public' },
  'downloads.getDownload': {
    rule: 'public',
    request: async ({ svc, seq }) => {
      const key = `exports/matrix/${seq}.csv`;
      await svc.deps.blobs.putObject(key, Buffer.from('a\n1\n'));
      const presigned = await svc.deps.blobs.presignGet({ key, filename: 'a.csv', contentType: 'text/csv' });
      const { pathname, search } = new URL(presigned.url);
      return { url: `${pathname}${search}` };
    },
  },
  'devices.links.prepare': { rule: 'public' },
  'devices.links.get': {
    rule: 'public',
    request: async ({ svc }) => ({ query: { device_link_token: await newDeviceLinkToken(svc) } }),
  },
  'devices.links.complete': {
    rule: 'any',
    request: async ({ svc, world }) => ({
      body: { device_link_token: await newDeviceLinkToken(svc), game_id: world.gameId },
    }),
    // The body names the game: a cloud token may link devices to its own game only; a person, to a game of
    // their team as member or stronger.
    expect: { 'other-game': 403, 'game-on-other-ids': 403, 'person-viewer': 403, 'person-other-team': 403 },
  },
  'devices.links.page': {
    rule: 'public',
    request: async ({ svc }) => ({ params: { token: await newDeviceLinkToken(svc) } }),
  },
  'games.billing.get': { rule: 'game' },
  'games.billing.updatePlan': { rule: 'game', people: 'owner', request: () => ({ body: { plan: 'indie' } }) },
  'teams.createTeam': {
    rule: 'operator',
    request: ({ seq }) => ({
      body: { name: `Made ${seq}`, slug: `made-${seq}`, owner_email: `made-${seq}@example.com` },
    }),
  },
  'games.setGameTeam': { rule: 'operator', request: ({ teamId }) => ({ body: { team_id: teamId } }) },
  'games.audit.list': { rule: 'game', people: 'admin', request: () => ({ query: { limit: '10' } }) },
  'teams.audit.list': {
    rule: 'operator',
    people: 'admin',
    request: ({ teamId }) => ({ params: { team_id: teamId }, query: { limit: '10' } }),
  },
  'audit.list': { rule: 'operator', request: () => ({ query: { limit: '10' } }) },
  // Anyone with the link's secret; this store has teams, so the link is retired for every caller alike.
  'setup.getStatus': {
    rule: 'public',
    request: ({ svc }) => ({ body: { secret: firstRunSecret(svc) } }),
    expect: Object.fromEntries(CALLERS.map((caller) => [caller, 410])),
    code: 'SETUP_DONE',
  },
  'setup.complete': {
    rule: 'public',
    request: ({ svc, seq }) => ({
      body: {
        secret: firstRunSecret(svc),
        team_name: `Setup ${seq}`,
        team_slug: `setup-${seq}`,
        name: 'First Owner',
        email: `setup-${seq}@example.com`,
        password: 'correct horse battery staple',
      },
    }),
    expect: Object.fromEntries(CALLERS.map((caller) => [caller, 410])),
    code: 'SETUP_DONE',
  },
  ...webhookRows('game'),
  ...webhookRows('team'),
};

/**
 * The eight webhook operations of a game's endpoints (the game's token or its team's admins) and of a
 * team's (its admins and the operator). Each create and delete first leaves the scope with only its fixture
 * endpoint, so the walk stays under the limit of ten.
 */
function webhookRows(kind: 'game' | 'team'): Record<string, Row> {
  const rule: AuthRule = kind === 'game' ? 'game' : 'operator';
  const base = (ctx: Ctx) =>
    kind === 'game' ? `/cloud/games/${ctx.world.gameId}` : `/cloud/teams/${ctx.teamId}`;
  const own = (ctx: Ctx): Record<string, string> =>
    kind === 'game'
      ? { webhook_id: ctx.world.webhookId, delivery_id: ctx.world.webhookDeliveryId }
      : {
          team_id: ctx.teamId,
          webhook_id: ctx.teamWebhook.webhookId,
          delivery_id: ctx.teamWebhook.webhookDeliveryId,
        };
  const keepId = (ctx: Ctx) => (kind === 'game' ? ctx.world.webhookId : ctx.teamWebhook.webhookId);
  const row = (request: (ctx: Ctx) => Promise<Req> | Req): Row => ({ rule, people: 'admin', request });
  const prefix = kind === 'game' ? 'games' : 'teams';
  return {
    [`${prefix}.webhooks.create`]: row(async (ctx) => {
      await keepOnlyWebhook(ctx.svc, base(ctx), keepId(ctx));
      return {
        params: own(ctx),
        body: { url: `https://hooks.example.com/m-${ctx.seq}`, events: ['lobby.created'] },
      };
    }),
    [`${prefix}.webhooks.list`]: row((ctx) => ({ params: own(ctx) })),
    [`${prefix}.webhooks.get`]: row((ctx) => ({ params: own(ctx) })),
    [`${prefix}.webhooks.update`]: row((ctx) => ({
      params: own(ctx),
      body: { description: `seen ${ctx.seq}` },
    })),
    [`${prefix}.webhooks.delete`]: row(async (ctx) => {
      await keepOnlyWebhook(ctx.svc, base(ctx), keepId(ctx));
      const made = await newWebhook(ctx.svc, base(ctx), `d-${ctx.seq}`);
      return { params: { ...own(ctx), webhook_id: made.webhookId } };
    }),
    [`${prefix}.webhooks.rotateSecret`]: row((ctx) => ({ params: own(ctx) })),
    [`${prefix}.webhooks.ping`]: row((ctx) => ({ params: own(ctx) })),
    [`${prefix}.webhooks.listDeliveries`]: row((ctx) => ({ params: own(ctx), query: { limit: '5' } })),
    [`${prefix}.webhooks.redeliver`]: row((ctx) => ({ params: own(ctx) })),
  };
}

/** Routes the document does not list: the docs page, the document itself, operators' figures, probes. */
const HIDDEN: { key: string; method: HttpMethod; path: string; row: Row }[] = [
  { key: 'GET /openapi.json', method: 'GET', path: '/openapi.json', row: { rule: 'public' } },
  { key: 'GET /docs/', method: 'GET', path: '/docs/', row: { rule: 'public' } },
  {
    key: 'debug.getWatchers',
    method: 'GET',
    path: '/cloud/debug/watchers',
    row: { rule: 'operator' },
  },
  {
    key: 'admin.createBackup',
    method: 'POST',
    path: '/cloud/admin/backups',
    // PostgreSQL is backed up with its own tools: the operator is told so (409), everyone else refused.
    row: { rule: 'operator', ...(onPostgres ? { expect: { operator: 409 } } : {}) },
  },
  // The operator's view of the runtime (GCM_RUNTIME=none here: regions without nodes).
  { key: 'admin.getRuntime', method: 'GET', path: '/cloud/admin/runtime', row: { rule: 'operator' } },
  // The web dashboard's files and pages (src/http/dashboard.ts): public, as any web page is.
  {
    key: 'GET /*',
    method: 'GET',
    path: '/*',
    row: { rule: 'public', request: () => ({ url: '/' }) },
  },
  // Probes: anyone, no token (src/http/health.ts).
  { key: 'health.getLiveness', method: 'GET', path: '/healthz', row: { rule: 'public' } },
  { key: 'health.getReadiness', method: 'GET', path: '/readyz', row: { rule: 'public' } },
  // Only the scraper's own token (GCM_METRICS_TOKEN), which none of these callers holds: the operator's
  // and a person's are refused like any other.
  {
    key: 'metrics.getMetrics',
    method: 'GET',
    path: '/metrics',
    row: {
      rule: 'public',
      expect: Object.fromEntries(CALLERS.map((caller) => [caller, 401])),
      code: 'API_UNAUTHORIZED',
    },
  },
  // better-auth's endpoints: anyone may call them; what each allows is better-auth's (tests/modules/accounts).
  {
    key: 'GET /auth/*',
    method: 'GET',
    path: '/auth/*',
    row: { rule: 'public', request: () => ({ url: '/auth/get-session' }) },
  },
  {
    key: 'POST /auth/*',
    method: 'POST',
    path: '/auth/*',
    row: {
      rule: 'public',
      request: () => ({ url: '/auth/request-password-reset', body: { email: 'nobody@example.com' } }),
    },
  },
];

/** Path parameters name the world's things unless a row's request says otherwise. */
function defaultParams(world: GameWorld): Record<string, string> {
  return {
    game_id: world.gameId,
    namespace_id: world.namespaceId,
    environment_id: world.namespaceId,
    version_id: world.versionId,
    lobby_id: world.lobbyId,
    build_id: world.buildId,
    upload_id: world.avatarUploadId,
    token_id: world.revokedTokenId,
    user: world.cdnUser,
  };
}

const ERROR_KEYS = new Set(['code', 'message', 'ray_id', 'documentation', 'metadata']);

/** Why `res` is not the expected answer, or undefined when it is. */
function mismatch(
  res: LightMyRequestResponse,
  expected: Expect,
  caller: CallerKind,
  code?: string,
): string | undefined {
  const status = res.statusCode;
  if (expected === '2xx') return status >= 200 && status < 300 ? undefined : `expected 2xx`;
  if (status !== expected) return `expected ${expected}`;
  let body: Record<string, unknown>;
  try {
    body = res.json<Record<string, unknown>>();
  } catch {
    return 'the error body is not JSON';
  }
  if (Object.keys(body).some((k) => !ERROR_KEYS.has(k)) || typeof body.ray_id !== 'string') {
    return 'the error body is not {code, message, ray_id, metadata?}';
  }
  const codes: Record<number, string[]> = {
    401:
      caller === 'revoked'
        ? ['TOKEN_REVOKED']
        : caller === 'stopped-lobby'
          ? ['LOBBY_TOKEN_STOPPED']
          : ['API_UNAUTHORIZED'],
    403: ['API_FORBIDDEN'],
  };
  const want = code === undefined ? codes[status] : [code];
  if (want !== undefined && !want.includes(String(body.code))) return `expected code ${want.join(' or ')}`;
  return undefined;
}

/** A game client's token of the world's namespace, minted as a studio mints it. */
async function clientToken(svc: TestService, world: GameWorld, kind: 'public' | 'development') {
  const res = await svc.call(
    'POST',
    `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/tokens/${kind}`,
    kind === 'development' ? { body: { hostname: '127.0.0.1' } } : {},
  );
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ token: string }>().token;
}

/** The cloud token `gcm login` gets when the person signed in with `cookie` completes its device link. */
async function loginToken(svc: TestService, cookie: string, gameId: string): Promise<string> {
  const link = await prepareLink(svc);
  const done = await svc.call('POST', '/cloud/devices/links/complete', {
    token: null,
    headers: asPerson(svc, cookie),
    body: { device_link_token: link.device_link_token, game_id: gameId },
  });
  assert.equal(done.statusCode, 204, done.body);
  const token = (await getLink(svc, link.device_link_token)).json<LinkResult>().cloud_token;
  assert.ok(token !== undefined, 'the completed link holds a token');
  return token;
}

// One test walks every route as every caller: about a minute on SQLite on 2 cores, longer on PostgreSQL or a
// loaded machine, so past the suite's 120 s default.
describe('authorization matrix: every route × every kind of caller', { timeout: 600_000 }, () => {
  let svc: TestService;
  let target: GameWorld;
  let other: GameWorld;
  let tokens: Record<CallerKind, string | null>;
  let cookies: Record<PersonKind | 'person-signed-out', string>;
  const teamOf = new Map<string, string>();
  const webhookOf = new Map<string, { webhookId: string; webhookDeliveryId: string }>();

  before(async () => {
    svc = await startTestService({ env: { ...ROUTE_WALK_ENV, GCM_METRICS_TOKEN: METRICS_TOKEN } });
    target = await createGameWorld(svc, 'matrix-target');
    other = await createGameWorld(svc, 'matrix-other');
    // Both namespaces run game mode `default`; only the target's has a ready lobby (the `lobby` caller's, with
    // room to spare): a game client of the other game finds no room, whatever room the target has.
    // The namespace-version row puts each world's versionId back: it is the runtime version from here on.
    target = { ...target, versionId: await switchToRuntimeVersion(svc, target, { min: 0, max: 0 }) };
    other = { ...other, versionId: await switchToRuntimeVersion(svc, other, { min: 0, max: 0 }) };
    for (const world of [target, other]) {
      const caps = await svc.call(
        'POST',
        `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/mm-config`,
        {
          body: { lobby_count_max: 1_000, max_players: 100_000 },
        },
      );
      assert.ok(caps.statusCode < 300, caps.body);
    }
    // A reporter token of another namespace of the target game: the namespace, not only the game, must match.
    const sibling = await svc.call('POST', `/cloud/games/${target.gameId}/namespaces`, {
      body: { name_id: 'sibling', display_name: 'Sibling', version_id: target.versionId },
    });
    assert.equal(sibling.statusCode, 200, sibling.body);
    const siblingId = sibling.json<{ namespace_id: string }>().namespace_id;
    const siblingReporter = await svc.call(
      'POST',
      `/cloud/games/${target.gameId}/namespaces/${siblingId}/tokens/reporter`,
    );
    assert.equal(siblingReporter.statusCode, 200, siblingReporter.body);
    const now = Math.floor(Date.parse('2026-01-01T00:00:00Z') / 1000);
    const operatorClaims = Buffer.from(
      JSON.stringify({
        iss: 'game-cloud-management',
        aud: 'operator',
        sub: 'operator',
        iat: now,
        exp: now + 3600,
      }),
    ).toString('base64url');
    tokens = {
      none: null,
      garbage: 'garbage',
      'alg-none-game': algNoneToken(target.cloudToken),
      'alg-none-operator': algNoneToken(`x.${operatorClaims}.x`),
      'device-link': await newDeviceLinkToken(svc),
      revoked: target.revokedToken,
      'other-game': other.cloudToken,
      reporter: target.reporterToken,
      'sibling-reporter': siblingReporter.json<{ token: string }>().token,
      'other-reporter': other.reporterToken,
      // Replaced by the reporter token on reporter routes: the caller's own token of the kind the route takes.
      'game-on-other-ids': target.cloudToken,
      game: target.cloudToken,
      // Set below, once the teams and their people exist.
      'game-of-admin': null,
      'game-of-member': null,
      'game-of-other-team': null,
      operator: svc.operatorToken,
      // Written as the reconciler writes a lobby's row (the row protocol): the routes are checked without
      // a Docker engine; a real lobby's token is the same kind of token (test/modules/runtime*).
      lobby: (await seedRuntimeLobby(svc, target, { runState: 'ready', maxPlayers: 100_000 })).token,
      'stopped-lobby': (await seedRuntimeLobby(svc, target, { runState: 'stopped' })).token,
      public: await clientToken(svc, target, 'public'),
      development: await clientToken(svc, target, 'development'),
      'other-public': await clientToken(svc, other, 'public'),
      'person-owner': null,
      'person-admin': null,
      'person-member': null,
      'person-viewer': null,
      'person-other-team': null,
      'person-signed-out': null,
    };
    matrixLobbyToken = tokens.lobby ?? '';
    const targetTeam = await newTeam(svc, 'matrix-target');
    const otherTeam = await newTeam(svc, 'matrix-other');
    await giveGame(svc, target.gameId, targetTeam.teamId);
    await giveGame(svc, other.gameId, otherTeam.teamId);
    teamOf.set(target.gameId, targetTeam.teamId);
    teamOf.set(other.gameId, otherTeam.teamId);
    for (const team of [targetTeam, otherTeam]) {
      webhookOf.set(team.teamId, await newWebhook(svc, `/cloud/teams/${team.teamId}`, team.teamId));
    }
    const gone = await signIn(svc, targetTeam.owner.email);
    const signOut = await authCall(svc, 'POST', '/sign-out', { cookie: gone });
    assert.equal(signOut.statusCode, 200, signOut.body);
    cookies = {
      'person-owner': targetTeam.owner.cookie,
      'person-admin': await addMember(svc, targetTeam, 'admin@example.com', 'admin'),
      'person-member': await addMember(svc, targetTeam, 'member@example.com', 'member'),
      'person-viewer': await addMember(svc, targetTeam, 'viewer@example.com', 'viewer'),
      'person-other-team': otherTeam.owner.cookie,
      'person-signed-out': gone,
    };
    for (const [caller, game] of [
      ['game-of-admin', target],
      ['game-of-member', target],
      ['game-of-other-team', other],
    ] as const) {
      const person =
        caller === 'game-of-other-team' ? 'person-other-team' : `person-${PERSON_TOKENS[caller].role}`;
      tokens[caller] = await loginToken(svc, cookies[person as PersonKind], game.gameId);
    }
  });
  after(async () => {
    await svc?.close();
  });

  it('has exactly one row per route, and each caller gets what the row says without touching other games', async () => {
    const doc = await readOpenApi(svc);
    const ops = listOperations(doc);
    const failures: string[] = [];
    const documented = new Set(ops.map((o) => o.operationId));
    for (const o of ops) {
      if (MATRIX[o.operationId] === undefined)
        failures.push(`${o.method} ${o.path} (${o.operationId}) has no row`);
    }
    for (const id of Object.keys(MATRIX)) {
      if (!documented.has(id)) failures.push(`row ${id} names no operation of the document`);
    }
    const hiddenRoutes = new Set(hiddenRouteKeys(svc));
    for (const key of hiddenRoutes) {
      if (!HIDDEN.some((h) => `${h.method} ${h.path}` === key)) {
        failures.push(`${key} is left out of the document and has no HIDDEN row`);
      }
    }
    for (const { method, path } of HIDDEN) {
      if (!isDocsAsset(path) && !hiddenRoutes.has(`${method} ${path}`)) {
        failures.push(`HIDDEN row ${method} ${path} names no hidden route`);
      }
    }
    const routes = [
      ...ops.flatMap((o) => {
        const row = MATRIX[o.operationId];
        return row === undefined ? [] : [{ key: o.operationId, method: o.method, path: o.path, row }];
      }),
      ...HIDDEN,
    ];

    let seq = 0;
    for (const { key, method, path, row } of routes) {
      for (const caller of CALLERS) {
        seq += 1;
        const world = caller === 'game-on-other-ids' ? other : target;
        const teamId = teamOf.get(world.gameId) as string;
        const teamWebhook = webhookOf.get(teamId) as { webhookId: string; webhookDeliveryId: string };
        const req = (await row.request?.({ svc, world, teamId, teamWebhook, seq })) ?? {};
        const params = { ...defaultParams(world), ...req.params };
        const query = req.query === undefined ? '' : `?${new URLSearchParams(req.query)}`;
        const bearer =
          caller === 'game-on-other-ids' && row.rule === 'reporter' ? target.reporterToken : tokens[caller];
        const url = req.raw === undefined ? (req.url ?? `${fillPath(path, params)}${query}`) : req.raw.url;
        const people = row.people === undefined ? defaultPeople(row.rule, method) : row.people;
        const expected = row.expect?.[caller] ?? expectFor(row, caller, people);
        const personHeaders = isPerson(caller) ? asPerson(svc, cookies[caller]) : {};

        const beforeCall = await snapshotStore(svc.deps.db);
        const res =
          req.raw === undefined
            ? await svc.call(method, url, {
                token: bearer,
                headers: personHeaders,
                ...(req.body === undefined ? {} : { body: req.body }),
              })
            : await putPresigned(svc, req.raw.url, req.raw.bytes, {
                ...personHeaders,
                ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
              });
        const afterCall = await snapshotStore(svc.deps.db);

        const where = `${key}: ${method} ${url.replace(/\?.*/, '')} as ${caller}`;
        const wrong = mismatch(res, expected, caller, row.code);
        if (wrong !== undefined)
          failures.push(`${where}: ${wrong}, got ${res.statusCode} ${res.body.slice(0, 200)}`);
        // Most calls change nothing at all; only a change needs the (costly) walk of the other game's rows.
        const changed = diffSnapshots(beforeCall, afterCall);
        const othersChanged =
          changed.length === 0
            ? []
            : diffSnapshots(rowsOfGame(beforeCall, other.gameId), rowsOfGame(afterCall, other.gameId));
        if (othersChanged.length > 0)
          failures.push(`${where} changed the other game: ${othersChanged.join('; ')}`);
        if ((res.statusCode === 401 || res.statusCode === 403) && changed.length > 0)
          failures.push(`${where} was refused but changed: ${changed.join('; ')}`);
      }
    }
    assert.deepEqual(failures, [], `${failures.length} failures:\n${failures.join('\n')}`);
  });
});
