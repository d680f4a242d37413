import { pipeline, type Readable, Writable } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import { type ImageArchive, ImageLoadError } from '../driver.js';
import { type DockerEngine, DockerEngineError, jsonLines } from './engine.js';
import { ArchiveCheck, UPLOAD_HINT, unpackedLimit, type VerifiedImage } from './image-archive.js';

/** The tag (repository:tag) a loaded archive carries, by its sha256: a hint for finding it again, never trusted alone. */
const ARCHIVE_TAG_REPO = 'gcm-archive';
/** An archive upload may be quiet this long (the engine reading layers) before it is abandoned. */
const LOAD_IDLE_MS = 10 * 60_000;

export interface LoadOptions {
  /** GCM_BUILD_MAX_UNPACKED_BYTES: the most an archive may unpack to (also never past 4 times its size). */
  maxUnpackedBytes?: number;
}

/**
 * Loads a build archive into one engine and answers the image id the service read from the archive itself: the
 * sha256 of its config as streamed, its layers checked against the config (see ArchiveCheck). The engine is never
 * asked which image an archive is by a name: names are what an archive sets. A found `gcm-archive:<sha256>` tag is
 * taken only once the archive, read again, is that image. Both drivers load through here: docker into each
 * region's engine, swarm into the manager's before it pushes to the registry.
 */
export async function loadArchive(
  engine: DockerEngine,
  archive: ImageArchive,
  options: LoadOptions = {},
): Promise<string> {
  const sha256 = archive.sha256.toLowerCase();
  const tag = `${ARCHIVE_TAG_REPO}:${sha256}`;
  const limit = unpackedLimit(archive.size, options.maxUnpackedBytes);
  // Loaded before (by this service before a restart, or another instance): read, not loaded, again.
  const tagged = await inspectImage(engine, tag);
  if (tagged !== undefined) {
    const { id } = await readArchive(archive, limit);
    if ((await inspectImage(engine, id)) === id) {
      if (tagged !== id) await tagImage(engine, id, tag);
      return id;
    }
  }
  const { verified, messages } = await streamLoad(engine, archive, limit);
  const foreign = loadedElse(messages, verified);
  const found = await inspectImage(engine, verified.id);
  if (found !== verified.id || foreign.length > 0) {
    await untag(engine, foreign, verified.id);
    throw new ImageLoadError(
      `build ${archive.buildId}: the engine loaded the archive as something else than the image the service read in it (${verified.id}): ${messages.join('; ') || 'no answer'}. ${UPLOAD_HINT}`,
    );
  }
  await tagImage(engine, verified.id, tag);
  return verified.id;
}

/** Streams the archive into the engine through the check; answers what the check read and what the engine said. */
async function streamLoad(
  engine: DockerEngine,
  archive: ImageArchive,
  maxUnpackedBytes: number,
): Promise<{ verified: VerifiedImage; messages: string[] }> {
  const check = new ArchiveCheck({
    buildId: archive.buildId,
    size: archive.size,
    sha256: archive.sha256.toLowerCase(),
    maxUnpackedBytes,
  });
  const messages: string[] = [];
  let source: Readable | undefined;
  let sourceError: Error | undefined;
  try {
    source = await archive.open();
    // pipeline, not pipe: a refused archive also ends the read from blob storage.
    pipeline(source, check, (err) => {
      if (err !== undefined && err !== null && check.failure === undefined) sourceError ??= err;
    });
    const response = await engine.open({
      method: 'POST',
      path: '/images/load',
      query: { quiet: 1 },
      bodyStream: check,
      contentType: 'application/x-tar',
      idleTimeoutMs: LOAD_IDLE_MS,
    });
    for await (const message of jsonLines(response)) {
      const { stream, error } = message as { stream?: unknown; error?: unknown };
      if (typeof error === 'string') throw new ImageLoadError(refusal(archive.buildId, error));
      if (typeof stream === 'string' && stream.trim() !== '') messages.push(stream.trim());
    }
  } catch (err) {
    throw loadFailure(archive, check, source, sourceError, err);
  } finally {
    // The engine may answer before it has read everything (a refusal): the rest is not read.
    source?.destroy();
  }
  if (check.failure !== undefined) throw check.failure;
  if (check.verified === undefined) {
    throw new ImageLoadError(
      `build ${archive.buildId}: the engine answered before the archive was read to its end`,
    );
  }
  return { verified: check.verified, messages };
}

/** Reads the archive through the check alone (no engine): which image it is. */
async function readArchive(archive: ImageArchive, maxUnpackedBytes: number): Promise<VerifiedImage> {
  const check = new ArchiveCheck({
    buildId: archive.buildId,
    size: archive.size,
    sha256: archive.sha256.toLowerCase(),
    maxUnpackedBytes,
  });
  let source: Readable | undefined;
  try {
    source = await archive.open();
    await pipelineAsync(
      source,
      check,
      new Writable({
        write(_chunk, _encoding, callback) {
          callback();
        },
      }),
    );
  } catch (err) {
    throw loadFailure(archive, check, source, source === undefined ? undefined : (err as Error), err);
  } finally {
    source?.destroy();
  }
  if (check.verified === undefined)
    throw new Error(`build ${archive.buildId}: its archive was not read to its end`);
  return check.verified;
}

function loadFailure(
  archive: ImageArchive,
  check: ArchiveCheck,
  source: Readable | undefined,
  sourceError: Error | undefined,
  err: unknown,
): Error {
  if (check.failure !== undefined) return check.failure;
  if (err instanceof ImageLoadError) return err;
  // Blob storage failed: not the archive's fault, so not an ImageLoadError (a later start retries).
  if (sourceError !== undefined || source === undefined) {
    return new Error(
      `build ${archive.buildId}: reading its archive from blob storage failed: ${(sourceError ?? (err as Error)).message}`,
    );
  }
  // The engine answered, and refused what it read; no status means it could not be reached.
  if (err instanceof DockerEngineError && err.status !== undefined) {
    return new ImageLoadError(refusal(archive.buildId, err.message));
  }
  return err as Error;
}

/**
 * What the engine says it loaded besides the image the service read: `Loaded image: NAME` lines for names the
 * archive's manifest.json does not carry, `Loaded image ID: ID` lines for another id.
 */
function loadedElse(messages: readonly string[], verified: VerifiedImage): string[] {
  const tags = new Set(verified.repoTags.map(familiar));
  const names = messages.flatMap((m) => /^Loaded image: (\S+)$/.exec(m)?.slice(1) ?? []);
  const ids = messages.flatMap((m) => /^Loaded image ID: (sha256:[0-9a-f]{64})$/.exec(m)?.slice(1) ?? []);
  return [...names.filter((n) => !tags.has(familiar(n))), ...ids.filter((id) => id !== verified.id)];
}

/** A reference as the engine prints it: without docker.io/library/, with its tag. */
function familiar(reference: string): string {
  const short = reference.replace(/^(?:docker\.io|index\.docker\.io)\/(?:library\/)?/, '');
  return short.lastIndexOf(':') > short.lastIndexOf('/') || short.includes('@') ? short : `${short}:latest`;
}

/** Removes names a refused load set, where they do not name the service's image. */
async function untag(engine: DockerEngine, references: readonly string[], keep: string): Promise<void> {
  for (const reference of references) {
    if (reference.startsWith('sha256:')) continue;
    const id = await inspectImage(engine, reference).catch(() => undefined);
    if (id === undefined || id === keep) continue;
    await engine
      .json(
        { method: 'DELETE', path: `/images/${encodeURIComponent(reference)}`, query: { noprune: 1 } },
        [404, 409],
      )
      .catch(() => undefined);
  }
}

export async function tagImage(engine: DockerEngine, id: string, reference: string): Promise<void> {
  const colon = reference.lastIndexOf(':');
  await engine.json({
    method: 'POST',
    path: `/images/${id}/tag`,
    query: { repo: reference.slice(0, colon), tag: reference.slice(colon + 1) },
  });
}

export async function inspectImage(engine: DockerEngine, reference: string): Promise<string | undefined> {
  const image = await engine.json<{ Id?: string }>(
    { method: 'GET', path: `/images/${encodeURIComponent(reference)}/json` },
    [404],
  );
  return image?.Id;
}

function refusal(buildId: string, why: string): string {
  return `build ${buildId}: the Docker engine refused the archive as an image: ${why}. Upload the output of \`docker save IMAGE -o server.tar\``;
}
