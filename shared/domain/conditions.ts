// Which events a task accepts (product rules §4). Times are epoch microseconds.

export type TaskCondition = {
  id: string;
  sequenceNumber: number;
  eventType: string;
  minAmount: number | null;
  currency: string | null;
  afterUs: bigint | null;
  beforeUs: bigint | null;
};

export type CountingEvent = {
  id: string;
  eventType: string;
  occurredUs: bigint;
  amount: number | null;
  currency: string | null;
};

export type ChainWindow = { startUs: bigint; endUs: bigint };

export function taskMatches(task: TaskCondition, event: CountingEvent): boolean {
  if (event.eventType !== task.eventType) return false;
  // A minimum is a claim about the amount: an event without one cannot meet it.
  if (task.minAmount !== null && (event.amount === null || !(event.amount >= task.minAmount))) {
    return false;
  }
  if (task.currency !== null) {
    if (event.currency === null) return false;
    if (event.currency.toLowerCase() !== task.currency.toLowerCase()) return false;
  }
  if (task.afterUs !== null && event.occurredUs < task.afterUs) return false;
  if (task.beforeUs !== null && event.occurredUs >= task.beforeUs) return false;
  return true;
}

/** The chain's own dates: start inclusive, end exclusive. */
export function inChainWindow(window: ChainWindow, event: Pick<CountingEvent, 'occurredUs'>): boolean {
  return window.startUs <= event.occurredUs && event.occurredUs < window.endUs;
}
