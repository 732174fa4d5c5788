import { randomUUID } from 'node:crypto';
import type { Executor } from '../../shared/db/client.js';
import { currentSeed, insertDraw, lockPrizes, takePrize } from '../../shared/db/draw-store.js';
import {
  type ClaimLimits,
  findChainReward,
  findClaim,
  findTaskReward,
  insertClaim,
  type Prize,
  type Reward,
  type RewardClaim,
  type RewardKind,
  reserveClaim,
} from '../../shared/db/reward-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { findUserId, lockUsers } from '../../shared/db/user-store.js';
import { insertMessages } from '../../shared/db/webhook-message-store.js';
import { inStock } from '../../shared/domain/draw-stock.js';
import type { SenderUserId, ServiceUserId } from '../../shared/domain/ids.js';
import { claimableAfterHold } from '../../shared/domain/reward-hold.js';
import { formatIsoMillis } from '../../shared/domain/timestamp.js';
import { conflict, DomainError, invalidInput } from '../../shared/errors.js';
import { drawPrize } from '../../shared/rewards/verifiable-draw.js';
import type { CoreDeps } from '../deps.js';
import { queueRefresh, refreshAfterCommit } from '../leaderboards/refresh-standings.js';
import { creditClaim } from '../points/ledger.js';
import { requestedRun } from '../quest-chains/requested-run.js';
import { claimFact } from '../webhooks/claim-fact.js';

/** The claimer (a platform's user) and exactly one of a task (its reward) or a chain (its chain reward). */
export type ClaimRewardInput = {
  platformId: string;
  platformUserId: SenderUserId;
  /** A repeating chain's run to claim from (its start); absent: the current run (docs/quest-language.md). */
  runStartUs?: bigint | undefined;
} & ({ taskId: string; chainId?: undefined } | { chainId: string; taskId?: undefined });

export interface ClaimedReward extends RewardClaim {
  /** True when the reward had been claimed before: the first claim is returned. */
  alreadyClaimed: boolean;
}

interface ClaimTarget {
  kind: RewardKind;
  chainId: string;
  taskId: string | null;
  reward: Reward;
  completion: { eventId: string; completedUs: bigint } | null;
  limits: ClaimLimits;
  runStartUs: bigint;
}

/**
 * Product rules §7: grants a completed task's or chain's reward at most once.
 * Under the user's lock, the one the matcher takes (so a reversal's
 * re-evaluation and a claim are serialised: either the claim comes first and
 * the walk then holds the claimed completion, marking the claim reversed, or
 * the completion is gone first and the claim answers 409; docs/reversals.md).
 * A claim made before answers at once, whatever the completion's state now.
 * The unique key reward_claims_once still decides the race of two claims. A
 * reward under a hold (reward_hold_seconds) is not claimable before its
 * time. Earned is earned: the chain's current status does not matter. A new
 * claim writes its reward.claimed webhook messages in the same transaction
 * (§10), enqueued for delivery after the commit (best effort: the sweeper covers),
 * and a points reward's credit to the claimer's balance (§18.2).
 * A new claim is a change notice of the claimer's answer.
 */
export async function claimReward(
  deps: Pick<CoreDeps, 'db' | 'webhooks' | 'changes'> &
    /** Leaderboards' standings (§19), refreshed after a points claim; without them the worker's sweeper refreshes. */
    Partial<Pick<CoreDeps, 'standings' | 'config' | 'logger'>>,
  input: ClaimRewardInput,
): Promise<ClaimedReward> {
  const { db } = deps;
  const userId = await findUserId(db, input.platformId, input.platformUserId);
  if (!userId) throw invalidInput('platform_user_id: no registered user with this id', 'platform_user_id', 'user_not_registered');

  type Outcome =
    | { claim: RewardClaim; messageIds: string[]; standingsQueued: ServiceUserId[] }
    | { existing: RewardClaim | null };
  let exhausted: ClaimTarget | undefined;
  const outcome = await withTransaction(db, async (tx): Promise<Outcome> => {
    await lockUsers(tx, [userId]);
    const target =
      input.taskId !== undefined
        ? await taskTarget(tx, input.platformId, userId, input.taskId, input.runStartUs)
        : await chainTarget(tx, input.platformId, userId, input.chainId, input.runStartUs);
    const existing = await findClaim(tx, userId, target.chainId, target.taskId, target.runStartUs);
    if (existing) return { existing };
    assertClaimable(target);
    const claimId = randomUUID();
    // A mystery box draws first: the prize's value is what the budget pays.
    const prize = target.kind === 'chain' ? await drawFromBox(tx, target.chainId, claimId) : null;
    // Throws to roll the counters (and the stock) back: a refused claim takes nothing.
    const refused = await reserveClaim(tx, {
      chainId: target.chainId,
      taskId: target.taskId,
      value: prize?.value ?? target.reward.value ?? 0,
      limits: target.limits,
    });
    if (refused === 'budget_exhausted') exhausted = target;
    if (refused !== null) throw conflict(refused, REFUSALS[refused], target.taskId !== null ? 'task_id' : 'quest_chain_id');
    // The user's lock serialises their claims, and none was found above: the insert cannot meet one.
    const claim = await insertClaim(tx, { claimId, userId, ...target, prize });
    if (prize) await insertDraw(tx, { ...prize.draw, claimId, chainId: target.chainId });
    // A points reward credits the claimer's balance with the claim (§18.2).
    const credit = await creditClaim(tx, userId, claim);
    const [messageIds, standingsQueued] = await Promise.all([
      insertMessages(tx, [claimFact(input.platformId, input.platformUserId, claim)]),
      // The credit moves the user's points on the platform's leaderboards (§19).
      credit ? queueRefresh(tx, [userId]) : [],
    ]);
    return { claim, messageIds, standingsQueued };
  }).catch(async (error: unknown) => {
    if (exhausted) await announceExhausted(deps, exhausted);
    // A refusal changed nothing; any other failure may have come after the commit.
    if (!(error instanceof DomainError)) await deps.changes.answerChanged(input.platformId, input.platformUserId);
    throw error;
  });
  if ('claim' in outcome) {
    // The claimer's answer shows the reward claimed from now on.
    await deps.changes.answerChanged(input.platformId, input.platformUserId);
    if (outcome.messageIds.length > 0)
      await deps.webhooks.deliver(outcome.messageIds.map((messageId) => ({ messageId, attempt: 0 })));
    const { standings, config, logger } = deps;
    if (standings && config && logger) await refreshAfterCommit({ db, standings, config, logger }, outcome.standingsQueued);
    return { ...outcome.claim, alreadyClaimed: false };
  }
  if (!outcome.existing) throw new Error('reward claim neither inserted nor found');
  return { ...outcome.existing, alreadyClaimed: true };
}

/**
 * A mystery box's draw (docs/mystery-boxes.md), in the claim's transaction:
 * the prize table locked, one prize drawn among those in stock by
 * HMAC-SHA256(current seed, claim id), its stock taken. Null when the chain
 * reward has no prizes (a plain reward); 409 out_of_stock when none is left.
 */
async function drawFromBox(tx: Executor, chainId: string, claimId: string) {
  const prizes = await lockPrizes(tx, chainId);
  if (prizes.length === 0) return null;
  const available = prizes.filter(inStock);
  if (available.length === 0)
    throw conflict(
      'out_of_stock',
      'Every prize of the mystery box is out of stock; it is claimable again once restocked',
      'quest_chain_id',
    );
  const seed = await currentSeed(tx, chainId);
  const candidates = available.map((prize) => ({ prizeId: prize.prizeId, weight: prize.weight }));
  const draw = drawPrize(seed.serverSeed, claimId, candidates);
  const won = available.find((prize) => prize.prizeId === draw.prizeId)!;
  await takePrize(tx, chainId, won);
  const prize: Prize = { prizeId: won.prizeId, name: won.name, value: won.value };
  return {
    ...prize,
    draw: {
      ...draw,
      seedId: seed.id,
      candidates: candidates.map((candidate) => ({ prize_id: candidate.prizeId, weight: candidate.weight })),
    },
  };
}

const REFUSALS = {
  budget_exhausted: "The quest chain's budget cannot cover this reward any more",
  reward_cap_reached: "This reward has been claimed by as many users as the quest chain's max_claims_per_reward allows",
} as const;

/** chain.budget_exhausted, to the chain's advertiser (it funds the budget), once per chain; in a transaction of its own, the claim's having rolled back. */
async function announceExhausted(deps: Pick<CoreDeps, 'db' | 'webhooks'>, target: ClaimTarget) {
  const fact = {
    providerId: target.limits.advertiserId,
    type: 'chain.budget_exhausted',
    fact: `chain.budget_exhausted/${target.chainId}`,
    data: { quest_chain_id: target.chainId, budget: target.limits.budget },
  };
  const messageIds = await withTransaction(deps.db, (tx) => insertMessages(tx, [fact]));
  if (messageIds.length > 0) await deps.webhooks.deliver(messageIds.map((messageId) => ({ messageId, attempt: 0 })));
}

type Claimable = ClaimTarget & { claimableUs: bigint | null; notCompleted: string | null };

function assertClaimable(target: Claimable) {
  const param = target.taskId !== null ? 'task_id' : 'quest_chain_id';
  if (target.notCompleted !== null) throw conflict('reward_not_claimable', target.notCompleted, param);
  const now = BigInt(Date.now()) * 1000n;
  if (target.claimableUs !== null && target.claimableUs > now) {
    throw conflict(
      'reward_on_hold',
      `The reward is on hold until ${formatIsoMillis(target.claimableUs)} (the chain's reward_hold_seconds); claim it then`,
      param,
    );
  }
}

async function taskTarget(
  db: Executor,
  platformId: string,
  userId: ServiceUserId,
  taskId: string,
  asked: bigint | undefined,
): Promise<Claimable> {
  const task = await findTaskReward(db, platformId, userId, taskId);
  if (!task) throw invalidInput('task_id: no such task for your platform', 'task_id', 'task_not_found');
  const runStartUs = requestedRun(task.timing, asked);
  const completion = task.completions.get(runStartUs) ?? null;
  return {
    runStartUs,
    kind: 'task',
    chainId: task.chainId,
    taskId,
    reward: task.reward,
    completion,
    limits: task.limits,
    claimableUs: completion === null ? null : claimableAfterHold(completion.completedUs, task.holdSeconds),
    notCompleted: completion === null ? 'The task is not completed yet; its reward is not claimable' : null,
  };
}

async function chainTarget(
  db: Executor,
  platformId: string,
  userId: ServiceUserId,
  chainId: string,
  asked: bigint | undefined,
): Promise<Claimable> {
  const chain = await findChainReward(db, platformId, userId, chainId);
  if (!chain)
    throw invalidInput('quest_chain_id: no such quest chain for your platform', 'quest_chain_id', 'quest_chain_not_found');
  // No reward, no claim of it either: refused before looking for one.
  if (!chain.reward) throw conflict('reward_not_claimable', 'The quest chain has no chain reward', 'quest_chain_id');
  const runStartUs = requestedRun(chain.timing, asked);
  const completedUs = chain.completions.get(runStartUs) ?? null;
  return {
    runStartUs,
    kind: 'chain',
    chainId,
    taskId: null,
    reward: chain.reward,
    completion: null,
    limits: chain.limits,
    claimableUs: completedUs === null ? null : claimableAfterHold(completedUs, chain.holdSeconds),
    notCompleted: completedUs === null ? 'The quest chain is not completed yet; its reward is not claimable' : null,
  };
}
