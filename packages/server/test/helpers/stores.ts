import { onPostgres } from './postgres.js';

const PG_REASON = 'PostgreSQL only: set GCM_TEST_DATABASE_URL (npm run test:pg)';

/**
 * Options of a test or suite that runs on PostgreSQL only. Elsewhere each of its tests counts as skipped, a
 * suite's too, when test-defaults.ts is loaded (npm test, npm run test:file).
 */
export const pgOnly = { skip: !onPostgres && PG_REASON };

/** Options of a test or suite that runs on SQLite only. */
export const sqliteOnly = { skip: onPostgres && 'SQLite only' };
