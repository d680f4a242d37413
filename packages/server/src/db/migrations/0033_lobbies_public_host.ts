import type { Kysely } from 'kysely';

// Frozen once released. Where players reach a lobby when the orchestrator chose its machine (the swarm
// runtime: the node's gcm.public_host label, else its swarm address), told once it is placed. Null: the
// region's GCM_REGION_PUBLIC_HOSTS host, else GCM_PUBLIC_URL's, as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('lobbies').addColumn('public_host', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('lobbies').dropColumn('public_host').execute();
}
