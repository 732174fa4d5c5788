import { groupBy } from '../../shared/collections.js';
import type { MatchingChain } from '../../shared/db/chain-store.js';
import type { StoredEvent } from '../../shared/db/event-store.js';
import type { ChainProgressWrite, ClaimStanding, CompletionWrite, StoredWalk } from '../../shared/db/progress-store.js';
import { isChainCompleted, joinedUs } from '../../shared/domain/chain-view.js';
import type { ServiceUserId } from '../../shared/domain/ids.js';
import { ONLY_RUN } from '../../shared/domain/recurrence.js';
import { eventsByRun, runRules } from '../../shared/domain/runs.js';
import { type ChainScope, countingFilter, type MatchUser, type SourceHistory } from '../../shared/domain/sources.js';
import type { StoredTallies, Tally } from '../../shared/domain/tally.js';
import {
  advanceWalk,
  type ChainRules,
  type Hold,
  type RedoWindow,
  recomputeWalk,
  redoWalk,
  redoWindow,
  type WalkAdvance,
  type WalkState,
} from '../../shared/domain/walk.js';
import { parseWalkKey, walkKey } from '../../shared/domain/walk-key.js';
import type { SpannedRead } from './counting-history.js';

/**
 * The in-memory half of a batch: given what the batch loaded, decide each
 * (user, chain)'s new walk state, then the rows to write. Pure, so the
 * database half stays a fixed sequence of set-based statements.
 */

export interface BatchView {
  users: ReadonlyMap<ServiceUserId, MatchUser>;
  chainsByPlatform: ReadonlyMap<string, readonly MatchingChain[]>;
  walks: ReadonlyMap<string, StoredWalk>;
  /** By user, the keys of walks the worker kept processed-only (core/matching/walk-cache.ts): late events may be absorbed into them. */
  processedOnly?: ReadonlyMap<ServiceUserId, ReadonlySet<string>>;
}

/**
 * One (user, chain, run) the batch walks again instead of advancing it; `runStartUs` null: every run
 * of a repeating chain (a re-evaluation); `redo`: only that window of its
 * stored walk is walked again (late events, see redoWalk).
 */
export interface WalkToRecompute {
  userId: ServiceUserId;
  chain: MatchingChain;
  runStartUs: bigint | null;
  redo?: { stored: WalkState; window: RedoWindow };
}

/** The rules a recompute walks: its run's, or the whole chain's for every run at once. */
const rulesOfWalk = ({ chain, runStartUs }: WalkToRecompute): ChainRules =>
  runStartUs === null ? chain.rules : runRules(chain.rules, runStartUs)!;

const scopeOf = (definition: MatchingChain): ChainScope => ({
  platformId: definition.chain.platformId,
  advertiserId: definition.chain.advertiserId,
  startUs: definition.rules.startUs,
  endUs: definition.rules.endUs,
});

function storedState(walk: StoredWalk | undefined): WalkState | null {
  if (!walk) return { completions: new Map(), mark: null };
  // A row from before marks existed: its walk cannot be continued, only redone.
  if (walk.mark === null) return null;
  const completions = new Map(
    [...walk.completions].map(([taskId, c]) => [
      taskId,
      { taskId, eventId: c.eventId, completedUs: c.completedUs, held: c.held },
    ]),
  );
  // Only a chain with counted, summed or streak tasks stores tallies; the others' walks carry none.
  return walk.tallies === null
    ? { completions, mark: walk.mark }
    : { completions, mark: walk.mark, tallies: new Map(Object.entries(walk.tallies)) };
}

const taskTypes = new WeakMap<MatchingChain, (event: StoredEvent) => boolean>();

/** Whether an event's type is one some task of the chain waits for (no other event is relevant to it: isRelevant). */
function hasTaskTypeOf(chain: MatchingChain): (event: StoredEvent) => boolean {
  let test = taskTypes.get(chain);
  if (test === undefined) {
    const types = new Set(chain.rules.tasks.map((task) => task.eventType));
    test = (event) => types.has(event.eventType);
    taskTypes.set(chain, test);
  }
  return test;
}

/** The user's events of this batch that count toward the chain; none when no task waits for their types (the common case, with nothing allocated). */
function countingEvents(user: MatchUser, chain: MatchingChain, mine: readonly StoredEvent[] | undefined): readonly StoredEvent[] {
  if (mine === undefined || !mine.some(hasTaskTypeOf(chain))) return [];
  return mine.filter(countingFilter(user, scopeOf(chain)));
}

/**
 * Applies the batch's new events to each affected walk where they all come
 * after its mark (O(tasks) per event), or where its late ones only add to
 * open tallies of a walk kept with `processedOnly` (`absorbed` counts them);
 * everything else (a late event, a user to re-evaluate, a walk without a
 * mark) is returned for a full recompute.
 */
export function advanceWalks(
  view: BatchView,
  eventsByUser: ReadonlyMap<ServiceUserId, readonly StoredEvent[]>,
  evaluateIds: ReadonlySet<ServiceUserId>,
): { advanced: Map<string, WalkState>; recompute: WalkToRecompute[]; absorbed: number } {
  const advanced = new Map<string, WalkState>();
  const recompute: WalkToRecompute[] = [];
  let absorbed = 0;
  for (const user of view.users.values()) {
    for (const chain of view.chainsByPlatform.get(user.platformId) ?? []) {
      if (evaluateIds.has(user.id)) {
        recompute.push({ userId: user.id, chain, runStartUs: chain.rules.recurrence ? null : ONLY_RUN });
        continue;
      }
      const counting = countingEvents(user, chain, eventsByUser.get(user.id));
      if (counting.length === 0) continue;
      // One walk per run the events fall in (a chain that does not repeat has one).
      for (const [runStartUs, events] of eventsByRun(chain.rules, counting)) {
        const key = walkKey(user.id, chain.chain.id, runStartUs);
        const rules = runRules(chain.rules, runStartUs)!;
        const state = storedState(view.walks.get(key));
        const absorbLate = view.processedOnly?.get(user.id)?.has(key) === true;
        const result: WalkAdvance = state === null ? { recompute: true } : advanceWalk(rules, state, events, { absorbLate });
        if (!('recompute' in result)) {
          advanced.set(key, result.state);
          absorbed += result.absorbed ?? 0;
        } else if (state !== null && result.from !== undefined)
          recompute.push({
            userId: user.id,
            chain,
            runStartUs,
            redo: { stored: state, window: redoWindow(rules, state, result.from) },
          });
        else recompute.push({ userId: user.id, chain, runStartUs });
      }
    }
  }
  return { advanced, recompute, absorbed };
}

/**
 * Which history the recomputes need: each walk's user in its chain, over the
 * span its walk redoes (the chain's window, or from the first late event up
 * to a complete walk's last completion), of the chain's types.
 */
export function historyNeeds(view: BatchView, walks: readonly WalkToRecompute[]): SpannedRead[] {
  return walks.map((walk) => {
    const { userId, chain, redo } = walk;
    const { startUs, endUs } = rulesOfWalk(walk);
    const window = redo?.window;
    const fromUs = window?.from && window.from.at.occurredUs > startUs ? window.from.at.occurredUs : startUs;
    // Positions at the until instant count (the bound is a position), so the span ends just after it.
    const untilUs = window?.until && window.until.occurredUs + 1n < endUs ? window.until.occurredUs + 1n : endUs;
    return {
      user: view.users.get(userId)!,
      chain: chain.chain,
      eventTypes: chain.rules.tasks.map((task) => task.eventType),
      span: { fromUs, untilUs },
    };
  });
}

/**
 * The §5 walk of each recompute over the user's stored events that count for that
 * chain: redone over its window when it has one, else in full. The history
 * (every recomputed user's events at once) is split by sender first, so each
 * walk filters only its own user's events: filtering the whole history per
 * walk made a batch cost walks × history, which with a large backlog (history
 * in the hundreds of thousands) held the event loop for minutes
 * (docs/performance.md). `unbounded`: walks whose window, closed at a complete
 * walk's last completion, did not end complete; they need their whole
 * history (a second load, without the window).
 */
export function recomputeWalks(
  view: BatchView,
  walks: readonly WalkToRecompute[],
  history: SourceHistory<StoredEvent>,
  claimHolds: ReadonlyMap<string, readonly Hold[]>,
): { states: Map<string, WalkState>; unbounded: WalkToRecompute[] } {
  const states = new Map<string, WalkState>();
  const unbounded: WalkToRecompute[] = [];
  for (const { userId, chain, runStartUs, redo } of walks) {
    const user = view.users.get(userId)!;
    const own = history.eventsOf(user, chain.chain);
    const counting = own.filter(countingFilter(user, scopeOf(chain)));
    const runStarts = runStartUs === null ? runsToWalk(view, userId, chain, counting, claimHolds) : [runStartUs];
    for (const runStart of runStarts) {
      const key = walkKey(userId, chain.chain.id, runStart);
      const rules = runRules(chain.rules, runStart);
      // A stored run the chain no longer has (its dates changed): nothing counts in it any more.
      if (rules === null) continue;
      const stored = view.walks.get(key);
      const holds = [...retainedHolds(stored, own), ...(claimHolds.get(key) ?? [])];
      const state =
        redo === undefined ? recomputeWalk(rules, counting, holds) : redoWalk(rules, redo.stored, redo.window, counting, holds);
      if (state === null) unbounded.push({ userId, chain, runStartUs: runStart });
      else states.set(key, state);
    }
  }
  return { states, unbounded };
}

/**
 * Every run of a repeating chain a re-evaluation walks again: those its
 * counting events fall in, and those with a stored walk or a claim (which
 * may now have nothing left in them).
 */
function runsToWalk(
  view: BatchView,
  userId: ServiceUserId,
  chain: MatchingChain,
  counting: readonly StoredEvent[],
  claimHolds: ReadonlyMap<string, readonly Hold[]>,
): bigint[] {
  const runStarts = new Set(eventsByRun(chain.rules, counting).keys());
  for (const key of [...view.walks.keys(), ...claimHolds.keys()]) {
    const [walkUser, chainId, runStart] = parseWalkKey(key);
    if (walkUser === userId && chainId === chain.chain.id) runStarts.add(runStart);
  }
  return [...runStarts];
}

/**
 * Stored completions whose event is no longer stored at all (retention
 * dropped its partition; a reversed event is still stored, flagged): they
 * stay where they are, since retention never takes a completion away.
 */
function retainedHolds(stored: StoredWalk | undefined, history: readonly StoredEvent[]): Hold[] {
  if (stored === undefined || stored.completions.size === 0) return [];
  const present = new Set(history.map((e) => e.id));
  const holds: Hold[] = [];
  for (const [taskId, c] of stored.completions) {
    if (!present.has(c.eventId)) holds.push({ taskId, at: { occurredUs: c.completedUs, id: c.eventId }, kind: 'retained' });
  }
  return holds;
}

/** A user whose walk would make their first completion in a chain with max_completions: they need a place first (docs/budgets.md). */
export interface AdmissionCandidate {
  userId: ServiceUserId;
  chainId: string;
  /** Their earliest completion in the new walk: places go to the earliest. */
  firstUs: bigint;
}

/** The walks that would start counting in a capped chain for a user with no completion stored there. */
export function admissionCandidates(
  view: BatchView,
  states: ReadonlyMap<string, WalkState>,
  chainsById: ReadonlyMap<string, MatchingChain>,
): AdmissionCandidate[] {
  const candidates = new Map<string, AdmissionCandidate>();
  let placed: Set<string> | undefined;
  for (const [key, state] of states) {
    if (state.completions.size === 0) continue;
    const [userId, chainId] = parseWalkKey(key);
    if (chainsById.get(chainId)!.chain.maxCompletions === null) continue;
    // A stored completion, in any run of the chain, means a place taken (and kept) before: a user is admitted once.
    placed ??= new Set([...view.walks.values()].filter((w) => w.completions.size > 0).map((w) => walkKey(w.userId, w.chainId)));
    const chainKey = walkKey(userId, chainId);
    if (placed.has(chainKey)) continue;
    let firstUs = candidates.get(chainKey)?.firstUs ?? null;
    for (const c of state.completions.values()) if (firstUs === null || c.completedUs < firstUs) firstUs = c.completedUs;
    candidates.set(chainKey, { userId, chainId, firstUs: firstUs! });
  }
  return [...candidates.values()];
}

/** Of the candidates for each chain, the first `granted` by earliest completion (then user id): those admitted. */
export function chooseAdmitted(
  candidates: readonly AdmissionCandidate[],
  granted: ReadonlyMap<string, number>,
): AdmissionCandidate[] {
  const byChain = groupBy(candidates, (c) => c.chainId);
  return [...byChain].flatMap(([chainId, waiting]) =>
    [...waiting]
      .sort((a, b) =>
        a.firstUs < b.firstUs ? -1 : a.firstUs > b.firstUs ? 1 : a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0,
      )
      .slice(0, granted.get(chainId) ?? 0),
  );
}

export interface BatchWrites {
  /** New, moved, and newly held or no longer held completions. */
  completions: CompletionWrite[];
  /** Completions undone (a reversal): nothing completes their tasks any more. */
  undone: { userId: ServiceUserId; chainId: string; runStartUs: bigint; taskId: string; eventId: string }[];
  /** Rows for chain_progress; `changedUs` is filled in once the users are stamped (`takesStamp` rows). */
  progress: ChainProgressWrite[];
  /** Claims whose completion stopped (or started again) standing on counting events. */
  standings: ClaimStanding[];
  /** Runs whose completion was undone: their walk keys. */
  chainsUndone: Set<string>;
  /** user id -> chains whose completions changed */
  changedChains: Map<ServiceUserId, string[]>;
  /** §19: users whose completions changed in a run complete now or before (a mark or tally moving alone scores nothing). */
  scoresMoved: Set<ServiceUserId>;
}

/**
 * The walk's tallies as stored: null when it keeps none (a chain without
 * counted, summed or streak tasks). In the walk's order: jsonb keeps keys in
 * its own, and tallies are compared task by task (sameTallies).
 */
const storedTallies = (state: WalkState): StoredTallies | null =>
  state.tallies === undefined || state.tallies.size === 0 ? null : Object.fromEntries(state.tallies);

/** Two tallies alike, field by field. */
const sameTally = (a: Tally, b: Tally) =>
  a.count === b.count && a.totalMicros === b.totalMicros && a.streak === b.streak && a.lastPeriod === b.lastPeriod;

/**
 * The walk's tallies equal the stored ones, field by field: jsonb keeps a
 * tally's keys in an order of its own, so comparing text would see a change
 * where there is none (and building the text for every walk of a batch
 * showed in the worker's profile).
 */
function sameTallies(stored: StoredTallies | null, state: WalkState): boolean {
  const tallies = state.tallies;
  if (tallies === undefined || tallies.size === 0) return stored === null;
  if (stored === null || Object.keys(stored).length !== tallies.size) return false;
  for (const [taskId, tally] of tallies) {
    if (!Object.hasOwn(stored, taskId) || !sameTally(stored[taskId]!, tally)) return false;
  }
  return true;
}

const sameMark = (a: WalkState['mark'], b: WalkState['mark']) =>
  a === null ? b === null : b !== null && a.id === b.id && a.occurredUs === b.occurredUs;

/**
 * The rows that differ from what is stored. A walk whose completions and mark
 * are unchanged writes nothing. A completion undone, by being taken away or
 * by now standing only on its claim (held), moves the walk to its next
 * generation, which names the webhook facts of what follows (core/webhooks/batch-facts.ts).
 */
export function diffWalks(
  view: BatchView,
  states: ReadonlyMap<string, WalkState>,
  chainsById: ReadonlyMap<string, MatchingChain>,
): BatchWrites {
  const writes: BatchWrites = {
    completions: [],
    undone: [],
    progress: [],
    standings: [],
    chainsUndone: new Set(),
    changedChains: new Map(),
    scoresMoved: new Set(),
  };
  for (const [key, state] of states) {
    const [userId, chainId, runStartUs] = parseWalkKey(key);
    const definition = chainsById.get(chainId)!;
    const stored = view.walks.get(key);
    let changed = false;
    let undone = false;
    for (const completion of state.completions.values()) {
      const before = stored?.completions.get(completion.taskId);
      const held = completion.held === true;
      if (before?.eventId === completion.eventId && before.held === held) continue;
      const { taskId, eventId, completedUs } = completion;
      // Only for a completion written (most walks write none): a run of a repeating chain is joined at its start, another chain at the chain's.
      const joined = joinedUs(
        view.users.get(userId)!.registeredUs,
        runStartUs === ONLY_RUN ? definition.rules.startUs : runStartUs,
      );
      writes.completions.push({
        userId,
        chainId,
        runStartUs,
        taskId,
        eventId,
        completedUs,
        sinceJoinedUs: completedUs - joined,
        held,
      });
      if ((before?.held ?? false) !== held)
        writes.standings.push({ userId, chainId, runStartUs, taskId: completion.taskId, reversed: held });
      if (held && before?.held !== true) undone = true;
      changed = true;
    }
    for (const [taskId, before] of stored?.completions ?? []) {
      if (state.completions.has(taskId)) continue;
      writes.undone.push({ userId, chainId, runStartUs, taskId, eventId: before.eventId });
      undone = true;
      changed = true;
    }
    // A tally that grew is progress the user sees (docs/quest-language.md), as a completion is.
    if (!sameTallies(stored?.tallies ?? null, state)) changed = true;
    if (!changed && stored !== undefined && sameMark(stored.mark, state.mark)) continue;
    if (!changed && stored === undefined && state.mark === null) continue;
    const total = definition.tasks.length;
    const completed = state.completions.size;
    const wasComplete = stored !== undefined && isChainCompleted(total, stored.completions.size);
    const isComplete = isChainCompleted(total, completed);
    // A chain reward's claim stands while the chain is completed. Only a walk
    // undone before (generation > 0) can have a claim marked reversed to clear.
    if (wasComplete && !isComplete) {
      writes.standings.push({ userId, chainId, runStartUs, taskId: null, reversed: true });
      writes.chainsUndone.add(key);
      undone = true;
    }
    if (!wasComplete && isComplete && (stored?.generation ?? 0) > 0)
      writes.standings.push({ userId, chainId, runStartUs, taskId: null, reversed: false });
    if (changed && (wasComplete || isComplete)) writes.scoresMoved.add(userId);
    if (changed) {
      const chains = writes.changedChains.get(userId);
      if (chains) {
        if (!chains.includes(chainId)) chains.push(chainId);
      } else writes.changedChains.set(userId, [chainId]);
    }
    let first: bigint | null = null;
    let latest: bigint | null = null;
    for (const c of state.completions.values()) {
      if (first === null || c.completedUs < first) first = c.completedUs;
      if (latest === null || c.completedUs > latest) latest = c.completedUs;
    }
    writes.progress.push({
      userId,
      chainId,
      runStartUs,
      completedTasks: completed,
      totalTasks: total,
      completedUs: isComplete ? latest : null,
      firstCompletedUs: first,
      mark: state.mark,
      takesStamp: false,
      changedUs: null,
      generation: (stored?.generation ?? 0) + (undone ? 1 : 0),
      tallies: storedTallies(state),
    });
  }
  // Known once every walk is diffed: a chain changed in any of its runs stamps each of its rows.
  for (const row of writes.progress) row.takesStamp = writes.changedChains.get(row.userId)?.includes(row.chainId) ?? false;
  return writes;
}
