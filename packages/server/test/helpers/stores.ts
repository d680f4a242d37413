import { onPostgres } from './postgres.js';

/** Options for a test that runs on PostgreSQL only (GCM_TEST_DATABASE_URL set); skipped, and counted, otherwise. */
export const pgOnly = { skip: !onPostgres && 'PostgreSQL only: set GCM_TEST_DATABASE_URL (npm run test:pg)' };
