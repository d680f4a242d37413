import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, UUID_PATTERN } from '@gcm/contract';
import { errors } from '../errors.js';

/** Where a page starts: after the item with this (create_ts, id), in the list's own order. */
export interface PageKey {
  ts: number;
  id: string;
}

export interface PageRequest {
  limit: number;
  after: PageKey | undefined;
}

/** The lists that page; a cursor names its list, so one list's cursor is refused by another. */
export type PagedList = 'namespaces' | 'versions' | 'tokens' | 'builds' | 'audit' | 'deliveries';

const CURSOR_TEXT = new RegExp(`^([a-z]+):(0|[1-9][0-9]{0,15}):(${UUID_PATTERN.slice(1, -1)})$`);

function badCursor(): never {
  throw errors.badQuery('query parameter "cursor" is not a cursor this list answered; start without one', {
    field: 'cursor',
  });
}

/**
 * The page a query asks for, or a 400 naming `limit` or `cursor`. A cursor is the base64url of
 * `<list>:<create_ts>:<id>`: it only says where the previous page ended, which the caller has already seen,
 * so it needs no signature; anything that does not decode to exactly that form is refused rather than guessed.
 */
export function readPage(
  list: PagedList,
  query: { limit?: string | undefined; cursor?: string | undefined },
  defaultLimit = PAGE_LIMIT_DEFAULT,
): PageRequest {
  let limit = defaultLimit;
  if (query.limit !== undefined) {
    limit = Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT_MAX) {
      throw errors.badQuery(`query parameter "limit" must be a whole number from 1 to ${PAGE_LIMIT_MAX}`, {
        field: 'limit',
      });
    }
  }
  if (query.cursor === undefined) return { limit, after: undefined };
  const bytes = Buffer.from(query.cursor, 'base64url');
  // Buffer decoding skips what is not base64url; only the exact text the service wrote is a cursor.
  if (bytes.toString('base64url') !== query.cursor) badCursor();
  const match = CURSOR_TEXT.exec(bytes.toString('latin1'));
  if (match === null || match[1] !== list) badCursor();
  const ts = Number(match[2]);
  if (!Number.isSafeInteger(ts)) badCursor();
  return { limit, after: { ts, id: match[3] as string } };
}

function encodeCursor(list: PagedList, key: PageKey): string {
  return Buffer.from(`${list}:${key.ts}:${key.id}`, 'latin1').toString('base64url');
}

/**
 * Splits the `limit + 1` rows a repository read into the page and, when the extra row shows that more
 * follow, the cursor after the page's last item.
 */
export function pageOf<T>(
  list: PagedList,
  rows: T[],
  limit: number,
  keyOf: (row: T) => PageKey,
): { items: T[]; cursor: string | undefined } {
  if (rows.length <= limit) return { items: rows, cursor: undefined };
  const items = rows.slice(0, limit);
  return { items, cursor: encodeCursor(list, keyOf(items[limit - 1] as T)) };
}

/** `{cursor}` when there is one: the member is absent, not null, on a last page. */
export function cursorField(cursor: string | undefined): { cursor?: string } {
  return cursor === undefined ? {} : { cursor };
}
