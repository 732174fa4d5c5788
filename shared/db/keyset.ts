import { and, type Column, eq, gt, lt, or, type SQL } from 'drizzle-orm';

/**
 * Cursor pagination of every list (docs/api-flows.md, "Lists"). A page is
 * read by keyset, never by offset: the rows after the cursor's sort key, in
 * a total order (a unique column last), so a walk through the pages sees
 * each row once even while rows are added behind it.
 */
export interface PageRequest {
  limit: number;
  /** The id of the last item of the previous page. */
  startingAfter?: string | undefined;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** Reading one more row than asked is how a page knows whether another follows. */
export const rowsToRead = (limit: number) => limit + 1;

export function toPage<T>(rows: T[], limit: number): Page<T> {
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * "The row comes after `key` in the order of `columns`" (each ascending, or
 * each descending), for a where clause: (a > x) or (a = x and b > y) … The
 * expanded form rather than a row comparison keeps it in the query builder
 * and lets each value be mapped by its own column (timestampUs).
 */
export function afterKey(columns: readonly Column[], key: readonly unknown[], direction: 'asc' | 'desc' = 'asc'): SQL {
  const beyond = direction === 'asc' ? gt : lt;
  const [column, ...rest] = columns;
  if (!column || key.length !== columns.length) throw new Error('afterKey needs one value per column');
  if (rest.length === 0) return beyond(column, key[0]);
  return or(beyond(column, key[0]), and(eq(column, key[0]), afterKey(rest, key.slice(1), direction)))!;
}
