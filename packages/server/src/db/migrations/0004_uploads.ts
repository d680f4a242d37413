import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { v7 } from 'uuid';

// Frozen once released. Presigned uploads (avatars now, build images later) and the key that signs the
// embedded store's PUT URLs.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('upload_signing_secrets')
    .addColumn('secret_id', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .execute();
  // Made here, like the token signing key, so every instance that runs the migrations signs alike.
  await sql`insert into upload_signing_secrets (secret_id, secret, create_ts) values (${v7()}, ${randomBytes(32).toString('base64url')}, ${Date.now()})`.execute(
    db,
  );

  await db.schema
    .createTable('uploads')
    .addColumn('upload_id', 'text', (c) => c.primaryKey())
    .addColumn('game_id', 'text', (c) => c.notNull().references('games.game_id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('object_key', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('mime', 'text', (c) => c.notNull())
    .addColumn('content_length', 'bigint', (c) => c.notNull())
    .addColumn('part_count', 'integer', (c) => c.notNull())
    .addColumn('part_size', 'bigint', (c) => c.notNull())
    .addColumn('multipart_id', 'text')
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('expire_ts', 'bigint', (c) => c.notNull())
    .addColumn('complete_ts', 'bigint')
    .addColumn('state', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('uploads_game').on('uploads').columns(['game_id', 'create_ts']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('uploads').execute();
  await db.schema.dropTable('upload_signing_secrets').execute();
}
