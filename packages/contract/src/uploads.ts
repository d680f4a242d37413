import { type Static, Type } from 'typebox';
import { Id, OptionalNullable, Text } from './common.js';

export const PresignedRequest = Type.Object(
  {
    byte_offset: Type.Integer({ minimum: 0, description: 'offset of this part in the file; 0 for one PUT' }),
    content_length: Type.Integer({ minimum: 0, description: 'exact length the PUT body must have' }),
    path: Type.String({ description: 'the file name given to prepare' }),
    url: Type.String({
      description: 'absolute URL to PUT the bytes to; valid for GCM_UPLOAD_URL_TTL_SECONDS',
    }),
  },
  { description: 'one PUT to make: content_length bytes of the file, from byte_offset, to url' },
);

export const PrepareAvatarBody = Type.Object({
  path: Text(1024, { minLength: 1, description: 'file name ending in .png, .jpg or .jpeg' }),
  mime: OptionalNullable(Text(255, { description: 'image/png or image/jpeg, agreeing with the extension' })),
  content_length: Type.Integer({
    minimum: 1,
    // u64 on the wire; JSON numbers are exact only this far, and every accepted size is far below it.
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'size in bytes; an avatar must be under 2,000,000',
  }),
});

export const PrepareAvatarResponse = Type.Object({
  upload_id: Id,
  presigned_request: PresignedRequest,
});

export const GameUploadParams = Type.Object({ game_id: Id, upload_id: Id });
export const UploadIdParams = Type.Object({ upload_id: Id });

// Path and query values are strings (types are never coerced): digits only, so Number() is exact, and in
// canonical form (no leading zeros), so each signed URL has exactly one spelling.
export const UploadPartParams = Type.Object({
  upload_id: Id,
  part: Type.String({ pattern: '^[1-9][0-9]{0,4}$', maxLength: 5, description: 'part number, from 1' }),
});

export const SignedPutQuery = Type.Object({
  expires: Type.String({
    pattern: '^(0|[1-9][0-9]{0,11})$',
    maxLength: 12,
    description: 'epoch seconds after which the URL is refused (decimal, no leading zeros)',
  }),
  length: Type.String({
    pattern: '^(0|[1-9][0-9]{0,15})$',
    maxLength: 16,
    description: 'exact body length in bytes (decimal, no leading zeros)',
  }),
  sig: Type.String({
    pattern: '^[A-Za-z0-9_-]{1,128}$',
    maxLength: 128,
    description: 'HMAC-SHA256 of the values above',
  }),
});

/** The embedded store's download URLs (presignGet): `/downloads/{filename}?key=&type=&expires=&sig=`. */
export const DownloadParams = Type.Object({
  filename: Type.String({
    pattern: '^[A-Za-z0-9._-]{1,128}$',
    maxLength: 128,
    description: 'the name the file is saved as',
  }),
});

export const SignedGetQuery = Type.Object({
  key: Type.String({
    pattern: '^[A-Za-z0-9._/-]{1,1024}$',
    maxLength: 1024,
    description: 'the stored object, as signed',
  }),
  type: Type.String({ minLength: 1, maxLength: 200, description: 'the Content-Type it is served with' }),
  expires: Type.String({
    pattern: '^(0|[1-9][0-9]{0,11})$',
    maxLength: 12,
    description: 'epoch seconds after which the URL is refused (decimal, no leading zeros)',
  }),
  sig: Type.String({
    pattern: '^[A-Za-z0-9_-]{1,128}$',
    maxLength: 128,
    description: 'HMAC-SHA256 of the values above and the file name',
  }),
});

export type PresignedRequest = Static<typeof PresignedRequest>;
export type PrepareAvatarBody = Static<typeof PrepareAvatarBody>;
export type PrepareAvatarResponse = Static<typeof PrepareAvatarResponse>;
export type GameUploadParams = Static<typeof GameUploadParams>;
export type UploadIdParams = Static<typeof UploadIdParams>;
export type UploadPartParams = Static<typeof UploadPartParams>;
export type SignedPutQuery = Static<typeof SignedPutQuery>;
export type DownloadParams = Static<typeof DownloadParams>;
export type SignedGetQuery = Static<typeof SignedGetQuery>;
