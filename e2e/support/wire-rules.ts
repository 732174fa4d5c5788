import type { StreakCondition } from '../../shared/domain/conditions.js';
import type { Recurrence } from '../../shared/domain/recurrence.js';
import { parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import type { ChainRules } from '../../shared/domain/walk.js';

/** A task as the admin API takes it (the conditions only, §4 and the quest language's thresholds, §16). */
export interface WireTask {
  condition_event_type: string;
  condition_min_amount?: number;
  condition_currency?: string;
  condition_after_timestamp?: string;
  condition_before_timestamp?: string;
  condition_min_count?: number;
  condition_min_total?: number;
  condition_streak?: StreakCondition;
}

/** A chain as the admin API takes it (what the walk reads of it). */
export interface WireChain {
  allow_any_order: boolean;
  start_date: string;
  end_date: string;
  /** Where streak periods (and, by default, a repeating chain's runs) begin and end; UTC when absent. */
  timezone?: string;
  recurrence?: { every: Recurrence['every']; timezone?: string };
  tasks: readonly WireTask[];
}

/**
 * The pure model's rules of a chain, from the body it was created with (not
 * from the service's stored copy), so a model check does not trust what it
 * checks. `taskIds` in sequence order, as the creation answered them.
 */
export function rulesOfWireChain(chain: WireChain, taskIds: readonly string[]): ChainRules {
  const us = (value: string | undefined) => (value === undefined ? null : parseUtcTimestamp(value));
  const timezone = chain.timezone ?? 'UTC';
  return {
    allowAnyOrder: chain.allow_any_order,
    startUs: us(chain.start_date)!,
    endUs: us(chain.end_date)!,
    timezone,
    recurrence: chain.recurrence ? { every: chain.recurrence.every, timezone: chain.recurrence.timezone ?? timezone } : null,
    tasks: chain.tasks.map((task, index) => ({
      id: taskIds[index]!,
      sequenceNumber: index + 1,
      eventType: task.condition_event_type,
      minAmount: task.condition_min_amount ?? null,
      currency: task.condition_currency ?? null,
      afterUs: us(task.condition_after_timestamp),
      beforeUs: us(task.condition_before_timestamp),
      minCount: task.condition_min_count ?? 1,
      minTotal: task.condition_min_total ?? null,
      streak: task.condition_streak ?? null,
    })),
  };
}

/** The admin API body of a chain: its tasks numbered in order, each rewarding `taskPoints` points. */
export function wireChainBody(chain: WireChain & { name: string }, platformId: string, advertiserId: string, taskPoints: number) {
  return {
    platform_id: platformId,
    advertiser_id: advertiserId,
    name: chain.name,
    start_date: chain.start_date,
    end_date: chain.end_date,
    allow_any_order: chain.allow_any_order,
    ...(chain.timezone === undefined ? {} : { timezone: chain.timezone }),
    ...(chain.recurrence === undefined ? {} : { recurrence: chain.recurrence }),
    tasks: chain.tasks.map((task, index) => ({
      ...task,
      sequence_number: index + 1,
      name: `t${index + 1}`,
      reward_type: 'points',
      reward_name: 'points',
      reward_value: taskPoints,
    })),
  };
}
