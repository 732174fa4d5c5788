import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../../shared/db/client.js';
import { chainProgress, taskCompletions, users } from '../../../shared/db/schema/index.js';
import { talliesFromJson } from '../../../shared/db/tally-column.js';
import type { CountingEvent } from '../../../shared/domain/conditions.js';
import { type SenderUserId, senderUserId } from '../../../shared/domain/ids.js';
import { EMPTY_TALLY, fromMicros, isAccumulating, type StoredTallies, type Tally } from '../../../shared/domain/tally.js';
import { parseUtcTimestamp } from '../../../shared/domain/timestamp.js';
import type { Completion, WalkState } from '../../../shared/domain/walk.js';
import type { SeededRandom } from '../../../shared/testing/random.js';
import { modelWalks } from '../model-walks.js';
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

/** How much of the quest language (§16) the sampled users' events reached, by the model. */
export interface QuestCoverage {
  /** Tasks with a count, a total or a streak going (a tally), over every run. */
  tallies: number;
  /** Completions of counted, summed and streak tasks. */
  completions: number;
  /** Streak tallies two periods long or more. */
  streaks: number;
  /** Runs of repeating chains with an event, and the (user, chain) pairs with more than one. */
  runs: number;
  repeatedWalks: number;
}

/** The coverage in words, for the run's log and notes. */
export const questCoverageText = (quest: QuestCoverage) =>
  `quest language: ${quest.tallies} tallies, ${quest.completions} counted/summed/streak completions, ${quest.streaks} streaks of 2+, ${quest.runs} runs of repeating chains (${quest.repeatedWalks} users×chains with 2+)`;

export interface ModelCheck {
  users: number;
  /** (user, chain) pairs compared. */
  walks: number;
  mismatches: string[];
  quest: QuestCoverage;
}

type StoredRun = { completions: Map<string, string>; completedTasks: number | null; tallies: StoredTallies | null };

/**
 * Each sampled user's stored progress in each chain of their platform, run
 * by run, against the pure model (model-walks.ts: the full §5/§16 walk over
 * every event the service accepted for them): which event completed each
 * task, the summary's count of completed tasks, and each counted, summed or
 * streak task's tally (count, total, streak and its last period). A run the
 * store has and the model lacks, or the other way round, differs too.
 */
export async function checkAgainstModel(db: Database, world: SeededWorld, history: SampledHistory): Promise<ModelCheck> {
  const mismatches: string[] = [];
  const quest: QuestCoverage = { tallies: 0, completions: 0, streaks: 0, runs: 0, repeatedWalks: 0 };
  let walks = 0;
  const sampledUsers = world.users.filter((user) => history.sampled.has(user.platformUserId));
  for (const [platformIndex, platform] of world.platforms.entries()) {
    const ids = sampledUsers
      .filter((user) => user.platformIndex === platformIndex)
      .map((user) => senderUserId(user.platformUserId));
    if (ids.length === 0) continue;
    const stored = await storedRuns(db, platform.id, ids);
    for (const userId of ids) {
      const events = history.eventsOf(userId);
      for (const chain of world.chains.filter((c) => c.platformIndex === platformIndex)) {
        walks += 1;
        const model = modelWalks(chain.rules, events);
        const runs = stored.get(`${userId}/${chain.id}`) ?? new Map<bigint, StoredRun>();
        if (chain.rules.recurrence) {
          quest.runs += model.size;
          if (model.size > 1) quest.repeatedWalks += 1;
        }
        for (const period of new Set([...model.keys(), ...runs.keys()])) {
          const where = `${userId} chain ${chain.name}${chain.rules.recurrence ? ` run ${new Date(Number(period / 1000n)).toISOString()}` : ''}`;
          const walk = model.get(period);
          compareRun(where, chain.rules.tasks, walk, runs.get(period), mismatches);
          if (walk) countCoverage(chain.rules.tasks, walk, quest);
        }
      }
    }
  }
  return { users: sampledUsers.length, walks, mismatches, quest };
}

type Tasks = SeededWorld['chains'][number]['rules']['tasks'];

function compareRun(where: string, tasks: Tasks, walk: WalkState | undefined, stored: StoredRun | undefined, into: string[]) {
  const completions: ReadonlyMap<string, Completion> = walk?.completions ?? new Map();
  for (const task of tasks) {
    const want = completions.get(task.id)?.eventId;
    const got = stored?.completions.get(task.id);
    if (want !== got) into.push(`${where} task ${task.sequenceNumber}: model ${want ?? 'open'}, stored ${got ?? 'open'}`);
    const wantTally = walk?.tallies?.get(task.id);
    const gotTally = stored?.tallies?.[task.id];
    if (!sameTally(wantTally, gotTally))
      into.push(`${where} task ${task.sequenceNumber}: model ${tallyText(wantTally)}, stored ${tallyText(gotTally)}`);
  }
  const completedTasks = stored?.completedTasks ?? 0;
  if (completedTasks !== completions.size)
    into.push(`${where}: model ${completions.size} tasks completed, stored summary ${completedTasks}`);
}

const sameTally = (a: Tally = EMPTY_TALLY, b: Tally = EMPTY_TALLY) =>
  a.count === b.count && a.totalMicros === b.totalMicros && a.streak === b.streak && a.lastPeriod === b.lastPeriod;

const tallyText = (tally: Tally | undefined) =>
  tally === undefined
    ? 'no tally'
    : `count ${tally.count}, total ${fromMicros(tally.totalMicros)}, streak ${tally.streak} (period ${tally.lastPeriod})`;

function countCoverage(tasks: Tasks, walk: WalkState, quest: QuestCoverage) {
  for (const task of tasks) {
    if (!isAccumulating(task)) continue;
    const tally = walk.tallies?.get(task.id);
    if (tally !== undefined) quest.tallies += 1;
    if (task.streak && tally !== undefined && tally.streak >= 2) quest.streaks += 1;
    if (walk.completions.has(task.id)) quest.completions += 1;
  }
}

/** The stored runs of the users `ids` of a platform, by `user/chain` then period: completions, summary and tallies. */
async function storedRuns(db: Database, platformId: string, ids: SenderUserId[]) {
  const ofUsers = and(eq(users.platformId, platformId), inArray(users.platformUserId, ids));
  const completionRows = await db
    .select({
      platformUserId: users.platformUserId,
      chainId: taskCompletions.chainId,
      runStartUs: taskCompletions.runStartUs,
      taskId: taskCompletions.taskId,
      eventId: taskCompletions.eventId,
    })
    .from(taskCompletions)
    .innerJoin(users, eq(users.id, taskCompletions.userId))
    .where(ofUsers);
  const progressRows = await db
    .select({
      platformUserId: users.platformUserId,
      chainId: chainProgress.chainId,
      runStartUs: chainProgress.runStartUs,
      completedTasks: chainProgress.completedTasks,
      tallies: chainProgress.tallies,
    })
    .from(chainProgress)
    .innerJoin(users, eq(users.id, chainProgress.userId))
    .where(ofUsers);
  const byWalk = new Map<string, Map<bigint, StoredRun>>();
  const runOf = (row: { platformUserId: string; chainId: string; runStartUs: bigint }) => {
    const key = `${row.platformUserId}/${row.chainId}`;
    let runs = byWalk.get(key);
    if (!runs) byWalk.set(key, (runs = new Map()));
    let run = runs.get(row.runStartUs);
    if (!run) runs.set(row.runStartUs, (run = { completions: new Map(), completedTasks: null, tallies: null }));
    return run;
  };
  for (const row of completionRows) runOf(row).completions.set(row.taskId, row.eventId);
  for (const row of progressRows)
    Object.assign(runOf(row), { completedTasks: row.completedTasks, tallies: row.tallies && talliesFromJson(row.tallies) });
  return byWalk;
}
