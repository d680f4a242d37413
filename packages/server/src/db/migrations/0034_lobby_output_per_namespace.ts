import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen once released. A lobby's output is (namespace_id, lobby_id), as the lobby is (0010): keyed by
// lobby_id alone, a reporter of one game that reported a lobby under another game's lobby id read that
// game's lines through its own log routes. Chunks carry the namespace too, from their stream's row.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.alterTable('lobby_output_streams').dropConstraint('lobby_output_streams_pkey').execute();
    await db.schema
      .alterTable('lobby_output_streams')
      .addPrimaryKeyConstraint('lobby_output_streams_pkey', ['namespace_id', 'lobby_id', 'stream'])
      .execute();
    await db.schema.alterTable('lobby_output_chunks').addColumn('namespace_id', 'text').execute();
    await sql`update lobby_output_chunks c set namespace_id = s.namespace_id from lobby_output_streams s
      where s.lobby_id = c.lobby_id and s.stream = c.stream`.execute(db);
    // A chunk without its stream's row is never read nor deleted by retention: it goes now.
    await sql`delete from lobby_output_chunks where namespace_id is null`.execute(db);
    await db.schema
      .alterTable('lobby_output_chunks')
      .alterColumn('namespace_id', (c) => c.setNotNull())
      .execute();
    await db.schema.alterTable('lobby_output_chunks').dropConstraint('lobby_output_chunks_pkey').execute();
    await db.schema
      .alterTable('lobby_output_chunks')
      .addPrimaryKeyConstraint('lobby_output_chunks_pkey', [
        'namespace_id',
        'lobby_id',
        'stream',
        'first_line',
      ])
      .execute();
    return;
  }
  await rebuildSqlite(db, true);
}

/** Fails, as it should, once two namespaces hold output of the same lobby id. */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.alterTable('lobby_output_chunks').dropConstraint('lobby_output_chunks_pkey').execute();
    await db.schema
      .alterTable('lobby_output_chunks')
      .addPrimaryKeyConstraint('lobby_output_chunks_pkey', ['lobby_id', 'stream', 'first_line'])
      .execute();
    await db.schema.alterTable('lobby_output_chunks').dropColumn('namespace_id').execute();
    await db.schema.alterTable('lobby_output_streams').dropConstraint('lobby_output_streams_pkey').execute();
    await db.schema
      .alterTable('lobby_output_streams')
      .addPrimaryKeyConstraint('lobby_output_streams_pkey', ['lobby_id', 'stream'])
      .execute();
    return;
  }
  await rebuildSqlite(db, false);
}

/**
 * SQLite cannot change a table's primary key in place: copies with the new keys take the rows and replace
 * the tables, and the retention index of 0032 comes back (dropping the old table dropped it).
 */
async function rebuildSqlite(db: Kysely<unknown>, perNamespace: boolean): Promise<void> {
  await db.schema
    .createTable('lobby_output_streams_rebuilt')
    .addColumn('lobby_id', 'text', (c) => c.notNull())
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('namespace_id', 'text', (c) => c.notNull())
    .addColumn('line_count', 'bigint', (c) => c.notNull())
    .addColumn('first_line', 'bigint', (c) => c.notNull())
    .addColumn('kept_bytes', 'bigint', (c) => c.notNull())
    .addColumn('dropped_bytes', 'bigint', (c) => c.notNull())
    .addColumn('last_ts', 'bigint', (c) => c.notNull())
    .addColumn('last_ts_lines', 'integer', (c) => c.notNull())
    .addColumn('complete', 'integer', (c) => c.notNull())
    .addColumn('update_ts', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint(
      'lobby_output_streams_pkey',
      perNamespace ? ['namespace_id', 'lobby_id', 'stream'] : ['lobby_id', 'stream'],
    )
    .execute();
  await sql`insert into lobby_output_streams_rebuilt (lobby_id, stream, namespace_id, line_count, first_line,
    kept_bytes, dropped_bytes, last_ts, last_ts_lines, complete, update_ts)
    select lobby_id, stream, namespace_id, line_count, first_line, kept_bytes, dropped_bytes, last_ts,
      last_ts_lines, complete, update_ts from lobby_output_streams`.execute(db);

  // Down keeps the column until the copy is in place, then drops it (not part of the key there).
  await db.schema
    .createTable('lobby_output_chunks_rebuilt')
    .addColumn('lobby_id', 'text', (c) => c.notNull())
    .addColumn('namespace_id', 'text', (c) => (perNamespace ? c.notNull() : c))
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('first_line', 'bigint', (c) => c.notNull())
    .addColumn('line_count', 'integer', (c) => c.notNull())
    .addColumn('first_ts', 'bigint', (c) => c.notNull())
    .addColumn('last_ts', 'bigint', (c) => c.notNull())
    .addColumn('raw_bytes', 'integer', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('closed', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint(
      'lobby_output_chunks_pkey',
      perNamespace
        ? ['namespace_id', 'lobby_id', 'stream', 'first_line']
        : ['lobby_id', 'stream', 'first_line'],
    )
    .execute();
  if (perNamespace) {
    // A chunk without its stream's row is never read nor deleted by retention: it is not copied.
    await sql`insert into lobby_output_chunks_rebuilt (lobby_id, namespace_id, stream, first_line, line_count,
      first_ts, last_ts, raw_bytes, blob_key, closed)
      select c.lobby_id, s.namespace_id, c.stream, c.first_line, c.line_count, c.first_ts, c.last_ts,
        c.raw_bytes, c.blob_key, c.closed
      from lobby_output_chunks c join lobby_output_streams s on s.lobby_id = c.lobby_id and s.stream = c.stream`.execute(
      db,
    );
  } else {
    await sql`insert into lobby_output_chunks_rebuilt (lobby_id, stream, first_line, line_count, first_ts,
      last_ts, raw_bytes, blob_key, closed)
      select lobby_id, stream, first_line, line_count, first_ts, last_ts, raw_bytes, blob_key, closed
      from lobby_output_chunks`.execute(db);
  }
  await db.schema.dropTable('lobby_output_chunks').execute();
  await db.schema.dropTable('lobby_output_streams').execute();
  await db.schema.alterTable('lobby_output_streams_rebuilt').renameTo('lobby_output_streams').execute();
  await db.schema.alterTable('lobby_output_chunks_rebuilt').renameTo('lobby_output_chunks').execute();
  if (!perNamespace) await db.schema.alterTable('lobby_output_chunks').dropColumn('namespace_id').execute();
  await db.schema
    .createIndex('lobby_output_streams_update')
    .on('lobby_output_streams')
    .column('update_ts')
    .execute();
}
