import { inChainWindow, taskMismatch, type CountingEvent, type TaskCondition, type TaskMismatch } from './conditions.js';
import { compareEventPositions } from './counting.js';
import { computeCompletions, type ChainRules, type Completion, type Hold } from './progress.js';

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
  | 'cap_reached';

/** A stored event of the user's §4 sources; `pending`: the matcher has not processed it yet; `reversed`: its sender took it back. */
export type ExplainEvent = CountingEvent & { pending: boolean; reversed?: boolean };

export interface Candidate<E extends ExplainEvent = ExplainEvent> {
  event: E;
  verdict: Verdict;
}

export interface TaskExplanation<E extends ExplainEvent = ExplainEvent> {
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

/** What the walk did at one event: the task it completed (if any) and the tasks done before it. */
interface Step {
  completedTaskId: string | undefined;
  doneBefore: ReadonlySet<string>;
}

export const EXPLAIN_CANDIDATES = 10;

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
): ChainExplanation<E> {
  const distinct = [...new Map(events.map((e) => [e.id, e])).values()];
  const steps = new Map<string, Step>();
  const completions = capReached
    ? new Map<string, Completion>()
    : computeCompletions(
        chain,
        distinct.filter((e) => !e.pending && e.reversed !== true),
        (event, completed, done) => steps.set(event.id, { completedTaskId: completed?.id, doneBefore: new Set(done.keys()) }),
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
        .map((event) => ({ event, verdict: verdictOf(chain, task, event, capReached ? 'cap_reached' : steps.get(event.id)) }));
      return { task, completion, candidates };
    }),
  };
}

function verdictOf(chain: ChainRules, task: TaskCondition, event: ExplainEvent, step: Step | 'cap_reached' | undefined): Verdict {
  // Reversed counts for nothing, processed or not: that is the whole answer.
  if (event.reversed === true) return 'reversed';
  if (event.pending) return 'not_yet_processed';
  if (!inChainWindow(chain, event)) return 'outside_chain_window';
  const mismatch = taskMismatch(task, event);
  if (mismatch !== null && mismatch !== 'event_type_mismatch') return mismatch;
  // Accepted by the task, but the chain had no place left for this user.
  if (step === 'cap_reached') return 'cap_reached';
  // In the window and accepted by this task: the walk stepped over it, unless
  // every task was completed before it came (the walk stops there).
  if (step === undefined) return 'after_completion';
  if (step.completedTaskId !== undefined) return 'used_by_other_task';
  if (step.doneBefore.has(task.id)) return 'after_completion';
  // Passed over while this task was open and accepted it: only an ordered
  // chain does that, when the current task was an earlier one.
  return 'waiting_for_earlier_task';
}
