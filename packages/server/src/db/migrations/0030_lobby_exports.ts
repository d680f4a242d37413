import type { Kysely } from 'kysely';

// Frozen once released. Files the service wrote for a download (lobby history CSVs, lobby output exports):
// the blob is handed out as a presigned URL and deleted a day later, found by create_ts a batch at a time.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lobby_exports')
    .addColumn('export_id', 'text', (c) => c.primaryKey())
    .addColumn('game_id', 'text', (c) => c.notNull())
    // 'lobby-history' | 'lobby-output'.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('lobby_exports_create').on('lobby_exports').column('create_ts').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('lobby_exports').execute();
}
