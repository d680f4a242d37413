import { type Kysely, sql } from 'kysely';

// Frozen once released. What the runtime (docs/runtime.md) checks against, recorded when it happens rather
// than worked out later: a build's archive digest, when a lobby began to drain; and an index for the
// rollout's list of failed lobbies.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Lower-case hex sha256 of the build's stored archive, taken once its upload completed (null until then,
  // and on builds completed before this migration until their first use hashes them).
  await db.schema.alterTable('builds').addColumn('archive_sha256', 'text').execute();
  // When the reconciler first found this busy lobby on a version its namespace no longer runs: the drain
  // timeout counts from here, so a later edit of the namespace does not move it.
  await db.schema.alterTable('lobbies').addColumn('drain_started_ts', 'bigint').execute();
  // GET .../rollout lists a version's most recent failed lobbies in a namespace: a range of this small
  // partial index, in stop order, however long the namespace's lobby log is.
  await db.schema
    .createIndex('lobbies_failed')
    .on('lobbies')
    .columns(['namespace_id', 'version_id', 'stop_ts'])
    .where(sql<boolean>`run_state = 'stopped' and failed = 1`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('lobbies_failed').execute();
  await db.schema.alterTable('lobbies').dropColumn('drain_started_ts').execute();
  await db.schema.alterTable('builds').dropColumn('archive_sha256').execute();
}
