import path from 'node:path';
import type { Config } from '../../config.js';
import type { Clock } from '../clock.js';
import type { BlobStorage } from './blob-storage.js';
import { EmbeddedBlobStorage } from './embedded-blob-storage.js';

/** The driver the configuration names: S3 when S3_ENDPOINT/S3_BUCKET are set, else files in the data dir. */
export async function createBlobStorage(
  config: Config,
  clock: Clock,
  loadSigningSecret: () => Promise<Buffer>,
): Promise<BlobStorage> {
  if (config.s3 !== undefined) {
    // Loaded only when configured: the AWS SDK is large and the embedded default never needs it.
    const { S3BlobStorage } = await import('./s3-blob-storage.js');
    return new S3BlobStorage({ ...config.s3, clock, urlTtlSeconds: config.uploadUrlTtlSeconds });
  }
  return EmbeddedBlobStorage.open({
    root: path.join(config.dataDir, 'blobs'),
    publicUrl: config.publicUrl,
    secret: await loadSigningSecret(),
    clock,
    urlTtlSeconds: config.uploadUrlTtlSeconds,
  });
}
