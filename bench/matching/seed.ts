import type { Sql } from '../../shared/db/client.js';
import { toCreateChainInput } from '../../api/routes/admin/quest-chains/schema.js';
import { createChain } from '../../api/use-cases/quest-chains/create-chain.js';
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
    await createChain(ctx.database, toCreateChainInput({
      platform_id: platform.id,
      advertiser_id: advertiser.id,
      name: `${label} chain ${c}`,
      start_date: '2020-01-01T00:00:00Z',
      end_date: '2040-01-01T00:00:00Z',
      tasks: Array.from({ length: TASKS }, (_, t) => ({
        sequence_number: t + 1,
        name: `task ${t + 1}`,
        condition_event_type: `step-${t}`,
        reward_type: 'points',
        reward_name: '10 points',
        reward_value: 10,
      })),
    }));
  }
  const users = Array.from({ length: userCount }, (_, i) => `${label}-${i}`);
  await ctx.database.sql`
    insert into users (platform_id, platform_user_id, needs_evaluation)
    select ${platform.id}, id, false from jsonb_array_elements_text(${JSON.stringify(users)}::jsonb) as id`;
  return {
    platformId: platform.id,
    users,
    /** Stores events (types cycling through the first `types` tasks' types) and answers their ids in order. */
    store: (events: readonly BenchEvent[], types = TASKS) => storeEvents(ctx.database.sql, platform.id, events, types),
    /** Rows of pending_events of this tenant. */
    async pending(): Promise<number> {
      const [row] = await ctx.database.sql<{ left: number }[]>`select count(*)::int as left from pending_events where provider_id = ${platform.id}`;
      return row!.left;
    },
  };
}

export type MatchingTenant = Awaited<ReturnType<typeof matchingTenant>>;

/** `perUser` events for each user, interleaved across users, each user's in time order from `fromN` on. */
export function roundRobin(users: readonly string[], perUser: number, fromN = 0): BenchEvent[] {
  const events: BenchEvent[] = [];
  for (let n = fromN; n < fromN + perUser; n++) for (const userId of users) events.push({ userId, n });
  return events;
}

async function storeEvents(sql: Sql, providerId: string, events: readonly BenchEvent[], types: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < events.length; i += 5000) {
    const rows = events.slice(i, i + 5000).map((e) => ({ u: e.userId, t: `step-${e.n % types}`, s: e.n }));
    const inserted = await sql<{ id: string }[]>`
      with inserted as (
        insert into events (provider_id, user_id, event_type, occurred_at)
        select ${providerId}, r.u, r.t, '2021-01-01T00:00:00Z'::timestamptz + make_interval(secs => r.s)
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(u text, t text, s int)
        returning id, provider_id, received_at
      ), marked as (
        insert into pending_events (event_id, provider_id, received_at) select id, provider_id, received_at from inserted
      )
      select id from inserted`;
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}
