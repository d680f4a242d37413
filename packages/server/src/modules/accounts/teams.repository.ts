import type { Db } from '../../db/open-db.js';

export async function teamSlugTaken(db: Db, slug: string): Promise<boolean> {
  const row = await db.selectFrom('teams').select('id').where('slug', '=', slug).executeTakeFirst();
  return row !== undefined;
}
