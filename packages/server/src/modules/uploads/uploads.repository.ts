import type { UploadsTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';

/** The oldest secret signs: later rotations add rows, and a fresh store has exactly one (migration 0004). */
export async function loadUploadSigningSecret(db: Db): Promise<Buffer> {
  const row = await db
    .selectFrom('upload_signing_secrets')
    .select('secret')
    .orderBy('create_ts', 'asc')
    .orderBy('secret_id', 'asc')
    .executeTakeFirstOrThrow();
  return Buffer.from(row.secret, 'base64url');
}

export function insertUpload(db: Db, row: UploadsTable) {
  return db.insertInto('uploads').values(row).execute();
}

export function findUpload(db: Db, uploadId: string) {
  return db.selectFrom('uploads').selectAll().where('upload_id', '=', uploadId).executeTakeFirst();
}

export type UploadRow = NonNullable<Awaited<ReturnType<typeof findUpload>>>;

/**
 * Marks a pending upload complete, recording the key of the file that was checked (`frozenKey`); false when
 * another complete got there first.
 */
export async function markComplete(
  db: Db,
  uploadId: string,
  now: number,
  frozenKey: string,
): Promise<boolean> {
  const result = await db
    .updateTable('uploads')
    .set({ state: 'complete', complete_ts: now, frozen_key: frozenKey })
    .where('upload_id', '=', uploadId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Completes an avatar upload and makes it the game's avatar in one transaction, so the game never shows
 * an avatar whose upload is not complete, nor a complete upload that was never applied. False when another
 * complete got there first.
 */
export function completeAvatar(db: Db, upload: UploadRow, avatarUrl: string, now: number, frozenKey: string) {
  return db.transaction().execute(async (trx) => {
    if (!(await markComplete(trx, upload.upload_id, now, frozenKey))) return false;
    await trx
      .updateTable('games')
      .set({ avatar_url: avatarUrl })
      .where('game_id', '=', upload.game_id)
      .execute();
    return true;
  });
}
