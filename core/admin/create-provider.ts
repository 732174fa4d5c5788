import { insertProvider, type Provider } from '../../shared/db/provider-store.js';
import type { ProviderType } from '../../shared/domain/permissions.js';
import type { CoreDeps } from '../deps.js';

export function createProvider(deps: Pick<CoreDeps, 'db'>, input: { type: ProviderType; name: string }): Promise<Provider> {
  return insertProvider(deps.db, { type: input.type, name: input.name });
}
