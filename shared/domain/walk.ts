import { isChainCompleted } from './chain-view.js';
import type { CountingEvent, TaskCondition } from './conditions.js';
import { inChainWindow, taskMatches } from './conditions.js';
import type { EventPosition } from './counting.js';
import { compareEventPositions } from './counting.js';
import type { Recurrence } from './recurrence.js';
import { absorbLateEvent, countEvent, EMPTY_TALLY, isAccumulating, meetsThresholds, type Tally } from './tally.js';

// Progress is a pure function of the chain and the SET of counting events
// (product rules §5), so that retries, replays, duplicates and concurrent
// workers can never disagree: recomputing from scratch is always correct.
// The incremental walk below is an optimisation of that recompute, exact by
// construction: it runs the same step over the same order, and gives up
// (asks for a recompute) whenever the order would differ. Absorbing a late
// event into an open tally (advanceWalk's `absorbLate`) relies on one thing
// more, which the matcher guarantees: each event is walked once.

export type ChainRules = {
  allowAnyOrder: boolean;
  startUs: bigint;
  endUs: bigint;
  /** Any order on input; walked by sequenceNumber. */
  tasks: TaskCondition[];
  /** IANA zone of streak periods (§16); UTC when absent. */
  timezone?: string;
  /** A repeating chain (§16): each period is a run walked on its own (runs.ts). Absent or null: one run. */
  recurrence?: Recurrence | null;
};

/** What each task gathered so far (§16), by task id; only tasks that counted an event are present. */
type Tallies = Map<string, Tally>;

/** `held`: the task stands completed only by its claim's hold (its events no longer complete it; docs/reversals.md). */
export type Completion = { taskId: string; eventId: string; completedUs: bigint; held?: boolean };

/**
 * A completion the walk keeps although no counting event makes it any more
 * (docs/reversals.md): at its position the walk completes the task if it is
 * still open, as if that event completed it and nothing else. `claim`: the
 * task's reward was claimed there (the completion is then `held`, and the
 * claimed reward marked reversed); `retained`: the completing event was
 * dropped by retention, which never takes a completion away. At an event's
 * own position the event steps first, so a claim whose event still counts
 * changes nothing.
 */
export type Hold = { taskId: string; at: EventPosition; kind: 'claim' | 'retained' };

const HOLD_ORDER = { retained: 0, claim: 1 } as const;

function holdsInOrder(chain: ChainRules, holds: readonly Hold[]): Hold[] {
  const taskIds = new Set(chain.tasks.map((t) => t.id));
  return holds
    .filter((h) => taskIds.has(h.taskId))
    .sort(
      (a, b) =>
        compareEventPositions(a.at, b.at) ||
        HOLD_ORDER[a.kind] - HOLD_ORDER[b.kind] ||
        (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0),
    );
}

function sortTasks(tasks: readonly TaskCondition[]): TaskCondition[] {
  // Ties (which chain validation forbids) fall back to id so the result still
  // does not depend on the order the caller listed tasks in.
  return [...tasks].sort((a, b) => a.sequenceNumber - b.sequenceNumber || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * In the chain's dates and matched by at least one of its tasks. Any other
 * event can never complete a task, so leaving it out of a walk changes nothing.
 */
export function isRelevant(chain: ChainRules, event: CountingEvent): boolean {
  return inChainWindow(chain, event) && chain.tasks.some((task) => taskMatches(task, event));
}

// An event id names one immutable stored event, so keeping the first copy of
// each id is the same as keeping any copy.
function relevantInOrder(chain: ChainRules, events: readonly CountingEvent[]): CountingEvent[] {
  const byId = new Map<string, CountingEvent>();
  for (const e of events) {
    if (!byId.has(e.id) && isRelevant(chain, e)) byId.set(e.id, e);
  }
  return [...byId.values()].sort(compareEventPositions);
}

/**
 * One step of the §5 walk: the task `event` counts toward given the tasks
 * already completed, or undefined. Ordered chains: only the lowest-numbered
 * open task; any-order chains: the lowest-numbered open task it matches. A
 * plain task is completed by the event it counts; a counted, summed or streak
 * task (§16) once its tally meets the thresholds.
 */
function taskCountedBy(
  chain: ChainRules,
  sortedTasks: readonly TaskCondition[],
  completed: { has(taskId: string): boolean },
  event: CountingEvent,
): TaskCondition | undefined {
  if (chain.allowAnyOrder) return sortedTasks.find((t) => !completed.has(t.id) && taskMatches(t, event));
  const current = sortedTasks.find((t) => !completed.has(t.id));
  return current !== undefined && taskMatches(current, event) ? current : undefined;
}

/**
 * Told the fate of each event the walk steps over, before its completion (if
 * any) is recorded: `counted` is the task it counts toward (a plain task: the
 * one it completes), undefined when it is passed over; `completions` the tasks
 * completed by earlier events; `tally` the task's tally with this event.
 * Explain (explain.ts) reads its verdicts from these calls, so they cannot
 * disagree with progress. Events after the chain's last completion are not
 * stepped over.
 */
export type WalkObserver = (
  event: CountingEvent,
  counted: TaskCondition | undefined,
  completions: ReadonlyMap<string, Completion>,
  tally?: Tally,
) => void;

/**
 * Continues the walk that produced `completions` over `ordered` (in §5 order,
 * all after every event already walked), adding to `completions` in place.
 * Returns whether it added any. The matcher passes no observer: one
 * comparison per event is all the hook costs it.
 */
function walkOn(
  chain: ChainRules,
  completions: Map<string, Completion>,
  ordered: readonly CountingEvent[],
  observe?: WalkObserver,
  holds: readonly Hold[] = [],
  tallies: Tallies = new Map(),
): boolean {
  const tasks = sortTasks(chain.tasks);
  const timezone = chain.timezone ?? 'UTC';
  let changed = false;
  let nextHold = 0;
  // The holds at or before `position` step now, in their order (events first at an equal position).
  const holdUntil = (position: EventPosition | null) => {
    for (; nextHold < holds.length; nextHold++) {
      const hold = holds[nextHold]!;
      if (position !== null && compareEventPositions(hold.at, position) >= 0) return;
      if (completions.has(hold.taskId)) continue;
      completions.set(hold.taskId, {
        taskId: hold.taskId,
        eventId: hold.at.id,
        completedUs: hold.at.occurredUs,
        held: hold.kind === 'claim',
      });
      changed = true;
    }
  };
  for (const event of ordered) {
    holdUntil(event);
    if (completions.size === tasks.length) break;
    const task = taskCountedBy(chain, tasks, completions, event);
    if (task === undefined) {
      if (observe !== undefined) observe(event, undefined, completions);
      continue;
    }
    // A plain task keeps no tally: its one counted event completes it.
    const tally = isAccumulating(task) ? countEvent(task, tallies.get(task.id) ?? EMPTY_TALLY, event, timezone) : undefined;
    if (observe !== undefined) observe(event, task, completions, tally);
    changed = true;
    if (tally !== undefined) {
      tallies.set(task.id, tally);
      if (!meetsThresholds(task, tally)) continue;
    }
    completions.set(task.id, { taskId: task.id, eventId: event.id, completedUs: event.occurredUs });
  }
  holdUntil(null);
  return changed;
}

/** Completions keyed by task id; tasks absent from the map are not completed. `observe`: see WalkObserver; `holds`: see Hold. */
export function computeCompletions(
  chain: ChainRules,
  events: readonly CountingEvent[],
  observe?: WalkObserver,
  holds: readonly Hold[] = [],
): Map<string, Completion> {
  const completions = new Map<string, Completion>();
  walkOn(chain, completions, relevantInOrder(chain, events), observe, holdsInOrder(chain, holds));
  return completions;
}

/**
 * What the matcher keeps per (user, chain) between batches: the completions so
 * far and the position of the last relevant event walked (null: none yet).
 * Passed-over events advance the mark too: an earlier event arriving later
 * could complete the task they were passed over for, and must be seen as late.
 * Once every task is completed the mark stops (at or after the last
 * completion): nothing after that can change the walk.
 */
export type WalkState = { completions: Map<string, Completion>; mark: EventPosition | null; tallies?: Tallies };

/**
 * `from`: the earliest late event that changes the walk, when the walk before
 * it stands as stored (redoWindow says where the redo starts); absent when the
 * walk must be redone from the start over everything.
 */
export type WalkAdvance =
  | {
      state: WalkState;
      changed: boolean;
      /** Late events added to open tallies instead of a redo (absorbIntoOpenTasks). */
      absorbed?: number;
    }
  | { recompute: true; from?: EventPosition };

const positionOf = (event: EventPosition): EventPosition => ({ occurredUs: event.occurredUs, id: event.id });

/**
 * The full walk over every counting event of the user, with its holds, and
 * its mark: the latest step, event or hold, so that an event before a hold
 * is late (it could complete the held task for real).
 */
export function recomputeWalk(chain: ChainRules, events: readonly CountingEvent[], holds: readonly Hold[] = []): WalkState {
  const ordered = relevantInOrder(chain, events);
  const steps = holdsInOrder(chain, holds);
  const completions = new Map<string, Completion>();
  const tallies: Tallies = new Map();
  walkOn(chain, completions, ordered, undefined, steps, tallies);
  return withTallies(chain, { completions, mark: lastStep(ordered, steps) }, tallies);
}

/** The latest step a walk took, event or hold (in position order, each list sorted): its mark. */
function lastStep(ordered: readonly CountingEvent[], steps: readonly Hold[]): EventPosition | null {
  const lastEvent = ordered.at(-1);
  const lastHold = steps.at(-1)?.at;
  const last =
    lastHold !== undefined && (lastEvent === undefined || compareEventPositions(lastHold, lastEvent) > 0) ? lastHold : lastEvent;
  return last === undefined ? null : positionOf(last);
}

/** The position of the latest completing event: the walk's state is final from there on. */
export function lastCompletion(completions: ReadonlyMap<string, Completion>): EventPosition | null {
  let last: EventPosition | null = null;
  for (const c of completions.values()) {
    const position = { occurredUs: c.completedUs, id: c.eventId };
    if (last === null || compareEventPositions(position, last) > 0) last = position;
  }
  return last;
}

/**
 * The walk's state just before `position`: every step is a completion at its
 * own position (an event's or a hold's), and the walk is a fold in position
 * order, so the tasks completed before a position are exactly the stored
 * completions positioned before it.
 */
function completedBefore(
  completions: ReadonlyMap<string, Completion>,
  position: EventPosition,
): { has(taskId: string): boolean } {
  return {
    has(taskId) {
      const completion = completions.get(taskId);
      return (
        completion !== undefined &&
        compareEventPositions({ occurredUs: completion.completedUs, id: completion.eventId }, position) < 0
      );
    },
  };
}

/**
 * Applies newly stored events to a walk state in O(tasks) each, when they all
 * come after its mark; otherwise the walk order may have changed and only
 * `recomputeWalk` over all the events is exact. A late event needs no
 * recompute when it completes nothing in the state the walk had at its
 * position (completedBefore): the walk would pass it over, leaving every
 * later step as it was. That is what most late events of a busy user meet
 * (a task of another type is open there, or the chain was complete), so the
 * costly recompute, which reads the user's history, is left for the late
 * events that really move a completion. With `absorbLate` (the matcher, for
 * a walk it knows counted no event still pending: see absorbIntoOpenTasks),
 * late events that only add to a counted, summed or streak task left open are
 * added to its tally instead of redoing the walk.
 * `changed`: a completion was added (or a §16 tally grew). Does not modify `state`.
 */
export function advanceWalk(
  chain: ChainRules,
  state: WalkState,
  newEvents: readonly CountingEvent[],
  options: { absorbLate?: boolean } = {},
): WalkAdvance {
  const { mark } = state;
  // Completions without a mark were not made by a walk, so there is nothing to continue.
  if (mark === null && state.completions.size > 0) return { recompute: true };
  // The mark's own event, delivered again, was walked already: not late.
  const relevant = relevantInOrder(chain, newEvents).filter((e) => mark === null || e.id !== mark.id);
  const late = mark === null ? [] : relevant.filter((e) => compareEventPositions(e, mark) < 0);
  const fresh = relevant.slice(late.length);
  let absorbed: { tallies: Tallies; count: number } | null = null;
  if (late.length > 0) {
    const tasks = sortTasks(chain.tasks);
    const countedBy = (event: CountingEvent) => taskCountedBy(chain, tasks, completedBefore(state.completions, event), event);
    const firstCountedAt = late.findIndex((event) => countedBy(event) !== undefined);
    if (firstCountedAt >= 0) {
      const firstCounted = late[firstCountedAt]!;
      // The late events before the first that counts count toward nothing: absorbing starts at that one.
      absorbed =
        options.absorbLate && hasTallies(chain) ? absorbIntoOpenTasks(chain, state, late.slice(firstCountedAt), countedBy) : null;
      // The walk before the first late event that changes it stands: the redo starts there.
      if (absorbed === null) return { recompute: true, from: positionOf(firstCounted) };
    }
  }
  const absorbedField = absorbed === null ? {} : { absorbed: absorbed.count };
  const completions = new Map(state.completions);
  const tallies: Tallies = absorbed?.tallies ?? (hasTallies(chain) ? new Map(state.tallies) : NO_TALLIES);
  const last = fresh.at(-1);
  // A complete walk is final: an event after its last completion changes
  // nothing, whether it is seen as fresh or as late-and-harmless, so its mark
  // stays (and its row is not written again for every later event).
  if (last === undefined || isChainCompleted(chain.tasks.length, completions.size))
    return { state: withTallies(chain, { completions, mark }, tallies), changed: absorbed !== null, ...absorbedField };
  const changed = walkOn(chain, completions, fresh, undefined, [], tallies);
  const advanced = withTallies(chain, { completions, mark: positionOf(last) }, tallies);
  return { state: advanced, changed: changed || absorbed !== null, ...absorbedField };
}

/**
 * The walk's tallies with its late events absorbed (absorbLateEvent), when
 * every one that counts toward a task counts toward a counted, summed or
 * streak task that stays open to the walk's end: no completion moves, so no
 * other event's step changes, and the walk need not be redone (`count`: the
 * events absorbed). Null when any one needs the redo. Exact only for events
 * the walk has not counted before: the matcher walks each event once,
 * claiming its pending row, and its history reads leave out events still
 * pending elsewhere (docs/matching.md, "Late events absorbed").
 */
function absorbIntoOpenTasks(
  chain: ChainRules,
  state: WalkState,
  late: readonly CountingEvent[],
  countedBy: (event: CountingEvent) => TaskCondition | undefined,
): { tallies: Tallies; count: number } | null {
  const tallies: Tallies = new Map(state.tallies);
  const timezone = chain.timezone ?? 'UTC';
  let count = 0;
  for (const event of late) {
    const task = countedBy(event);
    if (task === undefined) continue;
    if (!isAccumulating(task) || state.completions.has(task.id)) return null;
    const tally = absorbLateEvent(task, tallies.get(task.id) ?? EMPTY_TALLY, event, timezone);
    if (tally === null) return null;
    tallies.set(task.id, tally);
    count++;
  }
  return { tallies, count };
}

/** The state with its tallies, in a chain that keeps them: a plain chain's state is exactly what it was before §16. */
const withTallies = (chain: ChainRules, state: WalkState, tallies: Tallies): WalkState =>
  hasTallies(chain) ? { ...state, tallies } : state;

/** A chain with a counted, summed or streak task (§16): its walk state includes tallies. Remembered per rules object (the matcher asks per event). */
export function hasTallies(chain: ChainRules): boolean {
  let known = talliesKept.get(chain);
  if (known === undefined) {
    known = chain.tasks.some(isAccumulating);
    talliesKept.set(chain, known);
  }
  return known;
}

const talliesKept = new WeakMap<ChainRules, boolean>();
/** What a plain chain's walk passes for tallies: never written to (walkOn only counts into accumulating tasks). */
const NO_TALLIES: Tallies = new Map();

/**
 * The part of a walk to redo after late events: the steps from `from` on
 * (with `from.after`, the steps after that position; null: every step of the
 * run, from nothing completed), each step before it standing as stored; and,
 * for a walk that was complete, only up to its last completion (`until`): an
 * event can only move completions earlier, so the redone walk is complete by
 * then too, unless it is not (redoWalk says so).
 */
export type RedoWindow = { from: { at: EventPosition; after: boolean } | null; until: EventPosition | null };

/**
 * The window to redo for a late event at `late` in the walk `stored`. A plain
 * chain's walk before the event is its stored completions before it. A chain
 * with tallies (§16) keeps only its tallies at the end, so the redo starts
 * where they are known: in an ordered chain, right after the completion that
 * made the late event's task current (every task before it was complete by
 * then, their tallies final; no later task had counted anything; the current
 * one starts empty there), or at the run's start for the first task; in an
 * any-order chain every open task may have counted since the start, so at
 * the start.
 */
export function redoWindow(chain: ChainRules, stored: WalkState, late: EventPosition): RedoWindow {
  const until = isChainCompleted(chain.tasks.length, stored.completions.size) ? lastCompletion(stored.completions) : null;
  if (!hasTallies(chain)) return { from: { at: late, after: false }, until };
  if (chain.allowAnyOrder) return { from: null, until };
  const before = completedBefore(stored.completions, late);
  const tasks = sortTasks(chain.tasks);
  const current = tasks.findIndex((task) => !before.has(task.id));
  if (current < 0) return { from: null, until };
  const madeCurrent = lastCompletion(
    new Map(tasks.slice(0, current).map((task) => [task.id, stored.completions.get(task.id)!] as const)),
  );
  return { from: madeCurrent === null ? null : { at: madeCurrent, after: true }, until };
}

/**
 * `recomputeWalk` over only the events and holds inside `window`, starting
 * from the stored walk's state where the window starts: its completions
 * there (completedBefore), and those tasks' tallies, final once complete. The
 * walk is a fold in position order, so its state there does not depend on
 * anything after it. `events` may hold more than the window; those inside it
 * must all be there. Null when a window closed by `until` did not end
 * complete: then only the walk over everything after its start is exact.
 * Property-tested against recomputeWalk (walk.property.test.ts,
 * quest-language.property.test.ts).
 */
export function redoWalk(
  chain: ChainRules,
  stored: WalkState,
  window: RedoWindow,
  events: readonly CountingEvent[],
  holds: readonly Hold[] = [],
): WalkState | null {
  const { from, until } = window;
  const inWindow = (position: EventPosition) => {
    const start = from === null ? 1 : compareEventPositions(position, from.at);
    return (from?.after ? start > 0 : start >= 0) && (until === null || compareEventPositions(position, until) <= 0);
  };
  // The completions before the window's start stand (at its start too, with `after`).
  const standing = ({ completedUs, eventId }: Completion) => {
    if (from === null) return false;
    const order = compareEventPositions({ occurredUs: completedUs, id: eventId }, from.at);
    return from.after ? order <= 0 : order < 0;
  };
  const completions = new Map([...stored.completions].filter(([, completion]) => standing(completion)));
  const tallies: Tallies = new Map();
  for (const [taskId, tally] of stored.tallies ?? []) if (completions.has(taskId)) tallies.set(taskId, tally);
  const ordered = relevantInOrder(chain, events).filter(inWindow);
  const steps = holdsInOrder(chain, holds).filter((hold) => inWindow(hold.at));
  walkOn(chain, completions, ordered, undefined, steps, tallies);
  if (until !== null && !isChainCompleted(chain.tasks.length, completions.size)) return null;
  return withTallies(chain, { completions, mark: lastStep(ordered, steps) ?? stored.mark }, tallies);
}
