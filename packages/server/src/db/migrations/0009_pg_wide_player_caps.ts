import { type Kysely, PostgresAdapter } from 'kysely';

const COLUMNS = [
  'mm_max_players_per_client',
  'mm_max_players_per_client_hosting',
  'mm_max_players_per_client_proxy',
  'mm_max_players_per_client_tor',
  'mm_max_players_per_client_vpn',
] as const;

// Frozen once released. The per-client player caps go up to 2^32 - 1 (interface 4.6), past PostgreSQL's
// 32-bit `integer`; SQLite's integers are 64-bit already, so this changes nothing there.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  let alter = db.schema.alterTable('namespaces').alterColumn(COLUMNS[0], (c) => c.setDataType('bigint'));
  for (const column of COLUMNS.slice(1)) alter = alter.alterColumn(column, (c) => c.setDataType('bigint'));
  await alter.execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const column of COLUMNS) {
    await db.schema
      .alterTable('namespaces')
      .alterColumn(column, (c) => c.setDataType('integer'))
      .execute();
  }
}
