import { type Static, Type } from 'typebox';
import { Id, OptionalNullable, Text, TextMap, Timestamp } from './common.js';
import { NextCursor, PAGE_LIMIT_MAX, PAGE_LIMIT_PATTERN, PageCursorInput } from './paging.js';
import { PresignedRequest } from './uploads.js';

export const EnvironmentParams = Type.Object({ game_id: Id, environment_id: Id });
export const BuildParams = Type.Object({ game_id: Id, environment_id: Id, build_id: Id });

/**
 * Wire bounds, well above the rules (32 tags, keys 1-64 bytes, values up to 256 bytes) so that the rules
 * still answer VALIDATION_ERROR with their paths, and only absurd sizes are refused as a bad body.
 */
const Tags = TextMap(Text(256), { maxEntries: 256, keyMax: 256 }, { description: 'tag key → value' });

/** The longest file name echoed in presigned requests: bounds what one part's request costs. */
export const IMAGE_PATH_MAX = 1024;

export const PrepareBuildBody = Type.Object({
  name: Text(512, { description: '1-128 bytes' }),
  image_file: Type.Object({
    path: Text(IMAGE_PATH_MAX, {
      description: 'file name of the image, echoed in every presigned request',
    }),
    content_type: OptionalNullable(Text(255)),
    content_length: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  }),
  multipart_upload: OptionalNullable(Type.Boolean()),
  tags: OptionalNullable(Tags),
});

const PartCount = Type.Integer({
  minimum: 1,
  description:
    'how many parts the upload has; presigned_requests holds at most the first 100, fetch the rest from .../builds/{build_id}/parts?from_part=',
});

export const PrepareBuildResponse = Type.Object({
  build_id: Id,
  presigned_requests: Type.Array(PresignedRequest),
  part_count: PartCount,
});

export const PartsQuery = Type.Object({
  from_part: Type.Optional(
    Type.String({
      pattern: '^[1-9][0-9]{0,4}$',
      maxLength: 5,
      description: 'first part number to presign (default 1); up to 100 parts from it are answered',
    }),
  ),
});

export const PartsResponse = Type.Object({
  presigned_requests: Type.Array(PresignedRequest),
  part_count: PartCount,
});

export const TagsQuery = Type.Object({
  tags_json: Type.Optional(
    Text(16_384, { description: 'JSON object of string → string: builds having every pair' }),
  ),
});

export const BUILDS_PAGE_LIMIT_DEFAULT = 1000;

export const ListBuildsQuery = Type.Object({
  ...TagsQuery.properties,
  limit: Type.Optional(
    Type.String({
      pattern: PAGE_LIMIT_PATTERN,
      maxLength: 4,
      description: `builds on this page, 1 to ${PAGE_LIMIT_MAX} (default ${BUILDS_PAGE_LIMIT_DEFAULT})`,
    }),
  ),
  cursor: Type.Optional(PageCursorInput),
});

export const PatchTagsBody = Type.Object({
  tags: Tags,
  exclusive_tags: OptionalNullable(
    Type.Array(Text(256), {
      maxItems: 256,
      description: 'keys removed from every other build of the environment',
    }),
  ),
});

export const Build = Type.Object({
  id: Id,
  name: Type.String(),
  content_length: Type.Integer({ minimum: 0 }),
  created_at: Timestamp,
  tags: Type.Record(Type.String(), Type.String(), { description: 'tag key → value' }),
});

export type EnvironmentParams = Static<typeof EnvironmentParams>;
export type BuildParams = Static<typeof BuildParams>;
export type PrepareBuildBody = Static<typeof PrepareBuildBody>;
export type PrepareBuildResponse = Static<typeof PrepareBuildResponse>;
export type PartsQuery = Static<typeof PartsQuery>;
export type PartsResponse = Static<typeof PartsResponse>;
export type TagsQuery = Static<typeof TagsQuery>;
export type ListBuildsQuery = Static<typeof ListBuildsQuery>;
export type PatchTagsBody = Static<typeof PatchTagsBody>;
export type Build = Static<typeof Build>;

/** `GET .../builds`: the builds of one page, newest first; `cursor` only when more follow. */
export const BuildList = Type.Object({
  builds: Type.Array(Build),
  cursor: NextCursor,
});

export type BuildList = Static<typeof BuildList>;

export const GetBuildResponse = Type.Object({ build: Build });
export type GetBuildResponse = Static<typeof GetBuildResponse>;
