import { insertChain } from '../db/chain-store.js';
import type { Executor } from '../db/client.js';
import { users } from '../db/schema/index.js';
import { withTransaction } from '../db/transaction.js';
import type { StreakCondition } from '../domain/conditions.js';
import { type ServiceUserId, senderUserId } from '../domain/ids.js';
import type { Recurrence } from '../domain/recurrence.js';
import { parseUtcTimestamp } from '../domain/timestamp.js';

// Chains in tests are made one of two ways, both from the same ChainSpec:
//  - through the admin HTTP API (`chainBody` and `createChainOverApi` in
//    api/testing/chains.ts) where the test is about the API: validation,
//    answers, and what creating a chain sets off (users flagged for evaluation);
//  - straight into the tables through the data layer (`createTestChain`
//    below) where the chain is only a precondition: worker, shared and reward
//    tests. Nothing else is flagged or enqueued.

export const DAY_MS = 24 * 60 * 60 * 1000;
export const iso = (ms: number) => new Date(ms).toISOString();

export interface TaskSpec {
  event?: string;
  min_amount?: number;
  currency?: string;
  after?: string;
  before?: string;
  sequence_number?: number;
  image_urls?: string[];
  /** Counted events needed (docs/quest-language.md; default 1). */
  min_count?: number;
  /** The sum of the counted events' amounts needed (a summed task; with `currency`). */
  min_total?: number;
  /** Consecutive periods each holding a counted event (a streak task). */
  streak?: StreakCondition;
}

export interface ChainRewardSpec {
  type: string;
  name: string;
  value?: number | null;
  image_urls?: string[] | null;
  /** A mystery box's prize table, in the admin API's field names. */
  prizes?: { prize_id: string; name: string; value?: number | null; weight: number; stock?: number | null }[];
}

export interface ChainSpec {
  /** Default: registration, kyc, transaction (task i rewards `(i+1)*10` points). */
  tasks?: TaskSpec[];
  /** Default: a day ago. */
  start?: string;
  /** Default: a day from now. */
  end?: string;
  status?: 'draft' | 'active' | 'paused' | 'ended';
  anyOrder?: boolean;
  /** reward_hold_seconds (default 0). */
  holdSeconds?: number;
  /** budget and max_claims_per_reward (default none). */
  budget?: number;
  maxClaimsPerReward?: number;
  /** max_completions (default none). */
  maxCompletions?: number;
  /** The IANA time zone of the chain's days (default UTC). */
  timezone?: string;
  /** A repeating chain's period (default: does not repeat). */
  recurrence?: Recurrence;
  /** auto_claim: the service claims each reward when it is earned (§18.5; default false). */
  autoClaim?: boolean;
  /** The chain reward: a 50-value mystery box unless `false` or another reward is given. */
  reward?: boolean | ChainRewardSpec;
  name?: string;
}

export const DEFAULT_TASKS: TaskSpec[] = [{ event: 'registration' }, { event: 'kyc' }, { event: 'transaction' }];
const DEFAULT_CHAIN_REWARD: ChainRewardSpec = { type: 'mystery_box', name: 'Mystery box', value: 50 };

/** The spec with every default filled in (start and end relative to now). */
export function resolveChainSpec(spec: ChainSpec = {}) {
  const now = Date.now();
  const reward =
    spec.reward === false ? null : spec.reward === undefined || spec.reward === true ? DEFAULT_CHAIN_REWARD : spec.reward;
  return {
    name: spec.name ?? 'Welcome chain',
    description: 'Do three things',
    logoUrl: 'https://example.com/logo.png',
    start: spec.start ?? iso(now - DAY_MS),
    end: spec.end ?? iso(now + DAY_MS),
    status: spec.status,
    anyOrder: spec.anyOrder,
    holdSeconds: spec.holdSeconds,
    budget: spec.budget,
    maxClaimsPerReward: spec.maxClaimsPerReward,
    maxCompletions: spec.maxCompletions,
    autoClaim: spec.autoClaim,
    timezone: spec.timezone,
    recurrence: spec.recurrence,
    reward,
    tasks: (spec.tasks ?? DEFAULT_TASKS).map((task, index) => ({
      ...task,
      sequenceNumber: task.sequence_number ?? index + 1,
      name: `Task ${index + 1}`,
      event: task.event ?? 'transaction',
      rewardType: 'points',
      rewardName: `${(index + 1) * 10} points`,
      rewardValue: (index + 1) * 10,
    })),
  };
}

const micros = (text: string | undefined) => {
  if (text === undefined) return null;
  const us = parseUtcTimestamp(text);
  if (us === null) throw new Error(`not a UTC timestamp: ${text}`);
  return us;
};

export interface TestChain {
  id: string;
  /** In sequence order. */
  taskIds: string[];
  rewardId: string | null;
}

/** A chain written through the data layer (chain-store), for tests where it is only a precondition. */
export async function createTestChain(
  db: Executor,
  platformId: string,
  advertiserId: string,
  spec: ChainSpec = {},
): Promise<TestChain> {
  const resolved = resolveChainSpec(spec);
  const definition = await withTransaction(db, (tx) =>
    insertChain(tx, {
      platformId,
      advertiserId,
      name: resolved.name,
      description: resolved.description,
      logoUrl: resolved.logoUrl,
      startDate: micros(resolved.start)!,
      endDate: micros(resolved.end)!,
      ...(resolved.status === undefined ? {} : { status: resolved.status }),
      ...(resolved.anyOrder === undefined ? {} : { allowAnyOrder: resolved.anyOrder }),
      ...(resolved.holdSeconds === undefined ? {} : { rewardHoldSeconds: resolved.holdSeconds }),
      ...(resolved.budget === undefined ? {} : { budget: resolved.budget }),
      ...(resolved.maxClaimsPerReward === undefined ? {} : { maxClaimsPerReward: resolved.maxClaimsPerReward }),
      ...(resolved.maxCompletions === undefined ? {} : { maxCompletions: resolved.maxCompletions }),
      ...(resolved.autoClaim === undefined ? {} : { autoClaim: resolved.autoClaim }),
      ...(resolved.timezone === undefined ? {} : { timezone: resolved.timezone }),
      ...(resolved.recurrence === undefined ? {} : { recurrence: resolved.recurrence }),
      tasks: resolved.tasks.map((task) => ({
        sequenceNumber: task.sequenceNumber,
        name: task.name,
        conditionEventType: task.event,
        conditionMinAmount: task.min_amount ?? null,
        conditionCurrency: task.currency ?? null,
        conditionAfterTimestamp: micros(task.after),
        conditionBeforeTimestamp: micros(task.before),
        ...(task.min_count === undefined ? {} : { conditionMinCount: task.min_count }),
        ...(task.min_total === undefined ? {} : { conditionMinTotal: task.min_total }),
        ...(task.streak === undefined ? {} : { conditionStreak: task.streak }),
        rewardType: task.rewardType,
        rewardName: task.rewardName,
        rewardValue: task.rewardValue,
        rewardImageUrls: task.image_urls ?? null,
      })),
      reward: resolved.reward && {
        type: resolved.reward.type,
        name: resolved.reward.name,
        value: resolved.reward.value ?? null,
        imageUrls: resolved.reward.image_urls ?? null,
        prizes: resolved.reward.prizes?.map((prize) => ({
          prizeId: prize.prize_id,
          name: prize.name,
          value: prize.value ?? null,
          weight: prize.weight,
          stock: prize.stock ?? null,
        })),
      },
    }),
  );
  return { id: definition.chain.id, taskIds: definition.tasks.map((task) => task.id), rewardId: definition.reward?.id ?? null };
}

/** A registered user written straight to the table (as registration stores it); returns the internal id. */
export async function createTestUser(db: Executor, platformId: string, platformUserId: string): Promise<ServiceUserId> {
  const [user] = await db
    .insert(users)
    .values({ platformId, platformUserId: senderUserId(platformUserId) })
    .returning({ id: users.id });
  return user!.id;
}

/** A chain open through 2026 with no chain reward, named `name`: the matcher's tests send their events in it. */
export function createChainOf2026(
  db: Executor,
  provider: { platformId: string; advertiserId: string },
  name: string,
  spec: ChainSpec,
): Promise<TestChain> {
  return createTestChain(db, provider.platformId, provider.advertiserId, {
    name,
    start: '2026-01-01T00:00:00Z',
    end: '2027-01-01T00:00:00Z',
    reward: false,
    ...spec,
  });
}
