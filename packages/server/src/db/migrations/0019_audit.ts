import type { Kysely } from 'kysely';

// Frozen once released. The audit log: one row per write made through the API by a known caller, appended
// before the answer goes out and never changed; rows older than GCM_AUDIT_RETENTION_DAYS are deleted.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('ts', 'bigint', (c) => c.notNull())
    // operator | cloud_token | reporter_token | person
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_token_id', 'text')
    .addColumn('actor_user_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('game_id', 'text')
    .addColumn('team_id', 'text')
    // JSON object of the ids the call named and made.
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('ray_id', 'text', (c) => c.notNull())
    .execute();
  // The two lists, newest first, paged by (ts, event_id); and retention, by ts.
  await db.schema
    .createIndex('audit_events_game')
    .on('audit_events')
    .columns(['game_id', 'ts', 'event_id'])
    .execute();
  await db.schema
    .createIndex('audit_events_team')
    .on('audit_events')
    .columns(['team_id', 'ts', 'event_id'])
    .execute();
  await db.schema.createIndex('audit_events_ts').on('audit_events').column('ts').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
}
