import { type Kysely, sql } from 'kysely';

// Frozen once released. Lobbies the service runs itself (GCM_RUNTIME=docker, docs/runtime.md) keep their
// live state on the lobby log's own row, so "every lobby is in the log" holds by construction: a lobby the
// data plane reports leaves these columns null (run_state null), one the runtime starts fills them.
export async function up(db: Kysely<unknown>): Promise<void> {
  const columns: [string, 'text' | 'integer' | 'bigint'][] = [
    // starting → ready → stopping → stopped; null for a lobby reported by an external data plane.
    ['run_state', 'text'],
    ['version_id', 'text'],
    ['is_closed', 'integer'],
    ['player_count', 'integer'],
    ['max_players', 'integer'],
    // sha256 (hex) of the lobby's GCM_LOBBY_TOKEN; the token itself is never stored.
    ['token_hash', 'text'],
    // Where it runs: the driver's host id and its handle there (a container id for docker).
    ['runtime_host', 'text'],
    ['runtime_handle', 'text'],
    // JSON array of {name, protocol, port, port_end?}: what players connect to.
    ['ports', 'text'],
    ['ready_deadline_ts', 'bigint'],
    ['stop_requested_ts', 'bigint'],
    // Why the service stopped it, or why it failed (image not loadable, not ready in time, ...).
    ['stop_reason', 'text'],
  ];
  for (const [name, type] of columns) {
    await db.schema.alterTable('lobbies').addColumn(name, type).execute();
  }
  // The reconciler counts live lobbies per namespace × game mode × region on every pass: a range of this
  // small partial index, whatever the size of the log.
  await db.schema
    .createIndex('lobbies_live')
    .on('lobbies')
    .columns(['namespace_id', 'lobby_group_name_id', 'region_id', 'run_state'])
    .where(sql.ref('run_state'), 'in', ['starting', 'ready', 'stopping'])
    .execute();
  await db.schema.createIndex('lobbies_token').on('lobbies').column('token_hash').unique().execute();

  // The players a lobby said are connected (players/connected), so a repeated report counts once.
  await db.schema
    .createTable('lobby_players')
    .addColumn('namespace_id', 'text', (c) => c.notNull())
    .addColumn('lobby_id', 'text', (c) => c.notNull())
    .addColumn('player_token_hash', 'text', (c) => c.notNull())
    .addColumn('connected_ts', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('lobby_players_pkey', ['namespace_id', 'lobby_id', 'player_token_hash'])
    .execute();

  // Which builds are loaded where, so an archive streams into a host once.
  await db.schema
    .createTable('runtime_images')
    .addColumn('host_id', 'text', (c) => c.notNull())
    .addColumn('build_id', 'text', (c) => c.notNull())
    .addColumn('image', 'text', (c) => c.notNull())
    .addColumn('loaded_ts', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('runtime_images_pkey', ['host_id', 'build_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('runtime_images').execute();
  await db.schema.dropTable('lobby_players').execute();
  await db.schema.dropIndex('lobbies_token').execute();
  await db.schema.dropIndex('lobbies_live').execute();
  for (const name of [
    'stop_reason',
    'stop_requested_ts',
    'ready_deadline_ts',
    'ports',
    'runtime_handle',
    'runtime_host',
    'token_hash',
    'max_players',
    'player_count',
    'is_closed',
    'version_id',
    'run_state',
  ]) {
    await db.schema.alterTable('lobbies').dropColumn(name).execute();
  }
}
