import { formatBytes } from '@gcm/contract/format';
import { AVATAR_MAX_BYTES } from '@gcm/contract/limits';
import type { components } from '@gcm/sdk';
import { ApiError, api, toApiError, unwrap } from './client';

export type PresignedRequest = components['schemas']['PresignedRequest'];

/**
 * The avatar types the service takes, checked here first (with the contract's AVATAR_MAX_BYTES) so a person
 * hears at once what the service would answer after the round trip; the service stays the judge and its
 * refusal is shown as is.
 */
export const AVATAR_TYPES: Readonly<Record<string, readonly string[]>> = {
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
};

/** Sizes are written as the CLI writes them. */
export { formatBytes };

/**
 * PUTs `body` to a presigned URL, reporting bytes sent as they go. XMLHttpRequest, not fetch: fetch has no
 * upload progress events. A refusal becomes an ApiError in the store's own words (the service's JSON body;
 * an object store's XML is summarised by its status).
 */
export function putWithProgress(
  url: string,
  body: Blob,
  onProgress: (loaded: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(body.size);
        resolve();
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        parsed = undefined;
      }
      reject(toApiError(new Response(null, { status: xhr.status }), parsed));
    };
    xhr.onerror = () =>
      reject(
        new ApiError(0, 'NETWORK_ERROR', 'the upload could not reach the store (network error)', undefined),
      );
    xhr.onabort = () => reject(new DOMException('the upload was cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

/** Why `file` cannot be a game avatar (the service's rules), or undefined when it may be uploaded. */
export function avatarProblem(file: File): string | undefined {
  const extension = file.name.includes('.') ? (file.name.split('.').pop() ?? '').toLowerCase() : '';
  const allowed = AVATAR_TYPES[file.type];
  if (allowed === undefined) {
    return `“${file.name}” is not a PNG or JPEG image: an avatar must be one.`;
  }
  if (!allowed.includes(extension)) {
    return `“${file.name}” must end in ${allowed.map((e) => `.${e}`).join(' or ')} to match its type (${file.type}).`;
  }
  if (file.size === 0) return `“${file.name}” is empty.`;
  if (file.size > AVATAR_MAX_BYTES) {
    return `“${file.name}” is ${formatBytes(file.size)}; an avatar must be under 2,000,000 bytes (${formatBytes(AVATAR_MAX_BYTES)}).`;
  }
  return undefined;
}

/** Prepare → PUT to the presigned URL → complete: the game's avatar is the new image from then on. */
export async function uploadAvatar(
  gameId: string,
  file: File,
  onProgress: (loaded: number) => void,
): Promise<void> {
  const path = { game_id: gameId };
  const prepared = await unwrap(
    api.POST('/cloud/games/{game_id}/prepare', {
      params: { path },
      body: { path: file.name, mime: file.type, content_length: file.size },
    }),
  );
  await putWithProgress(prepared.presigned_request.url, file, onProgress);
  await unwrap(
    api.POST('/cloud/games/{game_id}/avatar-upload/{upload_id}/complete', {
      params: { path: { ...path, upload_id: prepared.upload_id } },
    }),
  );
}
