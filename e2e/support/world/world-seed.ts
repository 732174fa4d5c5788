import type { ChainRules } from '../../../shared/domain/walk.js';
import type { ApiClient } from '../../../shared/testing/api-client.js';
import { seededRandom } from '../../../shared/testing/random.js';
import { type SeededProvider, seedWorld } from '../../../shared/testing/world-seeder.js';
import { rulesOfWireChain } from '../wire-rules.js';
import { chainBody, type WorldChain, worldChains } from './world-chains.js';
import type { WorldOptions } from './world-options.js';

export interface SeededWorld {
  platforms: SeededProvider[];
  advertisers: SeededProvider[];
  chains: (WorldChain & { id: string; rules: ChainRules })[];
  /** Every registered user the producers draw from. */
  users: { platformIndex: number; platformUserId: string }[];
  /** Registered users of platform 0 that only the probes send for (never drawn by the producers). */
  probeUsers: string[];
}

const REGISTER_CONCURRENCY = 32;
// The bench's raw client adds no content type of its own; a GET carrying one is harmless.
const JSON_CONTENT = { 'content-type': 'application/json' };

/**
 * Builds the world through the API (`call`: the bench's client or the chaos
 * suite's), as integrators would: providers and their credentials, the chains
 * (admin API), then every user registered. Deterministic for a seed, except
 * the ids the service assigns.
 */
export async function seedProductionWorld(
  client: ApiClient,
  options: WorldOptions,
  probeCount: number,
  log: (message: string) => void,
): Promise<SeededWorld> {
  const random = seededRandom(options.seed);
  const users = Array.from({ length: options.users }, (_, i) => ({
    platformIndex: i % options.platforms,
    platformUserId: `w${i % options.platforms}-${i}`,
  }));
  const probeUsers = Array.from({ length: probeCount }, (_, i) => `probe-${i}`);
  const registrations = [...users, ...probeUsers.map((platformUserId) => ({ platformIndex: 0, platformUserId }))];
  const started = performance.now();
  const world = await seedWorld(client, {
    platforms: options.platforms,
    advertisers: options.advertisers,
    name: (type, i) => `world ${type} ${i}`,
    chains: (platforms, advertisers) =>
      worldChains(random, options.chains, options.platforms, options.advertisers, Date.now()).map((chain) => ({
        body: chainBody(chain, platforms[chain.platformIndex]!.id, advertisers[chain.advertiserIndex]!.id),
        kept: chain,
      })),
    users: registrations,
    registerConcurrency: REGISTER_CONCURRENCY,
    providerHeaders: JSON_CONTENT,
  });
  log(
    `seeded ${world.chains.length} chains and registered ${registrations.length} users in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const chains = world.chains.map(({ taskIds, ...chain }) => ({ ...chain, rules: rulesOfWireChain(chain, taskIds) }));
  return { platforms: world.platforms, advertisers: world.advertisers, chains, users, probeUsers };
}
