import { randomBytes } from 'node:crypto';
import { type ColumnDataType, type Kysely, PostgresAdapter, sql } from 'kysely';
import { v7 } from 'uuid';

// Frozen once released. People, their sign-in sessions and credentials, and the teams that own games, in
// the tables better-auth reads and writes (src/identity/accounts.ts maps its models and fields onto
// these names). Its dates are timestamptz on PostgreSQL and ISO-8601 text on SQLite, its booleans boolean
// and 0/1: that is how its Kysely adapter writes them on each store. A game may belong to one team; games
// made before teams existed belong to none (the operator's alone) until the operator gives them one.
// games.team_id has no foreign key: SQLite cannot drop a column that has one, and the service refuses to
// delete a team that still owns a game (accounts.ts) on both stores alike.
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const date: ColumnDataType = pg ? 'timestamptz' : 'text';
  const bool: ColumnDataType = pg ? 'boolean' : 'integer';

  // The key better-auth signs its cookies with: in the store, so every instance on it signs alike.
  await db.schema
    .createTable('account_secrets')
    .addColumn('secret_id', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into account_secrets (secret_id, secret, create_ts) values (${v7()}, ${randomBytes(32).toString('base64url')}, ${Date.now()})`.execute(
    db,
  );

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('email_verified', bool, (c) => c.notNull())
    .addColumn('image', 'text')
    .addColumn('created_at', date, (c) => c.notNull())
    .addColumn('updated_at', date, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('user_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', date, (c) => c.notNull())
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('active_team_id', 'text')
    .addColumn('created_at', date, (c) => c.notNull())
    .addColumn('updated_at', date, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').column('user_id').execute();

  // One row per way a person signs in; with email and password, the password's hash is here.
  await db.schema
    .createTable('user_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('access_token', 'text')
    .addColumn('refresh_token', 'text')
    .addColumn('id_token', 'text')
    .addColumn('access_token_expires_at', date)
    .addColumn('refresh_token_expires_at', date)
    .addColumn('scope', 'text')
    .addColumn('password', 'text')
    .addColumn('created_at', date, (c) => c.notNull())
    .addColumn('updated_at', date, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_accounts_user').on('user_accounts').column('user_id').execute();

  // Password-reset and other one-time values.
  await db.schema
    .createTable('auth_verifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('expires_at', date, (c) => c.notNull())
    .addColumn('created_at', date, (c) => c.notNull())
    .addColumn('updated_at', date, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('auth_verifications_identifier')
    .on('auth_verifications')
    .column('identifier')
    .execute();

  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('logo', 'text')
    .addColumn('metadata', 'text')
    .addColumn('created_at', date, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('team_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', date, (c) => c.notNull())
    .addUniqueConstraint('team_members_team_user', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_user').on('team_members').column('user_id').execute();

  await db.schema
    .createTable('team_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', date, (c) => c.notNull())
    .addColumn('inviter_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', date, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('team_invitations_team').on('team_invitations').column('team_id').execute();
  await db.schema.createIndex('team_invitations_email').on('team_invitations').column('email').execute();

  await db.schema.alterTable('games').addColumn('team_id', 'text').execute();
  await db.schema.createIndex('games_team').on('games').column('team_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('games_team').execute();
  await db.schema.alterTable('games').dropColumn('team_id').execute();
  for (const table of [
    'team_invitations',
    'team_members',
    'teams',
    'auth_verifications',
    'user_accounts',
    'user_sessions',
    'users',
    'account_secrets',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
