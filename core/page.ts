import type { Page, PageRequest } from '../shared/db/keyset.js';
import { invalidInput } from '../shared/errors.js';

export type { Page, PageRequest } from '../shared/db/keyset.js';

/** The 400 every list answers when `starting_after` names none of its items. */
export const unknownCursor = (request: PageRequest) =>
  invalidInput(`starting_after: ${request.startingAfter ?? ''} is not an item of this list`, 'starting_after');

/** A data module's page (null: the cursor is not in the list), or that 400. */
export function pageOrRefuse<T>(page: Page<T> | null, request: PageRequest): Page<T> {
  if (!page) throw unknownCursor(request);
  return page;
}

/** Every item of a list, read page by page at the largest page size (the CLI prints whole lists). */
export async function everyItem<T>(readPage: (page: PageRequest) => Promise<Page<T>>, idOf: (item: T) => string): Promise<T[]> {
  const items: T[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await readPage({ limit: 200, startingAfter });
    items.push(...page.items);
    const last = page.items.at(-1);
    if (!page.hasMore || !last) return items;
    startingAfter = idOf(last);
  }
}
