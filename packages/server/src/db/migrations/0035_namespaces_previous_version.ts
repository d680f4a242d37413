import type { Kysely } from 'kysely';

// Frozen once released. The version a namespace ran before its current one, set when its version is
// switched: the image collector keeps that version's build images too, so a rollback starts at once.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('namespaces').addColumn('previous_version_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('namespaces').dropColumn('previous_version_id').execute();
}
