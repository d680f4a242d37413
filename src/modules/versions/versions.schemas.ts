import { Type } from 'typebox';
import { Id, Timestamp } from '../../http/common-schemas.js';

export const VersionParams = Type.Object({ game_id: Id, version_id: Id });

const Config = Type.Record(Type.String(), Type.Unknown(), {
  description: 'game version configuration (interface 2.9), stored as given',
});

export const CreateVersionBody = Type.Object({
  display_name: Type.String({ description: '1-128 bytes' }),
  config: Config,
});

export const VersionFull = Type.Object({
  version_id: Type.String(),
  display_name: Type.String(),
  create_ts: Timestamp,
  config: Config,
});
