import type { Kysely } from 'kysely';

// Frozen once released. A lobby's resource use (issue 38), sampled from the engine's stats while it runs:
// the latest sample per lobby (one row each, rewritten every pass: what another instance and a restart
// show) and a coarse history (one row per GCM_LOBBY_STATS_HISTORY_INTERVAL, at most 1,440 per lobby).
// CPU is in millicores; bytes as bigint (a tier's memory is past 2^31). Retention and the purge delete
// by namespace and time, a range of the (namespace_id, ts) indexes.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['lobby_resource_samples', 'lobby_resource_latest'] as const) {
    let create = db.schema
      .createTable(table)
      .addColumn('namespace_id', 'text', (c) => c.notNull())
      .addColumn('lobby_id', 'text', (c) => c.notNull())
      .addColumn('ts', 'bigint', (c) => c.notNull())
      .addColumn('cpu_millicores', 'integer', (c) => c.notNull())
      .addColumn('memory_bytes', 'bigint', (c) => c.notNull())
      .addColumn('memory_limit_bytes', 'bigint', (c) => c.notNull())
      .addColumn('rx_bytes', 'bigint', (c) => c.notNull())
      .addColumn('tx_bytes', 'bigint', (c) => c.notNull());
    create =
      table === 'lobby_resource_samples'
        ? create.addPrimaryKeyConstraint(`${table}_pkey`, ['lobby_id', 'ts'])
        : create.addPrimaryKeyConstraint(`${table}_pkey`, ['lobby_id']);
    await create.execute();
    await db.schema.createIndex(`${table}_namespace_ts`).on(table).columns(['namespace_id', 'ts']).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('lobby_resource_latest').execute();
  await db.schema.dropTable('lobby_resource_samples').execute();
}
