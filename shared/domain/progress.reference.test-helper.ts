// A deliberately naive second reading of product rules §4-§5, written without
// looking at walk.ts or conditions.ts, for property tests to compare
// against. It favours obviousness over speed: no sorting, no Map, linear
// scans everywhere. Not for production use.
import type { CountingEvent, TaskCondition } from './conditions.js';
import type { ChainRules, Completion } from './walk.js';

function sameCurrency(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function referenceMatches(t: TaskCondition, e: CountingEvent): boolean {
  const checks: boolean[] = [
    e.eventType === t.eventType,
    t.minAmount === null || (e.amount !== null && e.amount >= t.minAmount),
    t.currency === null || (e.currency !== null && sameCurrency(e.currency, t.currency)),
    t.afterUs === null || e.occurredUs >= t.afterUs,
    t.beforeUs === null || e.occurredUs < t.beforeUs,
  ];
  return checks.every((ok) => ok);
}

// True when `a` is walked before `b`.
function walksBefore(a: CountingEvent, b: CountingEvent): boolean {
  if (a.occurredUs < b.occurredUs) return true;
  if (a.occurredUs > b.occurredUs) return false;
  return a.id < b.id;
}

export function referenceCompletions(chain: ChainRules, events: readonly CountingEvent[]): Completion[] {
  // Distinct counting events, by linear search for an earlier copy of the id.
  const pending: CountingEvent[] = [];
  for (const e of events) {
    if (e.occurredUs < chain.startUs || e.occurredUs >= chain.endUs) continue;
    if (pending.some((p) => p.id === e.id)) continue;
    pending.push(e);
  }

  const done: Completion[] = [];
  const isDone = (t: TaskCondition): boolean => done.some((c) => c.taskId === t.id);
  // Lowest sequence number among the given tasks, by linear search.
  const lowest = (candidates: TaskCondition[]): TaskCondition | null => {
    let best: TaskCondition | null = null;
    for (const t of candidates) if (best === null || t.sequenceNumber < best.sequenceNumber) best = t;
    return best;
  };

  while (pending.length > 0) {
    // Take the next event to walk: a linear minimum search, then remove it.
    let next = 0;
    for (let i = 1; i < pending.length; i++) {
      const candidate = pending[i];
      const current = pending[next];
      if (candidate && current && walksBefore(candidate, current)) next = i;
    }
    const [event] = pending.splice(next, 1);
    if (!event) break;

    const open = chain.tasks.filter((t) => !isDone(t));
    const target = chain.allowAnyOrder
      ? lowest(open.filter((t) => referenceMatches(t, event)))
      : (() => {
          const currentTask = lowest(open);
          return currentTask !== null && referenceMatches(currentTask, event) ? currentTask : null;
        })();
    if (target !== null) done.push({ taskId: target.id, eventId: event.id, completedUs: event.occurredUs });
  }
  return done;
}
