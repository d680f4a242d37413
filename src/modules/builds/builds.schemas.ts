import { Type } from 'typebox';
import { Id, OptionalNullable, Timestamp } from '../../http/common-schemas.js';

export const EnvironmentParams = Type.Object({ game_id: Id, environment_id: Id });
export const BuildParams = Type.Object({ game_id: Id, environment_id: Id, build_id: Id });

const Tags = Type.Record(Type.String(), Type.String(), { description: 'tag key → value' });

export const PrepareBuildBody = Type.Object({
  name: Type.String({ description: '1-128 bytes' }),
  image_file: Type.Object({
    path: Type.String({ description: 'file name of the image, echoed in every presigned request' }),
    content_type: OptionalNullable(Type.String()),
    content_length: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  }),
  multipart_upload: OptionalNullable(Type.Boolean()),
  tags: OptionalNullable(Tags),
});

export const PresignedRequest = Type.Object({
  byte_offset: Type.Integer(),
  content_length: Type.Integer(),
  path: Type.String(),
  url: Type.String(),
});

export const PrepareBuildResponse = Type.Object({
  build_id: Type.String(),
  presigned_requests: Type.Array(PresignedRequest),
});

export const TagsQuery = Type.Object({
  tags_json: Type.Optional(
    Type.String({ description: 'JSON object of string → string: builds having every pair' }),
  ),
});

export const PatchTagsBody = Type.Object({
  tags: Tags,
  exclusive_tags: OptionalNullable(
    Type.Array(Type.String(), { description: 'keys removed from every other build of the environment' }),
  ),
});

export const Build = Type.Object({
  id: Type.String(),
  name: Type.String(),
  content_length: Type.Integer({ minimum: 0 }),
  created_at: Timestamp,
  tags: Tags,
});
