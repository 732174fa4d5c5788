import type { ApiAnswer, ApiClient } from '../../../shared/testing/api-client.js';
import type { SeededRandom } from '../../../shared/testing/random.js';
import type { EventBody, History } from './history.js';
import type { Tenant } from './world.js';

/** One request's outcome, for latency and status figures. */
export interface Sample {
  at: number;
  ms: number;
  status: number;
  events: number;
}

export interface LoadShape {
  /** Events per second the driver aims at (open loop: it does not slow down when the API does). */
  ratePerSecond: number;
  /** Events per batch call; the rest of the traffic is single calls. */
  batchSize: number;
  /** Share of events sent in batches (0..1). */
  batchShare: number;
  /** Requests in flight at most; events due past it wait (and are counted as `deferred`). */
  maxInFlight?: number;
  /** Share of sends that re-send an already acknowledged event, spelled differently (must answer `duplicate`, same id). */
  resendShare?: number;
}

const TYPES = ['signup', 'deposit', 'trade', 'kyc', 'noise'];
const CURRENCIES = ['usd', 'USD', 'Usd', 'eur'];
const BASE_MS = Date.UTC(2026, 0, 15);
let sequence = 0;

const IN_ORDER_BASE_MS = Date.UTC(2026, 6, 1);
let inOrderMs = 0;

/**
 * New events over the model chains' vocabulary for one tenant, in and out of
 * the chains' windows and out of order. Every event gets its own microsecond
 * fraction, so two new events never share a dedup key by chance.
 *
 * `inOrder`: timestamps rising one millisecond per event instead, as a live
 * integration sends them. Random timestamps make almost every event late for
 * its user, and a late event replays the user's history (docs/matching.md), so
 * matching costs grow with each user's history: right for the faults (the
 * model check wants replays), wrong for throughput and memory over minutes.
 */
export function newEvent(random: SeededRandom, tenant: Tenant, options: { inOrder?: boolean } = {}): EventBody {
  sequence = (sequence + 1) % 1_000_000;
  const user = random.chance(0.95) ? random.pick(tenant.users) : random.pick(tenant.strangers);
  const at = options.inOrder
    ? new Date(IN_ORDER_BASE_MS + inOrderMs++).toISOString()
    : new Date(BASE_MS + random.int(0, 200 * 86_400) * 1000)
        .toISOString()
        .replace('.000Z', `.${String(sequence).padStart(6, '0')}Z`);
  const event: EventBody = { user_id: user, event_type: random.pick(TYPES), timestamp: at };
  if (random.chance(0.7)) event.amount = random.int(0, 100);
  if (random.chance(0.7)) event.currency = random.pick(CURRENCIES);
  return event;
}

/** The same event (same dedup key), its timestamp spelled with an offset instead of Z. */
const respelled = (body: EventBody): EventBody => ({ ...body, timestamp: body.timestamp.replace('Z', '+00:00') });

/** Sends events as one call (single or batch) and records every item's outcome in the history. */
export async function sendEvents(
  client: ApiClient,
  history: History,
  tenant: Tenant,
  bodies: EventBody[],
  samples?: Sample[],
): Promise<ApiAnswer> {
  const now = Date.now();
  const entries = bodies.map((body) => history.add(tenant.id, body, now));
  const single = bodies.length === 1;
  const answer = single
    ? await client.call('POST', '/v1/events', { headers: tenant.headers, body: bodies[0] })
    : await client.call('POST', '/v1/events/batch', { headers: tenant.headers, body: { events: bodies } });
  samples?.push({ at: now, ms: answer.ms, status: answer.status, events: bodies.length });
  const answeredAt = Date.now();
  if (answer.status !== 200) {
    for (const entry of entries) entry.unacked += 1;
    return answer;
  }
  const results: { event_id?: string; status: string; error?: string }[] = single ? [answer.json.data] : answer.json.data.results;
  results.forEach((result, index) => {
    const entry = entries[index]!;
    if (result.status === 'rejected' || !result.event_id) {
      entry.rejected.push(JSON.stringify(result));
      return;
    }
    entry.ids.add(result.event_id);
    history.markAcked(entry, answeredAt);
  });
  return answer;
}

/**
 * Drives one tenant's events at a steady rate until `stop()`; every answer
 * lands in `history` and `samples`. Open loop within `maxInFlight`: a slow or
 * absent API does not lower the offered rate, it only defers events.
 */
export function driveEvents(client: ApiClient, history: History, tenant: Tenant, random: SeededRandom, shape: LoadShape) {
  const samples: Sample[] = [];
  const maxInFlight = shape.maxInFlight ?? 32;
  let inFlight = 0;
  let due = 0;
  let deferred = 0;
  let stopped = false;
  const started = performance.now();
  let offered = 0;
  const pending = new Set<Promise<unknown>>();

  const launch = (bodies: EventBody[]) => {
    inFlight += 1;
    const sending = sendEvents(client, history, tenant, bodies, samples).finally(() => {
      inFlight -= 1;
      pending.delete(sending);
    });
    pending.add(sending);
  };

  const nextBodies = (count: number) =>
    Array.from({ length: count }, () => {
      const old =
        shape.resendShare && random.chance(shape.resendShare) ? history.randomAcked(tenant.id, random.next()) : undefined;
      return old ? respelled(old.body) : newEvent(random, tenant);
    });

  const timer = setInterval(() => {
    const target = Math.floor(((performance.now() - started) / 1000) * shape.ratePerSecond);
    due += target - offered;
    offered = target;
    while (due > 0 && inFlight < maxInFlight && !stopped) {
      const batch = random.chance(shape.batchShare) ? Math.min(shape.batchSize, Math.max(due, 1)) : 1;
      launch(nextBodies(batch));
      due -= batch;
    }
    if (due > 0) deferred += due;
    // Events that could not go out now are dropped from the schedule (counted), not piled up for a burst later.
    due = 0;
  }, 20);

  return {
    samples,
    get deferred() {
      return deferred;
    },
    /** Stops sending new events and waits for the calls in flight. */
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.allSettled([...pending]);
    },
  };
}

/**
 * What a careful client does after an outage: re-sends every event that got
 * no 200 (in batches), up to `rounds` times, so an event is left
 * indeterminate only if the API never answered it at all.
 */
export async function retryUnacknowledged(client: ApiClient, history: History, tenants: Tenant[], rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    const left = history.unacknowledged().filter((event) => event.rejected.length === 0);
    if (left.length === 0) return;
    for (const tenant of tenants) {
      const mine = left.filter((event) => event.providerId === tenant.id).map((event) => event.body);
      for (let i = 0; i < mine.length; i += 100) await sendEvents(client, history, tenant, mine.slice(i, i + 100));
    }
  }
}
