import { formatIsoMillis } from '../../domain/timestamp.js';
import type { ChainDefinition, ChainRewardRow, ChainRow, TaskRow } from './definitions.js';

// The published field names of a chain definition, shared by the admin
// answers and the active-chains read (which adds the user's fields).

const isoMillisOrNull = (us: bigint | null) => (us === null ? null : formatIsoMillis(us));

export function questChainView(chain: ChainRow) {
  return {
    id: chain.id,
    name: chain.name,
    description: chain.description,
    logo_url: chain.logoUrl,
    background_image_url: chain.backgroundImageUrl,
    start_date: formatIsoMillis(chain.startDate),
    end_date: formatIsoMillis(chain.endDate),
    status: chain.status,
    platform_id: chain.platformId,
    advertiser_id: chain.advertiserId,
    allow_any_order: chain.allowAnyOrder,
  };
}

export function taskView(task: TaskRow) {
  return {
    id: task.id,
    sequence_number: task.sequenceNumber,
    name: task.name,
    description: task.description,
    condition_event_type: task.conditionEventType,
    condition_min_amount: task.conditionMinAmount,
    condition_currency: task.conditionCurrency,
    condition_after_timestamp: isoMillisOrNull(task.conditionAfterTimestamp),
    condition_before_timestamp: isoMillisOrNull(task.conditionBeforeTimestamp),
    reward_type: task.rewardType,
    reward_name: task.rewardName,
    reward_value: task.rewardValue,
    reward_image_urls: task.rewardImageUrls ?? null,
  };
}

export function chainRewardView(reward: ChainRewardRow) {
  return { id: reward.id, type: reward.type, name: reward.name, value: reward.value, image_urls: reward.imageUrls ?? null };
}

/** The admin answer: the chain as stored, with ids (and its own bookkeeping times). */
export function chainDefinitionView(definition: Pick<ChainDefinition, 'chain' | 'tasks' | 'reward'>) {
  const { chain, tasks, reward } = definition;
  return {
    quest_chain: { ...questChainView(chain), created_at: formatIsoMillis(chain.createdAt), updated_at: formatIsoMillis(chain.updatedAt) },
    tasks: tasks.map(taskView),
    chain_reward: reward ? chainRewardView(reward) : null,
  };
}

export type ChainDefinitionView = ReturnType<typeof chainDefinitionView>;
