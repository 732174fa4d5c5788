/**
 * Fair matching between providers (docs/matching.md, "Fairness between
 * platforms"). BullMQ hands out jobs without a priority first, in arrival
 * order, then prioritized jobs, lowest number first. Each provider's match
 * jobs get a priority from how many events it enqueued lately: a quiet
 * provider's jobs carry none and overtake a busy provider's backlog; among
 * busy providers the busier waits longer (one level per doubling of volume).
 * Every job still runs: a level only orders jobs, it never drops one.
 */

export interface FairnessOptions {
  /** The recent-volume window. */
  windowMs: number;
  /** Events per window a provider may enqueue and still count as quiet (no priority). */
  quietEvents: number;
  now?: () => number;
}

/** Well inside BullMQ's limit (2^21); 2^32 times the quiet volume is more than any provider sends. */
export const MAX_FAIR_LEVEL = 32;

interface Volume {
  window: number;
  current: number;
  previous: number;
}

export function createFairPriority(options: FairnessOptions) {
  const now = options.now ?? Date.now;
  const volumes = new Map<string, Volume>();
  let sweptWindow = 0;

  /** Events in the sliding window: this window's, plus the part of the previous one it still overlaps. */
  function recent(volume: Volume, at: number): number {
    const window = Math.floor(at / options.windowMs);
    if (window !== volume.window) {
      volume.previous = window === volume.window + 1 ? volume.current : 0;
      volume.current = 0;
      volume.window = window;
    }
    const elapsed = (at % options.windowMs) / options.windowMs;
    return volume.current + volume.previous * (1 - elapsed);
  }

  // Providers idle for two windows are forgotten, so the map holds only the active ones.
  function sweep(window: number) {
    if (window === sweptWindow) return;
    sweptWindow = window;
    for (const [id, volume] of volumes) if (volume.window < window - 1) volumes.delete(id);
  }

  return {
    /** Counts `events` more for the provider and answers the priority its job gets (0: none). */
    take(providerId: string, events: number): number {
      const at = now();
      sweep(Math.floor(at / options.windowMs));
      let volume = volumes.get(providerId);
      if (!volume) {
        volume = { window: Math.floor(at / options.windowMs), current: 0, previous: 0 };
        volumes.set(providerId, volume);
      }
      const before = recent(volume, at);
      volume.current += events;
      const total = before + events;
      if (total <= options.quietEvents) return 0;
      return Math.min(MAX_FAIR_LEVEL, 1 + Math.floor(Math.log2(total / options.quietEvents)));
    },
    get tracked() {
      return volumes.size;
    },
  };
}
