import { listChainDefinitions, type ChainDefinition } from '../../../shared/db/chain-store.js';
import type { AppDeps } from '../../app-env.js';

/** Every chain (or one platform's), newest first. */
export function listChains(deps: Pick<AppDeps, 'db'>, input: { platformId?: string | undefined }): Promise<ChainDefinition[]> {
  return listChainDefinitions(deps.db, input.platformId);
}
