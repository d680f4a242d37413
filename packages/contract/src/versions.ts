import { type Static, Type } from 'typebox';
import { DisplayNameText, Id, Timestamp } from './common.js';
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
export type VersionList = Static<typeof VersionList>;

export const CreateVersionResponse = Type.Object({ version_id: Id });
export type CreateVersionResponse = Static<typeof CreateVersionResponse>;

export const GetVersionResponse = Type.Object({ version: VersionFull });
export type GetVersionResponse = Static<typeof GetVersionResponse>;
