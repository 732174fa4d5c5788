import { findProvidersServingLive } from '../../shared/db/provider-store.js';
import type { CoreDeps } from '../deps.js';

/**
 * The providers, among `providerIds`, whose live tokens still count: active,
 * with at least one active credential. Tokens are issued to a provider (the
 * answer cache shares them between its credentials), so deactivating the
 * provider, or its last active credential, ends its streams.
 */
export async function providersServingLive(deps: Pick<CoreDeps, 'db'>, input: { providerIds: readonly string[] }): Promise<Set<string>> {
  return new Set(await findProvidersServingLive(deps.db, input.providerIds));
}
