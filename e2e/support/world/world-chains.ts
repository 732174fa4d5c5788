import type { SeededRandom } from '../../../shared/testing/random.js';
import { type WireChain, type WireTask, wireChainBody } from '../wire-rules.js';

/** Event types the producers send, with their weights: everyday activity dominates, milestones are rare. */
export const EVENT_TYPES: readonly (readonly [type: string, weight: number])[] = [
  ['login', 30],
  ['trade', 25],
  ['deposit', 15],
  ['purchase', 10],
  ['signup', 5],
  ['kyc', 5],
  ['referral', 5],
  ['withdrawal', 5],
];
export const CURRENCIES = ['usd', 'eur'] as const;
/** The event type of the probes: every platform's first chain opens with it, so a probe's event always changes progress. */
export const PROBE_EVENT_TYPE = 'signup';

type WorldTask = WireTask;

export interface WorldChain extends WireChain {
  platformIndex: number;
  advertiserIndex: number;
  name: string;
  tasks: WorldTask[];
}

/** The quest language's kinds of chain (§16), in the order every third chain takes them. */
const QUEST_KINDS = ['counted', 'summed', 'streak', 'repeating', 'mixed'] as const;
type QuestKind = (typeof QUEST_KINDS)[number];

/**
 * Every third chain speaks the quest language (10 of the default 30, each
 * kind once on each of 2 platforms); the first chain of each platform never
 * does. `round`: how many times the kinds have gone round before it.
 */
export function questKindOf(index: number): { kind: QuestKind; round: number } | null {
  if (index % 3 !== 2) return null;
  const turn = (index - 2) / 3;
  return { kind: QUEST_KINDS[turn % QUEST_KINDS.length]!, round: Math.floor(turn / QUEST_KINDS.length) };
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The whole-hour zone (`Etc/GMT∓N`) whose local day began in the hour before
 * `ms` (at 00:mm local, mm the minute of the hour). A world run lasts minutes
 * and its late events reach an hour back, so in this zone the late events of
 * a run started at `ms` fall on the day before and its fresh ones on the day
 * itself: a streak of two days can complete, and a daily chain's users have
 * two runs. Late events reach the day before with probability (60 - mm) / 60.
 */
export function zoneOfRecentMidnight(ms: number): string {
  const east = (24 - new Date(ms).getUTCHours()) % 24;
  const hours = east > 12 ? east - 24 : east;
  // The Etc names count west as positive: Etc/GMT-9 is nine hours east of UTC.
  return hours === 0 ? 'UTC' : `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`;
}

/**
 * `count` chains spread over the platforms, each funded by one of the
 * advertisers: 3-5 tasks on the producers' event types, half of them ordered,
 * with amount, currency and time-window conditions, windows around `nowMs`
 * so that late events fall on both sides of some task's start. Every third
 * chain speaks the quest language (questChain).
 */
export function worldChains(
  random: SeededRandom,
  count: number,
  platforms: number,
  advertisers: number,
  nowMs: number,
): WorldChain[] {
  return Array.from({ length: count }, (_, index) => {
    const quest = questKindOf(index);
    const chain = quest === null ? { tasks: plainTasks(random, random.int(3, 5), nowMs) } : questChain(random, quest, nowMs);
    // The first chain of each platform opens with a bare signup task: the probes' event.
    if (index < platforms) chain.tasks[0] = { condition_event_type: PROBE_EVENT_TYPE };
    return {
      platformIndex: index % platforms,
      advertiserIndex: index % advertisers,
      name: `world chain ${index}${quest === null ? '' : ` (${quest.kind})`}`,
      allow_any_order: index >= platforms && random.chance(0.5),
      start_date: iso(nowMs - 30 * 86_400_000),
      end_date: iso(nowMs + 365 * 86_400_000),
      ...chain,
    };
  });
}

function plainTasks(random: SeededRandom, count: number, nowMs: number): WorldTask[] {
  const types = EVENT_TYPES.map(([type]) => type);
  return Array.from({ length: count }, (): WorldTask => {
    const task: WorldTask = { condition_event_type: random.pick(types) };
    if (random.chance(0.4)) task.condition_min_amount = random.pick([10, 50, 100, 250]);
    if (random.chance(0.4)) task.condition_currency = random.pick(CURRENCIES);
    if (random.chance(0.2)) task.condition_after_timestamp = iso(nowMs - random.int(5, 90) * 60_000);
    if (random.chance(0.1)) task.condition_before_timestamp = iso(nowMs + random.int(1, 30) * 86_400_000);
    return task;
  });
}

// The quest language's tasks, on the busiest types so that the world's users reach their thresholds in a run of minutes.
const counted = (random: SeededRandom): WorldTask => ({
  condition_event_type: random.pick(['login', 'trade', 'deposit']),
  condition_min_count: random.int(2, 5),
});
const summed = (random: SeededRandom): WorldTask => ({
  condition_event_type: random.pick(['trade', 'deposit', 'purchase']),
  condition_currency: random.pick(CURRENCIES),
  condition_min_total: random.pick([300, 1_000, 2_500]),
});
// Two days: the most a run of minutes can hold (zoneOfRecentMidnight).
const streak = (random: SeededRandom): WorldTask => ({
  condition_event_type: random.pick(['login', 'trade']),
  condition_streak: { periods: 2, every: 'day' },
});

/**
 * A chain of the quest language (§16) of `kind`: counted, summed or streak
 * tasks among 1-2 plain ones, a repeating chain (in even rounds daily with
 * a counted task, in odd ones weekly with a streak and a sum), or all three
 * kinds of task. Streaks and runs are counted in the zone whose day began in
 * the hour before `nowMs`.
 */
function questChain(
  random: SeededRandom,
  { kind, round }: { kind: QuestKind; round: number },
  nowMs: number,
): Pick<WorldChain, 'tasks' | 'timezone' | 'recurrence'> {
  const timezone = zoneOfRecentMidnight(nowMs);
  const tasks = plainTasks(random, random.int(1, 2), nowMs);
  const among = (...quest: WorldTask[]) => {
    for (const task of quest) tasks.splice(random.int(0, tasks.length), 0, task);
    return tasks;
  };
  switch (kind) {
    case 'counted':
      return { tasks: among(counted(random)) };
    case 'summed':
      return { tasks: among(summed(random)) };
    case 'streak':
      return { timezone, tasks: among(streak(random)) };
    case 'repeating':
      return round % 2 === 0
        ? { timezone, recurrence: { every: 'day' }, tasks: among(counted(random)) }
        : { timezone, recurrence: { every: 'week' }, tasks: among(streak(random), summed(random)) };
    case 'mixed':
      return { timezone, tasks: among(counted(random), summed(random), streak(random)) };
  }
}

/** The admin API body of a chain, with a chain reward. */
export function chainBody(chain: WorldChain, platformId: string, advertiserId: string) {
  return {
    ...wireChainBody(chain, platformId, advertiserId, 10),
    chain_reward: { type: 'points', name: 'chain bonus', value: 100 },
  };
}
