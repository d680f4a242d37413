import type { Db } from '../../db/open-db.js';

/** The one row of the first-run setup. */
export const SETUP_ID = 'first-run';

export function getSetup(db: Db) {
  return db
    .selectFrom('first_run_setup')
    .select(['secret', 'use_ts', 'team_id'])
    .where('setup_id', '=', SETUP_ID)
    .executeTakeFirst();
}

/** Instances starting together each try; the first insert stands and the others read it. */
export async function insertSetupIfAbsent(
  db: Db,
  row: { secret: string; create_ts: number; use_ts: number | null },
): Promise<void> {
  await db
    .insertInto('first_run_setup')
    .values({ setup_id: SETUP_ID, team_id: null, ...row })
    .onConflict((oc) => oc.column('setup_id').doNothing())
    .execute();
}

export async function anyTeam(db: Db): Promise<boolean> {
  const row = await db.selectFrom('teams').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * The one atomic step that decides which setup succeeds: the open link becomes used, on whichever instance,
 * exactly once. True for the caller that claimed it.
 */
export async function claimSetup(db: Db, secret: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('first_run_setup')
    .set({ use_ts: now })
    .where('setup_id', '=', SETUP_ID)
    .where('secret', '=', secret)
    .where('use_ts', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** A claim whose team could not be made: the link is open again. */
export async function releaseSetup(db: Db, claimedAt: number): Promise<void> {
  await db
    .updateTable('first_run_setup')
    .set({ use_ts: null })
    .where('setup_id', '=', SETUP_ID)
    .where('use_ts', '=', claimedAt)
    .where('team_id', 'is', null)
    .execute();
}

export async function recordSetupTeam(db: Db, teamId: string): Promise<void> {
  await db.updateTable('first_run_setup').set({ team_id: teamId }).where('setup_id', '=', SETUP_ID).execute();
}

/** A team exists, made another way (POST /cloud/teams): the open link is retired unused. */
export async function retireSetup(db: Db, now: number): Promise<void> {
  await db
    .updateTable('first_run_setup')
    .set({ use_ts: now })
    .where('setup_id', '=', SETUP_ID)
    .where('use_ts', 'is', null)
    .execute();
}
