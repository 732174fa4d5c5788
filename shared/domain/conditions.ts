// Which events a task accepts (product rules §4). Times are epoch microseconds.

export type TaskCondition = {
  id: string;
  sequenceNumber: number;
  eventType: string;
  minAmount: number | null;
  currency: string | null;
  afterUs: bigint | null;
  beforeUs: bigint | null;
  /** §16: events needed (default 1). Absent on a plain task. */
  minCount?: number;
  /** §16: the sum of the counted events' amounts needed. */
  minTotal?: number | null;
  /** §16: consecutive periods each holding a counted event. */
  streak?: StreakCondition | null;
};

export type StreakCondition = { periods: number; every: 'day' | 'week' };

export type CountingEvent = {
  id: string;
  eventType: string;
  occurredUs: bigint;
  amount: number | null;
  currency: string | null;
};

export type ChainWindow = { startUs: bigint; endUs: bigint };

/**
 * The first condition of `task` that `event` fails (in this order: type,
 * amount, currency, the task's window), or null when the task accepts it.
 * The one definition of §4's task conditions: taskMatches is this being null,
 * and explain's verdicts name what it returns.
 */
export type TaskMismatch =
  | 'event_type_mismatch'
  | 'amount_missing'
  | 'amount_below_minimum'
  | 'currency_mismatch'
  | 'before_task_window'
  | 'after_task_window';

export function taskMismatch(task: TaskCondition, event: CountingEvent): TaskMismatch | null {
  if (event.eventType !== task.eventType) return 'event_type_mismatch';
  // A minimum is a claim about the amount: an event without one cannot meet it.
  if (task.minAmount !== null) {
    if (event.amount === null) return 'amount_missing';
    if (!(event.amount >= task.minAmount)) return 'amount_below_minimum';
  }
  if (task.currency !== null) {
    if (event.currency === null || event.currency.toLowerCase() !== task.currency.toLowerCase()) return 'currency_mismatch';
  }
  if (task.afterUs !== null && event.occurredUs < task.afterUs) return 'before_task_window';
  if (task.beforeUs !== null && event.occurredUs >= task.beforeUs) return 'after_task_window';
  return null;
}

export function taskMatches(task: TaskCondition, event: CountingEvent): boolean {
  return taskMismatch(task, event) === null;
}

/** The chain's own dates: start inclusive, end exclusive. */
export function inChainWindow(window: ChainWindow, event: Pick<CountingEvent, 'occurredUs'>): boolean {
  return window.startUs <= event.occurredUs && event.occurredUs < window.endUs;
}
