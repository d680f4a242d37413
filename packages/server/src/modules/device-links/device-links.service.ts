import { randomInt } from 'node:crypto';
import { lockGame } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { AppError, errors } from '../../errors.js';
import type { Caller } from '../../identity/callers.js';
import { toTimestamp } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { secondsUntil } from '../../lib/rate-counters.js';
import { testPause } from '../../lib/test-seams.js';
import { mintedFor, recordToken, signStoredToken } from '../tokens/tokens.service.js';
import * as repo from './device-links.repository.js';

/** How long a device link (and its token) is valid, and so how long get hands its cloud token out. */
export const DEVICE_LINK_TTL_MS = 60 * 60 * 1000;

/** The change-notifier key of one link: completion and deletion wake its watchers. */
export function deviceLinkWatchKey(linkId: string): string {
  return `device-link:${linkId}`;
}

type VerifiedLink = Awaited<ReturnType<Deps['tokens']['verifyDeviceLinkToken']>>;

/** Who asked for a link, as the starting request showed it. */
export interface LinkOrigin {
  clientAddress: string;
  /** The raw User-Agent header, if any; cleaned before it is stored. */
  userAgent: string | undefined;
}

/** RFC 8628's user-code alphabet: consonants only, so no lookalikes (0/O, 1/I) and no words. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

/** Eight letters shown as XXXX-XXXX (20^8, about 2.6e10 codes): compared by eye, never looked up. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < 8; i += 1) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** Longest User-Agent kept; real ones are well under it, and the page must stay readable. */
export const USER_AGENT_MAX_LENGTH = 200;

/**
 * The User-Agent as it may be stored and shown: control and format characters (C0, DEL, C1, soft hyphen;
 * header values arrive as latin1) become spaces, runs of white space one space, and it is cut at
 * USER_AGENT_MAX_LENGTH. Nothing left: null. It is the client's say-so, shown as such, and escaped like
 * everything else on the page.
 */
export function cleanUserAgent(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const cleaned = raw
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned === '') return null;
  return cleaned.length > USER_AGENT_MAX_LENGTH ? `${cleaned.slice(0, USER_AGENT_MAX_LENGTH - 1)}…` : cleaned;
}

/**
 * Starts a login: a link row and the token naming it (no auth; the token grants nothing by itself). The
 * row records who asked, for the page, and an address may hold only so many links still pending.
 */
export async function prepareDeviceLink(deps: Deps, origin: LinkOrigin) {
  const linkId = newId();
  const createTs = deps.clock.now();
  // On a whole second: the token's `exp` counts seconds, so row and token expire at the same instant.
  const expireTs = Math.floor((createTs + DEVICE_LINK_TTL_MS) / 1000) * 1000;
  const userCode = newUserCode();
  const maxPending = deps.config.rateLimits.pendingDeviceLinks;
  await deps.db.transaction().execute(async (trx) => {
    if (maxPending > 0) {
      await repo.lockClientAddress(trx, origin.clientAddress);
      const pending = await repo.pendingLinksOf(trx, origin.clientAddress, createTs);
      if (pending.count >= maxPending) {
        deps.metrics.rateLimited('pendingDeviceLinks');
        throw errors.deviceLinkTooManyPending(maxPending, secondsUntil(pending.firstExpireTs, createTs));
      }
    }
    await repo.insertLink(trx, {
      link_id: linkId,
      create_ts: createTs,
      expire_ts: expireTs,
      game_id: null,
      token_id: null,
      complete_ts: null,
      version: 1,
      client_address: origin.clientAddress,
      user_agent: cleanUserAgent(origin.userAgent),
      user_code: userCode,
    });
  });
  const token = await deps.tokens.signDeviceLinkToken({ linkId, createTs, expireTs });
  return {
    device_link_id: linkId,
    device_link_token: token,
    device_link_url: `${deps.config.publicUrl}/devices/link/${token}`,
    device_link_user_code: userCode,
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
  if (row !== undefined) return row;
  // The clean-up may have deleted it at its expiry while we read: that link expired, it was not foreign.
  if (link.expireTs <= deps.clock.now()) throw errors.deviceLinkTokenExpired();
  throw errors.deviceLinkTokenInvalid();
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
 * only for its own game, refused (403) before anything about the game or the link is read; a person for a
 * game of a team where they are member or stronger.
 */
export async function completeDeviceLink(
  deps: Deps,
  caller: Caller,
  input: { device_link_token: string; game_id: string },
): Promise<void> {
  if (caller.kind === 'person') {
    await deps.people.assertGameRole(caller, input.game_id, 'member');
  } else if (caller.kind !== 'operator' && caller.gameId !== input.game_id) {
    throw errors.forbidden('this token belongs to another game: it may link devices to its own game only');
  }
  const link = await deps.tokens.verifyDeviceLinkToken(input.device_link_token);
  const row = await findLiveLink(deps, link);
  if (row.token_id !== null) throw errors.deviceLinkAlreadyComplete();
  // Between the read and the write: a test holds two completions here so both pass the check above.
  await testPause(deps, 'deviceLinkCompletionRead');
  await deps.db.transaction().execute(async (trx) => {
    // Under the game's lock: a retirement committing meanwhile cannot miss the token and leave it unrevoked.
    if (!(await lockGame(trx, input.game_id))) throw errors.gameNotFound();
    const token = await recordToken(deps, trx, {
      kind: 'cloud',
      gameId: input.game_id,
      namespaceId: null,
      userId: mintedFor(caller),
    });
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

/** Who asked for a pending link, as recorded when it started (null: a link from before that was kept). */
export interface PendingLinkOrigin {
  clientAddress: string | null;
  userAgent: string | null;
  userCode: string | null;
  createTs: string;
}

export type DeviceLinkPageState =
  | { state: 'pending'; expireTs: string; origin: PendingLinkOrigin }
  | { state: 'complete' }
  | { state: 'expired' }
  | { state: 'invalid' };

/** What the link page shows, decided on the server when it renders. */
export async function describeDeviceLink(deps: Deps, token: string): Promise<DeviceLinkPageState> {
  try {
    const row = await findLiveLink(deps, await deps.tokens.verifyDeviceLinkToken(token));
    return row.token_id === null
      ? {
          state: 'pending',
          expireTs: toTimestamp(row.expire_ts),
          origin: {
            clientAddress: row.client_address,
            userAgent: row.user_agent,
            userCode: row.user_code,
            createTs: toTimestamp(row.create_ts),
          },
        }
      : { state: 'complete' };
  } catch (err) {
    if (err instanceof AppError && err.code === 'TOKEN_EXPIRED') return { state: 'expired' };
    if (err instanceof AppError && err.code === 'TOKEN_INVALID') return { state: 'invalid' };
    throw err;
  }
}
