import type { ChainRules } from '../../../shared/domain/progress.js';
import { createModelChains } from '../../support/progress-model.js';
import type { HttpClient } from './http.js';
import { adminHeaders } from '../../../shared/testing/admin-token.js';


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

/** Through the API, as an integrator would: a provider, its credential. */
export async function createProvider(client: HttpClient, type: 'platform' | 'advertiser', name: string): Promise<Pick<Tenant, 'id' | 'headers'>> {
  const provider = await must(client, 'POST', '/admin/v1/providers', { type, name });
  const credential = await must(client, 'POST', `/admin/v1/providers/${provider.id}/credentials`, {});
  return { id: provider.id, headers: { 'x-api-key': credential.key, 'x-api-secret': credential.secret } };
}

/**
 * `platforms` platforms sponsored by one advertiser, each with the model
 * chains and `usersPerPlatform` registered users (plus a few never registered).
 */
export async function seedWorld(client: HttpClient, options: { platforms: number; usersPerPlatform: number }): Promise<Tenant[]> {
  const advertiser = await createProvider(client, 'advertiser', 'chaos advertiser');
  const stack = {
    http: async (method: string, path: string, request: { body?: unknown; headers?: Record<string, string> } = {}) => {
      const answer = await client.call(method, path, request);
      return { status: answer.status, json: 'json' in answer ? answer.json : { error: answer.error } };
    },
  };
  const tenants: Tenant[] = [];
  for (let p = 0; p < options.platforms; p += 1) {
    const platform = await createProvider(client, 'platform', `chaos platform ${p}`);
    const chains = await createModelChains(stack, platform.id, advertiser.id);
    const users = Array.from({ length: options.usersPerPlatform }, (_, i) => `p${p}-u${i}`);
    // A few at a time: registration is not what is under test.
    for (let i = 0; i < users.length; i += 8) {
      await Promise.all(users.slice(i, i + 8).map((id) => must(client, 'POST', '/v1/users/register', { platform_user_id: id }, platform.headers)));
    }
    tenants.push({ ...platform, users, strangers: [`p${p}-stranger-0`, `p${p}-stranger-1`], chains });
  }
  return tenants;
}

async function must(client: HttpClient, method: string, path: string, body: unknown, headers: Record<string, string> = adminHeaders) {
  const answer = await client.call(method, path, { headers, body });
  if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify('json' in answer ? answer.json : answer.error)}`);
  return answer.json.data;
}
