import { type ChainDefinition, insertChain, MYSTERY_BOX, type NewChain } from '../../shared/db/chain-store.js';
import type { Executor } from '../../shared/db/client.js';
import { ensureTestTwin, findProvider } from '../../shared/db/provider-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { flagPlatformUsersForEvaluation } from '../../shared/db/user-store.js';
import { invalidInput } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/** A chain to create (§2): its fields, timestamps in epoch microseconds, its tasks and its optional reward. */
export type CreateChainInput = NewChain;

/** §2's refusals that need no database: tasks present, sequence numbers exactly 1..n, windows not empty. */
export function checkChainRules(input: CreateChainInput) {
  if (input.endDate <= input.startDate) throw invalidInput('end_date: must be after start_date', 'end_date');
  if (input.tasks.length === 0) throw invalidInput('tasks: at least one task is required', 'tasks');
  const numbers = input.tasks.map((task) => task.sequenceNumber).sort((a, b) => a - b);
  if (numbers.some((number, index) => number !== index + 1)) {
    throw invalidInput(`tasks.sequence_number: must be exactly 1..${numbers.length} (got ${numbers.join(', ')})`, 'tasks');
  }
  checkPrizeTable(input.reward);
  input.tasks.forEach((task, index) => {
    const after = task.conditionAfterTimestamp ?? null;
    const before = task.conditionBeforeTimestamp ?? null;
    // Not required by §2, but a task whose window is empty can never complete: surely a typo.
    if (after !== null && before !== null && before <= after) {
      const param = `tasks.${index}.condition_before_timestamp`;
      throw invalidInput(`${param}: must be after condition_after_timestamp`, param);
    }
  });
}

/** A prize table belongs to a mystery box, and names each prize once (a draw answers a prize_id). */
function checkPrizeTable(reward: CreateChainInput['reward']) {
  const prizes = reward?.prizes;
  if (!prizes || prizes.length === 0) return;
  if (reward.type !== MYSTERY_BOX)
    throw invalidInput(`chain_reward.type: a reward with prizes must be of type ${MYSTERY_BOX}`, 'chain_reward.type');
  const seen = new Set<string>();
  prizes.forEach((prize, index) => {
    if (seen.has(prize.prizeId))
      throw invalidInput(
        `chain_reward.prizes.${index}.prize_id: ${prize.prizeId} appears twice`,
        `chain_reward.prizes.${index}.prize_id`,
      );
    seen.add(prize.prizeId);
  });
}

/**
 * The chain's providers as stored: the live ones given, or for a test chain
 * their test twins (docs/test-mode.md), made if they do not exist yet.
 */
export async function checkProviders(
  tx: Executor,
  input: Pick<CreateChainInput, 'platformId' | 'advertiserId' | 'mode'>,
): Promise<{ platformId: string; advertiserId: string }> {
  // An inactive provider is still a platform/advertiser: an operator may prepare chains before activating it.
  const platform = await findProvider(tx, input.platformId);
  if (platform?.type !== 'platform') throw invalidInput(`platform_id: no platform with id ${input.platformId}`, 'platform_id');
  const advertiser = await findProvider(tx, input.advertiserId);
  if (advertiser?.type !== 'advertiser')
    throw invalidInput(`advertiser_id: no advertiser with id ${input.advertiserId}`, 'advertiser_id');
  if (input.mode !== 'test') return { platformId: platform.id, advertiserId: advertiser.id };
  return { platformId: await ensureTestTwin(tx, platform), advertiserId: await ensureTestTwin(tx, advertiser) };
}

/** Creates the chain, its tasks and its reward in one transaction. */
export async function createChain(deps: Pick<CoreDeps, 'db' | 'changes'>, input: CreateChainInput): Promise<ChainDefinition> {
  checkChainRules(input);
  const created = await withTransaction(deps.db, async (tx) => {
    const stored = { ...input, ...(await checkProviders(tx, input)) };
    const definition = await insertChain(tx, stored);
    // The worker matches an event when it arrives, against the chains that
    // exist then. Users of this platform may already hold stored events
    // inside the new chain's window (sent earlier, even before the chain was
    // planned); flagging them makes the worker's reconciler re-evaluate their
    // events against the new chain. Same transaction, so no worker can see
    // the chain without the flags, or the flags without the chain.
    await flagPlatformUsersForEvaluation(tx, stored.platformId);
    return definition;
  });
  await deps.changes.chainsChanged(created.chain.platformId);
  return created;
}
