import { type Kysely, sql } from 'kysely';

// Frozen once released. GET /matchmaker/lobbies/list reads a namespace's ready lobbies, the fullest
// first, at most 512: a range of this partial index in its order, whatever the size of the lobby log
// (stopped lobbies stay in `lobbies`) and without sorting the namespace's lobbies.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('lobbies_listed')
    .on('lobbies')
    .columns(['namespace_id', 'player_count desc', 'lobby_id'])
    .where(sql.ref('run_state'), '=', sql.lit('ready'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('lobbies_listed').execute();
}
