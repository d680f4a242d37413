import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_init.js';

/** Listed by hand (not read from disk) so the set of migrations is fixed at build time. */
const migrations: Record<string, Migration> = {
  '0001_init': m0001,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
