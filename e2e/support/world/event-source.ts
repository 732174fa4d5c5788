import type { SeededRandom } from '../../../shared/testing/random.js';
import { CURRENCIES, EVENT_TYPES } from './world-chains.js';
import { zipfSampler } from './zipf.js';

export interface WorldEvent {
  user_id: string;
  event_type: string;
  timestamp: string;
  amount?: number;
  currency?: string;
}

/** One request's worth of events, all of one platform's users. */
export interface Send {
  platformIndex: number;
  events: WorldEvent[];
  /** Sent to POST /v1/events/batch (else POST /v1/events with the one event). */
  batched: boolean;
}

export interface EventSourceOptions {
  zipfS: number;
  batchedShare: number;
  batchSize: number;
  resendShare: number;
  lateShare: number;
  lateMaxS: number;
}

const RECENT = 4096;

/** An ISO timestamp at `ms` plus `micros` (mod 1000) microseconds. */
export const isoMicros = (ms: number, micros: number) =>
  new Date(ms).toISOString().replace('Z', `${String(micros % 1000).padStart(3, '0')}Z`);

/**
 * The producers' traffic: each event's user drawn by Zipf over every user of
 * every platform (ranks shuffled, so hot users sit on both platforms), its
 * type by weight, an amount (to the cent: summed tasks add them exactly,
 * §16) and a currency most of the time, its timestamp now or (a share) up
 * to an hour late, written to the microsecond with a running sequence so that
 * two new events never share a deduplication key; a share of the events are
 * exact repeats of recent ones. Events gather per platform until a batch is
 * full; a share of them go alone. The late events are what spreads a user's
 * events over two days for the quest chains' streaks and daily runs: those
 * count days in a zone whose day began in the hour before the world was
 * seeded (world-chains.ts, zoneOfRecentMidnight).
 */
export function createEventSource(
  random: SeededRandom,
  users: readonly { platformIndex: number; platformUserId: string }[],
  options: EventSourceOptions,
) {
  const order = random.shuffle(users.map((_, index) => index));
  const drawRank = zipfSampler(users.length, options.zipfS, random.next);
  const totalWeight = EVENT_TYPES.reduce((sum, [, weight]) => sum + weight, 0);
  const platforms = 1 + Math.max(...users.map((u) => u.platformIndex));
  const pending: WorldEvent[][] = Array.from({ length: platforms }, () => []);
  const recent: { platformIndex: number; event: WorldEvent }[] = [];
  let sequence = 0;

  function drawType(): string {
    let target = random.next() * totalWeight;
    for (const [type, weight] of EVENT_TYPES) {
      target -= weight;
      if (target < 0) return type;
    }
    return EVENT_TYPES[0]![0];
  }

  function timestamp(nowMs: number): string {
    const late = random.chance(options.lateShare) ? random.int(1, options.lateMaxS * 1000) : 0;
    return isoMicros(nowMs - late, sequence++);
  }

  function nextEvent(nowMs: number): { platformIndex: number; event: WorldEvent } {
    if (recent.length > 0 && random.chance(options.resendShare)) return recent[random.int(0, recent.length - 1)]!;
    const user = users[order[drawRank()]!]!;
    const event: WorldEvent = { user_id: user.platformUserId, event_type: drawType(), timestamp: timestamp(nowMs) };
    if (random.chance(0.8)) event.amount = random.int(100, 50_000) / 100;
    if (random.chance(0.8)) event.currency = random.pick(CURRENCIES);
    const drawn = { platformIndex: user.platformIndex, event };
    if (recent.length < RECENT) recent.push(drawn);
    else recent[random.int(0, RECENT - 1)] = drawn;
    return drawn;
  }

  return {
    /** The `k` users the producers pick most, hottest first. */
    hottest: (k: number) => order.slice(0, k).map((index) => users[index]!),
    /** The next request to send, built at `nowMs`. */
    next(nowMs: number): Send {
      for (;;) {
        const { platformIndex, event } = nextEvent(nowMs);
        if (!random.chance(options.batchedShare)) return { platformIndex, events: [event], batched: false };
        const batch = pending[platformIndex]!;
        batch.push(event);
        if (batch.length >= options.batchSize) {
          pending[platformIndex] = [];
          return { platformIndex, events: batch, batched: true };
        }
      }
    },
  };
}
export type EventSource = ReturnType<typeof createEventSource>;
