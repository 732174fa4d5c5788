import { type ChainSpec, DEFAULT_TASKS, resolveChainSpec, type TaskSpec } from '../../shared/testing/chains.js';
import type { TestApp } from './test-app.js';

// Chains through the admin HTTP API, for tests about the API (see
// shared/testing/chains.ts for the other way and when to use which).

export { type ChainSpec, DAY_MS, iso, type TaskSpec } from '../../shared/testing/chains.js';

/** The wire form of one task of a spec (`index` is its position in the chain). */
export function taskBody(spec: TaskSpec, index: number) {
  return {
    sequence_number: spec.sequence_number ?? index + 1,
    name: `Task ${index + 1}`,
    condition_event_type: spec.event ?? 'transaction',
    ...(spec.min_amount !== undefined ? { condition_min_amount: spec.min_amount } : {}),
    ...(spec.currency !== undefined ? { condition_currency: spec.currency } : {}),
    ...(spec.after !== undefined ? { condition_after_timestamp: spec.after } : {}),
    ...(spec.before !== undefined ? { condition_before_timestamp: spec.before } : {}),
    ...(spec.min_count !== undefined ? { condition_min_count: spec.min_count } : {}),
    ...(spec.min_total !== undefined ? { condition_min_total: spec.min_total } : {}),
    ...(spec.streak !== undefined ? { condition_streak: spec.streak } : {}),
    reward_type: 'points',
    reward_name: `${(index + 1) * 10} points`,
    reward_value: (index + 1) * 10,
    ...(spec.image_urls !== undefined ? { reward_image_urls: spec.image_urls } : {}),
  };
}

/** Each task of a chain answer as [condition_min_count, condition_min_total, condition_streak]: the quest language's conditions. */
export const questConditions = (tasks: readonly Record<string, unknown>[]) =>
  tasks.map((task) => [task.condition_min_count, task.condition_min_total, task.condition_streak]);

/** A valid POST /admin/v1/quest-chains body running from a day ago to a day from now, unless overridden. */
export function chainBody(platformId: string, advertiserId: string, spec: ChainSpec = {}) {
  const chain = resolveChainSpec(spec);
  return {
    platform_id: platformId,
    advertiser_id: advertiserId,
    name: chain.name,
    description: chain.description,
    logo_url: chain.logoUrl,
    start_date: chain.start,
    end_date: chain.end,
    ...(spec.status !== undefined ? { status: spec.status } : {}),
    ...(spec.anyOrder !== undefined ? { allow_any_order: spec.anyOrder } : {}),
    ...(spec.maxCompletions !== undefined ? { max_completions: spec.maxCompletions } : {}),
    ...(spec.autoClaim !== undefined ? { auto_claim: spec.autoClaim } : {}),
    ...(spec.budget !== undefined ? { budget: spec.budget } : {}),
    ...(spec.holdSeconds !== undefined ? { reward_hold_seconds: spec.holdSeconds } : {}),
    ...(spec.timezone !== undefined ? { timezone: spec.timezone } : {}),
    tasks: (spec.tasks ?? DEFAULT_TASKS).map(taskBody),
    ...(chain.reward === null ? {} : { chain_reward: chain.reward }),
  };
}

/** Creates a chain through POST /admin/v1/quest-chains; fails the test on any answer but 200. */
export async function createChainOverApi(api: TestApp, platformId: string, advertiserId: string, spec: ChainSpec = {}) {
  const answer = await api.call('POST', '/admin/v1/quest-chains', {
    headers: api.adminHeaders,
    body: chainBody(platformId, advertiserId, spec),
  });
  if (answer.status !== 200) throw new Error(`chain create answered ${answer.status}: ${answer.text}`);
  const data = answer.json.data as { quest_chain: { id: string }; tasks: { id: string }[]; chain_reward: { id: string } | null };
  return { id: data.quest_chain.id, taskIds: data.tasks.map((task) => task.id), rewardId: data.chain_reward?.id ?? null };
}
