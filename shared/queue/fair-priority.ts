/**
 * Fair matching between providers (docs/matching.md, "Fairness between
 * platforms"): start-time fair queuing on BullMQ priorities. Each match job
 * gets a tag, its provider's virtual start time in seconds: `max(now, the
 * provider's last finish)`, and the provider's finish moves on by the job's
 * cost, `events × windowMs / quietEvents` (a provider within its fair rate of
 * MATCH_FAIR_QUIET_EVENTS per MATCH_FAIR_WINDOW_MS never runs ahead of now).
 * BullMQ serves the lowest priority number first, in arrival order within a
 * number, so a quiet provider's job (tagged now) overtakes a busy provider's
 * backlog (tagged ahead), and of two busy providers the busier waits longer.
 *
 * A provider's tags never decrease, so its own jobs keep their order. That is
 * what makes matching cheap: the matcher advances a walk in O(tasks) only for
 * events after the walk's mark, and every event that overtakes a later one of
 * the same user costs a recompute of that user's history. An earlier design
 * (a priority level per doubling of recent volume) let a provider's level fall
 * and its newer jobs overtake its older ones; with a large backlog nearly
 * every batch became a recompute over a growing history, and the worker
 * stalled (docs/performance.md, "What each change bought").
 */

export interface FairnessOptions {
  /** With quietEvents: the fair rate, quietEvents per windowMs. */
  windowMs: number;
  quietEvents: number;
  /** How far ahead of now a provider's tags may run; past it they stop growing (and keep their order). */
  maxLeadMs?: number;
  now?: () => number;
}

/** BullMQ's largest priority is 2^21 - 1; tags are taken modulo that, in seconds (a wrap every 24 days). */
const PRIORITY_RANGE = 2 ** 21 - 1;
const DEFAULT_MAX_LEAD_MS = 3_600_000;

/** The BullMQ priority of a tag (epoch seconds): 1 and up; 0 would mean "no priority". */
export const priorityOfTag = (tagS: number): number => 1 + (Math.floor(tagS) % PRIORITY_RANGE);

export function createFairPriority(options: FairnessOptions) {
  const now = options.now ?? Date.now;
  const costS = options.windowMs / options.quietEvents / 1000;
  const maxLeadS = (options.maxLeadMs ?? DEFAULT_MAX_LEAD_MS) / 1000;
  /** provider id -> its virtual finish time (epoch seconds) */
  const finishes = new Map<string, number>();
  let sweptAtS = 0;

  // A provider whose finish has passed is in the state of one never seen: forget it.
  function sweep(nowS: number) {
    if (nowS - sweptAtS < 60) return;
    sweptAtS = nowS;
    for (const [id, finish] of finishes) if (finish <= nowS) finishes.delete(id);
  }

  /** Counts a job of `events` for the provider and answers its tag (epoch seconds, never below the provider's previous one). */
  function tag(providerId: string, events: number): number {
    const nowS = now() / 1000;
    sweep(nowS);
    const start = Math.max(nowS, finishes.get(providerId) ?? 0);
    if (start - nowS < maxLeadS) finishes.set(providerId, start + events * costS);
    return start;
  }

  return {
    tag,
    /** Counts a job of `events` for the provider and answers its BullMQ priority. */
    take: (providerId: string, events: number): number => priorityOfTag(tag(providerId, events)),
    get tracked() {
      return finishes.size;
    },
  };
}
