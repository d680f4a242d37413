import type { Kysely } from 'kysely';

// Frozen once released. Background jobs (billing roll-over, device link clean-up) run on one instance at a
// time: the holder of a job's lease runs it and renews the lease each pass; another takes over once the
// lease expires (its holder stopped or died).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('job_leases')
    .addColumn('job_name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expire_ts', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_leases').execute();
}
