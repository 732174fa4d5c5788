import type { Executor } from '../../shared/db/client.js';
import {
  type ExplainedEvent,
  type HistorySource,
  loadHistory,
  loadHistoryWithPending,
  type StoredEvent,
} from '../../shared/db/event-store.js';
import {
  type ChainParties,
  historyBySource,
  type MatchUser,
  type SourceHistory,
  sourceKey,
  sourcesOf,
} from '../../shared/domain/sources.js';

// The one reading of users' counting histories: the matcher's recompute,
// explain and backtest all ask it, so whose events count for whom (§4) is
// resolved, read and split the same way for all three.

/** One user's history in one chain: the events of its §4 sources whose type is one of `eventTypes`. */
export interface HistoryRead {
  user: MatchUser;
  chain: ChainParties;
  eventTypes: readonly string[];
}

/** A history read over [fromUs, untilUs) only: a chain's dates, or the part of a walk a redo walks again. */
export type SpannedRead = HistoryRead & { span: { fromUs: bigint; untilUs: bigint } };

/**
 * Reads the histories of many (user, chain) at once, in one statement over
 * the sources of all of them (each source and type over the widest span
 * asked of that type), split by source: `eventsOf(user, chain)` and
 * `countingOf(user, chain)` answer each read: the matcher's over the events
 * processed and its batch's own (`claimedIds`, loadHistory), a backtest's
 * over every stored event (null). With
 * `withPending` (explain) the reads have no span: every event of theirs at
 * any time, each marked pending or not.
 */
export function loadCountingHistory(
  db: Executor,
  reads: readonly SpannedRead[],
  options: { claimedIds: readonly string[] | null },
): Promise<SourceHistory<StoredEvent>>;
export function loadCountingHistory(
  db: Executor,
  reads: readonly HistoryRead[],
  options: { withPending: true },
): Promise<SourceHistory<ExplainedEvent>>;
export async function loadCountingHistory(
  db: Executor,
  reads: readonly (HistoryRead | SpannedRead)[],
  options: { withPending: true } | { claimedIds: readonly string[] | null },
): Promise<SourceHistory<StoredEvent> | SourceHistory<ExplainedEvent>> {
  const eventTypes = [...new Set(reads.flatMap((read) => read.eventTypes))];
  if ('withPending' in options) return historyBySource(await loadHistoryWithPending(db, sourcesOfReads(reads), eventTypes));
  const { sources, window } = spannedSources(reads as readonly SpannedRead[]);
  return historyBySource(window === null ? [] : await loadHistory(db, sources, eventTypes, window, options.claimedIds));
}

/** Each source of the reads once. */
function sourcesOfReads(reads: readonly HistoryRead[]): HistorySource[] {
  const sources = new Map<string, HistorySource>();
  for (const { user, chain } of reads)
    for (const { providerId, userId } of sourcesOf(user, chain))
      sources.set(sourceKey({ providerId, userId }), { providerId, userId });
  return [...sources.values()];
}

type SpannedSource = HistorySource & { fromUs: bigint; untilUs: bigint };

/**
 * Each source and type once, with the union of the spans asked of that type
 * (a streak's run-long redo and a counted task's short one of the same
 * sender read their own types over their own spans), and the joint window
 * (for partition pruning; null: nothing to read).
 */
function spannedSources(reads: readonly SpannedRead[]) {
  // By source, then type.
  const sources = new Map<string, Map<string, SpannedSource>>();
  let joint: { fromUs: bigint; untilUs: bigint } | null = null;
  for (const { user, chain, eventTypes, span } of reads) {
    const { fromUs, untilUs } = span;
    for (const { providerId, userId } of sourcesOf(user, chain)) {
      const key = sourceKey({ providerId, userId });
      const byType = sources.get(key) ?? new Map<string, SpannedSource>();
      sources.set(key, byType);
      for (const eventType of eventTypes) {
        const known = byType.get(eventType);
        byType.set(eventType, {
          providerId,
          userId,
          eventType,
          fromUs: known && known.fromUs < fromUs ? known.fromUs : fromUs,
          untilUs: known && known.untilUs > untilUs ? known.untilUs : untilUs,
        });
      }
    }
    joint =
      joint === null
        ? { fromUs, untilUs }
        : { fromUs: fromUs < joint.fromUs ? fromUs : joint.fromUs, untilUs: untilUs > joint.untilUs ? untilUs : joint.untilUs };
  }
  return { sources: [...sources.values()].flatMap((byType) => [...byType.values()]), window: joint };
}
