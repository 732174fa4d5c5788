import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../../shared/db/client.js';
import { chainProgress, events, taskCompletions, users } from '../../../shared/db/schema/index.js';
import type { CountingEvent } from '../../../shared/domain/conditions.js';
import { modelWalks } from '../../support/model-walks.js';
import type { History } from './history.js';
import type { Tenant } from './world.js';

export interface Verdict {
  /** Events the API answered 200 for (received or duplicate). */
  acknowledged: number;
  /** Acknowledged events missing from the store, plus completions the model has and the store lacks. */
  lost: number;
  /** Events stored twice or answered with two ids, plus completions or progress counts the model does not have. */
  double: number;
  /** Events never acknowledged (the client cannot know), and how many of them were stored anyway (at most once each). */
  indeterminate: number;
  indeterminateStored: number;
  /** What went wrong, one line per kind, with a few examples. */
  problems: string[];
}

/**
 * The Jepsen-style check, after the service has drained: every acknowledged
 * event is stored exactly once under the id it was answered with; an event
 * never acknowledged is stored at most once; nothing is stored that was
 * never sent; and, per registered user, chain and run (§16), the stored
 * completions and the progress row's count equal the pure model (modelWalks
 * over the user's stored events, the same §5 walk the property tests check
 * the matcher against).
 */
export async function checkHistory(db: Database, history: History, tenants: Tenant[]): Promise<Verdict> {
  const problems = new Problems();
  const providerIds = tenants.map((tenant) => tenant.id);
  const stored = await db
    .select({
      id: events.id,
      providerId: events.providerId,
      userId: events.userId,
      eventType: events.eventType,
      occurredAt: events.occurredAt,
      amount: events.amount,
      currency: events.currency,
    })
    .from(events)
    .where(inArray(events.providerId, providerIds));
  const byKey = new Map<string, typeof stored>();
  for (const row of stored) {
    const key = `${row.providerId}|${row.userId}|${row.eventType}|${row.occurredAt}`;
    const rows = byKey.get(key);
    if (rows) rows.push(row);
    else byKey.set(key, [row]);
  }

  let lost = 0;
  let double = 0;
  let acknowledged = 0;
  let indeterminate = 0;
  let indeterminateStored = 0;
  for (const sent of history.events.values()) {
    const rows = byKey.get(sent.key) ?? [];
    if (sent.rejected.length > 0) problems.add('valid event answered rejected', sent.rejected[0]!);
    if (rows.length > 1) {
      double += rows.length - 1;
      problems.add('event stored more than once', sent.key);
    }
    if (sent.ids.size > 1) {
      double += 1;
      problems.add('one event answered with two ids', `${sent.key}: ${[...sent.ids].join(', ')}`);
    }
    if (sent.ackedAt === undefined) {
      indeterminate += 1;
      if (rows.length > 0) indeterminateStored += 1;
      continue;
    }
    acknowledged += 1;
    if (rows.length === 0) {
      lost += 1;
      problems.add('acknowledged event not stored', sent.key);
    } else if (![...sent.ids].every((id) => rows.some((row) => row.id === id))) {
      double += 1;
      problems.add('answered id is not the stored event', sent.key);
    }
  }
  for (const [key] of byKey) if (!history.events.has(key)) problems.add('stored event nobody sent', key);

  const model = await compareWithModel(db, tenants, stored);
  lost += model.missing;
  double += model.extra;
  for (const [kind, example] of model.problems) problems.add(kind, example);
  return { acknowledged, lost, double, indeterminate, indeterminateStored, problems: problems.lines() };
}

type StoredEventRow = {
  id: string;
  providerId: string;
  userId: string;
  eventType: string;
  occurredAt: bigint;
  amount: number | null;
  currency: string | null;
};

async function compareWithModel(db: Database, tenants: Tenant[], stored: StoredEventRow[]) {
  const problems: [string, string][] = [];
  let missing = 0;
  let extra = 0;
  const platformIds = tenants.map((tenant) => tenant.id);
  const userRows = await db
    .select({ id: users.id, platformId: users.platformId, platformUserId: users.platformUserId })
    .from(users)
    .where(inArray(users.platformId, platformIds));
  // Joined rather than listed by id: a world's users would pass the statement's parameter limit.
  const completionRows = await db
    .select({
      userId: taskCompletions.userId,
      chainId: taskCompletions.chainId,
      taskId: taskCompletions.taskId,
      eventId: taskCompletions.eventId,
      runStartUs: taskCompletions.runStartUs,
    })
    .from(taskCompletions)
    .innerJoin(users, eq(users.id, taskCompletions.userId))
    .where(inArray(users.platformId, platformIds));
  const progressRows = await db
    .select({
      userId: chainProgress.userId,
      chainId: chainProgress.chainId,
      runStartUs: chainProgress.runStartUs,
      completedTasks: chainProgress.completedTasks,
    })
    .from(chainProgress)
    .innerJoin(users, eq(users.id, chainProgress.userId))
    .where(inArray(users.platformId, platformIds));

  const eventsOf = groupBy(
    stored,
    (row) => `${row.providerId}|${row.userId}`,
    (row): CountingEvent => ({
      id: row.id,
      eventType: row.eventType,
      occurredUs: row.occurredAt,
      amount: row.amount,
      currency: row.currency,
    }),
  );
  // Indexed by user, chain and run: the world's tens of thousands of users make a scan per pair quadratic.
  const completionsOf = groupBy(
    completionRows,
    (row) => `${row.userId}|${row.chainId}|${row.runStartUs}`,
    (row) => row,
  );
  const runsOf = groupBy(
    [...completionRows, ...progressRows],
    (row) => `${row.userId}|${row.chainId}`,
    (row) => row.runStartUs,
  );
  const progressOf = new Map(progressRows.map((row) => [`${row.userId}|${row.chainId}|${row.runStartUs}`, row]));
  const tenantOf = new Map(tenants.map((tenant) => [tenant.id, tenant]));
  for (const user of userRows) {
    const tenant = tenantOf.get(user.platformId)!;
    const mine = eventsOf.get(`${user.platformId}|${user.platformUserId}`) ?? [];
    for (const chain of tenant.chains) {
      const model = modelWalks(chain.rules, mine);
      const periods = new Set([...model.keys(), ...(runsOf.get(`${user.id}|${chain.id}`) ?? [])]);
      for (const period of periods) {
        const where = `${user.platformUserId}${period === 0n ? '' : ` run ${period}`}`;
        const expected = model.get(period)?.completions ?? new Map();
        const actual = completionsOf.get(`${user.id}|${chain.id}|${period}`) ?? [];
        for (const completion of expected.values()) {
          const found = actual.find((row) => row.taskId === completion.taskId);
          if (!found) {
            missing += 1;
            problems.push(['completion in the model, not stored', `${where} task ${completion.taskId}`]);
          } else if (found.eventId !== completion.eventId) {
            extra += 1;
            problems.push(['completion credited to another event than the model', `${where} task ${completion.taskId}`]);
          }
        }
        for (const row of actual) {
          if (!expected.has(row.taskId)) {
            extra += 1;
            problems.push(['completion stored, not in the model', `${where} task ${row.taskId}`]);
          }
        }
        const counted = progressOf.get(`${user.id}|${chain.id}|${period}`)?.completedTasks ?? 0;
        if (counted > actual.length) {
          extra += counted - actual.length;
          problems.push([
            'progress counts more tasks than are completed',
            `${where} chain ${chain.id}: ${counted} vs ${actual.length}`,
          ]);
        } else if (counted < actual.length) {
          missing += actual.length - counted;
          problems.push([
            'progress counts fewer tasks than are completed',
            `${where} chain ${chain.id}: ${counted} vs ${actual.length}`,
          ]);
        }
      }
    }
  }
  return { missing, extra, problems };
}

function groupBy<Row, Value>(rows: readonly Row[], keyOf: (row: Row) => string, entryOf: (row: Row) => Value) {
  const groups = new Map<string, Value[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = groups.get(key);
    if (list) list.push(entryOf(row));
    else groups.set(key, [entryOf(row)]);
  }
  return groups;
}

/** Problems grouped by kind: a count and the first few examples each. */
class Problems {
  private readonly kinds = new Map<string, { count: number; examples: string[] }>();

  add(kind: string, example: string) {
    const entry = this.kinds.get(kind) ?? { count: 0, examples: [] };
    entry.count += 1;
    if (entry.examples.length < 3) entry.examples.push(example);
    this.kinds.set(kind, entry);
  }

  lines(): string[] {
    return [...this.kinds].map(([kind, { count, examples }]) => `${kind}: ${count} (e.g. ${examples.join('; ')})`);
  }
}
