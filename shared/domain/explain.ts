import {
  type ChainWindow,
  type CountingEvent,
  inChainWindow,
  type TaskCondition,
  type TaskMismatch,
  taskMismatch,
} from './conditions.js';
import { compareEventPositions } from './counting.js';
import type { Tally } from './tally.js';
import { type ChainRules, type Completion, computeCompletions, type Hold } from './walk.js';

// Product rules §11: why each of a user's events did or did not complete a
// task. Not a second reading of §4-5: the walk that computes progress
// (computeCompletions) reports each event's fate to an observer, and the
// verdicts are read from those reports and from taskMismatch, the one
// definition of a task's conditions. So explain cannot disagree with progress.

export type Verdict =
  | 'reversed'
  | 'not_yet_processed'
  | 'outside_chain_window'
  | Exclude<TaskMismatch, 'event_type_mismatch'>
  | 'used_by_other_task'
  | 'after_completion'
  | 'waiting_for_earlier_task'
  | 'cap_reached'
  | 'counted'
  | 'streak_broken'
  | 'outside_period';

/** A stored event of the user's §4 sources; `pending`: the matcher has not processed it yet; `reversed`: its sender took it back. */
export type ExplainEvent = CountingEvent & { pending: boolean; reversed?: boolean };

interface Candidate<E extends ExplainEvent = ExplainEvent> {
  event: E;
  verdict: Verdict;
  /** `counted` and `streak_broken`: the task's tally with this event (§16). */
  tally?: Tally;
}

interface TaskExplanation<E extends ExplainEvent = ExplainEvent> {
  task: TaskCondition;
  /** The completion progress shows for the task, null when it is open. */
  completion: Completion | null;
  /** Events of the task's type, latest first, without the completing one; at most `limit`. */
  candidates: Candidate<E>[];
}

export interface ChainExplanation<E extends ExplainEvent = ExplainEvent> {
  /** Exactly computeCompletions over the processed events: the progress explained. */
  completions: Map<string, Completion>;
  /** In sequence order. */
  tasks: TaskExplanation<E>[];
}

/** What the walk did at one event: the task it counted toward (if any), that task's tally with it, and the tasks done before it. */
interface Step {
  countedTaskId: string | undefined;
  tally: Tally | undefined;
  /** The task's streak started again at this event after a period without one (§16). */
  streakBroken: boolean;
  doneBefore: ReadonlySet<string>;
}

const EXPLAIN_CANDIDATES = 10;

/**
 * Explains the chain for one user. Progress counts processed events only (a
 * pending one has not reached it yet), so the walk runs over those, and the
 * pending ones are `not_yet_processed` whatever they would do.
 */
export function explainChain<E extends ExplainEvent>(
  chain: ChainRules,
  events: readonly E[],
  limit = EXPLAIN_CANDIDATES,
  holds: readonly Hold[] = [],
  /** The chain admits no new users and this one holds no place (max_completions): nothing of theirs counts in it. */
  capReached = false,
  /** When `chain` is one run of a repeating chain: the whole chain's dates (an event inside them but not in the run is outside_period). */
  wholeChain?: ChainWindow,
): ChainExplanation<E> {
  const distinct = [...new Map(events.map((e) => [e.id, e])).values()];
  const steps = new Map<string, Step>();
  const lastTallies = new Map<string, Tally>();
  const completions = capReached
    ? new Map<string, Completion>()
    : computeCompletions(
        chain,
        distinct.filter((e) => !e.pending && e.reversed !== true),
        (event, counted, done, tally) => {
          const before = counted === undefined ? undefined : lastTallies.get(counted.id);
          const streakBroken =
            counted?.streak != null &&
            tally !== undefined &&
            before?.lastPeriod != null &&
            tally.lastPeriod !== before.lastPeriod &&
            tally.streak === 1;
          if (counted !== undefined && tally !== undefined) lastTallies.set(counted.id, tally);
          steps.set(event.id, { countedTaskId: counted?.id, tally, streakBroken, doneBefore: new Set(done.keys()) });
        },
        holds,
      );
  const latestFirst = distinct.sort((a, b) => compareEventPositions(b, a));
  const tasks = [...chain.tasks].sort((a, b) => a.sequenceNumber - b.sequenceNumber);
  return {
    completions,
    tasks: tasks.map((task) => {
      const completion = completions.get(task.id) ?? null;
      const candidates = latestFirst
        .filter((e) => e.eventType === task.eventType && e.id !== completion?.eventId)
        .slice(0, limit)
        .map((event) => candidateOf(chain, task, event, capReached ? 'cap_reached' : steps.get(event.id), wholeChain));
      return { task, completion, candidates };
    }),
  };
}

function candidateOf<E extends ExplainEvent>(
  chain: ChainRules,
  task: TaskCondition,
  event: E,
  step: Step | 'cap_reached' | undefined,
  wholeChain?: ChainWindow,
): Candidate<E> {
  const verdict = verdictOf(chain, task, event, step, wholeChain);
  const tally = typeof step === 'object' && (verdict === 'counted' || verdict === 'streak_broken') ? step.tally : undefined;
  return tally === undefined ? { event, verdict } : { event, verdict, tally };
}

function verdictOf(
  chain: ChainRules,
  task: TaskCondition,
  event: ExplainEvent,
  step: Step | 'cap_reached' | undefined,
  wholeChain?: ChainWindow,
): Verdict {
  // Reversed counts for nothing, processed or not: that is the whole answer.
  if (event.reversed === true) return 'reversed';
  if (event.pending) return 'not_yet_processed';
  if (!inChainWindow(chain, event))
    return wholeChain !== undefined && inChainWindow(wholeChain, event) ? 'outside_period' : 'outside_chain_window';
  const mismatch = taskMismatch(task, event);
  if (mismatch !== null && mismatch !== 'event_type_mismatch') return mismatch;
  // Accepted by the task, but the chain had no place left for this user.
  if (step === 'cap_reached') return 'cap_reached';
  // In the window and accepted by this task: the walk stepped over it, unless
  // every task was completed before it came (the walk stops there).
  if (step === undefined) return 'after_completion';
  // Counted toward this task without completing it (a counted, summed or streak task, §16).
  if (step.countedTaskId === task.id) return step.streakBroken ? 'streak_broken' : 'counted';
  if (step.countedTaskId !== undefined) return 'used_by_other_task';
  if (step.doneBefore.has(task.id)) return 'after_completion';
  // Passed over while this task was open and accepted it: only an ordered
  // chain does that, when the current task was an earlier one.
  return 'waiting_for_earlier_task';
}
