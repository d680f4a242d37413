import { type Kysely, sql } from 'kysely';

// Frozen once released. The players' matchmaker (issue 37): find/join/create hand out player tokens that
// reserve a slot until the lobby reports the player connected or the token expires
// (GCM_PLAYER_CONNECT_TIMEOUT), and custom lobbies carry their publicity, tags, config and state.
export async function up(db: Kysely<unknown>): Promise<void> {
  const lobbyColumns: [string, 'text' | 'integer'][] = [
    // null: a lobby the reconciler started for the matchmaker; 'public' | 'private': made by /create.
    ['publicity', 'text'],
    // JSON object of the lobby's tags (find matches them), its lobby_config (given to the server) and the
    // state the lobby server sets for players to read; each bounded by the contract's MATCHMAKER_LIMITS.
    ['tags_json', 'text'],
    ['lobby_config_json', 'text'],
    ['state_json', 'text'],
    // max_players (0024) is the normal count find fills; join fills up to direct, parties up to party.
    ['max_players_direct', 'integer'],
    ['max_players_party', 'integer'],
  ];
  for (const [name, type] of lobbyColumns) {
    await db.schema.alterTable('lobbies').addColumn(name, type).execute();
  }

  // lobby_players held only connected players (0024); a player token's slot exists from the moment it is
  // issued, so the table is rebuilt with its state. Rows of today are connected players.
  await db.schema
    .createTable('lobby_players_v2')
    .addColumn('namespace_id', 'text', (c) => c.notNull())
    .addColumn('lobby_id', 'text', (c) => c.notNull())
    // sha256 (hex) of the player id the player token carries (its signed `sub`); the token is never stored.
    .addColumn('player_token_hash', 'text', (c) => c.notNull())
    // 'pending': issued, slot reserved until connect_deadline_ts; 'connected': the lobby admitted it.
    .addColumn('state', 'text', (c) => c.notNull())
    // 'normal' (find), 'direct' (join), 'party': which of the lobby's maxima the slot counts against.
    .addColumn('join_kind', 'text', (c) => c.notNull())
    .addColumn('issued_ts', 'bigint', (c) => c.notNull())
    .addColumn('connect_deadline_ts', 'bigint')
    .addColumn('connected_ts', 'bigint')
    // The client address that asked for the slot (max_players_per_client); null for rows of before 0027.
    .addColumn('client_addr', 'text')
    .addPrimaryKeyConstraint('lobby_players_v2_pkey', ['namespace_id', 'lobby_id', 'player_token_hash'])
    .execute();
  await sql`insert into lobby_players_v2 (namespace_id, lobby_id, player_token_hash, state, join_kind, issued_ts, connected_ts)
    select namespace_id, lobby_id, player_token_hash, 'connected', 'normal', connected_ts, connected_ts from lobby_players`.execute(
    db,
  );
  await db.schema.dropTable('lobby_players').execute();
  await db.schema.alterTable('lobby_players_v2').renameTo('lobby_players').execute();
  // The expiry job reads the pending tokens past their deadline: a range of this small partial index.
  await db.schema
    .createIndex('lobby_players_pending')
    .on('lobby_players')
    .column('connect_deadline_ts')
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  // max_players_per_client counts one address's slots in a namespace.
  await db.schema
    .createIndex('lobby_players_client')
    .on('lobby_players')
    .columns(['namespace_id', 'client_addr'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('lobby_players_client').execute();
  await db.schema.dropIndex('lobby_players_pending').execute();
  await db.schema
    .createTable('lobby_players_v1')
    .addColumn('namespace_id', 'text', (c) => c.notNull())
    .addColumn('lobby_id', 'text', (c) => c.notNull())
    .addColumn('player_token_hash', 'text', (c) => c.notNull())
    .addColumn('connected_ts', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('lobby_players_pkey', ['namespace_id', 'lobby_id', 'player_token_hash'])
    .execute();
  await sql`insert into lobby_players_v1 (namespace_id, lobby_id, player_token_hash, connected_ts)
    select namespace_id, lobby_id, player_token_hash, connected_ts from lobby_players where state = 'connected'`.execute(
    db,
  );
  await db.schema.dropTable('lobby_players').execute();
  await db.schema.alterTable('lobby_players_v1').renameTo('lobby_players').execute();
  for (const name of [
    'max_players_party',
    'max_players_direct',
    'state_json',
    'lobby_config_json',
    'tags_json',
    'publicity',
  ]) {
    await db.schema.alterTable('lobbies').dropColumn(name).execute();
  }
}
