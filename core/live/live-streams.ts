import { findProvidersServingLive } from '../../shared/db/provider-store.js';
import { findUserId as findStoredUserId, loadProgressChangeSince, type ProgressChange } from '../../shared/db/user-store.js';
import type { SenderUserId, ServiceUserId } from '../../shared/domain/ids.js';
import type { CoreDeps } from '../deps.js';

// What a live stream reads besides progress: whose stream it is, what it
// missed before it opened, and whether its provider may still hold it.

/** The service user id of one of a platform's users, or null while that platform has not registered them. */
export function findUserId(
  deps: Pick<CoreDeps, 'db'>,
  input: { platformId: string; platformUserId: SenderUserId },
): Promise<ServiceUserId | null> {
  return findStoredUserId(deps.db, input.platformId, input.platformUserId);
}

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

/**
 * The providers, among `providerIds`, whose live tokens still count: active,
 * with at least one active credential. Tokens are issued to a provider (the
 * answer cache shares them between its credentials), so deactivating the
 * provider, or its last active credential, ends its streams.
 */
export async function providersServingLive(
  deps: Pick<CoreDeps, 'db'>,
  input: { providerIds: readonly string[] },
): Promise<Set<string>> {
  return new Set(await findProvidersServingLive(deps.db, input.providerIds));
}
