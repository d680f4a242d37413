import { type ExpressionBuilder, sql } from 'kysely';
import type { Database, UploadsTable } from '../../db/database.js';
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

/**
 * What is stored for these uploads: the keys of their files (the file PUT to, and the checked copy complete
 * made), and their multipart uploads never joined, whose parts the store keeps apart until aborted.
 */
export async function storedFilesOf(
  db: Db,
  uploadIds: string[],
): Promise<{ keys: string[]; multiparts: { key: string; uploadId: string; multipartId: string }[] }> {
  if (uploadIds.length === 0) return { keys: [], multiparts: [] };
  const rows = await db
    .selectFrom('uploads')
    .select(['upload_id', 'object_key', 'frozen_key', 'multipart_id', 'state'])
    .where('upload_id', 'in', uploadIds)
    .execute();
  return {
    keys: [
      ...new Set(
        rows.flatMap((r) => (r.frozen_key === null ? [r.object_key] : [r.object_key, r.frozen_key])),
      ),
    ],
    multiparts: rows.flatMap((r) =>
      r.multipart_id === null || r.state === 'complete'
        ? []
        : [{ key: r.object_key, uploadId: r.upload_id, multipartId: r.multipart_id }],
    ),
  };
}

/**
 * Moves the URLs' expiry of a pending upload to `expireTs` (fresh URLs were signed); false when the upload
 * is no longer pending.
 */
export async function extendExpiry(db: Db, uploadId: string, expireTs: number): Promise<boolean> {
  const result = await db
    .updateTable('uploads')
    .set({ expire_ts: expireTs })
    .where('upload_id', '=', uploadId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Claims up to `limit` abandoned build uploads: never completed and their URLs expired before `before`, or
 * claimed already by a pass that stopped before deleting them. The claim marks them 'abandoned' in the
 * same statement that picks them (the condition checked again on each row it changes), so a complete or a
 * presign racing the clean-up either wins first, and the upload is not taken, or finds it gone.
 */
export async function claimAbandonedBuildUploads(db: Db, before: number, limit: number): Promise<string[]> {
  const abandoned = (eb: ExpressionBuilder<Database, 'uploads'>) =>
    eb.or([
      eb.and([eb('state', '=', 'pending'), eb('expire_ts', '<', before)]),
      eb('state', '=', 'abandoned'),
    ]);
  const rows = await db
    .updateTable('uploads')
    .set({ state: 'abandoned' })
    .where(
      'upload_id',
      'in',
      db.selectFrom('uploads').select('upload_id').where('kind', '=', 'build').where(abandoned).limit(limit),
    )
    .where('kind', '=', 'build')
    .where(abandoned)
    .returning('upload_id')
    .execute();
  return rows.map((r) => r.upload_id);
}

export async function deleteUploads(db: Db, uploadIds: string[]): Promise<void> {
  if (uploadIds.length === 0) return;
  await db.deleteFrom('uploads').where('upload_id', 'in', uploadIds).execute();
}

/** Up to `limit` uploads of the game, for the purge of a retired game. */
export async function uploadIdsOfGame(db: Db, gameId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('uploads')
    .select('upload_id')
    .where('game_id', '=', gameId)
    .limit(limit)
    .execute();
  return rows.map((r) => r.upload_id);
}

/**
 * Up to `limit` avatar uploads that are garbage: never completed and their URLs expired before `before`, or
 * completed and replaced by a newer avatar of their game completed before `before` and not the game's
 * avatar. Build uploads are not taken: a prepared build names its upload.
 */
export async function avatarGarbage(db: Db, before: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('uploads as u')
    .select('u.upload_id')
    .where('u.kind', '=', 'avatar')
    .where((eb) =>
      eb.or([
        eb.and([eb('u.state', '=', 'pending'), eb('u.expire_ts', '<', before)]),
        eb.and([
          eb('u.state', '=', 'complete'),
          eb.exists(
            eb
              .selectFrom('uploads as n')
              .select('n.upload_id')
              .whereRef('n.game_id', '=', 'u.game_id')
              .where('n.kind', '=', 'avatar')
              .where('n.state', '=', 'complete')
              .whereRef('n.complete_ts', '>', 'u.complete_ts')
              .where('n.complete_ts', '<', before),
          ),
          eb.not(
            eb.exists(
              eb
                .selectFrom('games as g')
                .select('g.game_id')
                .whereRef('g.game_id', '=', 'u.game_id')
                .where(sql<string>`g.avatar_url`, 'like', sql<string>`'%/avatars/' || u.upload_id`),
            ),
          ),
        ]),
      ]),
    )
    .limit(limit)
    .execute();
  return rows.map((r) => r.upload_id);
}
