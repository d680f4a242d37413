import { CompiledQuery, sql } from 'kysely';
import { type Db, isPostgres } from '../../src/db/open-db.js';

/**
 * The store's plan for a compiled query, as one string: SQLite's `explain query plan` details joined by
 * ' | ', or PostgreSQL's `explain` lines. On PostgreSQL sequential and bitmap scans are priced out: on a
 * test-sized table the planner would rightly scan it whole, and what a test asks is whether the index serves
 * the query in order (no Sort node), as it must at a million rows.
 */
export async function queryPlan(db: Db, compiled: CompiledQuery): Promise<string> {
  if (!isPostgres(db)) {
    const plan = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
    );
    return plan.rows.map((r) => r.detail).join(' | ');
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    await sql`set local enable_bitmapscan = off`.execute(trx);
    const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]),
    );
    return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
  });
}
