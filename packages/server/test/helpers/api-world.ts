/**
 * A game with one of everything the API names by id (version, namespace, lobby, completed build, completed
 * avatar, CDN user, cloud, reporter and revoked tokens), made through the API as a client would: what the
 * suites that call every route (authorization matrix, fuzz) need so a request can reach a real handler.
 */

import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { pngImage } from './images.js';
import { createGameFixture, type TestService } from './service.js';
import { until } from './until.js';

export interface GameWorld {
  gameId: string;
  versionId: string;
  namespaceId: string;
  cloudToken: string;
  cloudTokenId: string;
  reporterToken: string;
  revokedToken: string;
  revokedTokenId: string;
  lobbyId: string;
  buildId: string;
  /** A completed avatar upload (GET /avatars/{id} serves it). */
  avatarUploadId: string;
  cdnUser: string;
  /** A webhook endpoint of the game (never sent to: the route walks turn the delivery job off). */
  webhookId: string;
  /** A delivery queued for it (a ping). */
  webhookDeliveryId: string;
}

/** A well-formed PNG of exactly `size` bytes (at least 57): what the avatar check accepts. */
export const pngBytes = pngImage;

/** A well-formed bcrypt hash (the service checks the form only). */
export const BCRYPT_HASH = `$2b$10$${'a'.repeat(53)}`;

function ok(res: LightMyRequestResponse, what: string): LightMyRequestResponse {
  if (res.statusCode < 200 || res.statusCode > 299) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
  return res;
}

/** PUTs bytes to a presigned URL of the embedded store through app.inject (the URL's origin is dropped). */
export function putPresigned(
  svc: TestService,
  url: string,
  bytes: Buffer,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const { pathname, search } = new URL(url);
  return svc.app.inject({
    method: 'PUT',
    url: `${pathname}${search}`,
    headers: { 'content-type': 'application/octet-stream', ...headers },
    payload: bytes,
  });
}

/**
 * The archive digest the store records for a completed build, once its background hash is in (completing a
 * build answers before the file is read through).
 */
export async function recordedArchiveDigest(svc: TestService, buildId: string): Promise<string> {
  const digest = () =>
    svc.deps.db
      .selectFrom('builds')
      .select('archive_sha256')
      .where('build_id', '=', buildId)
      .executeTakeFirst()
      .then((row) => row?.archive_sha256 ?? null);
  await until(
    `build ${buildId}'s archive digest recorded`,
    30_000,
    async () => (await digest()) !== null,
    20,
  );
  return (await digest()) as string;
}

/**
 * The files (not folders) the embedded store holds for an upload, wherever it keeps them: its object, frozen
 * copies, multipart parts, temp files.
 */
export function storedFilesOf(svc: TestService, uploadId: string): string[] {
  const root = path.join(svc.dataDir, 'blobs');
  return (readdirSync(root, { recursive: true }) as string[]).filter(
    (f) => f.includes(uploadId) && statSync(path.join(root, f)).isFile(),
  );
}

/** An avatar upload of `game` prepared (not yet sent); returns its id and the URL to PUT the PNG to. */
export async function prepareAvatar(svc: TestService, gameId: string, size = 64) {
  const res = ok(
    await svc.call('POST', `/cloud/games/${gameId}/prepare`, {
      body: { path: 'avatar.png', mime: 'image/png', content_length: size },
    }),
    'prepare avatar',
  );
  const { upload_id, presigned_request } = res.json<{
    upload_id: string;
    presigned_request: { url: string };
  }>();
  return { uploadId: upload_id, url: presigned_request.url, bytes: pngBytes(size) };
}

/** An avatar upload whose bytes arrived but which is not completed yet. */
export async function uploadedAvatar(svc: TestService, gameId: string): Promise<string> {
  const avatar = await prepareAvatar(svc, gameId);
  ok(await putPresigned(svc, avatar.url, avatar.bytes), 'put avatar');
  return avatar.uploadId;
}

/** A build prepared and uploaded (one PUT) but not completed. */
export async function uploadedBuild(svc: TestService, gameId: string, namespaceId: string, name: string) {
  const res = ok(
    await svc.call('POST', `/games/${gameId}/environments/${namespaceId}/builds/prepare`, {
      body: { name, image_file: { path: `${name}.tar`, content_length: 16 }, tags: { kind: 'fixture' } },
    }),
    'prepare build',
  );
  const { build_id, presigned_requests } = res.json<{
    build_id: string;
    presigned_requests: { url: string }[];
  }>();
  ok(await putPresigned(svc, presigned_requests[0]?.url ?? '', Buffer.alloc(16, 7)), 'put build');
  return build_id;
}

/** A lobby the operator reported in the namespace (running, no events yet). */
export async function newLobby(svc: TestService, gameId: string, namespaceId: string): Promise<string> {
  const res = ok(
    await svc.call('POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/logs/lobbies`, {
      body: { lobby_group_name_id: 'default', region_id: 'lnd-atl' },
    }),
    'create lobby',
  );
  return res.json<{ lobby_id: string }>().lobby_id;
}

/** A fresh namespace of the game (running its `versionId`), for a route that deletes one. */
export async function newNamespace(svc: TestService, gameId: string, versionId: string, nameId: string) {
  const res = ok(
    await svc.call('POST', `/cloud/games/${gameId}/namespaces`, {
      body: { name_id: nameId, display_name: 'Disposable', version_id: versionId },
    }),
    'create namespace',
  );
  return res.json<{ namespace_id: string }>().namespace_id;
}

/** A fresh game with nothing in it, for a route that retires one. */
export async function newGame(svc: TestService, nameId: string): Promise<string> {
  const res = ok(
    await svc.call('POST', '/cloud/games', { body: { name_id: nameId, display_name: 'Disposable' } }),
    'create game',
  );
  return res.json<{ game_id: string }>().game_id;
}

export async function newCloudToken(svc: TestService, gameId: string) {
  const res = ok(await svc.call('POST', `/cloud/games/${gameId}/tokens/cloud`), 'create cloud token');
  return res.json<{ token: string; token_id: string }>();
}

/** A fresh device link token, as `POST /cloud/devices/links` hands it to a command-line tool. */
export async function newDeviceLinkToken(svc: TestService): Promise<string> {
  const res = ok(await svc.call('POST', '/cloud/devices/links', { token: null }), 'prepare device link');
  return res.json<{ device_link_token: string }>().device_link_token;
}

export async function addCdnUser(svc: TestService, gameId: string, namespaceId: string, user: string) {
  ok(
    await svc.call('POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/auth-user`, {
      body: { user, password: BCRYPT_HASH },
    }),
    'add CDN user',
  );
}

export async function createGameWorld(svc: TestService, nameId: string): Promise<GameWorld> {
  const fx = await createGameFixture(svc, nameId);
  const { gameId, namespaceId } = fx;
  const reporter = ok(
    await svc.call('POST', `/cloud/games/${gameId}/namespaces/${namespaceId}/tokens/reporter`),
    'create reporter token',
  ).json<{ token: string }>();
  const revoked = await newCloudToken(svc, gameId);
  ok(await svc.call('DELETE', `/cloud/tokens/${revoked.token_id}`), 'revoke token');
  const lobbyId = await newLobby(svc, gameId, namespaceId);
  const buildId = await uploadedBuild(svc, gameId, namespaceId, 'fixture-build');
  ok(
    await svc.call('POST', `/games/${gameId}/environments/${namespaceId}/builds/${buildId}/complete`),
    'complete build',
  );
  const avatarUploadId = await uploadedAvatar(svc, gameId);
  ok(
    await svc.call('POST', `/cloud/games/${gameId}/avatar-upload/${avatarUploadId}/complete`),
    'complete avatar',
  );
  const cdnUser = 'fixture-user';
  await addCdnUser(svc, gameId, namespaceId, cdnUser);
  const webhook = await newWebhook(svc, `/cloud/games/${gameId}`, nameId);
  return {
    ...fx,
    reporterToken: reporter.token,
    revokedToken: revoked.token,
    revokedTokenId: revoked.token_id,
    lobbyId,
    buildId,
    avatarUploadId,
    cdnUser,
    ...webhook,
  };
}

/** A webhook endpoint of a game or team (`base` is its path) with a ping queued for it. */
export async function newWebhook(svc: TestService, base: string, name: string) {
  const made = ok(
    await svc.call('POST', `${base}/webhooks`, {
      body: { url: `https://hooks.example.com/${name}`, events: ['lobby.created', 'plan.changed'] },
    }),
    'create webhook',
  ).json<{ webhook: { webhook_id: string } }>();
  const webhookId = made.webhook.webhook_id;
  const ping = ok(await svc.call('POST', `${base}/webhooks/${webhookId}/ping`), 'ping webhook');
  return { webhookId, webhookDeliveryId: ping.json<{ delivery_id: string }>().delivery_id };
}

/**
 * Leaves `base` (a game or team) with only its endpoint `keep`, so a route walk that makes endpoints for
 * each caller stays under the per-scope limit.
 */
export async function keepOnlyWebhook(svc: TestService, base: string, keep: string): Promise<void> {
  const list = ok(await svc.call('GET', `${base}/webhooks`), 'list webhooks').json<{
    webhooks: { webhook_id: string }[];
  }>();
  for (const { webhook_id } of list.webhooks) {
    if (webhook_id !== keep) ok(await svc.call('DELETE', `${base}/webhooks/${webhook_id}`), 'delete webhook');
  }
}

/**
 * The same claims as `jwt` under the header `{"alg":"none"}` and no signature: the classic forgery a
 * verifier must refuse (it must never let the token pick its own algorithm).
 */
export function algNoneToken(jwt: string): string {
  const payload = jwt.split('.')[1] ?? '';
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  return `${header}.${payload}.`;
}

/**
 * The environment of the services the route-walking suites (authorization matrix, fuzz) start: the one
 * place to relax limits those suites would trip by sending many requests from one address. The billing
 * and purge timers are off so nothing but the requests writes to the store (a refused request must change
 * nothing), and a watch request with the current index answers after 10 ms rather than 40 s.
 */
export const ROUTE_WALK_ENV: Readonly<Record<string, string>> = {
  GCM_BILLING_TICK_MS: '0',
  GCM_PURGE_INTERVAL_MS: '0',
  GCM_WATCH_TIMEOUT_MS: '10',
  GCM_WEBHOOK_POLL_MS: '0',
  // A lobby's state writes are rated per lobby; the suites write one lobby's state many times a second.
  GCM_LOBBY_STATE_WRITES_PER_SECOND: '10000',
  GCM_LOBBY_STATE_WRITE_BURST: '100000',
};
