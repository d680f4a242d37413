import { type Kysely, sql } from 'kysely';

// Frozen once released. Each endpoint's pending deliveries in order: the dispatcher reads every endpoint's
// two oldest due deliveries, so one endpoint's backlog (a receiver down for a day) costs its own lookup,
// not a scan that every other endpoint's deliveries wait behind.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_queue')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'seq'])
    .where(sql.ref('state'), '=', 'pending')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_queue').execute();
}
