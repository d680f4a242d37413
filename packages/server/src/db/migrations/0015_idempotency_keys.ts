import type { Kysely } from 'kysely';

// Frozen once released. Idempotency-Key records: one row per key a caller sent to a creating operation,
// first while its request runs (claimed), then with the answer to replay, until it expires 24 h after the
// first use. The primary key is what decides a race between instances: one insert wins.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    // Whose key: `operator`, `game:<game_id>` or `reporter:<game_id>:<namespace_id>`.
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    // `POST /cloud/games/:game_id/namespaces`: the operation the key was first used for.
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('request_sha256', 'text', (c) => c.notNull())
    // Who holds the claim while the request runs; null once the answer is stored.
    .addColumn('claim_id', 'text')
    .addColumn('claim_expire_ts', 'bigint')
    .addColumn('status_code', 'integer')
    .addColumn('answer', 'text')
    .addColumn('create_ts', 'bigint', (c) => c.notNull())
    .addColumn('expire_ts', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'idem_key'])
    .execute();
  // The clean-up deletes by expiry.
  await db.schema.createIndex('idempotency_keys_expire').on('idempotency_keys').column('expire_ts').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
