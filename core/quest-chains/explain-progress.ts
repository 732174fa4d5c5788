import { admittedChainsOf } from '../../shared/db/admission-store.js';
import { type ChainDefinition, findChainDefinition, type TaskRow } from '../../shared/db/chain-store.js';
import { countPendingEvents, type ExplainedEvent } from '../../shared/db/event-store.js';
import { loadClaimHolds } from '../../shared/db/progress-store.js';
import { findMatchUser } from '../../shared/db/user-store.js';
import { admitsNoOneNew } from '../../shared/domain/admission.js';
import { type TaskUserStatus, taskStatuses } from '../../shared/domain/chain-view.js';
import { explainChain, type Verdict } from '../../shared/domain/explain.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import type { Run } from '../../shared/domain/recurrence.js';
import { runOf, runRules } from '../../shared/domain/runs.js';
import { sourcesOf, type UserSource } from '../../shared/domain/sources.js';
import type { Tally } from '../../shared/domain/tally.js';
import { walkKey } from '../../shared/domain/walk-key.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { loadCountingHistory } from '../matching/counting-history.js';
import { requestedRun } from './requested-run.js';

export interface ExplainProgressInput {
  /** The caller's platform: another platform's chain is not found (tenancy). */
  platformId: string;
  chainId: string;
  platformUserId: SenderUserId;
  /** A repeating chain's run to explain (its start); absent: the current run (docs/quest-language.md). */
  runStartUs?: bigint | undefined;
}

/** The part an event's sender plays in the chain (§4). */
type SenderRole = UserSource['role'];

interface ExplainedTask {
  task: TaskRow;
  userStatus: TaskUserStatus;
  completedBy: { event: ExplainedEvent; source: SenderRole } | null;
  candidates: { event: ExplainedEvent; source: SenderRole; verdict: Verdict; tally?: Tally | undefined }[];
}

export interface Explanation {
  definition: ChainDefinition;
  userExists: boolean;
  /** The chain's max_completions places are all taken and the user holds none: none of their events counts in it. */
  capReached: boolean;
  /** The user's stored events (any type, both §4 sources) the matcher has not processed yet. */
  pendingEvents: number;
  /** In sequence order; empty for an unknown user. */
  tasks: ExplainedTask[];
  /** A repeating chain: the run explained; null for a chain that does not repeat. */
  run: Run | null;
}

/**
 * GET /v1/quest-chains/{id}/users/{platformUserId}/explain (§11). The verdicts
 * and completions come from the domain's explainChain, i.e. the progress walk
 * itself over the user's processed events of the chain's types; reads only.
 */
export async function explainProgress(deps: Pick<CoreDeps, 'db'>, input: ExplainProgressInput): Promise<Explanation> {
  const definition = await findChainDefinition(deps.db, input.chainId);
  if (definition?.chain.platformId !== input.platformId) throw notFound(`Quest chain ${input.chainId} not found`, 'questChainId');
  const user = await findMatchUser(deps.db, input.platformId, input.platformUserId);
  const { chain, tasks, rules } = definition;
  const runStart = requestedRun(rules, input.runStartUs);
  const run = rules.recurrence ? runOf(rules, runStart)! : null;
  if (!user) return { definition, userExists: false, capReached: false, pendingEvents: 0, tasks: [], run };

  const sources = sourcesOf(user, chain);
  const roleOf = new Map(sources.map((source) => [source.providerId, source.role]));
  const full = admitsNoOneNew(chain);
  const [history, pendingEvents, holds, admitted] = await Promise.all([
    loadCountingHistory(deps.db, [{ user, chain, eventTypes: tasks.map((task) => task.conditionEventType) }], {
      withPending: true,
    }),
    countPendingEvents(deps.db, sources),
    loadClaimHolds(deps.db, [user.id]),
    full ? admittedChainsOf(deps.db, user.id, [chain.id]) : Promise.resolve(new Set<string>()),
  ]);
  // max_completions: a full chain counts nothing for a user it never admitted (docs/budgets.md).
  const capReached = full && !admitted.has(chain.id);

  // Every event of the user's sources, counting or not: explain gives each its verdict.
  const events = history.eventsOf(user, chain);
  const byId = new Map(events.map((event) => [event.id, event]));
  const sourceOf = (event: ExplainedEvent): SenderRole => roleOf.get(event.providerId)!;
  // With the holds of the user's claims, as the matcher walks it (docs/reversals.md).
  // A repeating chain: the run's own walk, as the matcher walks it; events of other runs are outside_period.
  const explained = explainChain(
    runRules(rules, runStart)!,
    events,
    undefined,
    holds.get(walkKey(user.id, chain.id, runStart)) ?? [],
    capReached,
    rules.recurrence ? rules : undefined,
  );
  const statuses = taskStatuses(chain.allowAnyOrder, tasks, new Set(explained.completions.keys()));
  const rowsById = new Map(tasks.map((task) => [task.id, task]));
  return {
    definition,
    userExists: true,
    capReached,
    pendingEvents,
    run,
    tasks: explained.tasks.map(({ task, completion, candidates }) => {
      const completing = completion === null ? undefined : byId.get(completion.eventId);
      return {
        task: rowsById.get(task.id)!,
        userStatus: statuses.get(task.id)!,
        completedBy: completing === undefined ? null : { event: completing, source: sourceOf(completing) },
        candidates: candidates.map(({ event, verdict, tally }) => ({ event, source: sourceOf(event), verdict, tally })),
      };
    }),
  };
}
