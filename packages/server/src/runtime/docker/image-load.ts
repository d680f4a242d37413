import { pipeline, type Readable } from 'node:stream';
import { type ImageArchive, ImageLoadError } from '../driver.js';
import { type DockerEngine, DockerEngineError, jsonLines } from './engine.js';
import { ArchiveCheck } from './image-archive.js';

/** The tag (repository:tag) under which a loaded archive is found again, by its sha256, after a restart. */
const ARCHIVE_TAG_REPO = 'gcm-archive';
/** An archive upload may be quiet this long (the engine reading layers) before it is abandoned. */
const LOAD_IDLE_MS = 10 * 60_000;

/**
 * Loads a build archive into one engine, checking its size and sha256 as it streams, and tags it by that
 * sha256 so a later call (after a restart, or from another instance) finds it without loading it again.
 * Answers the image id. Both drivers load through here: docker into each region's engine, swarm into the
 * manager's before it pushes to the registry.
 */
export async function loadArchive(engine: DockerEngine, archive: ImageArchive): Promise<string> {
  const sha256 = archive.sha256.toLowerCase();
  const tag = `${ARCHIVE_TAG_REPO}:${sha256}`;
  // Loaded before (by this service before a restart, or another instance): found by its archive's digest.
  const tagged = await inspectImage(engine, tag);
  if (tagged !== undefined) return tagged;
  const check = new ArchiveCheck({ buildId: archive.buildId, size: archive.size, sha256 });
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
    if (check.failure !== undefined) throw check.failure;
    if (err instanceof ImageLoadError) throw err;
    // Blob storage failed: not the archive's fault, so not an ImageLoadError (a later start retries).
    if (sourceError !== undefined || source === undefined) {
      throw new Error(
        `build ${archive.buildId}: reading its archive from blob storage failed: ${(sourceError ?? (err as Error)).message}`,
      );
    }
    // The engine answered, and refused what it read; no status means it could not be reached.
    if (err instanceof DockerEngineError && err.status !== undefined) {
      throw new ImageLoadError(refusal(archive.buildId, err.message));
    }
    throw err;
  } finally {
    // The engine may answer before it has read everything (a refusal): the rest is not read.
    source?.destroy();
  }
  if (check.failure !== undefined) throw check.failure;
  const image = await loadedImageId(engine, check.manifestImageId(), messages);
  if (image === undefined) {
    throw new ImageLoadError(
      `build ${archive.buildId}: the engine loaded the archive but named no single image (${messages.join('; ') || 'no answer'}); a build archive holds one image`,
    );
  }
  const [repo, tagName] = tag.split(':') as [string, string];
  await engine.json({
    method: 'POST',
    path: `/images/${image}/tag`,
    query: { repo, tag: tagName },
  });
  return image;
}

/** The loaded image's id, from the archive's manifest.json or else the engine's `Loaded image…` lines. */
async function loadedImageId(
  engine: DockerEngine,
  fromManifest: string | undefined,
  messages: readonly string[],
): Promise<string | undefined> {
  if (fromManifest !== undefined) return inspectImage(engine, fromManifest);
  const ids = messages.flatMap((m) => /^Loaded image ID: (sha256:[0-9a-f]{64})$/.exec(m)?.slice(1) ?? []);
  const refs = messages.flatMap((m) => /^Loaded image: (\S+)$/.exec(m)?.slice(1) ?? []);
  if (ids.length + refs.length !== 1) return undefined;
  return ids[0] ?? inspectImage(engine, refs[0] as string);
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
