import type { Kysely } from 'kysely';

// Frozen once released. The first-run setup link (docs/first-run.md): one row at most, made at the first
// start of a store with no team. `use_ts` is set exactly once, by the one setup that claims it (on any
// instance) or when the store turns out to have a team already; the link is gone from then on.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('first_run_setup')
    .addColumn('setup_id', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('use_ts', 'bigint')
    .addColumn('team_id', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('first_run_setup').execute();
}
