/**
 * Pushing a build image, the algorithm `gcm builds push` and `gcm deploy` share: prepare, PUT the parts in
 * parallel (retried, resumable from a state file), complete, tag; and listing an environment's builds.
 * Commands parse options and print; this module talks to the service and the disk.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  createReadStream,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { formatBytes } from '@gcm/contract/format';
import { MULTIPART_MIN_BYTES } from '@gcm/contract/limits';
import { ApiError, isTransientApiError, type Schema, TransientError, unwrap, withRetries } from '@gcm/sdk';
import cliProgress from 'cli-progress';
import type { Context } from '../context.js';
import { UsageError } from '../context.js';
import { configDir } from '../credentials.js';
import { unreadableFile } from '../files.js';
import { note } from '../output.js';
import { PartRefusedError, putFileRange } from '../part-upload.js';

/** The tag every pushed build carries: `gcm deploy` finds a file already pushed by it. */
export const SHA256_TAG = 'gcm.sha256';

type Build = Schema<'Build'>;
type PresignedRequest = Schema<'PresignedRequest'>;
/** The path parameters of one build of an environment (namespace). */
interface BuildParams {
  game_id: string;
  environment_id: string;
  build_id: string;
}

/** Parts one `.../parts?from_part=` answer presigns (README "Builds"); only a hint for sharing fetches. */
const PRESIGN_PAGE = 100;

/** Rounds of "complete says parts are missing, upload them again" before giving up. */
const COMPLETE_ROUNDS = 3;

/** What a resumed run needs: the build the interrupted one prepared. */
interface UploadState {
  version: 1;
  build_id: string;
  part_count: number;
  multipart: boolean;
  name: string;
  tags: Record<string, string>;
  prepared_at: string;
}

export interface PushOptions {
  gameId: string;
  environmentId: string;
  file: string;
  name?: string | undefined;
  tags: Record<string, string>;
  exclusiveTags: string[];
  concurrency: number;
  /** The file's sha256 when the caller has it already. */
  sha256?: string | undefined;
}

export interface PushResult {
  build_id: string;
  name: string;
  content_length: number;
  multipart: boolean;
  parts: number;
  parts_uploaded: number;
  parts_skipped: number;
  resumed: boolean;
  tags: Record<string, string>;
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** A regular file's size and mtime, or a usage error saying why it cannot be pushed. */
export function statImage(file: string): { size: number; mtimeMs: number } {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file);
  } catch (err) {
    throw new UsageError(unreadableFile(file, err));
  }
  if (!stat.isFile()) throw new UsageError(`${file} is not a file`);
  return { size: stat.size, mtimeMs: stat.mtimeMs };
}

/**
 * One state file per (service, game, environment, file as it is now): a file changed since (size or
 * mtime) is another upload, and the same file pushed to two environments resumes each on its own.
 */
function statePathFor(
  ctx: Context,
  opts: PushOptions,
  absolute: string,
  size: number,
  mtimeMs: number,
): string {
  const key = createHash('sha256')
    .update([ctx.url, opts.gameId, opts.environmentId, absolute, String(size), String(mtimeMs)].join('\n'))
    .digest('hex');
  return path.join(configDir(), 'uploads', `${key}.json`);
}

function readState(file: string): UploadState | undefined {
  let parsed: Partial<UploadState>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<UploadState>;
  } catch {
    // Missing, or torn by a crash while it was written (writes are renamed into place, so hardly ever).
    return undefined;
  }
  if (
    parsed.version !== 1 ||
    typeof parsed.build_id !== 'string' ||
    typeof parsed.part_count !== 'number' ||
    typeof parsed.name !== 'string'
  ) {
    return undefined;
  }
  return {
    version: 1,
    build_id: parsed.build_id,
    part_count: parsed.part_count,
    multipart: parsed.multipart === true,
    name: parsed.name,
    tags: parsed.tags ?? {},
    prepared_at: parsed.prepared_at ?? '',
  };
}

/** Written 0600 in a 0700 directory, whole or not at all: it names a build other users need not know of. */
function writeState(file: string, state: UploadState): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The presigned PUTs of an upload, fetched a page at a time as the parts come up, each page once. */
class PartUrls {
  private readonly known = new Map<number, PresignedRequest>();
  private readonly pending = new Map<number, Promise<void>>();

  constructor(
    private readonly ctx: Context,
    private readonly build: BuildParams,
    seed: readonly PresignedRequest[] = [],
  ) {
    seed.forEach((request, i) => {
      this.known.set(i + 1, request);
    });
  }

  async get(part: number): Promise<PresignedRequest> {
    const hit = this.known.get(part);
    if (hit !== undefined) return hit;
    for (const [from, fetching] of this.pending) {
      if (from <= part && part < from + PRESIGN_PAGE) {
        await fetching;
        const now = this.known.get(part);
        if (now !== undefined) return now;
      }
    }
    await this.fetchFrom(part);
    const fetched = this.known.get(part);
    if (fetched === undefined) throw new Error(`the service presigned no URL for part ${part}`);
    return fetched;
  }

  /** Drops a URL the store refused (expired, say): the next get signs it anew. */
  forget(part: number): void {
    this.known.delete(part);
  }

  private fetchFrom(from: number): Promise<void> {
    const running = this.pending.get(from);
    if (running !== undefined) return running;
    const job = withRetries(() =>
      unwrap(
        this.ctx.api.GET('/games/{game_id}/environments/{environment_id}/builds/{build_id}/parts', {
          params: { path: this.build, query: { from_part: String(from) } },
        }),
      ),
    )
      .then((page) => {
        page.presigned_requests.forEach((request, i) => {
          this.known.set(from + i, request);
        });
      })
      .finally(() => this.pending.delete(from));
    this.pending.set(from, job);
    return job;
  }
}

/** Bytes, rate and ETA on stderr; nothing at all when stderr is not a terminal or the output is JSON. */
class Progress {
  private readonly bar: cliProgress.SingleBar | undefined;
  private value: number;
  private readonly startedAt = Date.now();
  private readonly startValue: number;

  constructor(
    enabled: boolean,
    private readonly total: number,
    already: number,
  ) {
    this.value = already;
    this.startValue = already;
    if (!enabled || total === 0) return;
    this.bar = new cliProgress.SingleBar({
      format: 'uploading [{bar}] {percentage}% | {sent} / {size} | {rate}/s | ETA {eta_formatted}',
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
    });
    this.bar.start(total, already, this.payload());
  }

  add(delta: number): void {
    this.value += delta;
    this.bar?.update(this.value, this.payload());
  }

  stop(): void {
    this.bar?.stop();
  }

  private payload() {
    const seconds = Math.max((Date.now() - this.startedAt) / 1000, 0.001);
    return {
      sent: formatBytes(this.value),
      size: formatBytes(this.total),
      rate: formatBytes(Math.max(this.value - this.startValue, 0) / seconds),
    };
  }
}

/**
 * Uploads `parts` with at most `concurrency` PUTs at a time. The first part to fail for good stops the
 * rest (in flight ones are aborted), so the run ends soon and a re-run resumes from what arrived.
 */
async function uploadParts(
  file: string,
  parts: readonly number[],
  urls: PartUrls,
  concurrency: number,
  progress: Progress,
): Promise<void> {
  const abort = new AbortController();
  let next = 0;
  let failure: unknown;
  const uploadOne = async (part: number) => {
    let refreshed = false;
    await withRetries(
      async () => {
        const request = await urls.get(part);
        try {
          await putFileRange(
            request.url,
            { file, offset: request.byte_offset, length: request.content_length, part },
            (delta) => progress.add(delta),
            abort.signal,
          );
        } catch (err) {
          // A URL that outlived its signature (a long upload, or a resumed one): sign it again, once.
          if (err instanceof PartRefusedError && err.status === 403 && !refreshed) {
            refreshed = true;
            urls.forget(part);
            throw new TransientError(err.message, 0);
          }
          throw err;
        }
      },
      {
        transient: isTransientApiError,
        signal: abort.signal,
        onRetry: (err, waitMs) => {
          const message = (err as Error).message;
          const what = message.startsWith(`part ${part}:`) ? message : `part ${part}: ${message}`;
          note(`${what}; retrying in ${(waitMs / 1000).toFixed(1)} s`);
        },
      },
    );
  };
  const worker = async () => {
    while (failure === undefined && next < parts.length) {
      const part = parts[next++] as number;
      try {
        await uploadOne(part);
      } catch (err) {
        if (failure === undefined) failure = err;
        abort.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, parts.length) }, worker));
  if (failure !== undefined) throw failure;
}

/** The part numbers complete says are missing, or undefined when it refused for another reason. */
function missingParts(err: unknown): number[] | undefined {
  if (!(err instanceof ApiError) || err.status !== 400 || err.code !== 'UPLOAD_INCOMPLETE') return undefined;
  const parts = err.metadata?.parts;
  if (!Array.isArray(parts) || !parts.every((p) => Number.isInteger(p) && p >= 1)) return undefined;
  return parts as number[];
}

const isNotFound = (err: unknown) => err instanceof ApiError && err.status === 404;

/**
 * Pushes a build image: prepare, PUT every part, complete; or, when a state file says an earlier run
 * prepared this very file and did not finish, only the parts the service says are missing. The state file
 * goes once the build is complete.
 */
export async function pushBuild(ctx: Context, opts: PushOptions): Promise<PushResult> {
  for (const key of opts.exclusiveTags) {
    if (!Object.hasOwn(opts.tags, key)) {
      throw new UsageError(`--exclusive-tag ${key}: give the tag's value too, with --tag ${key}=VALUE`);
    }
  }
  const absolute = path.resolve(opts.file);
  const { size, mtimeMs } = statImage(absolute);
  const statePath = statePathFor(ctx, opts, absolute, size, mtimeMs);
  const environment = { game_id: opts.gameId, environment_id: opts.environmentId };
  const showProgress = process.stderr.isTTY === true && !ctx.json;

  let state = readState(statePath);
  let toUpload: number[] | undefined;
  let resumed = false;
  if (state !== undefined) {
    try {
      await completeBuild(ctx, { ...environment, build_id: state.build_id });
      toUpload = [];
    } catch (err) {
      const missing = missingParts(err);
      if (missing !== undefined) {
        toUpload = missing;
      } else if (isNotFound(err)) {
        note(`the service no longer knows build ${state.build_id}: starting the upload over`);
        rmSync(statePath, { force: true });
        state = undefined;
      } else {
        throw err;
      }
    }
    if (state !== undefined) {
      resumed = true;
      note(
        `resuming build ${state.build_id}: ${toUpload?.length ?? 0} of ${state.part_count} part(s) left to upload`,
      );
    }
  }

  let urls: PartUrls;
  if (state === undefined) {
    const sha256 = opts.sha256 ?? (await sha256File(absolute));
    const name = opts.name ?? path.basename(absolute);
    const tags = { ...opts.tags, [SHA256_TAG]: sha256 };
    // The service refuses a multipart upload under MULTIPART_MIN_BYTES and splits a larger one into parts of
    // its own size (GCM_BUILD_PART_SIZE_BYTES), which a client cannot ask for: so every file of at least that
    // size is sent as multipart, and the service's part_count says whether that made more than one part.
    const multipart = size >= MULTIPART_MIN_BYTES;
    const body: Schema<'PrepareBuildBody'> = {
      name,
      image_file: {
        path: path.basename(absolute),
        content_type: 'application/octet-stream',
        content_length: size,
      },
      multipart_upload: multipart,
      tags,
    };
    // One key for every try: a prepare whose answer was lost is answered again, not made twice.
    const idempotencyKey = randomUUID();
    const prepared = await withRetries(() =>
      unwrap(
        ctx.api.POST('/games/{game_id}/environments/{environment_id}/builds/prepare', {
          params: { path: environment },
          body,
          headers: { 'idempotency-key': idempotencyKey },
        }),
      ),
    );
    state = {
      version: 1,
      build_id: prepared.build_id,
      part_count: prepared.part_count,
      multipart,
      name,
      tags,
      prepared_at: new Date().toISOString(),
    };
    writeState(statePath, state);
    urls = new PartUrls(ctx, { ...environment, build_id: state.build_id }, prepared.presigned_requests);
    toUpload = Array.from({ length: state.part_count }, (_, i) => i + 1);
  } else {
    urls = new PartUrls(ctx, { ...environment, build_id: state.build_id });
  }

  const build: BuildParams = { ...environment, build_id: state.build_id };
  const uploaded = new Set<number>();
  const partSize = state.part_count > 1 ? Math.ceil(size / state.part_count) : size;
  // Bytes already there: every part but the missing ones (the last part may be shorter; close enough for a bar).
  const pending = toUpload ?? [];
  const already = Math.max(size - pending.length * partSize, 0);
  const progress = new Progress(showProgress && pending.length > 0, size, already);
  try {
    for (let round = 0; pending.length > 0; round++) {
      await uploadParts(absolute, pending, urls, opts.concurrency, progress);
      for (const part of pending) uploaded.add(part);
      try {
        await completeBuild(ctx, build);
        pending.length = 0;
      } catch (err) {
        const missing = missingParts(err);
        if (missing === undefined || round + 1 >= COMPLETE_ROUNDS) throw err;
        note(`the service is missing part(s) ${missing.join(', ')}: uploading them again`);
        pending.splice(0, pending.length, ...missing);
      }
    }
  } finally {
    progress.stop();
  }
  rmSync(statePath, { force: true });

  // Tags given to a resumed run were not part of its prepare: they are set now, like the exclusive ones.
  const later = Object.fromEntries(
    Object.entries(opts.tags).filter(
      ([key, value]) => opts.exclusiveTags.includes(key) || (resumed && state.tags[key] !== value),
    ),
  );
  if (Object.keys(later).length > 0) {
    const patch: Schema<'PatchTagsBody'> = {
      tags: later,
      ...(opts.exclusiveTags.length === 0 ? {} : { exclusive_tags: opts.exclusiveTags }),
    };
    await withRetries(() =>
      unwrap(
        ctx.api.PATCH('/games/{game_id}/environments/{environment_id}/builds/{build_id}/tags', {
          params: { path: build },
          body: patch,
        }),
      ),
    );
  }
  const tags = { ...state.tags, ...later };
  return {
    build_id: state.build_id,
    name: state.name,
    content_length: size,
    multipart: state.multipart,
    parts: state.part_count,
    parts_uploaded: uploaded.size,
    parts_skipped: state.part_count - uploaded.size,
    resumed,
    tags,
  };
}

/** Complete is safe to repeat (a completed build answers 204 again), so it is retried like a read. */
async function completeBuild(ctx: Context, build: BuildParams): Promise<void> {
  await withRetries(() =>
    unwrap(
      ctx.api.POST('/games/{game_id}/environments/{environment_id}/builds/{build_id}/complete', {
        params: { path: build },
      }),
    ),
  );
}

/** Every completed build of the environment having every tag, newest first, all pages. */
export async function listBuilds(
  ctx: Context,
  gameId: string,
  environmentId: string,
  tags: Record<string, string>,
  limit?: number,
): Promise<Build[]> {
  const builds: Build[] = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(
      ctx.api.GET('/games/{game_id}/environments/{environment_id}/builds', {
        params: {
          path: { game_id: gameId, environment_id: environmentId },
          query: {
            tags_json: Object.keys(tags).length === 0 ? undefined : JSON.stringify(tags),
            limit: String(limit === undefined ? 1000 : Math.min(limit - builds.length, 1000)),
            cursor,
          },
        },
      }),
    );
    builds.push(...page.builds);
    cursor = page.cursor;
  } while (cursor !== undefined && (limit === undefined || builds.length < limit));
  return builds;
}
