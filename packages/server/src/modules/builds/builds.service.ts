import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { BUILDS_PAGE_LIMIT_DEFAULT, type ListBuildsQuery, quote, utf8ByteLength } from '@gcm/contract';
import { MULTIPART_MIN_BYTES } from '@gcm/contract/limits';
import type { Db } from '../../db/open-db.js';
import { namespaceExists } from '../../db/scope.js';
import type { Deps } from '../../deps.js';
import { AppError, errors, type ValidationErrorItem } from '../../errors.js';
import { toTimestamp } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { cursorField, pageOf, readPage } from '../../lib/paging.js';
import { textProblem } from '../../lib/text.js';
import {
  claimAbandonedBuildUploads,
  completeUpload,
  deleteUploadFiles,
  deleteUploadRows,
  findUpload,
  openBuildFile,
  prepareUpload,
  presignAgain,
} from '../uploads/uploads.service.js';
import * as repo from './builds.repository.js';

export const BUILD_LIMITS = {
  nameBytes: 128,
  singleUploadBytes: 8 * 1024 ** 3,
  multipartMinBytes: MULTIPART_MIN_BYTES,
  parts: 10_000,
  tags: 32,
  tagKeyBytes: 64,
  tagValueBytes: 256,
} as const;

/** Environments are the game's namespaces; a namespace of another game is not found. */
async function assertEnvironment(deps: Deps, gameId: string, environmentId: string): Promise<void> {
  if (!(await namespaceExists(deps.db, gameId, environmentId))) {
    throw errors.environmentNotFound();
  }
}

function tooManyTags(count: number): ValidationErrorItem {
  return {
    path: ['tags-meta', 'too-many'],
    message: `a build would have ${count} tags; at most ${BUILD_LIMITS.tags}`,
  };
}

function checkTags(tags: Record<string, string>, found: ValidationErrorItem[]): void {
  const keys = Object.keys(tags);
  if (keys.length > BUILD_LIMITS.tags) found.push(tooManyTags(keys.length));
  for (const key of keys.sort()) {
    const bytes = utf8ByteLength(key);
    if (bytes === 0 || bytes > BUILD_LIMITS.tagKeyBytes) {
      found.push({
        path: ['tags', `*${key}*`, 'key', 'invalid'],
        message: `tag key ${quote(key)} is ${bytes} bytes; it needs 1 to ${BUILD_LIMITS.tagKeyBytes}`,
      });
    }
    const valueBytes = utf8ByteLength(tags[key] ?? '');
    if (valueBytes > BUILD_LIMITS.tagValueBytes) {
      found.push({
        path: ['tags', `*${key}*`, 'value', 'too-long'],
        message: `the value of tag ${quote(key)} is ${valueBytes} bytes; at most ${BUILD_LIMITS.tagValueBytes}`,
      });
    }
  }
}

export async function prepareBuild(
  deps: Deps,
  gameId: string,
  environmentId: string,
  input: {
    name: string;
    image_file: { path: string; content_type?: string | null; content_length: number };
    multipart_upload?: boolean | null;
    tags?: Record<string, string> | null;
  },
) {
  await assertEnvironment(deps, gameId, environmentId);
  const found: ValidationErrorItem[] = [];
  const nameBytes = utf8ByteLength(input.name);
  if (nameBytes === 0) {
    found.push({
      path: ['name', 'too-short'],
      message: `name is empty; it needs 1 to ${BUILD_LIMITS.nameBytes} bytes`,
    });
  }
  if (nameBytes > BUILD_LIMITS.nameBytes) {
    found.push({
      path: ['name', 'too-long'],
      message: `name is ${nameBytes} bytes of UTF-8; at most ${BUILD_LIMITS.nameBytes}`,
    });
  }
  if (input.image_file.path === '') {
    found.push({
      path: ['image-file', 'path', 'invalid'],
      message: 'image_file.path is empty; give the file name of the image',
    });
  }
  const tags = input.tags ?? {};
  checkTags(tags, found);
  const length = input.image_file.content_length;
  const multipart = input.multipart_upload === true;
  if (multipart && length < BUILD_LIMITS.multipartMinBytes) {
    found.push({
      path: ['image-file', 'content-length', 'too-small-for-multipart'],
      message:
        `image_file.content_length is ${length} bytes; a multipart upload needs at least ` +
        `${BUILD_LIMITS.multipartMinBytes} (5 MiB): send a smaller file with multipart_upload false`,
    });
  }
  if (found.length > 0) throw errors.validation(found);
  const partSize = deps.config.buildPartSizeBytes;
  if (!multipart && length > BUILD_LIMITS.singleUploadBytes)
    throw errors.uploadTooLarge(BUILD_LIMITS.singleUploadBytes);
  if (multipart && Math.ceil(length / partSize) > BUILD_LIMITS.parts) {
    throw errors.uploadTooLarge(BUILD_LIMITS.parts * partSize);
  }

  const { uploadId, presignedRequests, partCount } = await prepareUpload(deps, {
    gameId,
    kind: 'build',
    path: input.image_file.path,
    mime: input.image_file.content_type ?? 'application/octet-stream',
    contentLength: length,
    multipart: multipart ? { partSize } : undefined,
  });
  const buildId = newId();
  const build = {
    build_id: buildId,
    game_id: gameId,
    namespace_id: environmentId,
    name: input.name,
    upload_id: uploadId,
    content_length: length,
    create_ts: deps.clock.now(),
    complete_ts: null,
  };
  await deps.db.transaction().execute(async (trx) => {
    await repo.insertBuild(trx, build);
    await repo.setTags(trx, build, tags);
  });
  return { build_id: buildId, presigned_requests: presignedRequests, part_count: partCount };
}

/**
 * The next page of presigned PUTs of a build's upload, from part `fromPart` on: prepare answers only the
 * first PRESIGN_PAGE_SIZE of a multipart upload's parts.
 */
export async function presignBuildParts(
  deps: Deps,
  gameId: string,
  environmentId: string,
  buildId: string,
  fromPart: number,
) {
  await assertEnvironment(deps, gameId, environmentId);
  const build = await repo.findBuild(deps.db, environmentId, buildId);
  if (build === undefined) throw errors.buildNotFound('any');
  const upload = await findUpload(deps.db, build.upload_id);
  if (upload === undefined || upload.state === 'abandoned') throw errors.buildNotFound('any');
  if (build.complete_ts !== null || upload.state === 'complete') throw errors.uploadAlreadyComplete();
  if (fromPart > upload.part_count) {
    throw errors.badQuery(
      `query parameter "from_part" is past the last part (${upload.part_count}) of this upload`,
      { field: 'from_part', part_count: upload.part_count },
    );
  }
  const presigned = await presignAgain(deps, upload, fromPart);
  // No longer pending since it was read: completed, or claimed by the clean-up.
  if (presigned === undefined) return presignBuildParts(deps, gameId, environmentId, buildId, fromPart);
  return { presigned_requests: presigned, part_count: upload.part_count };
}

/** Checks every part arrived with its length (UPLOAD_INCOMPLETE otherwise); only then is the build listed. */
export async function completeBuild(deps: Deps, gameId: string, environmentId: string, buildId: string) {
  await assertEnvironment(deps, gameId, environmentId);
  const build = await repo.findBuild(deps.db, environmentId, buildId);
  if (build === undefined) throw errors.buildNotFound('any');
  try {
    await completeUpload(deps, build.upload_id, { gameId, kind: 'build' });
  } catch (err) {
    // The clean-up of abandoned builds claimed its upload since the build was read: the build is going.
    if (err instanceof AppError && err.code === 'UPLOAD_NOT_FOUND') throw errors.buildNotFound('any');
    throw err;
  }
  const now = deps.clock.now();
  // The event is queued in the transaction that lists the build. A completion retried after its answer was
  // lost finds the build complete and queues it again, which the dedupe key makes one delivery.
  await deps.db.transaction().execute(async (trx) => {
    await repo.markBuildComplete(trx, buildId, now);
    await deps.webhooks.gameEvent(trx, gameId, {
      type: 'build.completed',
      resourceKey: `build:${buildId}`,
      dedupeKey: `build.completed:${buildId}`,
      data: {
        environment_id: environmentId,
        build_id: buildId,
        name: build.name,
        content_length: Number(build.content_length),
        tags: JSON.parse(build.tags_json) as Record<string, string>,
        complete_ts: toTimestamp(build.complete_ts === null ? now : Number(build.complete_ts)),
      },
    });
  });
  if (build.archive_sha256 !== null) return;
  // Should the hash fail (or the service stop first), the runtime's first use of the build hashes it again
  // (docs/runtime.md), so its failure is not the complete's.
  const hashed = hashBuildArchive(deps, gameId, buildId).catch(() => undefined);
  // A small archive is read before the answer, so its digest is in when the client hears "complete"; a
  // large one after it: a multi-GB read must not hold the request.
  if (Number(build.content_length) <= HASH_BEFORE_ANSWER_BYTES) await hashed;
}

/** Archives up to this size are hashed before complete answers: a read of well under a second. */
const HASH_BEFORE_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * tags_json: a JSON object of string → string, or a clear 400 naming what is wrong with it. A Map, not the
 * parsed object: JSON.parse keeps "__proto__" as an own key, and every key stays a plain tag key.
 */
export function parseTagsJson(raw: string | undefined): Map<string, string> {
  const tags = new Map<string, string>();
  if (raw === undefined) return tags;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw errors.badQuery('query parameter "tags_json" is not valid JSON', { field: 'tags_json' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw errors.badQuery('query parameter "tags_json" must be a JSON object of string values', {
      field: 'tags_json',
    });
  }
  const entries = Object.entries(parsed);
  // Each pair is one more condition in the query: no more than a build can carry.
  if (entries.length > BUILD_LIMITS.tags) {
    throw errors.badQuery(`query parameter "tags_json" has more than ${BUILD_LIMITS.tags} pairs`, {
      field: 'tags_json',
    });
  }
  for (const [key, value] of entries) {
    if (typeof value !== 'string') {
      throw errors.badQuery(`query parameter "tags_json" has a non-string value at "${key}"`, {
        field: 'tags_json',
      });
    }
    const problem = textProblem(key, false) ?? textProblem(value, false);
    if (problem !== undefined) {
      throw errors.badQuery(`query parameter "tags_json" has a key or value that ${problem}`, {
        field: 'tags_json',
      });
    }
    tags.set(key, value);
  }
  return tags;
}

/** The API's build from its row, in one step: a page maps a thousand of them. */
function asSummary(row: repo.BuildSummaryRow) {
  return {
    id: row.build_id,
    name: row.name,
    content_length: row.content_length,
    created_at: toTimestamp(row.create_ts),
    tags: repo.tagsOf(row),
  };
}

/**
 * A page of the completed builds having every pair of tags_json, newest first. The default page is the
 * 1,000 the list always answered, so a client that knows nothing of `cursor` gets what it got before.
 */
export async function listBuilds(deps: Deps, gameId: string, environmentId: string, query: ListBuildsQuery) {
  const tags = parseTagsJson(query.tags_json);
  const page = readPage('builds', query, BUILDS_PAGE_LIMIT_DEFAULT);
  const rows = await repo.listCompleteBuilds(deps.db, { gameId, namespaceId: environmentId }, tags, {
    after: page.after,
    limit: page.limit + 1,
  });
  if (rows.length === 0) await assertEnvironment(deps, gameId, environmentId);
  const { items, cursor } = pageOf('builds', rows, page.limit, (r) => ({ ts: r.create_ts, id: r.build_id }));
  return { builds: items.map(asSummary), ...cursorField(cursor) };
}

export async function getBuild(
  deps: Deps,
  gameId: string,
  environmentId: string,
  buildId: string,
  tagsJson: string | undefined,
) {
  const tags = parseTagsJson(tagsJson);
  const [row] = await repo.listCompleteBuilds(deps.db, { gameId, namespaceId: environmentId }, tags, {
    buildId,
  });
  if (row !== undefined) return asSummary(row);
  await assertEnvironment(deps, gameId, environmentId);
  throw errors.buildNotFound(tagsJson === undefined ? 'completed' : 'tagged');
}

export async function patchBuildTags(
  deps: Deps,
  gameId: string,
  environmentId: string,
  buildId: string,
  input: { tags: Record<string, string>; exclusive_tags?: string[] | null },
): Promise<void> {
  const exclusive = [...new Set(input.exclusive_tags ?? [])];
  // Own keys only: `in` would also find "toString", "constructor" or "__proto__" on every object.
  const missing = exclusive.filter((k) => !Object.hasOwn(input.tags, k));
  if (missing.length > 0) throw errors.buildsTagsMissingExclusiveKey(missing);
  const found: ValidationErrorItem[] = [];
  checkTags(input.tags, found);
  if (found.length > 0) throw errors.validation(found);
  await assertEnvironment(deps, gameId, environmentId);
  await deps.db.transaction().execute(async (trx) => {
    const build = await repo.findBuild(trx, environmentId, buildId, true);
    if (build === undefined || build.complete_ts === null) throw errors.buildNotFound();
    const current = repo.tagsOf(build);
    const merged = new Set([...Object.keys(current), ...Object.keys(input.tags)]).size;
    if (merged > BUILD_LIMITS.tags) throw errors.validation([tooManyTags(merged)]);
    await repo.setTags(trx, build, input.tags);
    await repo.removeKeysFromOthers(trx, environmentId, buildId, exclusive);
  });
}

/** Builds deleted per transaction by the purge (each has a file or two to delete first). */
const PURGE_BATCH = 100;

/**
 * Deletes the builds prepared but never completed whose upload was abandoned (its URLs expired
 * GCM_UPLOAD_ABANDON_HOURS ago and it was never completed), with their tags, uploads and files, PURGE_BATCH
 * at a time so no transaction holds the store's write lock long. The uploads are claimed first, so a
 * complete racing the clean-up either wins (and the build stays) or answers not found; files go before
 * rows, as in the purge, so a pass cut short leaves claimed rows the next one finishes. A completed build,
 * or one whose upload is still in its window, is never taken. Part of the `upload-clean-up` job.
 */
export async function deleteAbandonedBuilds(deps: Deps): Promise<number> {
  let deleted = 0;
  for (;;) {
    const uploadIds = await claimAbandonedBuildUploads(deps, PURGE_BATCH);
    if (uploadIds.length === 0) return deleted;
    await deleteUploadFiles(deps, uploadIds);
    await deps.db.transaction().execute(async (trx) => {
      await repo.deleteBuilds(trx, await repo.buildIdsOfUploads(trx, uploadIds));
      await deleteUploadRows(trx, uploadIds);
    });
    deleted += uploadIds.length;
    if (uploadIds.length < PURGE_BATCH) return deleted;
  }
}

/**
 * Deletes the builds of a deleted namespace but those `keep` gives (builds a version names; asked for only
 * when there are builds), with their tags, uploads and files, PURGE_BATCH at a time. Files go first: should
 * the rows' transaction fail, the next pass finds the rows again and deleting a missing file is no error,
 * so nothing is left behind either way.
 */
export async function purgeBuildsOf(
  deps: Deps,
  namespaceId: string,
  keep: () => Promise<ReadonlySet<string>>,
): Promise<number> {
  let deleted = 0;
  let after = '';
  let kept: ReadonlySet<string> | undefined;
  for (;;) {
    const page = await repo.buildsAfter(deps.db, namespaceId, after, PURGE_BATCH);
    if (page.length > 0) kept ??= await keep();
    const doomed = page.filter((b) => kept?.has(b.build_id) !== true);
    if (doomed.length > 0) {
      const uploadIds = doomed.map((b) => b.upload_id);
      await deleteUploadFiles(deps, uploadIds);
      await deps.db.transaction().execute(async (trx) => {
        await repo.deleteBuilds(
          trx,
          doomed.map((b) => b.build_id),
        );
        await deleteUploadRows(trx, uploadIds);
      });
      deleted += doomed.length;
    }
    const last = page.at(-1);
    if (last === undefined || page.length < PURGE_BATCH) return deleted;
    after = last.build_id;
  }
}

/**
 * A completed build of the game, as the runtime loads it: its byte count and a way to read it (each call a
 * new stream). Builds are per environment, and a version (of the game) may name a build of any of them.
 * Undefined when no such completed build is there (deleted meanwhile).
 */
export async function findBuildArchive(
  deps: Deps,
  gameId: string,
  buildId: string,
): Promise<{ size: number; sha256: string | null; open(): Promise<Readable> } | undefined> {
  const build = await repo.findCompleteBuildOfGame(deps.db, gameId, buildId);
  if (build === undefined) return undefined;
  return {
    size: Number(build.content_length),
    sha256: build.archive_sha256,
    open: async () => {
      const body = await openBuildFile(deps, build.upload_id);
      if (body === undefined) throw new Error(`the file of build ${buildId} is gone`);
      return body;
    },
  };
}

/** Statements' bound on the builds one read names. */
const DIGEST_READ_CHUNK = 500;

/**
 * The archive sha256 of each build named (any game's: the runtime's image collector keeps what any live
 * version names); builds not hashed yet, or unknown, add none.
 */
export async function archiveDigestsOf(deps: Deps, buildIds: Iterable<string>): Promise<Set<string>> {
  const ids = [...new Set(buildIds)];
  const digests = new Set<string>();
  for (let i = 0; i < ids.length; i += DIGEST_READ_CHUNK) {
    const rows = await repo.archiveDigestsOf(deps.db, ids.slice(i, i + DIGEST_READ_CHUNK));
    for (const row of rows) if (row.archive_sha256 !== null) digests.add(row.archive_sha256.toLowerCase());
  }
  return digests;
}

/** Hashes under way in this process, per store (each service in a test process has its own). */
const hashing = new WeakMap<Db, Map<string, Promise<string | undefined>>>();

/**
 * Reads a completed build's stored archive through sha256 and records the digest, once: the one the runtime
 * checks what it loads against. The archive is streamed (blob storage's chunks, local file or S3), so a
 * multi-GB one holds neither a request nor the event loop for long. Concurrent calls in this process share
 * one read. Answers the recorded digest; undefined when the build is not a completed build of the game.
 */
export function hashBuildArchive(deps: Deps, gameId: string, buildId: string): Promise<string | undefined> {
  let ofStore = hashing.get(deps.db);
  if (ofStore === undefined) {
    ofStore = new Map();
    hashing.set(deps.db, ofStore);
  }
  const running = ofStore.get(buildId);
  if (running !== undefined) return running;
  const map = ofStore;
  const hashed = (async () => {
    const build = await repo.findCompleteBuildOfGame(deps.db, gameId, buildId);
    if (build === undefined) return undefined;
    if (build.archive_sha256 !== null) return build.archive_sha256;
    const body = await openBuildFile(deps, build.upload_id);
    if (body === undefined) throw new Error(`the file of build ${buildId} is gone`);
    const hash = createHash('sha256');
    for await (const chunk of body) hash.update(chunk as Buffer);
    return repo.recordArchiveDigest(deps.db, buildId, hash.digest('hex'));
  })().finally(() => map.delete(buildId));
  map.set(buildId, hashed);
  return hashed;
}
