import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen once released. Webhook endpoints of games and teams, and the outbox of their deliveries: one row
// per event and endpoint, written before the change it reports is answered, sent and retried by the
// `webhook-delivery` job, kept GCM_WEBHOOK_RETENTION_DAYS as the delivery log.
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('webhook_id', 'text', (c) => c.primaryKey())
    // Exactly one of the two is set: the game or the team whose events the endpoint hears.
    .addColumn('game_id', 'text')
    .addColumn('team_id', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    // JSON array of event types.
    .addColumn('events', 'text', (c) => c.notNull())
    // The HMAC key deliveries are signed with: read back to sign, never answered after creation.
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('update_ts', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_game').on('webhook_endpoints').column('game_id').execute();
  await db.schema.createIndex('webhook_endpoints_team').on('webhook_endpoints').column('team_id').execute();

  // `seq` orders one resource's deliveries to one endpoint: the database's own counter, since instances'
  // clocks may disagree and two events of one lobby may share a millisecond.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('seq', pg ? 'bigserial' : 'integer', (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('delivery_id', 'text', (c) => c.notNull().unique())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('game_id', 'text')
    .addColumn('team_id', 'text')
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // What ordering is kept per: `lobby:<namespace>:<lobby>`, `build:<id>`, `namespace:<id>`, …
    .addColumn('resource_key', 'text', (c) => c.notNull())
    // An event reported twice (a retried lobby report) is queued once per endpoint.
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    // pending | delivered | failed
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    // JSON array of {ts, status_code?, error?, duration_ms}, at most WEBHOOK_ATTEMPTS_MAX.
    .addColumn('attempts', 'text', (c) => c.notNull())
    .addColumn('next_attempt_ts', 'bigint', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('delivered_ts', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_dedupe')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'dedupe_key'])
    .unique()
    .execute();
  // The dispatcher's two questions: what is due, and is an earlier delivery of the same resource pending.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .column('next_attempt_ts')
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_order')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'resource_key', 'seq'])
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  // The delivery log, newest first by (create_ts, delivery_id); and retention, by create_ts.
  await db.schema
    .createIndex('webhook_deliveries_log')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'create_ts', 'delivery_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_age')
    .on('webhook_deliveries')
    .column('create_ts')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
