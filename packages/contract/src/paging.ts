import { type Static, Type } from 'typebox';

/**
 * One paging convention for every list that can grow: `limit` items a page (PAGE_LIMIT_DEFAULT unless the
 * list says otherwise, at most PAGE_LIMIT_MAX) and the `cursor` the previous page answered. A page carries
 * `cursor` only when more items follow; a client passes it back unchanged and never reads it.
 */
export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 1000;
export const CURSOR_MAX_LENGTH = 128;

/** Digits only; the range (1 to PAGE_LIMIT_MAX) is the service's to check, so its error can name it. */
export const PAGE_LIMIT_PATTERN = '^[0-9]{1,4}$';
/** base64url without padding: what the service hands out. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+$';

export const PageLimit = Type.String({
  pattern: PAGE_LIMIT_PATTERN,
  maxLength: 4,
  description: `items on this page, 1 to ${PAGE_LIMIT_MAX}`,
});

export const PageCursorInput = Type.String({
  pattern: CURSOR_PATTERN,
  minLength: 1,
  maxLength: CURSOR_MAX_LENGTH,
  description: 'the `cursor` of the previous page of this list, unchanged; absent for the first page',
});

export const PageQuery = Type.Object({
  limit: Type.Optional(PageLimit),
  cursor: Type.Optional(PageCursorInput),
});

/** The response member that says more items follow; absent on the last page. */
export const NextCursor = Type.Optional(
  Type.String({ description: 'present only when more items follow: pass it as `cursor` for the next page' }),
);

export type PageQuery = Static<typeof PageQuery>;
