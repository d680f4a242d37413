import type { Insertable } from 'kysely';
import type { AuditEventsTable } from '../../db/database.js';
import type { Db } from '../../db/open-db.js';
import type { PageKey } from '../../lib/paging.js';

export function insertEvent(db: Db, row: Insertable<AuditEventsTable>) {
  return db.insertInto('audit_events').values(row).execute();
}

/** One list's page, newest first: the events of a game, or of a team, or (no scope) every event. */
export function listEvents(
  db: Db,
  scope: { column: 'game_id' | 'team_id'; id: string } | undefined,
  after: PageKey | undefined,
  limit: number,
) {
  let query = db.selectFrom('audit_events').selectAll();
  if (scope !== undefined) query = query.where(scope.column, '=', scope.id);
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('ts', 'event_id'), '<', eb.tuple(after.ts, after.id)));
  }
  return query.orderBy('ts', 'desc').orderBy('event_id', 'desc').limit(limit).execute();
}

/** The team a game belongs to, retired or not (a deletion is recorded in its team's list). */
export async function teamOfAnyGame(db: Db, gameId: string): Promise<string | undefined> {
  const row = await db.selectFrom('games').select('team_id').where('game_id', '=', gameId).executeTakeFirst();
  return row?.team_id ?? undefined;
}

export async function gameOfToken(db: Db, tokenId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('tokens')
    .select('game_id')
    .where('token_id', '=', tokenId)
    .executeTakeFirst();
  return row?.game_id ?? undefined;
}

export async function gameOfUpload(db: Db, uploadId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('uploads')
    .select('game_id')
    .where('upload_id', '=', uploadId)
    .executeTakeFirst();
  return row?.game_id ?? undefined;
}

/** Retention: deletes events older than `before` (epoch ms), a bounded batch at a time. */
export async function deleteEventsBefore(db: Db, before: number, batch = 10_000): Promise<number> {
  const result = await db
    .deleteFrom('audit_events')
    .where(
      'event_id',
      'in',
      db.selectFrom('audit_events').select('event_id').where('ts', '<', before).limit(batch),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
