import { z } from '@hono/zod-openapi';
import type { PageRequest } from '../../shared/db/keyset.js';

const DEFAULT_PAGE_LIMIT = 50;
const MAX_PAGE_LIMIT = 200;

/**
 * The query of every list (docs/api-flows.md, "Lists"): `limit` and
 * `starting_after`, the id of the previous page's last item. `cursor` is
 * that id's schema, so a malformed one is a 400 naming `starting_after`
 * rather than a failed statement.
 */
export function pageQueryShape(cursor: z.ZodString | z.ZodUUID, cursorDescription: string) {
  return {
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_PAGE_LIMIT)
      .default(DEFAULT_PAGE_LIMIT)
      .openapi({
        param: { name: 'limit', in: 'query' },
        description: `Items per page, 1 to ${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT}).`,
        example: DEFAULT_PAGE_LIMIT,
      }),
    starting_after: cursor.optional().openapi({
      param: { name: 'starting_after', in: 'query' },
      description: `Continue after this item: ${cursorDescription}. Omit for the first page.`,
    }),
  };
}

export const pageQuerySchema = (cursor: z.ZodString | z.ZodUUID, cursorDescription: string) =>
  z.object(pageQueryShape(cursor, cursorDescription));

export const hasMoreField = () =>
  z
    .boolean()
    .openapi({ description: 'True when more items follow: ask again with `starting_after` set to the last item of this page.' });

export const toPageRequest = (query: { limit: number; starting_after?: string | undefined }): PageRequest => ({
  limit: query.limit,
  startingAfter: query.starting_after,
});
