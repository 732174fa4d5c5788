import { loadProgressChangeSince, type ProgressChange } from '../../../shared/db/user-store.js';
import type { AppDeps } from '../../app-env.js';

/**
 * The catch-up for a stream that opens late: the user's latest progress
 * change if it is after `sinceUs` (null: any recorded change), with the chains
 * whose progress was rewritten since then. Null when nothing changed.
 */
export function progressChangedSince(
  deps: Pick<AppDeps, 'db'>,
  input: { userId: string; sinceUs: bigint | null },
): Promise<ProgressChange | null> {
  return loadProgressChangeSince(deps.db, input.userId, input.sinceUs);
}
