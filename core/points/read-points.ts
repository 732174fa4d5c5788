import { listEntries, NO_POINTS, type PointEntry, type PointFigures, readFigures } from '../../shared/db/points-store.js';
import { findUserId } from '../../shared/db/user-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import type { CoreDeps } from '../deps.js';
import { type PageRequest, pageOrRefuse, unknownCursor } from '../page.js';

export interface PointsOverview extends PointFigures {
  /** Newest first. */
  entries: PointEntry[];
  hasMore: boolean;
}

/**
 * Product rules §18.6: a user's balance, its figures and a page of their
 * ledger, newest first, from one snapshot (the figures and the entries
 * agree, whatever is written meanwhile). Read from the primary: a spend's
 * answer and the next read agree. An unknown user, or another platform's,
 * has no points (and no entry a cursor could name).
 */
export async function readPoints(
  deps: Pick<CoreDeps, 'db'>,
  input: { platformId: string; platformUserId: SenderUserId; page: PageRequest },
): Promise<PointsOverview> {
  const userId = await findUserId(deps.db, input.platformId, input.platformUserId);
  if (!userId) {
    if (input.page.startingAfter !== undefined) throw unknownCursor(input.page);
    return { ...NO_POINTS, entries: [], hasMore: false };
  }
  return deps.db.transaction(
    async (tx) => {
      const [figures, page] = await Promise.all([readFigures(tx, userId), listEntries(tx, userId, input.page)]);
      const { items, hasMore } = pageOrRefuse(page, input.page);
      return { ...figures, entries: items, hasMore };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
