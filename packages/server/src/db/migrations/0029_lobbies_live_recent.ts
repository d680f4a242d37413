import { type Kysely, sql } from 'kysely';

// Frozen once released. GET …/analytics/matchmaker/live reads a namespace's starting and ready lobbies,
// the newest first, at most 1,000: a backward range of this partial index, whatever the size of the lobby
// log (stopped lobbies stay in `lobbies`) and without sorting.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('lobbies_live_recent')
    .on('lobbies')
    .columns(['namespace_id', 'create_ts', 'lobby_id'])
    .where(sql.ref('run_state'), 'in', [sql.lit('starting'), sql.lit('ready')])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('lobbies_live_recent').execute();
}
