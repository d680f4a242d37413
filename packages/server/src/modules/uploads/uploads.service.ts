import type { Readable } from 'node:stream';
import type { PresignedRequest } from '@gcm/contract';
import type { Db } from '../../db/open-db.js';
import { assertGameExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import type { Caller } from '../../identity/callers.js';
import {
  countParts,
  partOf,
  type SignedGetRequest,
  type SignedGetServer,
  type SignedPutReceiver,
  type SignedPutRequest,
  splitIntoParts,
} from '../../lib/blob/blob-storage.js';
import { newId } from '../../lib/ids.js';
import { testPause } from '../../lib/test-seams.js';
import {
  AVATAR_FILE_NAME,
  AVATAR_MAX_BYTES,
  type AvatarMime,
  avatarMimeOf,
  detectImageMime,
  imageStructureProblem,
} from './avatar-rules.js';
import type { UploadRow } from './uploads.repository.js';
import * as repo from './uploads.repository.js';

/** What completing an upload does: 'avatar' sets the game's avatar; 'build' is for build images. */
export type UploadKind = 'avatar' | 'build';

export interface PrepareUploadInput {
  gameId: string;
  kind: UploadKind;
  /** The client's file name, echoed in every presigned request. */
  path: string;
  mime: string;
  contentLength: number;
  /** Multipart: one PUT per `partSize` bytes (the store's minimum part size is the caller's to respect). */
  multipart?: { partSize: number } | undefined;
}

/**
 * The most presigned requests one answer carries. A multipart upload may have 10,000 parts; answering all
 * of them at once made a 100-byte request cost megabytes (and the client's file name is echoed in each), so
 * prepare answers the first page and the client asks for the rest, a page at a time, when it gets there.
 * 100 parts (10 GiB at the default part size) keep an answer under 150 KB and about a millisecond of
 * signing; a page of 1,000 measured 10 ms of CPU for a 100-byte request.
 */
export const PRESIGN_PAGE_SIZE = 100;

/**
 * Records an upload and presigns the PUTs of its first PRESIGN_PAGE_SIZE parts (every part, for all but
 * the largest multipart uploads). Generic over kinds: avatars use one PUT, builds may be multipart. The
 * game must exist (callers check it with their own error).
 */
export async function prepareUpload(
  deps: Deps,
  input: PrepareUploadInput,
): Promise<{ uploadId: string; presignedRequests: PresignedRequest[]; partCount: number }> {
  const uploadId = newId();
  // Keys are the service's own, never the client's file name, so no user input reaches a file path.
  const key = `${input.kind}/${input.gameId}/${uploadId}`;
  const partSize = input.multipart?.partSize ?? Math.max(input.contentLength, 1);
  const partCount = countParts(input.contentLength, partSize);
  const multipartId =
    input.multipart === undefined
      ? undefined
      : (await deps.blobs.createMultipart({ key, uploadId })).multipartId;
  const row: UploadRow = {
    upload_id: uploadId,
    game_id: input.gameId,
    kind: input.kind,
    object_key: key,
    path: input.path,
    mime: input.mime,
    content_length: input.contentLength,
    part_count: partCount,
    part_size: partSize,
    multipart_id: multipartId ?? null,
    create_ts: deps.clock.now(),
    expire_ts: deps.clock.now() + deps.config.uploadUrlTtlSeconds * 1000,
    complete_ts: null,
    state: 'pending',
    frozen_key: null,
  };
  const presigned = await presignParts(deps, row, 1);
  await repo.insertUpload(deps.db, row);
  return { uploadId, presignedRequests: presigned, partCount };
}

/**
 * Presigned PUTs of up to PRESIGN_PAGE_SIZE parts of `upload`, from part `fromPart` on. Fresh URLs each
 * time, so a client resuming a long upload can also replace URLs that have expired.
 */
export async function presignParts(
  deps: Deps,
  upload: UploadRow,
  fromPart: number,
): Promise<PresignedRequest[]> {
  const last = Math.min(upload.part_count, fromPart + PRESIGN_PAGE_SIZE - 1);
  const requests: PresignedRequest[] = [];
  for (let part = fromPart; part <= last; part++) {
    const { byteOffset, contentLength } = partOf(upload.content_length, upload.part_size, part);
    const { url } = await deps.blobs.presignPut({
      key: upload.object_key,
      uploadId: upload.upload_id,
      part,
      multipartId: upload.multipart_id ?? undefined,
      contentLength,
    });
    requests.push({ byte_offset: byteOffset, content_length: contentLength, path: upload.path, url });
  }
  return requests;
}

/**
 * Presigned PUTs signed anew for a pending upload (a client resuming, or a replayed prepare), moving the
 * upload's expiry with them: the clean-up counts an upload abandoned from its URLs' expiry, and one still
 * being uploaded with fresh URLs is not. Undefined when the upload is no longer pending.
 */
export async function presignAgain(
  deps: Deps,
  upload: UploadRow,
  fromPart: number,
): Promise<PresignedRequest[] | undefined> {
  const expireTs = deps.clock.now() + deps.config.uploadUrlTtlSeconds * 1000;
  if (!(await repo.extendExpiry(deps.db, upload.upload_id, expireTs))) return undefined;
  return presignParts(deps, upload, fromPart);
}

/** games.avatars.prepareCustomAvatarUpload (4.12). */
export async function prepareAvatarUpload(
  deps: Deps,
  gameId: string,
  body: { path: string; mime?: string | null | undefined; content_length: number },
): Promise<{ upload_id: string; presigned_request: PresignedRequest }> {
  await assertGameExists(deps, gameId);
  const mime = avatarMimeOf(body.path, body.mime);
  if (body.content_length > AVATAR_MAX_BYTES) throw errors.uploadTooLarge(AVATAR_MAX_BYTES);
  const { uploadId, presignedRequests } = await prepareUpload(deps, {
    gameId,
    kind: 'avatar',
    path: body.path,
    mime,
    contentLength: body.content_length,
  });
  const [presigned] = presignedRequests;
  if (presigned === undefined) throw new Error('a single-PUT upload has one presigned request');
  return { upload_id: uploadId, presigned_request: presigned };
}

/**
 * The presigned request of a pending avatar upload, signed anew: an Idempotency-Key replay of prepare
 * answers this rather than a stored URL (URLs are capabilities, and one stored for the key's 24 h would
 * have expired). A completed upload takes no more PUTs, so its replay says so.
 */
export async function presignAvatarUpload(
  deps: Deps,
  gameId: string,
  uploadId: string,
): Promise<PresignedRequest> {
  const upload = await repo.findUpload(deps.db, uploadId);
  if (upload === undefined || upload.game_id !== gameId || upload.kind !== 'avatar') {
    throw errors.uploadNotFound();
  }
  if (upload.state === 'complete') throw errors.uploadAlreadyComplete();
  const presigned = await presignAgain(deps, upload, 1);
  if (presigned === undefined) {
    // Completed (or collected) since it was read.
    const now = await repo.findUpload(deps.db, uploadId);
    throw now?.state === 'complete' ? errors.uploadAlreadyComplete() : errors.uploadNotFound();
  }
  const [first] = presigned;
  if (first === undefined) throw new Error('a single-PUT upload has one presigned request');
  return first;
}

/**
 * Checks that every byte arrived, then does what the upload is for. `scope` narrows what the caller may
 * complete; an upload outside it is "not found", never "forbidden", so its existence is not revealed.
 * Completing a completed upload is a no-op, so a client may retry a complete whose answer it lost.
 *
 * The file is frozen before it is checked: a single PUT's file is moved to a key no upload URL names, and a
 * multipart upload's parts are joined into an object no part URL writes. Only that file is checked and
 * recorded, so no PUT racing the complete can change what is served afterwards.
 */
export async function completeUpload(
  deps: Deps,
  uploadId: string,
  scope: { gameId?: string | undefined; kind?: UploadKind | undefined },
): Promise<void> {
  const upload = await repo.findUpload(deps.db, uploadId);
  if (
    upload === undefined ||
    upload.state === 'abandoned' ||
    (scope.gameId !== undefined && upload.game_id !== scope.gameId) ||
    (scope.kind !== undefined && upload.kind !== scope.kind)
  ) {
    throw errors.uploadNotFound();
  }
  if (upload.state === 'complete') return;
  await testPause(deps, 'uploadCompletionRead');
  if (upload.multipart_id !== null) {
    await joinAllParts(deps, upload, upload.multipart_id);
    await testPause(deps, 'uploadCompletionFrozen');
    if (!(await repo.markComplete(deps.db, upload.upload_id, deps.clock.now(), upload.object_key))) {
      await assertCompletedByAnother(deps, uploadId);
    }
    return;
  }
  const frozen = await deps.blobs.freeze(upload.object_key);
  if (frozen === undefined) {
    // A complete running at the same time may have frozen the file already, or the clean-up of abandoned
    // uploads claimed it and deleted the file.
    const now = await repo.findUpload(deps.db, uploadId);
    if (now?.state === 'complete') return;
    if (now === undefined || now.state === 'abandoned') throw errors.uploadNotFound();
    throw errors.uploadIncomplete([1], false);
  }
  let recorded = false;
  try {
    await testPause(deps, 'uploadCompletionFrozen');
    if (frozen.size !== upload.content_length) throw errors.uploadIncomplete([1], false);
    const now = deps.clock.now();
    if (upload.kind === 'avatar') {
      // Prepare stored the mime avatarMimeOf gave, so it is one of the AvatarMime values.
      await assertAvatarImage(deps, frozen.key, upload.mime as AvatarMime, upload.content_length);
      const url = avatarUrl(deps, upload.upload_id);
      recorded = await repo.completeAvatar(deps.db, upload, url, now, frozen.key);
    } else {
      recorded = await repo.markComplete(deps.db, upload.upload_id, now, frozen.key);
    }
  } finally {
    // A refused file is dropped (the client PUTs the right one to the same URL), as is the copy of a
    // complete that lost the race to another: only the recorded copy is ever read.
    if (!recorded) await deps.blobs.delete(frozen.key);
  }
  if (!recorded) await assertCompletedByAnother(deps, uploadId);
}

/**
 * After a complete found the upload no longer pending when it came to record it: fine if another complete
 * recorded it, but the clean-up may have claimed it as abandoned, and then it is gone.
 */
async function assertCompletedByAnother(deps: Deps, uploadId: string): Promise<void> {
  if ((await repo.findUpload(deps.db, uploadId))?.state !== 'complete') throw errors.uploadNotFound();
}

/**
 * The generic complete: a cloud token may complete its own game's uploads, the operator any, a person those
 * of their teams' games where they are member or stronger (others' uploads are not found).
 */
export async function completeUploadAs(deps: Deps, caller: Caller, uploadId: string): Promise<void> {
  if (caller.kind === 'person') {
    const upload = await repo.findUpload(deps.db, uploadId);
    const teamId = upload === undefined ? undefined : await deps.people.teamOfGame(upload.game_id);
    if (upload === undefined || teamId === undefined || !caller.teams.has(teamId))
      throw errors.uploadNotFound();
    deps.people.assertTeamRole(caller, teamId, 'member');
    return completeUpload(deps, uploadId, { gameId: upload.game_id });
  }
  return completeUpload(deps, uploadId, { gameId: caller.kind === 'operator' ? undefined : caller.gameId });
}

async function joinAllParts(deps: Deps, upload: UploadRow, multipartId: string): Promise<void> {
  const result = await deps.blobs.completeMultipart({
    key: upload.object_key,
    uploadId: upload.upload_id,
    multipartId,
    parts: splitIntoParts(upload.content_length, upload.part_size).map((p) => ({
      part: p.part,
      contentLength: p.contentLength,
    })),
  });
  if (!result.ok) throw errors.uploadIncomplete(result.badParts, true);
}

/** The whole frozen file (under 2 MB) must be an image of the declared type, not only its first bytes. */
async function assertAvatarImage(deps: Deps, key: string, mime: AvatarMime, size: number): Promise<void> {
  const stream = await deps.blobs.openRead(key);
  if (stream === undefined) throw errors.uploadIncomplete([1], false);
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    read += buffer.length;
    // The size was checked, but a store is not trusted to stop at it: memory stays bounded either way.
    if (read > size) {
      stream.destroy();
      throw errors.uploadIncomplete([1], false);
    }
    chunks.push(buffer);
  }
  const bytes = Buffer.concat(chunks);
  const detected = detectImageMime(bytes);
  if (detected !== mime) throw errors.uploadInvalidContent(mime, detected);
  const problem = imageStructureProblem(bytes, mime);
  if (problem !== undefined) throw errors.uploadInvalidContent(mime, detected, problem);
}

/** Avatars are served by this service (GET /avatars/{upload_id}) whatever the driver, so buckets stay private. */
export function avatarUrl(deps: Deps, uploadId: string): string {
  return `${deps.config.publicUrl}/avatars/${uploadId}`;
}

/** A completed avatar's bytes and type, for the public avatar route. */
export async function openAvatar(
  deps: Deps,
  uploadId: string,
): Promise<{ mime: string; fileName: string; size: number; body: Readable }> {
  const upload = await repo.findUpload(deps.db, uploadId);
  if (upload === undefined || upload.kind !== 'avatar' || upload.state !== 'complete') {
    throw errors.uploadNotFound();
  }
  // Only the checked copy; avatars completed before copies were made (no frozen_key) are where they were.
  const body = await deps.blobs.openRead(upload.frozen_key ?? upload.object_key);
  if (body === undefined) throw errors.uploadNotFound();
  // Prepare stored the mime avatarMimeOf gave, so it is one of the AvatarMime values.
  const fileName = AVATAR_FILE_NAME[upload.mime as AvatarMime] ?? 'avatar';
  return { mime: upload.mime, fileName, size: upload.content_length, body };
}

/** A completed build upload's checked file, for the runtime to load as an image; undefined when gone. */
export async function openBuildFile(deps: Deps, uploadId: string): Promise<Readable | undefined> {
  const upload = await repo.findUpload(deps.db, uploadId);
  if (upload === undefined || upload.kind !== 'build' || upload.state !== 'complete') return undefined;
  return deps.blobs.openRead(upload.frozen_key ?? upload.object_key);
}

/**
 * One PUT to the embedded store's signed URL. The signature is checked before anything is read, so an
 * unsigned request learns nothing about which uploads exist.
 */
export async function receiveUploadPart(
  deps: Deps,
  storage: SignedPutReceiver,
  signed: SignedPutRequest,
  declaredLength: number | undefined,
  body: Readable,
): Promise<void> {
  const check = storage.checkPutUrl(signed);
  if (check === 'bad_signature') throw errors.uploadUrlInvalidSignature();
  if (check === 'expired') throw errors.uploadUrlExpired();
  const upload = await repo.findUpload(deps.db, signed.uploadId);
  if (upload === undefined || upload.state === 'abandoned' || signed.part > upload.part_count) {
    throw errors.uploadNotFound();
  }
  // Once complete, the checked file is what the game shows: it may not be swapped for other bytes. A PUT
  // already streaming when a complete starts is refused by the store when its bytes are in (writePart).
  if (upload.state === 'complete') throw errors.uploadAlreadyComplete();
  if (declaredLength !== undefined && declaredLength !== signed.length) {
    throw errors.uploadLengthMismatch(signed.length, `content-length ${declaredLength}`);
  }
  const result = await storage.writePart(
    {
      key: upload.object_key,
      uploadId: upload.upload_id,
      part: signed.part,
      multipart: upload.multipart_id !== null,
    },
    signed.length,
    body,
  );
  if (!result.ok && result.reason === 'closed') throw errors.uploadAlreadyComplete();
  if (!result.ok) {
    throw errors.uploadLengthMismatch(
      signed.length,
      result.received > signed.length ? 'more' : `${result.received} bytes`,
    );
  }
  deps.metrics.uploadStored(signed.length);
}

/**
 * One GET of the embedded store's signed download URL: the signature is checked before the store is
 * looked at, so an unsigned request learns nothing about which objects exist.
 */
export async function openDownload(
  deps: Deps,
  server: SignedGetServer,
  signed: SignedGetRequest,
): Promise<{ size: number; body: Readable }> {
  const check = server.checkGetUrl(signed);
  if (check === 'bad_signature') throw errors.downloadUrlInvalidSignature();
  if (check === 'expired') throw errors.downloadUrlExpired();
  const found = await deps.blobs.statObject(signed.key);
  const body = found === undefined ? undefined : await deps.blobs.openRead(signed.key);
  if (found === undefined || body === undefined) throw errors.downloadNotFound();
  return { size: found.size, body };
}

/**
 * Deletes the stored files of these uploads, parts of multipart uploads never completed included (the
 * purge of a deleted namespace or retired game, the clean-up of abandoned builds; their rows go afterwards,
 * with deleteUploadRows).
 */
export async function deleteUploadFiles(deps: Deps, uploadIds: string[]): Promise<void> {
  const { keys, multiparts } = await repo.storedFilesOf(deps.db, uploadIds);
  for (const multipart of multiparts) await deps.blobs.abortMultipart(multipart);
  for (const key of keys) await deps.blobs.delete(key);
}

/** Deletes upload rows, inside the purge's transaction (after the builds that name them). */
export function deleteUploadRows(trx: Db, uploadIds: string[]): Promise<void> {
  return repo.deleteUploads(trx, uploadIds);
}

/** Uploads deleted per batch by the purge of a retired game. */
const PURGE_BATCH = 100;

/**
 * Deletes every upload of a retired game (avatars, and any its builds' purge left), files first, then rows,
 * PURGE_BATCH at a time. Runs after the game's builds are gone, since a build names its upload.
 */
export function purgeUploadsOfGame(deps: Deps, gameId: string): Promise<number> {
  return deleteUploadsInBatches(deps, () => repo.uploadIdsOfGame(deps.db, gameId, PURGE_BATCH));
}

/** Deletes the uploads `next` names, files first, then rows, until it names fewer than a batch. */
async function deleteUploadsInBatches(deps: Deps, next: () => Promise<string[]>): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await next();
    if (ids.length === 0) return total;
    await deleteUploadFiles(deps, ids);
    await repo.deleteUploads(deps.db, ids);
    total += ids.length;
    if (ids.length < PURGE_BATCH) return total;
  }
}

const HOUR_MS = 3_600_000;

/**
 * Deletes avatar uploads nobody will use, files first, then rows (as the purge does): those never completed
 * GCM_UPLOAD_ABANDON_HOURS after their URLs expired, and replaced avatars that long after the avatar that
 * replaced them was completed, so pages still showing the old URL have had time to reload. Part of the
 * hourly `upload-clean-up` background job (purge.service.ts).
 */
export function deleteAvatarGarbage(deps: Deps): Promise<number> {
  return deleteUploadsInBatches(deps, () => repo.avatarGarbage(deps.db, abandonedBefore(deps), PURGE_BATCH));
}

/** Uploads whose URLs expired before this have been abandoned. */
function abandonedBefore(deps: Deps): number {
  return deps.clock.now() - deps.config.uploadAbandonHours * HOUR_MS;
}

/**
 * Claims up to `limit` build uploads never completed GCM_UPLOAD_ABANDON_HOURS after their URLs expired, for
 * the builds module to delete with their builds (files with deleteUploadFiles, rows with deleteUploadRows).
 * From the claim on, the upload is not found by complete, presign or PUT.
 */
export function claimAbandonedBuildUploads(deps: Deps, limit: number): Promise<string[]> {
  return repo.claimAbandonedBuildUploads(deps.db, abandonedBefore(deps), limit);
}

/** What builds (modules/builds) read of an upload's row: a build's bytes are an upload. */
export { findUpload } from './uploads.repository.js';
