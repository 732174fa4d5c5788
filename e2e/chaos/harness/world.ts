import type { ChainRules } from '../../../shared/domain/walk.js';
import type { ApiClient } from '../../../shared/testing/api-client.js';
import { seedWorld as seedThroughApi } from '../../../shared/testing/world-seeder.js';
import { MODEL_CHAINS } from '../../support/progress-model.js';
import { rulesOfWireChain, wireChainBody } from '../../support/wire-rules.js';

export interface Tenant {
  id: string;
  /** X-API-Key and X-API-Secret of its credential. */
  headers: Record<string, string>;
  /** Registered platform user ids (none for an advertiser). */
  users: string[];
  /** Ids its events use that were never registered: stored, never counted (§4). */
  strangers: string[];
  /** The platform's chains (the e2e model chains: ordered, any-order, windowed) with their rules for the model. */
  chains: { id: string; taskIds: string[]; rules: ChainRules }[];
}

/**
 * `platforms` platforms sponsored by one advertiser, each with the model
 * chains and `usersPerPlatform` registered users (plus a few never registered).
 */
export async function seedWorld(client: ApiClient, options: { platforms: number; usersPerPlatform: number }): Promise<Tenant[]> {
  const usersOf = (p: number) => Array.from({ length: options.usersPerPlatform }, (_, i) => `p${p}-u${i}`);
  const platformNumbers = Array.from({ length: options.platforms }, (_, p) => p);
  const world = await seedThroughApi(client, {
    platforms: options.platforms,
    advertisers: 1,
    name: (type, i) => (type === 'advertiser' ? 'chaos advertiser' : `chaos platform ${i}`),
    chains: (platforms, [advertiser]) =>
      platforms.flatMap((platform, platformIndex) =>
        MODEL_CHAINS.map((chain) => ({
          body: wireChainBody(chain, platform.id, advertiser!.id, 5),
          kept: { platformIndex, chain },
        })),
      ),
    users: platformNumbers.flatMap((platformIndex) =>
      usersOf(platformIndex).map((platformUserId) => ({ platformIndex, platformUserId })),
    ),
  });
  return world.platforms.map((platform, p) => ({
    ...platform,
    users: usersOf(p),
    strangers: [`p${p}-stranger-0`, `p${p}-stranger-1`],
    chains: world.chains
      .filter((chain) => chain.platformIndex === p)
      .map(({ id, taskIds, chain }) => ({ id, taskIds, rules: rulesOfWireChain(chain, taskIds) })),
  }));
}
