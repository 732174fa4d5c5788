import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../shared/db/client.js';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { users } from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { createTestChain } from '../../shared/testing/chains.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import type { BenchContext } from '../harness/context.js';

/** The matching figures' chains: 5 ordered chains of 5 tasks; task k of each wants `step-k`. */
const CHAINS = 5;
const TASKS = 5;

export interface BenchEvent {
  userId: string;
  /** Position in the user's sequence: decides the time (one second apart) and, through `types`, the type. */
  n: number;
}

/**
 * A tenant of its own in the run's database (a platform, an advertiser, the
 * chains, `users` registered users already evaluated), so each figure counts
 * only its own events. Events are stored as ingest stores them (each with its
 * pending row), straight into Postgres: the figures are the matcher's, not the API's.
 */
export async function matchingTenant(ctx: BenchContext, label: string, userCount: number) {
  const platform = await createTestProvider(ctx.database.db, 'platform', { name: `bench ${label}` });
  const advertiser = await createTestProvider(ctx.database.db, 'advertiser', { name: `bench ${label}` });
  for (let c = 0; c < CHAINS; c++) {
    await createTestChain(ctx.database.db, platform.id, advertiser.id, {
      name: `${label} chain ${c}`,
      start: '2020-01-01T00:00:00Z',
      end: '2040-01-01T00:00:00Z',
      tasks: Array.from({ length: TASKS }, (_, t) => ({ event: `step-${t}` })),
      reward: false,
    });
  }
  const platformUserIds = Array.from({ length: userCount }, (_, i) => `${label}-${i}`);
  await ctx.database.db.insert(users).values(
    platformUserIds.map((platformUserId) => ({
      platformId: platform.id,
      platformUserId: senderUserId(platformUserId),
      needsEvaluation: false,
    })),
  );
  return {
    platformId: platform.id,
    users: platformUserIds,
    /** Stores events (types cycling through the first `types` tasks' types) and answers their ids in order. */
    store: (events: readonly BenchEvent[], types = TASKS) => storeEvents(ctx.database.db, platform.id, events, types),
    /** Users of this tenant still flagged for re-evaluation (a reversal flags them). */
    evaluating: (): Promise<number> =>
      ctx.database.db.$count(users, and(eq(users.platformId, platform.id), eq(users.needsEvaluation, true))),
  };
}

export type MatchingTenant = Awaited<ReturnType<typeof matchingTenant>>;

/** `perUser` events for each user, interleaved across users, each user's in time order from `fromN` on. */
export function roundRobin(users: readonly string[], perUser: number, fromN = 0): BenchEvent[] {
  const events: BenchEvent[] = [];
  for (let n = fromN; n < fromN + perUser; n++) for (const userId of users) events.push({ userId, n });
  return events;
}

const EPOCH_2021_US = BigInt(Date.UTC(2021, 0, 1)) * 1000n;

/** As ingest stores them (each event with its pending row), through the event store, 5,000 a statement. */
async function storeEvents(db: Executor, providerId: string, events: readonly BenchEvent[], types: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < events.length; i += 5000) {
    const stored = await insertOrFindEvents(
      db,
      events.slice(i, i + 5000).map((e) => ({
        providerId,
        userId: senderUserId(e.userId),
        eventType: `step-${e.n % types}`,
        occurredAt: EPOCH_2021_US + BigInt(e.n) * 1_000_000n,
      })),
    );
    ids.push(...stored.map((event) => event.id));
  }
  return ids;
}
