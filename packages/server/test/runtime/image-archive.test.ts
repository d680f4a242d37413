import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import {
  ArchiveCheck,
  ArchiveProblem,
  DEFAULT_MAX_UNPACKED_BYTES,
  isServiceName,
  readImageArchive,
  unpackedLimit,
} from '../../src/runtime/docker/image-archive.js';
import { ImageLoadError } from '../../src/runtime/driver.js';
import { makeImage } from '../helpers/image-archives.js';
import { type TarEntry, tar } from '../helpers/tar.js';

/*
 * The archive check alone, no engine: what it reads an image archive as, and what it refuses. The engine's side
 * of each case (that it loads what the check read, and nothing of a refused archive) is docker-driver.test.ts's.
 */

const MiB = 1024 * 1024;

function chunked(bytes: Buffer, size = 65536): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

const read = (bytes: Buffer, limit = DEFAULT_MAX_UNPACKED_BYTES, chunk?: number) =>
  readImageArchive(chunked(bytes, chunk), limit);

async function refused(bytes: Buffer, pattern: RegExp, limit?: number): Promise<void> {
  await assert.rejects(read(bytes, limit), (err: Error) => {
    assert.ok(err instanceof ArchiveProblem, `not an ArchiveProblem: ${err.stack}`);
    assert.match(err.message, pattern);
    return true;
  });
}

describe('image archive check: what an archive reads as', () => {
  test('a docker save archive reads as its config digest, its names and its layers', async () => {
    const image = makeImage({ repoTags: ['studio/server:1.0'] });
    // Chunks of every size: a header or a body may be cut anywhere.
    for (const chunk of [7, 511, 65536]) {
      const verified = await read(tar([...image.entries, image.manifest]), undefined, chunk);
      assert.deepEqual(verified, { id: image.id, repoTags: ['studio/server:1.0'], diffIds: image.diffIds });
    }
  });

  test('a gzip layer is checked unpacked, against the config’s diff id', async () => {
    const image = makeImage({ gzip: true, repoTags: null });
    assert.deepEqual(await read(tar([...image.entries, image.manifest])), {
      id: image.id,
      repoTags: [],
      diffIds: image.diffIds,
    });
  });

  test('the manifest.json read is the one the engine reads: PAX path and GNU long names are applied', async () => {
    const real = makeImage({ label: 'real' });
    const decoy = makeImage({ label: 'decoy' });
    // The header says manifest.json, the PAX record another name; the real one is named by PAX alone.
    const paxDecoy = tar([
      ...real.entries,
      ...decoy.entries,
      { type: 'pax', records: { path: 'decoy-manifest.json' } },
      decoy.manifest,
      { type: 'pax', records: { path: 'manifest.json' } },
      { ...real.manifest, name: 'not-the-manifest.json' } as TarEntry,
    ]);
    assert.equal((await read(paxDecoy)).id, real.id);
    const longName = tar([
      ...real.entries,
      ...decoy.entries,
      { type: 'longname', name: 'decoy-manifest.json' },
      decoy.manifest,
      { type: 'longname', name: 'manifest.json' },
      { ...real.manifest, name: 'x.json' } as TarEntry,
    ]);
    assert.equal((await read(longName)).id, real.id);
  });

  test('a layer may be a symbolic link to a file in the archive, as docker save 25 writes them', async () => {
    const image = makeImage({ repoTags: null });
    const layer = image.entries.find((e) => e.type === 'file' && e.name === 'l0/layer.tar') as TarEntry;
    for (const target of ['../blobs/layer', '/blobs/layer']) {
      const linked = tar([
        ...image.entries.filter((e) => e !== layer),
        { type: 'dir', name: 'blobs' },
        { ...layer, name: 'blobs/layer' } as TarEntry,
        { type: 'symlink', name: 'l0/layer.tar', target },
        image.manifest,
      ]);
      assert.equal((await read(linked)).id, image.id, target);
    }
  });

  test('the bound is 4 times the archive’s size, and never past the setting', () => {
    assert.equal(unpackedLimit(1000), 4000);
    assert.equal(unpackedLimit(1000, 3999), 3999);
    assert.equal(unpackedLimit(10 * 1024 ** 3), DEFAULT_MAX_UNPACKED_BYTES);
  });

  test('names only the service gives are the service’s, in any registry or form', () => {
    for (const name of [
      'gcm-archive:abc',
      'docker.io/library/gcm-archive:abc',
      '127.0.0.1:5000/gcm-builds:abc',
      'registry.example:443/team/gcm-builds',
      'gcm-builds@sha256:00',
    ]) {
      assert.equal(isServiceName(name), true, name);
    }
    for (const name of ['gcm-test-server:1', 'busybox:latest', 'gcm-archive-x:1', 'studio/gcm-archived:2']) {
      assert.equal(isServiceName(name), false, name);
    }
  });
});

describe('image archive check: what it refuses', () => {
  const image = makeImage();
  const whole = (extra: TarEntry[] = [], manifest: TarEntry = image.manifest) =>
    tar([...image.entries, ...extra, manifest]);
  const manifestOf = (items: unknown) =>
    ({ type: 'file', name: 'manifest.json', content: JSON.stringify(items) }) as TarEntry;
  const item = { Config: image.configName, RepoTags: ['made:1'], Layers: ['l0/layer.tar'] };

  test('names only the service gives, in RepoTags or in index.json', async () => {
    for (const tag of [
      'gcm-archive:'.concat('a'.repeat(64)),
      '127.0.0.1:5000/gcm-builds:'.concat('b'.repeat(64)),
    ]) {
      await refused(
        whole([], manifestOf([{ ...item, RepoTags: ['ok:1', tag] }])),
        /a name only the service gives/,
      );
    }
  });

  test('more than one image, or an index.json of more than one manifest', async () => {
    const other = makeImage({ label: 'other' });
    await refused(
      tar([
        ...image.entries,
        ...other.entries,
        manifestOf([item, { ...item, Config: other.configName, Layers: ['other0/layer.tar'] }]),
      ]),
      /names 2 images where a build archive holds exactly one/,
    );
    const index = {
      type: 'file',
      name: 'index.json',
      content: JSON.stringify({ manifests: [{}, {}] }),
    } as TarEntry;
    await refused(whole([index]), /index\.json names 2 manifests/);
  });

  test('a second manifest.json, by any spelling of its name', async () => {
    for (const name of ['manifest.json', './manifest.json', 'x/../manifest.json', '/manifest.json']) {
      await refused(whole([{ ...image.manifest, name } as TarEntry]), /has manifest\.json twice/);
    }
  });

  test('what tar readers take differently: a PAX global header, entries after the end, a directory with data', async () => {
    await refused(
      whole([{ type: 'pax', global: true, records: { path: 'manifest.json' } }]),
      /PAX global header/,
    );
    const ended = Buffer.concat([tar(image.entries), tar([image.manifest])]);
    await refused(ended, /after its end-of-archive block/);
    // A block the library takes for an end-of-archive block, but for its checksum field: the engine's reader
    // takes it for a header.
    const almostZero = Buffer.alloc(1024);
    almostZero.write('0000400\0', 148, 'latin1');
    await refused(Buffer.concat([whole().subarray(0, -1024), almostZero]), /data after its last entry/);
    await refused(Buffer.concat([whole(), Buffer.alloc(512, 'x')]), /not a well-formed tar file/);
    // A file whose name ends in / is a directory to the engine's reader (type NUL), whose data it then reads
    // as headers: here a manifest.json the library would read as file data.
    for (const typeflag of ['\0', '0']) {
      await refused(
        whole([{ type: 'file', name: 'smuggled/', content: tar([image.manifest]), typeflag }]),
        /file named like a directory/,
      );
    }
    await refused(
      whole([
        { type: 'pax', records: { path: 'p'.repeat(MiB + 10) } },
        { type: 'file', name: 'x', content: 'x' },
      ]),
      /extended tar header: at most 1 MiB/,
    );
  });

  test('links for index files, hard links, and writing through a symbolic link', async () => {
    await refused(
      tar([
        ...image.entries,
        { type: 'file', name: 'm.json', content: JSON.stringify([item]) },
        { type: 'symlink', name: 'manifest.json', target: 'm.json' },
      ]),
      /has manifest\.json as a symlink/,
    );
    await refused(
      whole([{ type: 'link', name: 'copy.json', target: image.configName }]),
      /a link \("copy\.json"\)/,
    );
    await refused(
      tar([
        ...image.entries,
        { type: 'symlink', name: 'd', target: '.' },
        { ...image.manifest, name: 'd/manifest.json' } as TarEntry,
      ]),
      /under the symbolic link d/,
    );
  });

  test('a config that is not its name’s digest, a layer that is not its diff id, a layer not there', async () => {
    const other = makeImage({ label: 'other' });
    await refused(
      tar([
        ...image.entries,
        { type: 'file', name: other.configName, content: 'x' },
        manifestOf([{ ...item, Config: other.configName }]),
      ]),
      /not the digest its name gives/,
    );
    const swapped = tar([
      ...image.entries.filter((e) => e.type !== 'file' || e.name !== 'l0/layer.tar'),
      { type: 'file', name: 'l0/layer.tar', content: tar([{ type: 'file', name: 'evil', content: 'x' }]) },
      image.manifest,
    ]);
    await refused(swapped, /unpacks to sha256:[0-9a-f]{64} where the config says/);
    await refused(
      whole([], manifestOf([{ ...item, Layers: ['nowhere/layer.tar'] }])),
      /was refused: .*"nowhere\/layer\.tar", which the archive does not hold/,
    );
  });

  test('a manifest.json item the engine would read as more than the one image', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...item, Layers: 'l0/layer.tar' }, /no list of Layers/],
      [{ ...item, Layers: ['l0/layer.tar', 7] }, /no list of Layers/],
      [{ ...item, Config: 7 }, /names no Config/],
      [{ ...item, Parent: 'sha256:00' }, /names a Parent image/],
      [{ ...item, LayerSources: { 'sha256:00': {} } }, /foreign LayerSources/],
      [{ ...item, RepoTags: 'made:1' }, /RepoTags is not a list/],
      [{ ...item, RepoTags: ['made:1', 7] }, /RepoTags is not a list/],
    ];
    for (const [changed, pattern] of cases) await refused(whole([], manifestOf([changed])), pattern);
    // What Docker writes for none of them is taken.
    const plain = { ...item, Parent: '', LayerSources: {}, RepoTags: null };
    assert.deepEqual((await read(whole([], manifestOf([plain])))).repoTags, []);
    await refused(whole([], manifestOf({ Config: image.configName })), /names 0 images/);
  });

  test('a config that is not one of layers with sha256 diff ids', async () => {
    const withConfig = (config: unknown) => {
      const text = JSON.stringify(config);
      const name = `${createHash('sha256').update(text).digest('hex')}.json`;
      return tar([
        ...image.entries,
        { type: 'file', name, content: text },
        manifestOf([{ ...item, Config: name }]),
      ]);
    };
    const diffIds = image.diffIds;
    await refused(withConfig({ rootfs: { type: 'other', diff_ids: diffIds } }), /no rootfs of layers/);
    await refused(withConfig({ rootfs: { type: 'layers', diff_ids: 'x' } }), /no rootfs of layers/);
    await refused(
      withConfig({ rootfs: { type: 'layers', diff_ids: [`x${diffIds[0]}`] } }),
      /no rootfs of layers/,
    );
    await refused(
      withConfig({ rootfs: { type: 'layers', diff_ids: [`${diffIds[0]}0`] } }),
      /no rootfs of layers/,
    );
    await refused(
      withConfig({ rootfs: { type: 'layers', diff_ids: [] } }),
      /lists 0 layers where manifest\.json names 1/,
    );
    await refused(
      withConfig({ rootfs: { type: 'layers', diff_ids: diffIds }, RootFS: {} }),
      /which the engine reads as "rootfs"/,
    );
    await refused(
      withConfig({ rootfs: { type: 'layers', DIFF_IDS: [], diff_ids: diffIds } }),
      /reads as "diff_ids"/,
    );
    await refused(withConfig([]), /config is not an object/);
    // Named by its digest in a blobs/sha256/ path, as docker save 25 writes it, and by nothing else.
    const config = image.entries.find((e) => e.type === 'file' && e.name === image.configName) as TarEntry;
    const hex = image.id.slice('sha256:'.length);
    const blobNamed = (name: string) =>
      tar([
        ...image.entries.filter((e) => e !== config),
        { ...config, name } as TarEntry,
        manifestOf([{ ...item, Config: name }]),
      ]);
    assert.equal((await read(blobNamed(`blobs/sha256/${hex}`))).id, image.id);
    await refused(blobNamed(`blobs/sha256/${hex}.txt`), /not the digest its name gives/);
    await refused(blobNamed(`${hex}.json.bak`), /not the digest its name gives/);
    await refused(blobNamed(`x${hex}.json`), /not the digest its name gives/);
  });

  test('an index.json beside manifest.json must name that image, once, under no name of the service', async () => {
    const ociManifest = (config: string) => JSON.stringify({ schemaVersion: 2, config: { digest: config } });
    const withIndex = (manifest: string, descriptor: Record<string, unknown> = {}) => {
      const hex = createHash('sha256').update(manifest).digest('hex');
      return tar([
        ...image.entries,
        { type: 'dir', name: 'blobs' },
        { type: 'file', name: `blobs/sha256/${hex}`, content: manifest },
        {
          type: 'file',
          name: 'index.json',
          content: JSON.stringify({ manifests: [{ digest: `sha256:${hex}`, ...descriptor }] }),
        },
        image.manifest,
      ]);
    };
    const good = ociManifest(image.id);
    const named = { annotations: { 'io.containerd.image.name': 'docker.io/library/made:1' } };
    assert.equal((await read(withIndex(good, named))).id, image.id);
    await refused(
      withIndex(ociManifest(`sha256:${'0'.repeat(64)}`)),
      /index\.json names an image with config sha256:0+ where/,
    );
    for (const key of ['io.containerd.image.name', 'org.opencontainers.image.ref.name']) {
      await refused(
        withIndex(good, { annotations: { [key]: 'gcm-archive:1' } }),
        /index\.json names the image "gcm-archive:1"/,
      );
    }
    await refused(
      withIndex(good, { digest: `sha256:${'1'.repeat(64)}` }),
      /names a manifest the archive does not hold/,
    );
    await refused(withIndex(good, { digest: 'sha256:short' }), /names a manifest the archive does not hold/);
    await refused(withIndex(good, { Digest: 'x' }), /reads as "digest"/);
    await refused(
      whole([{ type: 'file', name: 'index.json', content: JSON.stringify({ manifests: {} }) }]),
      /names 0 manifests/,
    );
  });

  test('keys the engine reads in another case, and unknown keys', async () => {
    await refused(whole([], manifestOf([{ ...item, config: 'x.json' }])), /unknown key "config"/);
  });

  test('compressed archives, and layers compressed other than by gzip', async () => {
    await refused(gzipSync(whole()), /is gzip-compressed/);
    const bz = makeImage({ layers: [Buffer.concat([Buffer.from('BZh91AY&SY'), Buffer.alloc(100)])] });
    await refused(
      tar([...bz.entries, bz.manifest]),
      /bzip2-compressed; the service reads plain and gzip layers only/,
    );
  });

  test('a layer unpacking past the bound, refused before the archive is passed on whole', async () => {
    const bombLayer = tar([{ type: 'file', name: 'zeros', content: Buffer.alloc(16 * MiB) }]);
    const bomb = makeImage({ layers: [bombLayer], gzip: true });
    const archive = tar([...bomb.entries, bomb.manifest]);
    assert.ok(archive.length < MiB, `the bomb is ${archive.length} bytes`);
    await refused(archive, /unpacks to more than 4\.0 MiB/, 4 * MiB);
    // Through the check as the engine would be fed: its last chunk never comes.
    const check = new ArchiveCheck({
      buildId: 'build-bomb',
      size: archive.length,
      sha256: createHash('sha256').update(archive).digest('hex'),
      maxUnpackedBytes: 4 * MiB,
    });
    let passed = 0;
    await assert.rejects(
      pipeline(
        Readable.from(chunked(archive, 4096)),
        check,
        new Writable({
          write(chunk: Buffer, _encoding, callback) {
            passed += chunk.length;
            callback();
          },
        }),
      ),
      (err: Error) =>
        err instanceof ImageLoadError && /build-bomb's archive unpacks to more than/.test(err.message),
    );
    assert.ok(passed < archive.length, `${passed} of ${archive.length} bytes passed on`);
    // The same bomb within the bound reads (4 times its size bounds it unless the setting is lower).
    assert.equal((await read(archive, 64 * MiB)).id, bomb.id);
  });

  test('a good archive passes through the check whole and unchanged, and says what it read', async () => {
    const bytes = whole();
    const check = new ArchiveCheck({
      buildId: 'build-good',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      maxUnpackedBytes: MiB,
    });
    const out: Buffer[] = [];
    await pipeline(
      Readable.from(chunked(bytes, 1000)),
      check,
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          out.push(chunk);
          callback();
        },
      }),
    );
    assert.deepEqual(Buffer.concat(out), bytes);
    assert.equal(check.verified?.id, image.id);
  });
});
