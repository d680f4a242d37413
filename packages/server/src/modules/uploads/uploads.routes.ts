import { Readable } from 'node:stream';
import {
  DownloadParams,
  GameIdParams,
  GameUploadParams,
  NoContent,
  PrepareAvatarBody,
  PrepareAvatarResponse,
  SignedGetQuery,
  SignedPutQuery,
  UploadIdParams,
  UploadPartParams,
} from '@gcm/contract';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { callerOf } from '../../http/auth.js';
import type { StoredAnswer } from '../../http/idempotency.js';
import { routeOptions } from '../../http/route-options.js';
import type { TypedApp } from '../../http/typed-app.js';
import { attachmentOf, type SignedGetServer, type SignedPutReceiver } from '../../lib/blob/blob-storage.js';
import {
  completeUpload,
  completeUploadAs,
  openAvatar,
  openDownload,
  prepareAvatarUpload,
  presignAvatarUpload,
  receiveUploadPart,
} from './uploads.service.js';

const TAG = 'uploads';

// A stream is sent as is (no serializer runs); these schemas only describe the responses in OpenAPI.
const binary = { type: 'string', format: 'binary' };
const AvatarImage = Type.Unsafe<Readable>({
  description: 'the PNG or JPEG image',
  content: { 'image/png': { schema: binary }, 'image/jpeg': { schema: binary } },
});
const DownloadFile = Type.Unsafe<Readable>({
  description: 'the file, as an attachment of the type the URL names',
  content: { 'application/octet-stream': { schema: binary } },
});
// As S3 answers a PUT: 200 with no body.
const Stored = Type.Unsafe<undefined>({ type: 'null', description: 'no body: the bytes are stored' });

/** An Idempotency-Key replay of prepare stores the upload id only and presigns its URL again. */
function prepareAnswer(deps: Deps): StoredAnswer<PrepareAvatarResponse, { upload_id: string }, GameIdParams> {
  return {
    keep: ({ upload_id }) => ({ upload_id }),
    restore: async ({ upload_id }, { game_id }) => ({
      upload_id,
      presigned_request: await presignAvatarUpload(deps, game_id, upload_id),
    }),
  };
}

export function uploadsRoutes(app: TypedApp, deps: Deps): void {
  app.post(
    '/cloud/games/:game_id/prepare',
    routeOptions(
      {
        operationId: 'games.avatars.prepareCustomAvatarUpload',
        auth: 'game',
        summary:
          'Prepare the upload of a custom avatar (PNG or JPEG under 2,000,000 bytes): a URL to PUT it to',
        tag: TAG,
        idempotent: prepareAnswer(deps),
      },
      { params: GameIdParams, body: PrepareAvatarBody, response: { 200: PrepareAvatarResponse } },
    ),
    async (request) => prepareAvatarUpload(deps, request.params.game_id, request.body),
  );

  app.post(
    '/cloud/games/:game_id/avatar-upload/:upload_id/complete',
    routeOptions(
      {
        operationId: 'games.avatars.completeCustomAvatarUpload',
        auth: 'game',
        summary: 'Check the uploaded avatar (length, PNG/JPEG magic bytes) and make it the game avatar',
        tag: TAG,
      },
      { params: GameUploadParams, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      const { game_id, upload_id } = request.params;
      await completeUpload(deps, upload_id, { gameId: game_id, kind: 'avatar' });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/cloud/uploads/:upload_id/complete',
    routeOptions(
      {
        operationId: 'cloud.uploads.completeUpload',
        auth: 'any',
        summary: 'Complete any upload of the caller’s game (the operator: of any game)',
        tag: TAG,
      },
      { params: UploadIdParams, response: { 204: NoContent } },
    ),
    async (request, reply) => {
      await completeUploadAs(deps, callerOf(request), request.params.upload_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/avatars/:upload_id',
    routeOptions(
      {
        operationId: 'avatars.getAvatar',
        auth: 'public',
        limit: 'publicReads',
        summary: 'A game avatar image',
        tag: TAG,
      },
      { params: UploadIdParams, response: { 200: AvatarImage } },
    ),
    async (request, reply) => {
      const avatar = await openAvatar(deps, request.params.upload_id);
      return (
        reply
          .type(avatar.mime)
          .header('content-length', avatar.size)
          // An upload id names one immutable file (a new avatar gets a new id and URL).
          .header('cache-control', 'public, max-age=31536000, immutable')
          // Bytes from a client, on this service's origin: never sniffed as another type, never run as a
          // page (no scripts, styles or frames even if opened directly), and named as an image if saved.
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'")
          .header('content-disposition', `inline; filename="${avatar.fileName}"`)
          .send(avatar.body)
      );
    },
  );

  if (deps.blobs.putReceiver !== undefined) signedPutRoute(app, deps, deps.blobs.putReceiver);
  if (deps.blobs.getServer !== undefined) signedGetRoute(app, deps, deps.blobs.getServer);
}

/** Where the embedded store's presigned download URLs point (presignGet); S3's point at the bucket. */
function signedGetRoute(app: TypedApp, deps: Deps, server: SignedGetServer): void {
  app.get(
    '/downloads/:filename',
    routeOptions(
      {
        operationId: 'downloads.getDownload',
        auth: 'public',
        limit: 'uploadPuts',
        summary:
          'Download a file the service exported, from a URL it signed (exports of lobby logs and history)',
        tag: TAG,
      },
      { params: DownloadParams, querystring: SignedGetQuery, response: { 200: DownloadFile } },
    ),
    async (request, reply) => {
      const { filename } = request.params;
      const { key, type, expires, sig } = request.query;
      const file = await openDownload(deps, server, {
        key,
        filename,
        contentType: type,
        expires: Number(expires),
        sig,
      });
      return (
        reply
          .type(type)
          .header('content-length', file.size)
          .header('cache-control', 'private, no-store')
          // The studio's own data on this service's origin: saved, never sniffed or run as a page.
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'")
          .header('content-disposition', attachmentOf(filename))
          .send(file.body)
      );
    },
  );
}

/** Where the embedded store's presigned URLs point; the S3 driver's point at the bucket instead. */
function signedPutRoute(app: TypedApp, deps: Deps, receiver: SignedPutReceiver): void {
  app.register(async (scope: TypedApp) => {
    // Files of any type, streamed to disk as they arrive: the route gets the raw request stream instead of
    // a parsed (buffered, JSON-limited) body. The parsers are per plugin scope, so every other route
    // stays JSON-only with its body limit; the length this route accepts is the one its URL is signed for.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.put(
      '/uploads/:upload_id/parts/:part',
      routeOptions(
        {
          operationId: 'uploads.putUploadPart',
          auth: 'public',
          limit: 'uploadPuts',
          summary: 'Upload one part (or the whole file) to a URL signed by prepare; any content type',
          tag: TAG,
        },
        {
          params: UploadPartParams,
          querystring: SignedPutQuery,
          response: { 200: Stored },
        },
      ),
      async (request, reply) => {
        const { upload_id, part } = request.params;
        const { expires, length, sig } = request.query;
        const header = request.headers['content-length'];
        try {
          await receiveUploadPart(
            deps,
            receiver,
            {
              uploadId: upload_id,
              part: Number(part),
              length: Number(length),
              expires: Number(expires),
              sig,
            },
            header === undefined ? undefined : Number(header),
            request.body instanceof Readable ? request.body : request.raw,
          );
        } catch (err) {
          // The body may be partly unread: close the connection after the answer rather than drain it.
          reply.header('connection', 'close');
          throw err;
        }
        return reply.code(200).send(undefined);
      },
    );
  });
}
