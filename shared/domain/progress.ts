import { inChainWindow, taskMatches } from './conditions.js';
import type { CountingEvent, TaskCondition } from './conditions.js';

// Progress is a pure function of the chain and the SET of counting events
// (product rules §5), so that retries, replays, duplicates and concurrent
// workers can never disagree: recomputing from scratch is always correct.

export type ChainRules = {
  allowAnyOrder: boolean;
  startUs: bigint;
  endUs: bigint;
  /** Any order on input; walked by sequenceNumber. */
  tasks: TaskCondition[];
};

export type Completion = { taskId: string; eventId: string; completedUs: bigint };

/** The walk order of §5: timestamp, then event id as plain code-unit order. */
export function compareEvents(a: CountingEvent, b: CountingEvent): number {
  if (a.occurredUs !== b.occurredUs) return a.occurredUs < b.occurredUs ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

function sortTasks(tasks: readonly TaskCondition[]): TaskCondition[] {
  // Ties (which chain validation forbids) fall back to id so the result still
  // does not depend on the order the caller listed tasks in.
  return [...tasks].sort((a, b) =>
    a.sequenceNumber - b.sequenceNumber || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

// An event id names one immutable stored event, so keeping the first copy of
// each id is the same as keeping any copy.
function countingEventsInOrder(chain: ChainRules, events: readonly CountingEvent[]): CountingEvent[] {
  const byId = new Map<string, CountingEvent>();
  for (const e of events) {
    if (!byId.has(e.id) && inChainWindow(chain, e)) byId.set(e.id, e);
  }
  return [...byId.values()].sort(compareEvents);
}

/**
 * One step of the §5 walk: the task `event` completes given the tasks already
 * completed, or undefined. Ordered chains: only the lowest-numbered open task
 * may be completed; any-order chains: the lowest-numbered open task it matches.
 */
function taskCompletedBy(
  chain: ChainRules,
  sortedTasks: readonly TaskCondition[],
  completed: { has(taskId: string): boolean },
  event: CountingEvent,
): TaskCondition | undefined {
  if (chain.allowAnyOrder) return sortedTasks.find((t) => !completed.has(t.id) && taskMatches(t, event));
  const current = sortedTasks.find((t) => !completed.has(t.id));
  return current !== undefined && taskMatches(current, event) ? current : undefined;
}

/** Completions keyed by task id; tasks absent from the map are not completed. */
export function computeCompletions(
  chain: ChainRules,
  events: readonly CountingEvent[],
): Map<string, Completion> {
  const tasks = sortTasks(chain.tasks);
  const completions = new Map<string, Completion>();
  for (const event of countingEventsInOrder(chain, events)) {
    if (completions.size === tasks.length) break;
    const task = taskCompletedBy(chain, tasks, completions, event);
    if (task !== undefined) completions.set(task.id, { taskId: task.id, eventId: event.id, completedUs: event.occurredUs });
  }
  return completions;
}
