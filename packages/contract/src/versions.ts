import { type Static, Type } from 'typebox';
import { DisplayNameText, Id, Timestamp, ValidationErrorSchema } from './common.js';
import { VersionSummary } from './games.js';
import { NextCursor } from './paging.js';
import { VersionConfigSchema } from './version-config/schema.js';

export const VersionParams = Type.Object({ game_id: Id, version_id: Id });

export const VersionBody = Type.Object({
  display_name: DisplayNameText('1-128 bytes, unique among the versions of the game'),
  config: VersionConfigSchema,
});

export const GetVersionQuery = Type.Object({
  resolved: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'true: every game mode with its defaults and fallbacks applied',
    }),
  ),
});

export const VersionFull = Type.Object({
  version_id: Id,
  display_name: Type.String(),
  create_ts: Timestamp,
  config: Type.Record(Type.String(), Type.Unknown(), {
    description: 'as given when created, or resolved with ?resolved=true',
  }),
});

/** The most errors a version validation answers; `error_count` says how many it found. */
export const VERSION_ERRORS_ANSWERED = 100;

/**
 * `POST .../versions/validate`: the interface's `{errors}` (4.10), at most the first 100 of them, and the
 * count of all (a member the interface does not name, which its clients ignore).
 */
export const VersionValidationResult = Type.Object({
  errors: Type.Array(ValidationErrorSchema, {
    maxItems: VERSION_ERRORS_ANSWERED,
    description: `the first ${VERSION_ERRORS_ANSWERED} errors found, in a stable order`,
  }),
  error_count: Type.Integer({
    minimum: 0,
    description: `how many errors were found; more than errors holds when over ${VERSION_ERRORS_ANSWERED}`,
  }),
});

export const RegionsResponse = Type.Object({
  regions: Type.Array(Type.Object({ region_id: Type.String(), name_id: Type.String() })),
});

/** `GET /cloud/games/{game_id}/versions` (query: PageQuery): newest first; configs are read one by one. */
export const VersionList = Type.Object({
  versions: Type.Array(VersionSummary),
  cursor: NextCursor,
});

export type VersionParams = Static<typeof VersionParams>;
export type VersionBody = Static<typeof VersionBody>;
export type GetVersionQuery = Static<typeof GetVersionQuery>;
export type VersionFull = Static<typeof VersionFull>;
export type RegionsResponse = Static<typeof RegionsResponse>;
export type VersionValidationResult = Static<typeof VersionValidationResult>;
export type VersionList = Static<typeof VersionList>;

export const CreateVersionResponse = Type.Object({ version_id: Id });
export type CreateVersionResponse = Static<typeof CreateVersionResponse>;

export const GetVersionResponse = Type.Object({ version: VersionFull });
export type GetVersionResponse = Static<typeof GetVersionResponse>;
