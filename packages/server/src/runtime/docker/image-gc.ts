import { createHash } from 'node:crypto';
import { type EngineDisk, type ImageArchive, ImageBudgetError } from '../driver.js';
import type { DockerEngine } from './engine.js';
import { formatBytes } from './image-archive.js';
import { type LoadOptions, loadArchive } from './image-load.js';

/*
 * Which images on an engine are this service's, proven by tags it wrote, and their removal. An engine keeps
 * no label on a loaded image, so ownership is written as tags:
 * - `gcm-loaded-<owner>:<archive sha256>`: the service <owner> (runtime.service.ts ownerOf) loaded, or found
 *   and uses, the archive's image here. Two services sharing an engine each claim it; the last one to let go
 *   removes it.
 * - `gcm-brought:<sha256 of tag and image id>`: the load itself put `tag` on this image (a `docker save`
 *   archive names its image, `busybox:latest` say). A tag without its proof was there before the load, or
 *   put there by someone since: the operator's, and never removed.
 * `gcm-archive:<archive sha256>` (image-load.ts) finds a loaded archive again; it is shared by every service.
 */

/** The repository image-load.ts tags a loaded archive under (`gcm-archive:<archive sha256>`). */
const ARCHIVE_TAG_REPO = 'gcm-archive';
const OWNER_REPO_PREFIX = 'gcm-loaded-';
const BROUGHT_REPO = 'gcm-brought';

interface ImageSummary {
  Id: string;
  RepoTags?: string[] | null;
  RepoDigests?: string[] | null;
  Size?: number;
}

/** One engine's image list, `repo:tag` → image id, as a load's "before" reads it. */
export type TagMap = ReadonlyMap<string, string>;

/** A build image this service loaded on an engine. */
export interface ServiceImage {
  id: string;
  tags: string[];
  /** The sha256 of each archive it was loaded (or found) for. */
  archives: string[];
  sizeBytes: number;
}

export function ownerRepo(owner: string): string {
  return `${OWNER_REPO_PREFIX}${owner}`;
}

/** `repo:tag` split at the tag's colon (a registry's `host:port/` has its colon before a slash). */
function splitTag(reference: string): { repo: string; tag: string } {
  const colon = reference.lastIndexOf(':');
  if (colon < 0 || colon < reference.lastIndexOf('/')) return { repo: reference, tag: 'latest' };
  return { repo: reference.slice(0, colon), tag: reference.slice(colon + 1) };
}

/** The path segment of an image reference: a registry's slashes stay slashes, the rest is escaped. */
function imagePath(reference: string): string {
  return reference.split('/').map(encodeURIComponent).join('/');
}

function proofOf(tag: string, imageId: string): string {
  return createHash('sha256').update(`${tag}\n${imageId}`).digest('hex');
}

/**
 * Tags only the service writes: its archive, owner and proof tags, and the driver's own (`extraRepos`: the
 * swarm's registry repository of builds).
 */
function isServiceTag(tag: string, extraRepos: readonly string[]): boolean {
  const { repo } = splitTag(tag);
  return (
    repo === ARCHIVE_TAG_REPO ||
    repo === BROUGHT_REPO ||
    repo.startsWith(OWNER_REPO_PREFIX) ||
    extraRepos.includes(repo)
  );
}

async function listImages(engine: DockerEngine): Promise<ImageSummary[]> {
  return (await engine.json<ImageSummary[]>({ method: 'GET', path: '/images/json' })) ?? [];
}

function realTags(image: ImageSummary): string[] {
  return (image.RepoTags ?? []).filter((tag) => tag !== '<none>:<none>');
}

/** Every tag on the engine and the image it names: what a load is compared against afterwards. */
export async function tagMap(engine: DockerEngine): Promise<TagMap> {
  const tags = new Map<string, string>();
  for (const image of await listImages(engine)) for (const tag of realTags(image)) tags.set(tag, image.Id);
  return tags;
}

async function tag(engine: DockerEngine, imageId: string, reference: string): Promise<void> {
  const { repo, tag: name } = splitTag(reference);
  await engine.json({ method: 'POST', path: `/images/${imageId}/tag`, query: { repo, tag: name } });
}

/** Removes one tag; the last one removes the image. False when the engine refuses (a container uses it). */
async function untag(engine: DockerEngine, reference: string): Promise<boolean> {
  try {
    await engine.json({ method: 'DELETE', path: `/images/${imagePath(reference)}` }, [404]);
    return true;
  } catch (err) {
    if ((err as { status?: number }).status === 409) return false;
    throw err;
  }
}

/**
 * Writes down, after a load (or a find) of `sha256`'s archive as `imageId`, that this service uses it and
 * which of its tags the load put there: those that did not name this image `before`.
 */
export async function claimLoad(
  engine: DockerEngine,
  load: { owner: string; sha256: string; imageId: string; before: TagMap; extraRepos?: readonly string[] },
): Promise<void> {
  const extra = load.extraRepos ?? [];
  const inspected = await engine.json<{ RepoTags?: string[] | null }>({
    method: 'GET',
    path: `/images/${load.imageId}/json`,
  });
  for (const name of inspected?.RepoTags ?? []) {
    if (isServiceTag(name, extra) || load.before.get(name) === load.imageId) continue;
    await tag(engine, load.imageId, `${BROUGHT_REPO}:${proofOf(name, load.imageId)}`);
  }
  await tag(engine, load.imageId, `${ownerRepo(load.owner)}:${load.sha256.toLowerCase()}`);
}

/**
 * After a load that failed once the engine had read the archive (it held two images, say): the tags the
 * load put on images that were not on the engine `before` are removed, and with them those images. An image
 * that was there before, or carries a service tag (another load's), is left alone.
 */
export async function cleanFailedLoad(
  engine: DockerEngine,
  before: TagMap,
  extraRepos: readonly string[] = [],
): Promise<void> {
  const known = new Set(before.values());
  for (const image of await listImages(engine)) {
    const tags = realTags(image);
    if (known.has(image.Id) || tags.length === 0) continue;
    if (tags.some((t) => isServiceTag(t, extraRepos) || before.has(t))) continue;
    for (const t of tags) if (!(await untag(engine, t))) break;
  }
}

/** The build images `owner` loaded on the engine. */
export async function serviceImages(engine: DockerEngine, owner: string): Promise<ServiceImage[]> {
  const repo = ownerRepo(owner);
  const images: ServiceImage[] = [];
  for (const image of await listImages(engine)) {
    const tags = realTags(image);
    const archives = tags.map(splitTag).flatMap((t) => (t.repo === repo ? [t.tag] : []));
    if (archives.length > 0) images.push({ id: image.Id, tags, archives, sizeBytes: image.Size ?? 0 });
  }
  return images;
}

/** The archives any service claims on the engine (`gcm-loaded-<owner>:<sha256>`, whoever the owner). */
export async function claimedArchives(engine: DockerEngine): Promise<Set<string>> {
  const claimed = new Set<string>();
  for (const image of await listImages(engine)) {
    for (const name of realTags(image)) {
      const { repo, tag } = splitTag(name);
      if (repo.startsWith(OWNER_REPO_PREFIX)) claimed.add(tag);
    }
  }
  return claimed;
}

async function inUse(engine: DockerEngine, imageId: string): Promise<boolean> {
  const containers = await engine.json<unknown[]>({
    method: 'GET',
    path: '/containers/json',
    query: { all: true, filters: JSON.stringify({ ancestor: [imageId] }) },
  });
  return (containers ?? []).length > 0;
}

/**
 * Removes `owner`'s images none of whose archives is in `keep`: its claim first; then, when no other service
 * claims the image and no container uses it, the service's tags and those its load brought, the image with
 * the last. An image someone else tagged since keeps those tags and stays, no longer the service's.
 */
export async function collectOn(
  engine: DockerEngine,
  owner: string,
  keep: (sha256: string) => boolean,
  extraRepos: readonly string[] = [],
): Promise<{ removed: number; freedBytes: number; kept: number; dropped: string[] }> {
  const mine = ownerRepo(owner);
  let removed = 0;
  let freedBytes = 0;
  let kept = 0;
  const dropped: string[] = [];
  for (const image of await serviceImages(engine, owner)) {
    const drop = image.archives.filter((sha) => !keep(sha));
    if (drop.length === 0) continue;
    dropped.push(...drop);
    const others = image.tags.filter((t) => {
      const { repo } = splitTag(t);
      return repo.startsWith(OWNER_REPO_PREFIX) && repo !== mine;
    });
    if (drop.length < image.archives.length || others.length > 0) {
      // Still needed, for another archive of ours or by another service: only these claims go.
      for (const sha of drop) await untag(engine, `${mine}:${sha}`);
      continue;
    }
    if (await inUse(engine, image.id)) {
      kept++;
      continue;
    }
    const proofs = new Set(
      image.tags.flatMap((t) => (splitTag(t).repo === BROUGHT_REPO ? [splitTag(t).tag] : [])),
    );
    const foreign = image.tags.filter(
      (t) => !isServiceTag(t, extraRepos) && !proofs.has(proofOf(t, image.id)),
    );
    // The claim goes last: a removal cut short leaves the image found again by the next collection.
    const last = `${mine}:${drop[0] as string}`;
    const first = image.tags.filter((t) => t !== last && !foreign.includes(t));
    for (const t of first) await untag(engine, t);
    if (foreign.length > 0) {
      await untag(engine, last);
      kept++;
    } else if (await untag(engine, last)) {
      removed++;
      freedBytes += image.sizeBytes;
    } else kept++;
  }
  return { removed, freedBytes, kept, dropped };
}

/** An image with names in a repository the driver writes (the swarm's registry repository of builds). */
export interface RepositoryImage {
  id: string;
  /** Its tags in the repository (`<repo>:<tag>` → tag). */
  tags: string[];
  /** Its digests in the repository (`<repo>@<digest>` → digest): all a node that pulled by digest records. */
  digests: string[];
  /** Whether it carries a name of another repository: it is not the driver's to remove, only to untag. */
  named: boolean;
  /** Whether it carries a tag of the service's own (an owner's claim, an archive's): collectOn's, not ours. */
  serviceTagged: boolean;
  sizeBytes: number;
}

/** The engine's images with a tag or a digest in `repository`. */
export async function repositoryImages(engine: DockerEngine, repository: string): Promise<RepositoryImage[]> {
  const images: RepositoryImage[] = [];
  for (const image of await listImages(engine)) {
    const tags: string[] = [];
    const digests: string[] = [];
    let named = false;
    let serviceTagged = false;
    for (const name of realTags(image)) {
      const { repo, tag } = splitTag(name);
      if (repo === repository) tags.push(tag);
      else if (isServiceTag(name, [])) serviceTagged = true;
      else named = true;
    }
    for (const name of image.RepoDigests ?? []) {
      const at = name.lastIndexOf('@');
      if (at > 0 && name.slice(0, at) === repository) digests.push(name.slice(at + 1));
      else if (at > 0 && name !== '<none>@<none>') named = true;
    }
    if (tags.length + digests.length === 0) continue;
    images.push({ id: image.Id, tags, digests, named, serviceTagged, sizeBytes: image.Size ?? 0 });
  }
  return images;
}

/**
 * Removes the names `images` carry in `repository`, tags first, when no container uses the image: the last
 * name removes the image, unless it has a name elsewhere (then it stays, counted kept, that name's owner's).
 */
export async function removeRepositoryNames(
  engine: DockerEngine,
  repository: string,
  images: readonly RepositoryImage[],
): Promise<{ removed: number; freedBytes: number; kept: number }> {
  let removed = 0;
  let freedBytes = 0;
  let kept = 0;
  for (const image of images) {
    if (await inUse(engine, image.id)) {
      kept++;
      continue;
    }
    const names = [
      ...image.tags.map((t) => `${repository}:${t}`),
      ...image.digests.map((d) => `${repository}@${d}`),
    ];
    let refused = false;
    for (const name of names) {
      if (!(await untag(engine, name))) {
        refused = true;
        break;
      }
    }
    if (refused || image.named) kept++;
    else {
      removed++;
      freedBytes += image.sizeBytes;
    }
  }
  return { removed, freedBytes, kept };
}

interface SystemDf {
  LayersSize?: number;
  Containers?: { SizeRw?: number }[] | null;
  Volumes?: { UsageData?: { Size?: number } }[] | null;
  BuildCache?: { Size?: number }[] | null;
}

const sum = (values: readonly (number | undefined)[]) =>
  values.reduce<number>((total, v) => total + Math.max(0, v ?? 0), 0);

/** The engine's own disk figures (GET /system/df) and the service's images among them. */
export async function engineDisk(
  engine: DockerEngine,
  owner: string,
  budgetBytes: number | undefined,
): Promise<EngineDisk> {
  const [df, images] = await Promise.all([
    // The engine sums every container's writable layer: slow on a busy host, so given time.
    engine.json<SystemDf>({ method: 'GET', path: '/system/df', idleTimeoutMs: 60_000 }),
    serviceImages(engine, owner),
  ]);
  return {
    imagesBytes: Math.max(0, df?.LayersSize ?? 0),
    containersBytes: sum((df?.Containers ?? []).map((c) => c.SizeRw)),
    buildCacheBytes: sum((df?.BuildCache ?? []).map((b) => b.Size)),
    volumesBytes: sum((df?.Volumes ?? []).map((v) => v.UsageData?.Size)),
    serviceImages: images.length,
    serviceImagesBytes: sum(images.map((i) => i.sizeBytes)),
    ...(budgetBytes === undefined ? {} : { budgetBytes }),
  };
}

/** Loads and collections per engine, one at a time: what a load brought is what changed while it ran. */
const loadChains = new WeakMap<DockerEngine, Promise<unknown>>();

/**
 * Loads the archive (image-load.ts) and claims the image for `owner`, one load per engine at a time, so the
 * tags that appeared during the load are the load's. Refused before reading the archive when the engine
 * already holds `budgetBytes` of the owner's build images; a load that fails takes away what it brought.
 */
export function loadClaimed(
  engine: DockerEngine,
  archive: ImageArchive,
  options: {
    owner: string;
    budgetBytes?: number | undefined;
    extraRepos?: readonly string[];
    /** What image-load.ts checks the archive against (the unpacked bound). */
    load?: LoadOptions;
  },
): Promise<string> {
  const run = async () => {
    const extra = options.extraRepos ?? [];
    const sha256 = archive.sha256.toLowerCase();
    const before = await tagMap(engine);
    const found = before.get(`${ARCHIVE_TAG_REPO}:${sha256}`);
    if (found === undefined && options.budgetBytes !== undefined) {
      const held = (await serviceImages(engine, options.owner)).reduce((n, i) => n + i.sizeBytes, 0);
      if (held + archive.size > options.budgetBytes) {
        throw new ImageBudgetError(budgetMessage(archive, held, options.budgetBytes));
      }
    }
    let imageId: string;
    try {
      imageId = await loadArchive(engine, archive, options.load ?? {});
    } catch (err) {
      if (found === undefined) await cleanFailedLoad(engine, before, extra).catch(() => undefined);
      throw err;
    }
    await claimLoad(engine, { owner: options.owner, sha256, imageId, before, extraRepos: extra });
    return imageId;
  };
  return serially(engine, run);
}

/**
 * Runs `work` after the engine's loads and collections under way in this process, and before later ones: a
 * collection never untags a name a load of this process is moving (an archive's `busybox:latest` onto its
 * image, before that image carries the service's tags).
 */
export function serially<T>(engine: DockerEngine, work: () => Promise<T>): Promise<T> {
  const previous = loadChains.get(engine) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(work);
  loadChains.set(engine, next);
  return next;
}

/** Said to the studio whose build it is: the host's address and other studios' builds are not named. */
function budgetMessage(archive: ImageArchive, held: number, budget: number): string {
  return `build ${archive.buildId} is not loaded: the Docker engine of its region already holds ${formatBytes(held)} of this service's build images, and the archive's ${formatBytes(archive.size)} would pass the engine's image budget of ${formatBytes(budget)} (GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES). Images no version needs are removed by the image collector; until then, or until the operator raises the budget, no new build starts there`;
}

/** A host's problem while it is over its image budget: said to every studio whose lobbies run there. */
export const OVER_BUDGET_PROBLEM =
  'the Docker engine of this region holds its whole image budget (GCM_RUNTIME_IMAGE_DISK_BUDGET_BYTES) of build images: a build not loaded there yet does not start until the image collector frees room or the operator raises the budget';
