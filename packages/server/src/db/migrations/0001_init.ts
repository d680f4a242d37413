import { generateKeyPairSync } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { v7 } from 'uuid';

// Frozen once released: later schema changes go in new migrations. `unknown` because a migration must not
// depend on today's table types, which describe the newest schema.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .execute();

  // The first key is made here so every instance that runs the migrations finds the same key.
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  await sql`insert into signing_keys (key_id, algorithm, public_jwk, private_jwk, create_ts) values (${v7()}, ${'EdDSA'}, ${JSON.stringify(publicKey.export({ format: 'jwk' }))}, ${JSON.stringify(privateKey.export({ format: 'jwk' }))}, ${Date.now()})`.execute(
    db,
  );

  await db.schema
    .createTable('operator_tokens')
    .addColumn('token_id', 'text', (c) => c.primaryKey())
    .addColumn('token_sha256', 'text', (c) => c.notNull().unique())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('games')
    .addColumn('game_id', 'text', (c) => c.primaryKey())
    .addColumn('name_id', 'text', (c) => c.notNull().unique())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('avatar_url', 'text')
    .execute();

  await db.schema
    .createTable('versions')
    .addColumn('version_id', 'text', (c) => c.primaryKey())
    .addColumn('game_id', 'text', (c) => c.notNull().references('games.game_id'))
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('config_json', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('versions_game_create')
    .on('versions')
    .columns(['game_id', 'create_ts'])
    .execute();

  await db.schema
    .createTable('namespaces')
    .addColumn('namespace_id', 'text', (c) => c.primaryKey())
    .addColumn('game_id', 'text', (c) => c.notNull().references('games.game_id'))
    .addColumn('version_id', 'text', (c) => c.notNull().references('versions.version_id'))
    .addColumn('name_id', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('update_ts', 'bigint', (c) => c.notNull())
    .addColumn('cdn_auth_type', 'text', (c) => c.notNull())
    .addColumn('cdn_enable_domain_public_auth', 'integer', (c) => c.notNull())
    .addColumn('mm_lobby_count_max', 'integer', (c) => c.notNull())
    .addColumn('mm_max_players_per_client', 'integer', (c) => c.notNull())
    .addColumn('mm_max_players_per_client_hosting', 'integer', (c) => c.notNull())
    .addColumn('mm_max_players_per_client_proxy', 'integer', (c) => c.notNull())
    .addColumn('mm_max_players_per_client_tor', 'integer', (c) => c.notNull())
    .addColumn('mm_max_players_per_client_vpn', 'integer', (c) => c.notNull())
    .addUniqueConstraint('namespaces_game_name_id', ['game_id', 'name_id'])
    .execute();

  await db.schema
    .createTable('namespace_cdn_auth_users')
    .addColumn('namespace_id', 'text', (c) => c.notNull().references('namespaces.namespace_id'))
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('namespace_cdn_auth_users_pk', ['namespace_id', 'user_name'])
    .execute();

  await db.schema
    .createTable('tokens')
    .addColumn('token_id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('game_id', 'text', (c) => c.notNull().references('games.game_id'))
    .addColumn('namespace_id', 'text', (c) => c.references('namespaces.namespace_id'))
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('expire_ts', 'bigint', (c) => c.notNull())
    .addColumn('revoke_ts', 'bigint')
    .execute();
  await db.schema.createIndex('tokens_game').on('tokens').columns(['game_id', 'create_ts']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'tokens',
    'namespace_cdn_auth_users',
    'namespaces',
    'versions',
    'games',
    'operator_tokens',
    'signing_keys',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
