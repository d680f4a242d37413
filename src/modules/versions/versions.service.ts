import type { Deps } from '../../deps.js';
import { errors } from '../../errors.js';
import { toTimestamp } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { checkDisplayName } from '../../lib/names.js';
import { assertGameExists } from '../games/games.service.js';
import * as repo from './versions.repository.js';

export const VERSION_DISPLAY_NAME_MAX_BYTES = 128;

export async function createVersion(
  deps: Deps,
  gameId: string,
  input: { display_name: string; config: Record<string, unknown> },
): Promise<string> {
  await assertGameExists(deps, gameId);
  const found = checkDisplayName(input.display_name, VERSION_DISPLAY_NAME_MAX_BYTES);
  if (found.length > 0) throw errors.validation(found);
  const versionId = newId();
  await repo.insertVersion(deps.db, {
    version_id: versionId,
    game_id: gameId,
    display_name: input.display_name,
    config_json: JSON.stringify(input.config),
    create_ts: deps.clock.now(),
  });
  return versionId;
}

export async function getVersion(deps: Deps, gameId: string, versionId: string) {
  const row = await repo.findVersion(deps.db, gameId, versionId);
  if (row === undefined) {
    await assertGameExists(deps, gameId);
    throw errors.versionNotFound();
  }
  return {
    version_id: row.version_id,
    display_name: row.display_name,
    create_ts: toTimestamp(row.create_ts),
    config: JSON.parse(row.config_json) as Record<string, unknown>,
  };
}
