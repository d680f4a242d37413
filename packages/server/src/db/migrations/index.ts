import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_init.js';
import * as m0002 from './0002_game_host_networking.js';
import * as m0003 from './0003_lobbies.js';
import * as m0004 from './0004_uploads.js';
import * as m0005 from './0005_builds.js';
import * as m0006 from './0006_billing.js';
import * as m0007 from './0007_device_links.js';
import * as m0008 from './0008_job_leases.js';
import * as m0009 from './0009_pg_wide_player_caps.js';
import * as m0010 from './0010_lobby_id_per_namespace.js';
import * as m0011 from './0011_rate_limits.js';
import * as m0012 from './0012_upload_frozen_key.js';
import * as m0013 from './0013_lists.js';
import * as m0014 from './0014_deletes.js';
import * as m0015 from './0015_idempotency_keys.js';
import * as m0016 from './0016_build_tag_index.js';
import * as m0017 from './0017_build_tags_json.js';
import * as m0018 from './0018_accounts.js';
import * as m0019 from './0019_audit.js';
import * as m0020 from './0020_token_owner.js';
import * as m0021 from './0021_webhooks.js';
import * as m0022 from './0022_webhook_queue_index.js';
import * as m0023 from './0023_first_run_setup.js';
import * as m0024 from './0024_lobby_runtime.js';
import * as m0025 from './0025_runtime_checks.js';
import * as m0026 from './0026_development_tokens.js';
import * as m0027 from './0027_matchmaker_players.js';
import * as m0028 from './0028_lobbies_listed.js';
import * as m0029 from './0029_lobbies_live_recent.js';
import * as m0030 from './0030_lobby_exports.js';
import * as m0031 from './0031_lobby_resource_samples.js';
import * as m0032 from './0032_lobby_output.js';
import * as m0033 from './0033_lobbies_public_host.js';
import * as m0034 from './0034_lobby_output_per_namespace.js';
import * as m0035 from './0035_namespaces_previous_version.js';

/** Listed by hand (not read from disk) so the set of migrations is fixed at build time. */
const migrations: Record<string, Migration> = {
  '0001_init': m0001,
  '0002_game_host_networking': m0002,
  '0003_lobbies': m0003,
  '0004_uploads': m0004,
  '0005_builds': m0005,
  '0006_billing': m0006,
  '0007_device_links': m0007,
  '0008_job_leases': m0008,
  '0009_pg_wide_player_caps': m0009,
  '0010_lobby_id_per_namespace': m0010,
  '0011_rate_limits': m0011,
  '0012_upload_frozen_key': m0012,
  '0013_lists': m0013,
  '0014_deletes': m0014,
  '0015_idempotency_keys': m0015,
  '0016_build_tag_index': m0016,
  '0017_build_tags_json': m0017,
  '0018_accounts': m0018,
  '0019_audit': m0019,
  '0020_token_owner': m0020,
  '0021_webhooks': m0021,
  '0022_webhook_queue_index': m0022,
  '0023_first_run_setup': m0023,
  '0024_lobby_runtime': m0024,
  '0025_runtime_checks': m0025,
  '0026_development_tokens': m0026,
  '0027_matchmaker_players': m0027,
  '0028_lobbies_listed': m0028,
  '0029_lobbies_live_recent': m0029,
  '0030_lobby_exports': m0030,
  '0031_lobby_resource_samples': m0031,
  '0032_lobby_output': m0032,
  '0033_lobbies_public_host': m0033,
  '0034_lobby_output_per_namespace': m0034,
  '0035_namespaces_previous_version': m0035,
};

/** The schema versions this code knows, oldest first (a restore refuses a store past the last). */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations);
/** The newest migration this build knows: once it is recorded, so is every one before it. */
export const LATEST_MIGRATION = Object.keys(migrations).sort().at(-1) as string;

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
