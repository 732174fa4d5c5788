import type { ServiceUserId } from '../../shared/domain/ids.js';
import { loadProgressChangeSince, type ProgressChange } from '../../shared/db/user-store.js';
import type { CoreDeps } from '../deps.js';

/**
 * The catch-up for a stream that opens late: the user's latest progress
 * change if it is after `sinceUs` (null: any recorded change), with the chains
 * whose progress was rewritten since then. Null when nothing changed.
 */
export function progressChangedSince(
  deps: Pick<CoreDeps, 'db'>,
  input: { userId: ServiceUserId; sinceUs: bigint | null },
): Promise<ProgressChange | null> {
  return loadProgressChangeSince(deps.db, input.userId, input.sinceUs);
}
