import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import tarStream from 'tar-stream';
import { type TarEntry, tar } from './tar.js';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A hand-made `docker save` archive (no engine): its entries, and the image id and diff ids it should read as. */
export interface MadeImage {
  entries: TarEntry[];
  manifest: TarEntry;
  id: string;
  diffIds: string[];
  configName: string;
}

/**
 * One image of `layers` (each a layer tar, stored as given or gzipped), under `repoTags`. The manifest entry is
 * kept apart (last) so that a test can replace or hide it.
 */
export function makeImage(
  options: { layers?: Buffer[]; gzip?: boolean; repoTags?: string[] | null; label?: string } = {},
): MadeImage {
  const layers = options.layers ?? [
    tar([{ type: 'file', name: 'hello.txt', content: options.label ?? 'hello' }]),
  ];
  const diffIds = layers.map((layer) => `sha256:${sha256(layer)}`);
  const config = JSON.stringify({
    architecture: 'amd64',
    os: 'linux',
    config: { Entrypoint: ['/hello'], Labels: { made: options.label ?? 'test' } },
    rootfs: { type: 'layers', diff_ids: diffIds },
  });
  const configHex = sha256(config);
  const configName = `${configHex}.json`;
  const dir = (i: number) => `${options.label ?? 'l'}${i}`;
  const layerEntries: TarEntry[] = layers.flatMap((layer, i) => [
    { type: 'dir', name: dir(i) } as const,
    {
      type: 'file',
      name: `${dir(i)}/layer.tar`,
      content: options.gzip === true ? gzipSync(layer) : layer,
    } as const,
  ]);
  const manifest: TarEntry = {
    type: 'file',
    name: 'manifest.json',
    content: JSON.stringify([
      {
        Config: configName,
        RepoTags: options.repoTags === undefined ? ['made:1'] : options.repoTags,
        Layers: layers.map((_, i) => `${dir(i)}/layer.tar`),
      },
    ]),
  };
  return {
    entries: [...layerEntries, { type: 'file', name: configName, content: config }],
    manifest,
    id: `sha256:${configHex}`,
    diffIds,
    configName,
  };
}

/** A tar's entries, read back (files with their bytes): to change a real `docker save` archive. */
export async function readTar(archive: Buffer): Promise<TarEntry[]> {
  const extract = tarStream.extract();
  const entries: TarEntry[] = [];
  const done = (async () => {
    for await (const entry of extract) {
      const { name, type, linkname } = entry.header;
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      if (type === 'directory') entries.push({ type: 'dir', name });
      else if (type === 'symlink') entries.push({ type: 'symlink', name, target: linkname ?? '' });
      else entries.push({ type: 'file', name, content: Buffer.concat(chunks) });
    }
  })();
  extract.end(archive);
  await done;
  return entries;
}

/** A real `docker save` archive with its manifest.json's RepoTags set to `repoTags`. */
export async function withRepoTags(archive: Buffer, repoTags: string[]): Promise<Buffer> {
  const entries = await readTar(archive);
  return tar(
    entries.map((entry) => {
      if (entry.type !== 'file' || entry.name !== 'manifest.json') return entry;
      const manifest = JSON.parse(entry.content.toString()) as { RepoTags?: string[] }[];
      for (const item of manifest) item.RepoTags = repoTags;
      return { ...entry, content: JSON.stringify(manifest) };
    }),
  );
}
