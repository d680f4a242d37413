import { MULTIPART_MIN_BYTES } from '@gcm/contract/limits';
import type { components } from '@gcm/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { keys } from './queries';
import { type PresignedRequest, putWithProgress } from './uploads';

export type Build = components['schemas']['Build'];
type PrepareBuildBody = components['schemas']['PrepareBuildBody'];
type PatchTagsBody = components['schemas']['PatchTagsBody'];

/** A namespace of a game: the builds routes call it an environment. */
export interface Environment {
  gameId: string;
  environmentId: string;
}

export interface BuildsPageQuery {
  /** Every pair a build must have. */
  tags: Record<string, string>;
  cursor: string | undefined;
  /** Unset: the service's default page. */
  limit: string | undefined;
}

/** Under the game's key, so that anything invalidating the game refreshes its builds too. */
const buildsKey = (env: Environment) => [...keys.game(env.gameId), 'builds', env.environmentId] as const;

function envPath(env: Environment) {
  return { game_id: env.gameId, environment_id: env.environmentId };
}

export function useBuilds(env: Environment | undefined, query: BuildsPageQuery) {
  return useQuery({
    queryKey: [...buildsKey(env ?? { gameId: '', environmentId: '' }), query] as const,
    enabled: env !== undefined,
    // The page just left stays on screen while the next loads: no flash of "Loading" between pages.
    placeholderData: keepPreviousData,
    queryFn: () => {
      if (env === undefined) throw new Error('no namespace');
      const hasTags = Object.keys(query.tags).length > 0;
      return unwrap(
        api.GET('/games/{game_id}/environments/{environment_id}/builds', {
          params: {
            path: envPath(env),
            query: {
              ...(hasTags ? { tags_json: JSON.stringify(query.tags) } : {}),
              ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
              ...(query.limit === undefined ? {} : { limit: query.limit }),
            },
          },
        }),
      );
    },
  });
}

export function usePatchBuildTags(env: Environment) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ buildId, body }: { buildId: string; body: PatchTagsBody }) =>
      unwrap(
        api.PATCH('/games/{game_id}/environments/{environment_id}/builds/{build_id}/tags', {
          params: { path: { ...envPath(env), build_id: buildId } },
          body,
        }),
      ),
    // An exclusive tag also changes other builds: the whole namespace's list is read again.
    onSuccess: () => client.invalidateQueries({ queryKey: buildsKey(env) }),
  });
}

/** Parts PUT at once: enough to fill a connection, few enough to keep the page responsive. */
const CONCURRENT_PARTS = 3;

/**
 * The presigned PUTs of an upload, part by part: prepare answers the first page of them, and
 * `.../parts?from_part=` the next ones when a file has more parts than that.
 */
async function partUrls(env: Environment, buildId: string, first: PresignedRequest[], count: number) {
  const all = [...first];
  while (all.length < count) {
    const page = await unwrap(
      api.GET('/games/{game_id}/environments/{environment_id}/builds/{build_id}/parts', {
        params: {
          path: { ...envPath(env), build_id: buildId },
          query: { from_part: String(all.length + 1) },
        },
      }),
    );
    if (page.presigned_requests.length === 0) throw new Error('the service presigned no further part');
    all.push(...page.presigned_requests);
  }
  return all;
}

export interface BuildUpload {
  file: File;
  name: string;
  tags: Record<string, string>;
}

/**
 * Uploads a build the way `gcm builds push` does: one PUT below the service's multipart minimum, else
 * multipart (the service splits the file in parts of its own size and presigns each), then complete.
 * `onProgress` hears the bytes sent of the whole file.
 */
export async function uploadBuild(
  env: Environment,
  upload: BuildUpload,
  onProgress: (sent: number) => void,
): Promise<string> {
  const { file } = upload;
  const multipart = file.size >= MULTIPART_MIN_BYTES;
  const body: PrepareBuildBody = {
    name: upload.name,
    image_file: {
      path: file.name,
      content_type: file.type === '' ? 'application/octet-stream' : file.type,
      content_length: file.size,
    },
    multipart_upload: multipart,
    tags: upload.tags,
  };
  const prepared = await unwrap(
    api.POST('/games/{game_id}/environments/{environment_id}/builds/prepare', {
      params: { path: envPath(env) },
      body,
    }),
  );
  const requests = await partUrls(env, prepared.build_id, prepared.presigned_requests, prepared.part_count);
  const sent = new Array<number>(requests.length).fill(0);
  const report = () => onProgress(sent.reduce((a, b) => a + b, 0));
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const index = next;
      next += 1;
      const request = requests[index] as PresignedRequest;
      const part = file.slice(request.byte_offset, request.byte_offset + request.content_length);
      await putWithProgress(request.url, part, (loaded) => {
        sent[index] = loaded;
        report();
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_PARTS, requests.length) }, worker));
  await unwrap(
    api.POST('/games/{game_id}/environments/{environment_id}/builds/{build_id}/complete', {
      params: { path: { ...envPath(env), build_id: prepared.build_id } },
    }),
  );
  return prepared.build_id;
}

export function useUploadBuild(env: Environment, onProgress: (sent: number) => void) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (upload: BuildUpload) => uploadBuild(env, upload, onProgress),
    onSuccess: () => client.invalidateQueries({ queryKey: buildsKey(env) }),
  });
}

/**
 * `key=value` lines (blank lines ignored) as tags, or the first line that is not one. The first `=` splits,
 * so a value may hold more.
 */
export function parseTagLines(text: string): { tags: Record<string, string> } | { problem: string } {
  // A Map, then fromEntries: a key such as "__proto__" stays a plain key, never the object's prototype.
  const tags = new Map<string, string>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return { problem: `line ${i + 1} (“${line}”) is not key=value` };
    const key = line.slice(0, eq).trim();
    if (tags.has(key)) return { problem: `line ${i + 1} repeats the key “${key}”` };
    tags.set(key, line.slice(eq + 1).trim());
  }
  return { tags: Object.fromEntries(tags) };
}

/** Tags as the `key=value` lines parseTagLines reads. */
export function tagLines(tags: Record<string, string>): string {
  return Object.entries(tags)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}
