import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
// s3rver ships no types: what the tests use of it is declared in s3rver.d.ts beside this file.
import S3rver from 's3rver';

/** What a real S3-compatible server the suite runs against can be relied on to do. */
export interface S3Capabilities {
  /** Refuses a presigned URL whose signature, signed length or expiry does not hold (SigV4). */
  verifiesSignatures: boolean;
  /** ListParts: the S3 driver lists a multipart upload's parts to check and complete it. */
  listParts: boolean;
  /** AbortMultipartUpload: the clean-up of unfinished multipart uploads. */
  abortMultipart: boolean;
}

export interface S3Server {
  /** `s3rver` (npm, in this process) or `external` (GCM_TEST_S3, e.g. the throw-away Ceph RGW in CI). */
  kind: 's3rver' | 'external';
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A bucket of this server's own, made empty for it. */
  bucket: string;
  capabilities: S3Capabilities;
  /** The S3_* variables that point the service at this bucket. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * s3rver 3.7.1 stores objects and multipart uploads, checks a presigned URL's expiry and access key, and
 * nothing more: it does not verify SigV4 signatures (so neither a tampered signature nor a length other
 * than the signed one is refused) and answers 405 to ListParts and AbortMultipartUpload.
 */
const S3RVER: S3Capabilities = { verifiesSignatures: false, listParts: false, abortMultipart: false };
const FULL: S3Capabilities = { verifiesSignatures: true, listParts: true, abortMultipart: true };

/** GCM_TEST_S3: the JSON `scripts/s3-throwaway.sh start` prints ({endpoint, accessKeyId, secretAccessKey, region}). */
const external = process.env.GCM_TEST_S3;

/** Why a case needs more than the server has, or false when it may run: the reason shows in the counts. */
export function lacks(server: S3Server | undefined, need: keyof S3Capabilities): string | false {
  if (server === undefined || server.capabilities[need]) return false;
  const what: Record<keyof S3Capabilities, string> = {
    verifiesSignatures: 'does not verify SigV4 signatures',
    listParts: 'has no ListParts',
    abortMultipart: 'has no AbortMultipartUpload',
  };
  return `${server.kind === 's3rver' ? 's3rver' : 'this S3 server'} ${what[need]} (GCM_TEST_S3 names a server that does)`;
}

/** Which server the suite runs against, for test names. */
export const S3_SERVER_NAME = external === undefined ? 's3rver 3.7.1' : 'GCM_TEST_S3 (Ceph RGW in CI)';

function clientFor(s: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string }) {
  return new S3Client({
    endpoint: s.endpoint,
    region: s.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
  });
}

/**
 * A real S3-compatible server with a fresh bucket: the one GCM_TEST_S3 names (a bucket of its own on it,
 * emptied and removed at close), or else s3rver on a free local port over a temp directory.
 */
export async function startS3Server(): Promise<S3Server> {
  const bucket = `gcm-${randomUUID().slice(0, 18)}`;
  if (external !== undefined) {
    const given = JSON.parse(external) as {
      endpoint: string;
      accessKeyId: string;
      secretAccessKey: string;
      region?: string;
    };
    const server = { ...given, region: given.region ?? 'us-east-1' };
    const client = clientFor(server);
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    return {
      kind: 'external',
      ...server,
      bucket,
      capabilities: FULL,
      env: envOf(server, bucket),
      async close() {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
        for (const o of listed.Contents ?? []) {
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: o.Key }));
        }
        await client.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => {});
        client.destroy();
      },
    };
  }
  const directory = mkdtempSync(path.join(os.tmpdir(), 'gcm-s3rver-'));
  const s3rver = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await s3rver.run();
  // s3rver's default account.
  const server = {
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  };
  return {
    kind: 's3rver',
    ...server,
    bucket,
    capabilities: S3RVER,
    env: envOf(server, bucket),
    async close() {
      await s3rver.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function envOf(
  s: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string },
  bucket: string,
): Record<string, string> {
  return {
    S3_ENDPOINT: s.endpoint,
    S3_BUCKET: bucket,
    S3_REGION: s.region,
    S3_ACCESS_KEY_ID: s.accessKeyId,
    S3_SECRET_ACCESS_KEY: s.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
}
