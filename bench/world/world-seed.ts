import { seededRandom } from '../../shared/testing/random.js';
import type { HttpClient } from './http-client.js';
import { chainBody, worldChains, type WorldChain } from './world-chains.js';
import { rulesOfWireChain } from '../../e2e/support/wire-rules.js';
import type { ChainRules } from '../../shared/domain/progress.js';
import type { WorldOptions } from './world-options.js';
import { adminHeaders } from '../../shared/testing/admin-token.js';

export interface WorldProvider {
  id: string;
  headers: Record<string, string>;
}

export interface SeededWorld {
  platforms: WorldProvider[];
  advertisers: WorldProvider[];
  chains: (WorldChain & { id: string; rules: ChainRules })[];
  /** Every registered user the producers draw from. */
  users: { platformIndex: number; platformUserId: string }[];
  /** Registered users of platform 0 that only the probes send for (never drawn by the producers). */
  probeUsers: string[];
}

const REGISTER_CONCURRENCY = 32;

/**
 * Builds the world through the API, as integrators would: providers and
 * their credentials, the chains (admin API), then every user registered.
 * Deterministic for a seed, except the ids the service assigns.
 */
export async function seedProductionWorld(http: HttpClient, options: WorldOptions, probeCount: number, log: (message: string) => void): Promise<SeededWorld> {
  const random = seededRandom(options.seed);
  const admin = { ...adminHeaders, 'content-type': 'application/json' };
  const call = async (method: string, path: string, headers: Record<string, string>, body: unknown) => {
    const answer = await http.call(method, path, headers, JSON.stringify(body));
    if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.body}`);
    return (JSON.parse(answer.body) as { data: any }).data;
  };
  const provider = async (type: 'platform' | 'advertiser', name: string): Promise<WorldProvider> => {
    const created = await call('POST', '/admin/v1/providers', admin, { type, name });
    const credential = await call('POST', `/admin/v1/providers/${created.id}/credentials`, admin, {});
    return { id: created.id, headers: { 'content-type': 'application/json', 'x-api-key': credential.key, 'x-api-secret': credential.secret } };
  };
  const platforms: WorldProvider[] = [];
  for (let i = 0; i < options.platforms; i += 1) platforms.push(await provider('platform', `world platform ${i}`));
  const advertisers: WorldProvider[] = [];
  for (let i = 0; i < options.advertisers; i += 1) advertisers.push(await provider('advertiser', `world advertiser ${i}`));

  const chains: SeededWorld['chains'] = [];
  for (const chain of worldChains(random, options.chains, options.platforms, options.advertisers, Date.now())) {
    const created = await call('POST', '/admin/v1/quest-chains', admin, chainBody(chain, platforms[chain.platformIndex]!.id, advertisers[chain.advertiserIndex]!.id));
    const taskIds = (created.tasks as { id: string }[]).map((task) => task.id);
    chains.push({ ...chain, id: created.quest_chain.id, rules: rulesOfWireChain(chain, taskIds) });
  }

  const users = Array.from({ length: options.users }, (_, i) => ({ platformIndex: i % options.platforms, platformUserId: `w${i % options.platforms}-${i}` }));
  const probeUsers = Array.from({ length: probeCount }, (_, i) => `probe-${i}`);
  const registrations = [...users, ...probeUsers.map((platformUserId) => ({ platformIndex: 0, platformUserId }))];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: REGISTER_CONCURRENCY }, async () => {
      while (next < registrations.length) {
        const { platformIndex, platformUserId } = registrations[next++]!;
        await call('POST', '/v1/users/register', platforms[platformIndex]!.headers, { platform_user_id: platformUserId });
      }
    }),
  );
  log(`registered ${registrations.length} users in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { platforms, advertisers, chains, users, probeUsers };
}
