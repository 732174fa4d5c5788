import { selectProviders, type Provider } from '../../../shared/db/provider-store.js';
import type { AppDeps } from '../../app-env.js';

/** Every provider, oldest first. */
export function listProviders(deps: Pick<AppDeps, 'db'>): Promise<Provider[]> {
  return selectProviders(deps.db);
}
