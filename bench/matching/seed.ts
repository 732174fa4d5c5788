import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../shared/db/client.js';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { users } from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { type ChainSpec, createTestChain, type TaskSpec } from '../../shared/testing/chains.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import type { BenchContext } from '../harness/context.js';

/** The matching figures' chains: 5 ordered chains of 5 tasks; task k of each wants `step-k`. */
const CHAINS = 5;
const TASKS = 5;

const plainChain = (): ChainSpec => ({ tasks: Array.from({ length: TASKS }, (_, t) => ({ event: `step-${t}` })) });

/**
 * The same 5 × 5 in the quest language (docs/quest-language.md), task k of
 * each still on `step-k`: counted tasks (2 events each), summed tasks (30 of
 * the events' 10 USD each), a chain of two-day streaks, a chain that repeats
 * daily, and one of each kind of task. Their events are an hour apart, so
 * streaks and daily runs complete within a user's 200.
 */
const questLanguageChain = (c: number): ChainSpec => {
  const task = (t: number) => `step-${t}`;
  const counted = (t: number): TaskSpec => ({ event: task(t), min_count: 2 });
  const summed = (t: number): TaskSpec => ({ event: task(t), currency: 'USD', min_total: 30 });
  const streak = (t: number): TaskSpec => ({ event: task(t), streak: { periods: 2, every: 'day' } });
  const each = (make: (t: number) => TaskSpec) => Array.from({ length: TASKS }, (_, t) => make(t));
  switch (c % CHAINS) {
    case 0:
      return { tasks: each(counted) };
    case 1:
      return { tasks: each(summed) };
    case 2:
      return { tasks: each(streak) };
    case 3:
      return { recurrence: { every: 'day', timezone: 'UTC' }, tasks: each((t) => ({ event: task(t) })) };
    default:
      return { tasks: [counted(0), summed(1), streak(2), { event: task(3) }, { event: task(4) }] };
  }
};

/** How a tenant's chains speak: plain tasks (one event each), or the quest language; its events' spacing and amounts follow. */
export type ChainLanguage = 'plain' | 'quest';

const EVENTS_APART_US: Record<ChainLanguage, bigint> = { plain: 1_000_000n, quest: 3_600_000_000n };

export interface BenchEvent {
  userId: string;
  /** Position in the user's sequence: decides the time (a second apart, an hour in the quest language) and, through `types`, the type. */
  n: number;
}

/**
 * A tenant of its own in the run's database (a platform, an advertiser, the
 * chains, `users` registered users already evaluated), so each figure counts
 * only its own events. Events are stored as ingest stores them (each with its
 * pending row), straight into Postgres: the figures are the matcher's, not the API's.
 */
export async function matchingTenant(ctx: BenchContext, label: string, userCount: number, language: ChainLanguage = 'plain') {
  const platform = await createTestProvider(ctx.database.db, 'platform', { name: `bench ${label}` });
  const advertiser = await createTestProvider(ctx.database.db, 'advertiser', { name: `bench ${label}` });
  for (let c = 0; c < CHAINS; c++) {
    await createTestChain(ctx.database.db, platform.id, advertiser.id, {
      ...(language === 'quest' ? questLanguageChain(c) : plainChain()),
      name: `${label} chain ${c}`,
      start: '2020-01-01T00:00:00Z',
      end: '2040-01-01T00:00:00Z',
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
  // Who sent each stored event, kept from the store: a drain routes its jobs by it.
  const senders = new Map<string, string>();
  return {
    platformId: platform.id,
    users: platformUserIds,
    language,
    /** Stores events (types cycling through the first `types` tasks' types) and answers their ids in order. */
    store: async (events: readonly BenchEvent[], types = TASKS) => {
      const ids = await storeEvents(ctx.database.db, platform.id, events, types, language);
      for (const [i, id] of ids.entries()) senders.set(id, events[i]!.userId);
      return ids;
    },
    /** The platform user id of an event this tenant stored. */
    senderOf: (eventId: string): string => {
      const sender = senders.get(eventId);
      if (sender === undefined) throw new Error(`event ${eventId} was not stored by this tenant`);
      return sender;
    },
    /** Task completions and completed runs of chains stored for this tenant's users (what a drain achieved). */
    completions: async (): Promise<{ tasks: number; runs: number }> => {
      const [row] = await ctx.database.db.execute<{ tasks: number; runs: number }>(sql`
        select
          (select count(*) from task_completions t join quest_chains c on c.id = t.chain_id where c.platform_id = ${platform.id})::int as tasks,
          (select count(*) from chain_progress p join quest_chains c on c.id = p.chain_id
            where c.platform_id = ${platform.id} and p.completed_at is not null)::int as runs`);
      return row ?? { tasks: 0, runs: 0 };
    },
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
async function storeEvents(
  db: Executor,
  providerId: string,
  events: readonly BenchEvent[],
  types: number,
  language: ChainLanguage,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < events.length; i += 5000) {
    const stored = await insertOrFindEvents(
      db,
      events.slice(i, i + 5000).map((e) => ({
        providerId,
        userId: senderUserId(e.userId),
        eventType: `step-${e.n % types}`,
        occurredAt: EPOCH_2021_US + BigInt(e.n) * EVENTS_APART_US[language],
        ...(language === 'quest' ? { amount: 10, currency: 'USD' } : {}),
      })),
    );
    ids.push(...stored.map((event) => event.id));
  }
  return ids;
}
