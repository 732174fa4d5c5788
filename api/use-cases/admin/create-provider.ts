import { insertProvider, type Provider } from '../../../shared/db/provider-store.js';
import type { ProviderType } from '../../../shared/domain/permissions.js';
import type { AppDeps } from '../../app-env.js';

export function createProvider(deps: Pick<AppDeps, 'db'>, input: { type: ProviderType; name: string }): Promise<Provider> {
  return insertProvider(deps.db, { type: input.type, name: input.name });
}
