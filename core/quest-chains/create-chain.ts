import { type ChainDefinition, insertChain, type NewChain } from '../../shared/db/chain-store.js';
import type { Executor } from '../../shared/db/client.js';
import { ensureTestTwin, findProvider } from '../../shared/db/provider-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { flagPlatformUsersForEvaluation } from '../../shared/db/user-store.js';
import { chainDefinitionIssues, issueParam, issueText } from '../../shared/domain/chain-definition-rules.js';
import { invalidInput } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/** A chain to create (§2): its fields, timestamps in epoch microseconds, its tasks and its optional reward. */
export type CreateChainInput = NewChain;

/** The first rule of a chain definition the input breaks (shared/domain/chain-definition-rules.ts), as a 400 naming its field. */
export function checkChainRules(input: CreateChainInput) {
  const [issue] = chainDefinitionIssues(input);
  if (issue) throw invalidInput(issueText(issue), issueParam(issue));
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
