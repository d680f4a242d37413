import type { Kysely } from 'kysely';

// Frozen once released. Complete moves a single-PUT upload's file to a key no upload URL names and checks
// that copy; this records which one, so what is served is exactly what was checked. Null on uploads
// completed before: those are served from object_key, as they were.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').addColumn('frozen_key', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('uploads').dropColumn('frozen_key').execute();
}
