import type { Kysely } from 'kysely';

// Frozen once released. What a lobby printed (docs/runtime.md "Lobby output"): the lines live in blob
// storage in compressed chunks; these rows are the index that finds a range of lines without reading the
// rest, and each stream's counters. A chunk row per ~256 KiB of output (or a minute of a quiet server), never
// a row per line.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lobby_output_streams')
    .addColumn('lobby_id', 'text', (c) => c.notNull())
    // 'std_out' | 'std_err', as the interface names them.
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('namespace_id', 'text', (c) => c.notNull())
    // Lines the stream has had; the next line's position.
    .addColumn('line_count', 'bigint', (c) => c.notNull())
    // The first line still kept: the ones before were dropped for the size cap.
    .addColumn('first_line', 'bigint', (c) => c.notNull())
    .addColumn('kept_bytes', 'bigint', (c) => c.notNull())
    .addColumn('dropped_bytes', 'bigint', (c) => c.notNull())
    // The newest stored line's time, and how many stored lines have that time: where a capture resumes.
    .addColumn('last_ts', 'bigint', (c) => c.notNull())
    .addColumn('last_ts_lines', 'integer', (c) => c.notNull())
    // 1 once the lobby exited and all it printed is stored.
    .addColumn('complete', 'integer', (c) => c.notNull())
    .addColumn('update_ts', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('lobby_output_streams_pkey', ['lobby_id', 'stream'])
    .execute();
  // Retention deletes the streams not written for longer than the lobby log keeps lobbies.
  await db.schema
    .createIndex('lobby_output_streams_update')
    .on('lobby_output_streams')
    .column('update_ts')
    .execute();

  await db.schema
    .createTable('lobby_output_chunks')
    .addColumn('lobby_id', 'text', (c) => c.notNull())
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('first_line', 'bigint', (c) => c.notNull())
    .addColumn('line_count', 'integer', (c) => c.notNull())
    .addColumn('first_ts', 'bigint', (c) => c.notNull())
    .addColumn('last_ts', 'bigint', (c) => c.notNull())
    // The lines' own bytes, uncompressed: what the size cap counts.
    .addColumn('raw_bytes', 'integer', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    // 1 once no more lines are added to it (only a closed chunk is dropped for the size cap).
    .addColumn('closed', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('lobby_output_chunks_pkey', ['lobby_id', 'stream', 'first_line'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('lobby_output_chunks').execute();
  await db.schema.dropTable('lobby_output_streams').execute();
}
