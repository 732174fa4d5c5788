import type { StreakCondition } from './conditions.js';
import { isWholePoints, POINTS } from './points.js';
import type { Recurrence } from './recurrence.js';

// What makes a chain definition valid (§2.3-§2.4, §13.5, §14, §16, §18): its limits
// and its rules, in one place. The admin API's create body
// (api/routes/admin/quest-chains/create-schema.ts) publishes the limits as its
// bounds and checks the rules of a task's thresholds and of streaks in runs
// with its shape; the use-cases (createChain, startBacktest) check every rule
// with `chainDefinitionIssues`, so the admin API, the CLI and backtests refuse
// the same chains.

// Limits. Text fields match the event limits where they must meet event
// values (event_type 100, currency 10, §3.1); the others keep one chain, and
// the read that lists it, small.
export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 2000;
export const MAX_URL_LENGTH = 2048;
export const MAX_IMAGE_URLS = 20;
export const MAX_EVENT_TYPE_LENGTH = 100;
export const MAX_CURRENCY_LENGTH = 10;
export const MAX_REWARD_TYPE_LENGTH = 100;
export const MAX_TIMEZONE_LENGTH = 64;
export const MIN_TASKS = 1;
export const MAX_TASKS = 100;

/** §16.1: a task's thresholds. */
export const MAX_MIN_COUNT = 10_000;
export const MAX_MIN_TOTAL = 1e12;
export const MIN_STREAK_PERIODS = 2;
export const MAX_STREAK_PERIODS = 366;
export const STREAK_UNITS = ['day', 'week'] as const satisfies readonly StreakCondition['every'][];
/** §16.5: the calendar periods a chain may repeat over. */
export const RECURRENCE_UNITS = ['day', 'week', 'month'] as const satisfies readonly Recurrence['every'][];

/** §13.5, 90 days: past a refund or chargeback window, a hold only delays honest users. */
export const MAX_REWARD_HOLD_SECONDS = 90 * 86_400;
/** §14.1: a chain's budget, and its claim and completion caps. */
export const MAX_BUDGET = 1e12;
export const MAX_CAP = 1e9;

/** §14.4: the one reward type that may carry a prize table. */
const MYSTERY_BOX = 'mystery_box';
export const MAX_PRIZE_ID_LENGTH = 100;
export const MAX_PRIZE_STOCK = 1e9;
/** Bounds that keep a draw's roll exact in a double and the modulo's bias negligible (draw.ts). */
export const MAX_PRIZE_WEIGHT = 1_000_000;
export const MAX_PRIZES = 100;

/** One broken rule: the field at fault in the wire body (`['tasks', 0, 'condition_streak']`) and what is wrong with it. */
export interface RuleIssue {
  path: readonly (string | number)[];
  message: string;
  /** What the message names, where that is not the path itself (the sequence numbers of every task). */
  subject?: string;
}

/** The field at fault, dotted (`tasks.0.condition_streak`): an error's `param`. */
export const issueParam = (issue: RuleIssue) => issue.path.join('.');

/** The issue as one line, `field: what is wrong`, as the API words a refusal. */
export const issueText = (issue: RuleIssue) => `${issue.subject ?? issueParam(issue)}: ${issue.message}`;

/** The fields of a task the rules read, as the use-cases hold them (epoch microseconds). */
export interface TaskFields {
  sequenceNumber: number;
  conditionCurrency?: string | null | undefined;
  conditionMinTotal?: number | null | undefined;
  conditionStreak?: StreakCondition | null | undefined;
  conditionAfterTimestamp?: bigint | null | undefined;
  conditionBeforeTimestamp?: bigint | null | undefined;
  rewardType?: string | undefined;
  rewardValue?: number | null | undefined;
}

/** The fields of a chain the rules read. */
export interface ChainFields {
  startDate: bigint;
  endDate: bigint;
  recurrence?: Pick<Recurrence, 'every'> | null | undefined;
  tasks: readonly TaskFields[];
  reward?:
    | { type: string; value?: number | null | undefined; prizes?: readonly { prizeId: string }[] | undefined }
    | null
    | undefined;
}

/**
 * Every rule of a chain definition, in the order a use-case reports the first
 * it breaks. The limits above are checked by the create body's shape, which
 * publishes them.
 */
export function chainDefinitionIssues(chain: ChainFields): RuleIssue[] {
  return [
    ...taskCountIssues(chain.tasks),
    ...dateIssues(chain),
    ...sequenceIssues(chain.tasks),
    ...prizeTableIssues(chain.reward),
    ...chainRewardPointsIssues(chain.reward),
    ...chain.tasks.flatMap((task, index) =>
      [...taskWindowIssues(task), ...taskThresholdIssues(task), ...taskRewardPointsIssues(task)].map((issue) => ({
        ...issue,
        path: ['tasks', index, ...issue.path],
      })),
    ),
    ...streakFitIssues(chain),
  ];
}

/** §2: a chain has from MIN_TASKS to MAX_TASKS tasks (the wire shape publishes the same bounds). */
function taskCountIssues(tasks: readonly unknown[]): RuleIssue[] {
  return tasks.length < MIN_TASKS || tasks.length > MAX_TASKS
    ? [{ path: ['tasks'], message: `must hold from ${MIN_TASKS} to ${MAX_TASKS} tasks` }]
    : [];
}

/** §2.3: a chain ends after it starts. */
function dateIssues(chain: Pick<ChainFields, 'startDate' | 'endDate'>): RuleIssue[] {
  return chain.endDate <= chain.startDate ? [{ path: ['end_date'], message: 'must be after start_date' }] : [];
}

/** §2.4: the tasks are numbered exactly 1..n, in any order. */
function sequenceIssues(tasks: readonly Pick<TaskFields, 'sequenceNumber'>[]): RuleIssue[] {
  const numbers = tasks.map((task) => task.sequenceNumber).sort((a, b) => a - b);
  if (numbers.every((number, index) => number === index + 1)) return [];
  return [
    {
      path: ['tasks'],
      subject: 'tasks.sequence_number',
      message: `must be exactly 1..${numbers.length} (got ${numbers.join(', ')})`,
    },
  ];
}

/** §14.4: a prize table belongs to a mystery box, and names each prize once (a draw answers a prize_id). */
function prizeTableIssues(reward: ChainFields['reward']): RuleIssue[] {
  const prizes = reward?.prizes;
  if (!prizes || prizes.length === 0) return [];
  if (reward.type !== MYSTERY_BOX)
    return [{ path: ['chain_reward', 'type'], message: `a reward with prizes must be of type ${MYSTERY_BOX}` }];
  const seen = new Set<string>();
  const issues: RuleIssue[] = [];
  prizes.forEach((prize, index) => {
    if (seen.has(prize.prizeId))
      issues.push({ path: ['chain_reward', 'prizes', index, 'prize_id'], message: `${prize.prizeId} appears twice` });
    seen.add(prize.prizeId);
  });
  return issues;
}

const WHOLE_POINTS = `a ${POINTS} reward's value must be a whole number of points, 0 or more`;

/** §18.1: a points chain reward credits a whole number of points. */
function chainRewardPointsIssues(reward: ChainFields['reward']): RuleIssue[] {
  return reward?.type === POINTS && !isWholePoints(reward.value)
    ? [{ path: ['chain_reward', 'value'], message: WHOLE_POINTS }]
    : [];
}

/** §18.1: a task's points reward credits a whole number of points. Paths are the task's own fields. */
function taskRewardPointsIssues(task: Pick<TaskFields, 'rewardType' | 'rewardValue'>): RuleIssue[] {
  return task.rewardType === POINTS && !isWholePoints(task.rewardValue)
    ? [{ path: ['reward_value'], message: WHOLE_POINTS }]
    : [];
}

/** §2.4: a task's window is not empty. Paths are the task's own fields. */
function taskWindowIssues(task: Pick<TaskFields, 'conditionAfterTimestamp' | 'conditionBeforeTimestamp'>): RuleIssue[] {
  const after = task.conditionAfterTimestamp ?? null;
  const before = task.conditionBeforeTimestamp ?? null;
  return after !== null && before !== null && before <= after
    ? [{ path: ['condition_before_timestamp'], message: 'must be after condition_after_timestamp' }]
    : [];
}

/** §16.1: the rules of one task's thresholds. Paths are the task's own fields. */
export function taskThresholdIssues(task: Pick<TaskFields, 'conditionMinTotal' | 'conditionCurrency'>): RuleIssue[] {
  // A sum is of amounts in one currency: without one, 5 USD and 5 JPY would add up.
  return task.conditionMinTotal != null && task.conditionCurrency == null
    ? [{ path: ['condition_min_total'], message: 'needs condition_currency (a total sums amounts of one currency)' }]
    : [];
}

/** How many streak periods one run can hold: a day holds one day, a week seven days, a month 31 days and touches up to 6 Monday weeks. */
const MOST_STREAK_PERIODS_IN_A_RUN = {
  day: { day: 1, week: 1 },
  week: { day: 7, week: 1 },
  month: { day: 31, week: 6 },
} as const;

/** §16.5: a streak fits in one run of a repeating chain, or it could never complete. */
export function streakFitIssues(chain: {
  recurrence?: ChainFields['recurrence'];
  tasks: readonly Pick<TaskFields, 'conditionStreak'>[];
}): RuleIssue[] {
  const every = chain.recurrence?.every;
  if (every === undefined) return [];
  return chain.tasks.flatMap((task, index) => {
    const streak = task.conditionStreak;
    if (!streak) return [];
    const most = MOST_STREAK_PERIODS_IN_A_RUN[every][streak.every];
    if (streak.periods <= most) return [];
    return [
      {
        path: ['tasks', index, 'condition_streak'],
        message: `a streak of ${streak.periods} ${streak.every}s cannot fit in one run of a chain that repeats every ${every} (at most ${most})`,
      },
    ];
  });
}
