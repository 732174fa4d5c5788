import type { ProviderType } from '../domain/permissions.js';
import { adminHeaders } from './admin-token.js';
import type { ApiClient } from './api-client.js';

// The one seeder of a running service's world, through its API as integrators
// would: providers with a credential each, chains (admin API), registered
// users. The e2e stack, the chaos suite and the benchmark's two worlds use it,
// each with its own names, chains, users and client.

/** Calls the API and answers the `data` of a 200; any other status throws, naming the call and what came back. */
async function callForData(client: ApiClient, method: string, path: string, headers: Record<string, string>, body: unknown) {
  const answer = await client.call(method, path, { headers, body });
  if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.error ?? answer.text}`);
  return answer.json.data;
}

export interface SeededProvider {
  id: string;
  /** X-API-Key and X-API-Secret of its credential (and `providerHeaders`, when given). */
  headers: Record<string, string>;
}

/** A provider and a fresh credential of it. `extraHeaders` join its headers (a raw client's JSON content type). */
export async function seedProvider(
  client: ApiClient,
  type: ProviderType,
  name: string,
  extraHeaders: Record<string, string> = {},
): Promise<SeededProvider> {
  const provider = await callForData(client, 'POST', '/admin/v1/providers', adminHeaders, { type, name });
  const credential = await callForData(client, 'POST', `/admin/v1/providers/${provider.id}/credentials`, adminHeaders, {});
  return { id: provider.id, headers: { ...extraHeaders, 'x-api-key': credential.key, 'x-api-secret': credential.secret } };
}

/** A chain to create (a POST /admin/v1/quest-chains body) with whatever the caller keeps of it. */
interface ChainToSeed<Kept> {
  body: unknown;
  kept: Kept;
}

export interface WorldPlan<Kept> {
  platforms: number;
  advertisers: number;
  /** A provider's name from its type and number. */
  name(type: ProviderType, index: number): string;
  /** The chains, once the providers exist. */
  chains(platforms: SeededProvider[], advertisers: SeededProvider[]): ChainToSeed<Kept>[];
  /** Platform user ids to register, each with its platform's number. */
  users: { platformIndex: number; platformUserId: string }[];
  /** Registrations in flight at once (default 8): registration is never what is measured. */
  registerConcurrency?: number;
  /** Headers every provider's calls carry besides its credential. */
  providerHeaders?: Record<string, string>;
}

export interface SeededWorld<Kept> {
  platforms: SeededProvider[];
  advertisers: SeededProvider[];
  /** The chains in the plan's order: what the caller kept, the id and the task ids the service gave them. */
  chains: (Kept & { id: string; taskIds: string[] })[];
  /** The service's user id of each planned user, in the plan's order. */
  userIds: string[];
}

export async function seedWorld<Kept extends object>(client: ApiClient, plan: WorldPlan<Kept>): Promise<SeededWorld<Kept>> {
  const providers = async (type: ProviderType, count: number) => {
    const made: SeededProvider[] = [];
    for (let i = 0; i < count; i += 1) made.push(await seedProvider(client, type, plan.name(type, i), plan.providerHeaders));
    return made;
  };
  const platforms = await providers('platform', plan.platforms);
  const advertisers = await providers('advertiser', plan.advertisers);
  const chains: SeededWorld<Kept>['chains'] = [];
  for (const chain of plan.chains(platforms, advertisers)) {
    const created = await callForData(client, 'POST', '/admin/v1/quest-chains', adminHeaders, chain.body);
    chains.push({
      ...chain.kept,
      id: created.quest_chain.id,
      taskIds: (created.tasks as { id: string }[]).map((task) => task.id),
    });
  }
  const userIds: string[] = new Array(plan.users.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: plan.registerConcurrency ?? 8 }, async () => {
      while (next < plan.users.length) {
        const index = next++;
        const { platformIndex, platformUserId } = plan.users[index]!;
        userIds[index] = (
          await callForData(client, 'POST', '/v1/users/register', platforms[platformIndex]!.headers, {
            platform_user_id: platformUserId,
          })
        ).user_id;
      }
    }),
  );
  return { platforms, advertisers, chains, userIds };
}
