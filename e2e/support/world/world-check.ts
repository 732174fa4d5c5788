import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../../shared/db/client.js';
import { taskCompletions, users } from '../../../shared/db/schema/index.js';
import type { CountingEvent } from '../../../shared/domain/conditions.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { parseUtcTimestamp } from '../../../shared/domain/timestamp.js';
import { computeCompletions } from '../../../shared/domain/walk.js';
import type { SeededRandom } from '../../../shared/testing/random.js';
import type { EventSource, WorldEvent } from './event-source.js';
import type { SeededWorld } from './world-seed.js';

/**
 * Every event the service accepted for the sampled users, by the id it
 * answered: a repeat answers the first copy's id and is kept once. Two
 * different events under one id would be a deduplication error of ours.
 */
export class SampledHistory {
  private readonly byUser = new Map<string, Map<string, { event: WorldEvent; counting: CountingEvent }>>();
  conflicts = 0;

  constructor(readonly sampled: ReadonlySet<string>) {}

  record(event: WorldEvent, eventId: string): void {
    if (!this.sampled.has(event.user_id)) return;
    let events = this.byUser.get(event.user_id);
    if (!events) this.byUser.set(event.user_id, (events = new Map()));
    const known = events.get(eventId);
    if (known) {
      if (JSON.stringify(known.event) !== JSON.stringify(event)) this.conflicts += 1;
      return;
    }
    events.set(eventId, {
      event,
      counting: {
        id: eventId,
        eventType: event.event_type,
        occurredUs: parseUtcTimestamp(event.timestamp)!,
        amount: event.amount ?? null,
        currency: event.currency ?? null,
      },
    });
  }

  eventsOf(userId: string): CountingEvent[] {
    return [...(this.byUser.get(userId)?.values() ?? [])].map((entry) => entry.counting);
  }

  get eventCount(): number {
    let count = 0;
    for (const events of this.byUser.values()) count += events.size;
    return count;
  }
}

/** The users the model check follows: the `hottest` (most events, most late ones) and the rest of `count` drawn uniformly. */
export function sampleUsers(
  source: EventSource,
  users: readonly { platformUserId: string }[],
  count: number,
  hottest: number,
  random: SeededRandom,
): Set<string> {
  const hot = source.hottest(Math.min(hottest, count)).map((user) => user.platformUserId);
  const rest = random.shuffle(users.map((user) => user.platformUserId)).slice(0, Math.max(0, count - hot.length));
  return new Set([...hot, ...rest]);
}

/** Stored completions of each sampled user in each chain of its platform against the pure model (§5) over the accepted events. */
export async function checkAgainstModel(
  db: Database,
  world: SeededWorld,
  history: SampledHistory,
): Promise<{ users: number; walks: number; mismatches: string[] }> {
  const mismatches: string[] = [];
  let walks = 0;
  const sampledUsers = world.users.filter((user) => history.sampled.has(user.platformUserId));
  for (const [platformIndex, platform] of world.platforms.entries()) {
    const ids = sampledUsers
      .filter((user) => user.platformIndex === platformIndex)
      .map((user) => senderUserId(user.platformUserId));
    if (ids.length === 0) continue;
    const rows = await db
      .select({
        platformUserId: users.platformUserId,
        chainId: taskCompletions.chainId,
        taskId: taskCompletions.taskId,
        eventId: taskCompletions.eventId,
      })
      .from(taskCompletions)
      .innerJoin(users, eq(users.id, taskCompletions.userId))
      .where(and(eq(users.platformId, platform.id), inArray(users.platformUserId, ids)));
    const stored = new Map<string, string>(
      rows.map((row) => [`${row.platformUserId}/${row.chainId}/${row.taskId}`, row.eventId]),
    );
    for (const userId of ids) {
      const events = history.eventsOf(userId);
      for (const chain of world.chains.filter((c) => c.platformIndex === platformIndex)) {
        walks += 1;
        const expected = computeCompletions(chain.rules, events);
        for (const task of chain.rules.tasks) {
          const want = expected.get(task.id)?.eventId;
          const got = stored.get(`${userId}/${chain.id}/${task.id}`);
          if (want !== got)
            mismatches.push(
              `${userId} chain ${chain.name} task ${task.sequenceNumber}: model ${want ?? 'open'}, stored ${got ?? 'open'}`,
            );
        }
      }
    }
  }
  return { users: sampledUsers.length, walks, mismatches };
}
