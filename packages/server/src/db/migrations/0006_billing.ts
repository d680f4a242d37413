import type { Kysely } from 'kysely';

// Frozen once released. The billing plan of each game, one row per game, made on the game's first plan
// change: a game without a row is on `trial`. `version` is the watch index of GET .../billing, bumped in the
// transaction of every change. The period columns are null while `trial` is in force.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('game_billing')
    .addColumn('game_id', 'text', (c) => c.primaryKey().references('games.game_id'))
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('active_plan', 'text', (c) => c.notNull())
    .addColumn('period_start_ts', 'bigint')
    .addColumn('period_end_ts', 'bigint')
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('update_ts', 'bigint', (c) => c.notNull())
    .execute();
  // The roll-over scheduler reads the rows whose period has ended as a range scan of this index, so a tick
  // costs the same however many games there are (rows of games on trial have no period and no entry in range).
  await db.schema.createIndex('game_billing_period_end').on('game_billing').column('period_end_ts').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('game_billing').execute();
}
