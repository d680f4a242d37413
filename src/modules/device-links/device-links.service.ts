import type { Deps } from '../../deps.js';
import { AppError, errors } from '../../errors.js';
import { toTimestamp } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { gameExists } from '../games/games.repository.js';
import type { Caller } from '../tokens/token-authority.js';
import { recordToken, signStoredToken } from '../tokens/tokens.service.js';
import * as repo from './device-links.repository.js';

/** How long a device link (and its token) is valid, and so how long get hands its cloud token out. */
export const DEVICE_LINK_TTL_MS = 60 * 60 * 1000;

/** The change-notifier key of one link: completion and deletion wake its watchers. */
export function deviceLinkWatchKey(linkId: string): string {
  return `device-link:${linkId}`;
}

type VerifiedLink = Awaited<ReturnType<Deps['tokens']['verifyDeviceLinkToken']>>;

/** Starts a login: a link row and the token naming it (no auth; the token grants nothing by itself). */
export async function prepareDeviceLink(deps: Deps) {
  const linkId = newId();
  const createTs = deps.clock.now();
  // On a whole second: the token's `exp` counts seconds, so row and token expire at the same instant.
  const expireTs = Math.floor((createTs + DEVICE_LINK_TTL_MS) / 1000) * 1000;
  await repo.insertLink(deps.db, {
    link_id: linkId,
    create_ts: createTs,
    expire_ts: expireTs,
    game_id: null,
    token_id: null,
    complete_ts: null,
    version: 1,
  });
  const token = await deps.tokens.signDeviceLinkToken({ linkId, createTs, expireTs });
  return {
    device_link_id: linkId,
    device_link_token: token,
    device_link_url: `${deps.config.publicUrl}/devices/link/${token}`,
  };
}

/**
 * The link's row while it lives. The token's expiry is the link's (both on the same second), so it decides:
 * an expired link is deleted here (lazily, besides the periodic clean-up) and its watchers woken, so after
 * its hour a link answers TOKEN_EXPIRED and can never hand out or take a token again. A live token whose
 * row is missing names no link of this store: TOKEN_INVALID.
 */
async function findLiveLink(deps: Deps, link: VerifiedLink): Promise<repo.DeviceLinkRow> {
  if (link.expireTs <= deps.clock.now()) {
    if (await repo.deleteLink(deps.db, link.linkId)) deps.notifier.notify(deviceLinkWatchKey(link.linkId));
    throw errors.deviceLinkTokenExpired();
  }
  const row = await repo.findLink(deps.db, link.linkId);
  if (row === undefined) throw errors.deviceLinkTokenInvalid();
  return row;
}

/**
 * Interface 2.5: `cloud_token` once the link is completed, and the link's version as the watch index.
 *
 * No token text is stored: the link keeps the token's row id, and the text is signed again from that row
 * on every read. Ed25519 (EdDSA) signatures are deterministic, so every read gives the very same token
 * (the test checks it). This holds while the signing key stays the same; keys are never rotated today, and
 * rotation would have to keep signing stored tokens with the key they were first signed with.
 */
async function loadDeviceLinkResult(deps: Deps, link: VerifiedLink) {
  const row = await findLiveLink(deps, link);
  const cloudToken = row.token_id === null ? undefined : await signStoredToken(deps, row.token_id);
  return {
    data: cloudToken === undefined ? {} : { cloud_token: cloudToken },
    version: BigInt(row.version),
  };
}

/**
 * For devices.links.get: checks the token's signature and expiry (400 TOKEN_INVALID / TOKEN_EXPIRED) once,
 * then gives the watch key and the loader that answerWatchable calls (again after each change).
 */
export async function watchDeviceLink(deps: Deps, token: string) {
  const link = await deps.tokens.verifyDeviceLinkToken(token);
  return { key: deviceLinkWatchKey(link.linkId), load: () => loadDeviceLinkResult(deps, link) };
}

/**
 * Mints a new cloud token for `game_id` and attaches it to the link, in one transaction: either the link
 * holds the token or no token was made. The operator may complete any link for any game; a game cloud token
 * only for its own game, refused (403) before anything about the game or the link is read.
 */
export async function completeDeviceLink(
  deps: Deps,
  caller: Caller,
  input: { device_link_token: string; game_id: string },
): Promise<void> {
  if (caller.kind !== 'operator' && caller.gameId !== input.game_id) {
    throw errors.forbidden('this token belongs to another game: it may link devices to its own game only');
  }
  const link = await deps.tokens.verifyDeviceLinkToken(input.device_link_token);
  const row = await findLiveLink(deps, link);
  if (row.token_id !== null) throw errors.deviceLinkAlreadyComplete();
  await deps.db.transaction().execute(async (trx) => {
    if (!(await gameExists(trx, input.game_id))) throw errors.gameNotFound();
    const token = await recordToken(deps, trx, { kind: 'cloud', gameId: input.game_id, namespaceId: null });
    const attached = await repo.attachToken(trx, link.linkId, {
      gameId: input.game_id,
      tokenId: token.tokenId,
      completeTs: deps.clock.now(),
    });
    // Completed (or deleted) since the read above: throwing rolls the new token's row back.
    if (!attached) throw errors.deviceLinkAlreadyComplete();
  });
  deps.notifier.notify(deviceLinkWatchKey(link.linkId));
}

/** How often expired links are deleted (reads also delete an expired link they come across). */
export const DEVICE_LINK_CLEANUP_INTERVAL_MS = 60_000;

/**
 * The periodic clean-up: deletes expired links and wakes their watchers (who then get TOKEN_EXPIRED).
 * A DELETE takes each row once, so two passes racing at a lease hand-over still notify each link once.
 */
export async function deleteExpiredDeviceLinks(deps: Deps): Promise<number> {
  const deleted = await repo.deleteExpiredLinks(deps.db, deps.clock.now());
  for (const linkId of deleted) deps.notifier.notify(deviceLinkWatchKey(linkId));
  return deleted.length;
}

export type DeviceLinkPageState =
  | { state: 'pending'; expireTs: string }
  | { state: 'complete' }
  | { state: 'expired' }
  | { state: 'invalid' };

/** What the link page shows, decided on the server when it renders. */
export async function describeDeviceLink(deps: Deps, token: string): Promise<DeviceLinkPageState> {
  try {
    const row = await findLiveLink(deps, await deps.tokens.verifyDeviceLinkToken(token));
    return row.token_id === null
      ? { state: 'pending', expireTs: toTimestamp(row.expire_ts) }
      : { state: 'complete' };
  } catch (err) {
    if (err instanceof AppError && err.code === 'TOKEN_EXPIRED') return { state: 'expired' };
    if (err instanceof AppError && err.code === 'TOKEN_INVALID') return { state: 'invalid' };
    throw err;
  }
}
