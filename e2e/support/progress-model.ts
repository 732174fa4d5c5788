import { and, eq } from 'drizzle-orm';
import { taskCompletions, users } from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../shared/domain/timestamp.js';
import { type ChainRules, computeCompletions } from '../../shared/domain/walk.js';
import { adminHeaders } from '../../shared/testing/admin-token.js';
import type { ApiClient } from '../../shared/testing/api-client.js';
import type { TestDatabase } from '../../shared/testing/database.js';
import { nothingPending } from '../../shared/testing/progress.js';
import type { SeededRandom } from '../../shared/testing/random.js';
import type { Stack } from '../harness/stack.js';
import { rulesOfWireChain, wireChainBody } from './wire-rules.js';

/** Chains spanning ordered, any-order, amount/currency conditions, task windows and a chain window. */
export const MODEL_CHAINS = [
  {
    name: 'ordered',
    allow_any_order: false,
    start_date: '2026-01-01T00:00:00Z',
    end_date: '2030-01-01T00:00:00Z',
    tasks: [
      { condition_event_type: 'signup' },
      { condition_event_type: 'deposit', condition_min_amount: 50, condition_currency: 'usd' },
      { condition_event_type: 'trade' },
    ],
  },
  {
    name: 'any-order',
    allow_any_order: true,
    start_date: '2026-01-01T00:00:00Z',
    end_date: '2030-01-01T00:00:00Z',
    tasks: [
      { condition_event_type: 'deposit' },
      { condition_event_type: 'trade' },
      { condition_event_type: 'trade', condition_min_amount: 10 },
      { condition_event_type: 'kyc' },
    ],
  },
  {
    name: 'windowed',
    allow_any_order: false,
    start_date: '2026-03-01T00:00:00Z',
    end_date: '2026-06-01T00:00:00Z',
    tasks: [
      {
        condition_event_type: 'trade',
        condition_after_timestamp: '2026-03-10T00:00:00Z',
        condition_before_timestamp: '2026-05-01T00:00:00Z',
      },
      { condition_event_type: 'deposit' },
    ],
  },
] as const;

/** The model chains created through the admin API (any ApiClient: the e2e stack, the chaos suite's client). */
export async function createModelChains(stack: ApiClient, platformId: string, advertiserId: string) {
  const created: { id: string; taskIds: string[]; rules: ChainRules }[] = [];
  for (const chain of MODEL_CHAINS) {
    const answer = await stack.call('POST', '/admin/v1/quest-chains', {
      headers: adminHeaders,
      body: wireChainBody(chain, platformId, advertiserId, 5),
    });
    if (answer.status !== 200) throw new Error(`chain create failed: ${JSON.stringify(answer.json)}`);
    const taskIds: string[] = answer.json.data.tasks.map((task: { id: string }) => task.id);
    created.push({
      id: answer.json.data.quest_chain?.id ?? answer.json.data.id,
      taskIds,
      rules: rulesOfWireChain(chain, taskIds),
    });
  }
  return created;
}

export interface GeneratedEvent {
  user_id: string;
  event_type: string;
  timestamp: string;
  amount?: number;
  currency?: string;
}

/** Random events over the chains' vocabulary, some outside every window, plus re-sent duplicates spelled differently. */
export function generateEvents(
  random: SeededRandom,
  userIds: string[],
  perUser: number,
): { unique: GeneratedEvent[]; sends: GeneratedEvent[] } {
  const unique: GeneratedEvent[] = [];
  for (const userId of userIds) {
    for (let i = 0; i < perUser; i++) {
      const seconds = random.int(0, 200 * 86_400);
      const at = new Date(Date.UTC(2026, 0, 15) + seconds * 1000).toISOString().replace('.000Z', 'Z');
      const event: GeneratedEvent = {
        user_id: userId,
        event_type: random.pick(['signup', 'deposit', 'trade', 'kyc', 'noise']),
        timestamp: at,
      };
      if (random.chance(0.7)) event.amount = random.int(0, 100);
      if (random.chance(0.7)) event.currency = random.pick(['usd', 'USD', 'Usd', 'eur']);
      unique.push(event);
    }
  }
  const duplicates = unique
    .filter(() => random.chance(0.25))
    .map((event) => ({ ...event, timestamp: event.timestamp.replace('Z', random.chance(0.5) ? '+00:00' : '.000Z') }));
  return { unique, sends: random.shuffle([...unique, ...duplicates]) };
}

export const eventKey = (event: GeneratedEvent) => `${event.user_id}|${event.event_type}|${parseUtcTimestamp(event.timestamp)}`;

/** Sends every event with `concurrency` parallel senders, mixing single calls and small batches; returns key → event id. */
export async function sendAll(stack: Stack, headers: Record<string, string>, sends: GeneratedEvent[], concurrency = 8) {
  const ids = new Map<string, string>();
  const record = (event: GeneratedEvent, id: string) => {
    const key = eventKey(event);
    const known = ids.get(key);
    if (known && known !== id) throw new Error(`two event ids for one dedup key ${key}`);
    ids.set(key, id);
  };
  const chunks: GeneratedEvent[][] = [];
  for (let i = 0; i < sends.length; ) {
    const size = i % 3 === 0 ? 7 : 1;
    chunks.push(sends.slice(i, i + size));
    i += size;
  }
  let next = 0;
  async function sender() {
    while (next < chunks.length) {
      const chunk = chunks[next++]!;
      if (chunk.length === 1) {
        const answer = await stack.call('POST', '/v1/events', { headers, body: chunk[0] });
        if (answer.status !== 200) throw new Error(`event rejected: ${JSON.stringify(answer.json)}`);
        record(chunk[0]!, answer.json.data.event_id);
      } else {
        const answer = await stack.call('POST', '/v1/events/batch', { headers, body: { events: chunk } });
        if (answer.status !== 200) throw new Error(`batch rejected: ${JSON.stringify(answer.json)}`);
        answer.json.data.results.forEach((result: { event_id: string; status: string }, index: number) => {
          if (result.status === 'rejected') throw new Error(`item rejected: ${JSON.stringify(result)}`);
          record(chunk[index]!, result.event_id);
        });
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, sender));
  return ids;
}

export async function storedCompletions(
  database: TestDatabase,
  platformUserId: string,
  chainId: string,
): Promise<Record<string, string>> {
  const rows = await database.db
    .select({ task_id: taskCompletions.taskId, event_id: taskCompletions.eventId })
    .from(taskCompletions)
    .innerJoin(users, eq(users.id, taskCompletions.userId))
    .where(and(eq(users.platformUserId, senderUserId(platformUserId)), eq(taskCompletions.chainId, chainId)));
  return Object.fromEntries(rows.map((row) => [row.task_id, row.event_id]));
}

/** True once nothing is pending: every event processed and no user waiting for re-evaluation. */
export const quiescent = (database: TestDatabase) => nothingPending(database.db);

/** A user's unique events as the pure model reads them, under the ids the API answered. */
const modelEventsOf = (unique: GeneratedEvent[], ids: Map<string, string>, userId: string) =>
  unique
    .filter((event) => event.user_id === userId)
    .map((event) => ({
      id: ids.get(eventKey(event))!,
      eventType: event.event_type,
      occurredUs: parseUtcTimestamp(event.timestamp)!,
      amount: event.amount ?? null,
      currency: event.currency ?? null,
    }));

/** What the pure model of §5 says those events complete in a chain: task id → event id. */
const modelCompletions = (rules: ChainRules, events: ReturnType<typeof modelEventsOf>): Record<string, string> =>
  Object.fromEntries([...computeCompletions(rules, events).values()].map((c) => [c.taskId, c.eventId]));

/**
 * Where the stored completions differ from the model (computeCompletions over each user's unique events):
 * one entry per user and chain that differs, empty when every one agrees.
 */
export async function modelMismatches(
  database: TestDatabase,
  chains: Awaited<ReturnType<typeof createModelChains>>,
  unique: GeneratedEvent[],
  ids: Map<string, string>,
  userIds: string[],
): Promise<{ user: string; chain: string; expected: Record<string, string>; stored: Record<string, string> }[]> {
  const mismatches = [];
  for (const userId of userIds) {
    const events = modelEventsOf(unique, ids, userId);
    for (const chain of chains) {
      const expected = modelCompletions(chain.rules, events);
      const stored = await storedCompletions(database, userId, chain.id);
      if (JSON.stringify(Object.entries(expected).sort()) !== JSON.stringify(Object.entries(stored).sort()))
        mismatches.push({ user: userId, chain: chain.id, expected, stored });
    }
  }
  return mismatches;
}

/** The event ids a worker's log line says its job's batch matched. */
export const matchedIn = (line: string): string[] =>
  line.includes('"event job done"') ? (JSON.parse(line) as { matched: string[] }).matched : [];
