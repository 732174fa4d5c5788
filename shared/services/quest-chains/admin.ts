import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { chainRewards, providers, questChains, questTasks, users } from '../../db/schema/index.js';
import { invalidInput, notFound } from '../../errors.js';
import { parseOffsetTimestamp } from './chain-timestamp.js';
import { loadChainDefinitions, toChainRules, type ChainDefinition } from './definitions.js';

export const CHAIN_STATUSES = ['draft', 'active', 'paused', 'ended'] as const;
export type ChainStatus = (typeof CHAIN_STATUSES)[number];

export interface TaskInput {
  sequence_number: number;
  name: string;
  description?: string | null | undefined;
  condition_event_type: string;
  condition_min_amount?: number | null | undefined;
  condition_currency?: string | null | undefined;
  condition_after_timestamp?: string | null | undefined;
  condition_before_timestamp?: string | null | undefined;
  reward_type: string;
  reward_name: string;
  reward_value: number;
  reward_image_urls?: string[] | null | undefined;
}

/** A chain body of §2. Shape limits are the route schema's job; the rules below hold for any caller. */
export interface ChainInput {
  platform_id: string;
  advertiser_id: string;
  name: string;
  description?: string | null | undefined;
  logo_url?: string | null | undefined;
  background_image_url?: string | null | undefined;
  start_date: string;
  end_date: string;
  status?: ChainStatus | undefined;
  allow_any_order?: boolean | undefined;
  tasks: TaskInput[];
  chain_reward?: { type: string; name: string; value?: number | null | undefined; image_urls?: string[] | null | undefined } | null | undefined;
}

function instant(field: string, value: string): bigint {
  const us = parseOffsetTimestamp(value);
  if (us === null) throw invalidInput(`${field}: must be an ISO 8601 date-time with an offset`);
  return us;
}

const optionalInstant = (field: string, value: string | null | undefined) => (value == null ? null : instant(field, value));

/** §2's 400s that need no database: tasks present, sequence numbers exactly 1..n, windows not empty. */
export function checkChainRules(input: ChainInput) {
  const startUs = instant('start_date', input.start_date);
  const endUs = instant('end_date', input.end_date);
  if (endUs <= startUs) throw invalidInput('end_date: must be after start_date');
  if (input.tasks.length === 0) throw invalidInput('tasks: at least one task is required');
  const numbers = input.tasks.map((task) => task.sequence_number).sort((a, b) => a - b);
  if (numbers.some((number, index) => number !== index + 1)) {
    throw invalidInput(`tasks.sequence_number: must be exactly 1..${numbers.length} (got ${numbers.join(', ')})`);
  }
  const taskWindows = input.tasks.map((task, index) => {
    const afterUs = optionalInstant(`tasks.${index}.condition_after_timestamp`, task.condition_after_timestamp);
    const beforeUs = optionalInstant(`tasks.${index}.condition_before_timestamp`, task.condition_before_timestamp);
    // Not required by §2, but a task whose window is empty can never complete: surely a typo.
    if (afterUs !== null && beforeUs !== null && beforeUs <= afterUs) {
      throw invalidInput(`tasks.${index}.condition_before_timestamp: must be after condition_after_timestamp`);
    }
    return { afterUs, beforeUs };
  });
  return { startUs, endUs, taskWindows };
}

async function checkProviders(tx: Executor, input: ChainInput) {
  const found = await tx
    .select({ id: providers.id, type: providers.type })
    .from(providers)
    .where(inArray(providers.id, [input.platform_id, input.advertiser_id]));
  const typeOf = new Map(found.map((row) => [row.id, row.type]));
  // An inactive provider is still a platform/advertiser: an operator may prepare chains before activating it.
  if (typeOf.get(input.platform_id) !== 'platform') throw invalidInput(`platform_id: no platform with id ${input.platform_id}`);
  if (typeOf.get(input.advertiser_id) !== 'advertiser') throw invalidInput(`advertiser_id: no advertiser with id ${input.advertiser_id}`);
}

/** Creates the chain, its tasks and its reward in one transaction. */
export async function createChain(db: Database, input: ChainInput): Promise<ChainDefinition> {
  const { startUs, endUs, taskWindows } = checkChainRules(input);
  return db.transaction(async (tx) => {
    await checkProviders(tx, input);
    const [chain] = await tx
      .insert(questChains)
      .values({
        platformId: input.platform_id,
        advertiserId: input.advertiser_id,
        name: input.name,
        description: input.description ?? null,
        logoUrl: input.logo_url ?? null,
        backgroundImageUrl: input.background_image_url ?? null,
        startDate: startUs,
        endDate: endUs,
        status: input.status ?? 'active',
        allowAnyOrder: input.allow_any_order ?? false,
      })
      .returning();
    const taskValues = input.tasks.map((task, index) => {
      const { afterUs, beforeUs } = taskWindows[index]!;
      return {
        chainId: chain!.id,
        sequenceNumber: task.sequence_number,
        name: task.name,
        description: task.description ?? null,
        conditionEventType: task.condition_event_type,
        conditionMinAmount: task.condition_min_amount ?? null,
        conditionCurrency: task.condition_currency ?? null,
        conditionAfterTimestamp: afterUs,
        conditionBeforeTimestamp: beforeUs,
        rewardType: task.reward_type,
        rewardName: task.reward_name,
        rewardValue: task.reward_value,
        rewardImageUrls: task.reward_image_urls ?? null,
      };
    });
    const tasks = await tx.insert(questTasks).values(taskValues).returning();
    tasks.sort((a, b) => a.sequenceNumber - b.sequenceNumber);
    const reward = input.chain_reward
      ? (await tx
          .insert(chainRewards)
          .values({
            chainId: chain!.id,
            type: input.chain_reward.type,
            name: input.chain_reward.name,
            value: input.chain_reward.value ?? null,
            imageUrls: input.chain_reward.image_urls ?? null,
          })
          .returning())[0]!
      : null;
    // The worker matches an event when it arrives, against the chains that
    // exist then. Users of this platform may already hold stored events
    // inside the new chain's window (sent earlier, even before the chain was
    // planned); flagging them makes the worker's reconciler re-evaluate their
    // events against the new chain. Same transaction, so no worker can see
    // the chain without the flags, or the flags without the chain.
    await tx
      .update(users)
      .set({ needsEvaluation: true })
      .where(and(eq(users.platformId, input.platform_id), eq(users.needsEvaluation, false)));
    return { chain: chain!, tasks, reward, rules: toChainRules(chain!, tasks) };
  });
}

export async function getChain(db: Executor, id: string): Promise<ChainDefinition> {
  const [definition] = await loadChainDefinitions(db, eq(questChains.id, id));
  if (!definition) throw notFound(`Quest chain ${id} not found`);
  return definition;
}

/** Every chain (or one platform's), newest first. */
export async function listChains(db: Executor, filter: { platformId?: string | undefined } = {}): Promise<ChainDefinition[]> {
  const where = filter.platformId ? eq(questChains.platformId, filter.platformId) : undefined;
  const definitions = await loadChainDefinitions(db, where);
  return definitions.sort(
    (a, b) => Number(b.chain.createdAt - a.chain.createdAt) || (a.chain.id < b.chain.id ? 1 : a.chain.id > b.chain.id ? -1 : 0),
  );
}

/**
 * Any status may follow any other. The matcher counts events for chains in
 * every status (progress is a function of the events alone), so a status
 * change needs no re-evaluation: it only decides what GET active shows.
 */
export async function setChainStatus(db: Database, id: string, status: ChainStatus): Promise<ChainDefinition> {
  const updated = await db
    .update(questChains)
    .set({ status, updatedAt: sql`now()` })
    .where(eq(questChains.id, id))
    .returning({ id: questChains.id });
  if (updated.length === 0) throw notFound(`Quest chain ${id} not found`);
  return getChain(db, id);
}
