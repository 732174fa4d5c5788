// A deliberately naive second reading of the §16 rules (docs/quest-language.md):
// counted, summed and streak tasks, written without looking at walk.ts or
// tally.ts, for property tests to compare against. Linear scans, no Maps, the
// calendar read through toLocaleDateString instead of formatToParts.
import type { CountingEvent, TaskCondition } from './conditions.js';
import type { ChainRules, Completion } from './walk.js';

export type ReferenceOutcome = {
  completions: Completion[];
  /** [event id, task id] for every event the walk counted toward a task. */
  counted: [string, string][];
  /** [task id, count, total (in millionths), run] of every task that counted an event. */
  tallies: [string, number, number, number][];
};

function accepts(t: TaskCondition, e: CountingEvent): boolean {
  if (e.eventType !== t.eventType) return false;
  if (t.minAmount !== null && (e.amount === null || e.amount < t.minAmount)) return false;
  if (t.currency !== null && (e.currency === null || e.currency.toLowerCase() !== t.currency.toLowerCase())) return false;
  if (t.afterUs !== null && e.occurredUs < t.afterUs) return false;
  if (t.beforeUs !== null && e.occurredUs >= t.beforeUs) return false;
  return true;
}

/** The calendar day number of an instant in a zone, read from its printed local date. */
function dayNumber(us: bigint, timezone: string): number {
  const ms = Number(us / 1000n) - (us % 1000n < 0n ? 1 : 0);
  const printed = new Date(ms).toLocaleDateString('en-CA', { timeZone: timezone }); // YYYY-MM-DD
  const [y, m, d] = printed.split('-').map(Number) as [number, number, number];
  return Math.round(Date.UTC(y, m - 1, d) / 86_400_000);
}

/** Weeks from Monday: count the days back to the Monday on or before, then number Mondays. */
function period(us: bigint, every: 'day' | 'week', timezone: string): number {
  const day = dayNumber(us, timezone);
  if (every === 'day') return day;
  // 1970-01-05 (day 4) was a Monday.
  let monday = day;
  while ((((monday - 4) % 7) + 7) % 7 !== 0) monday--;
  return (monday - 4) / 7 + 1;
}

export function referenceQuestWalk(chain: ChainRules, events: readonly CountingEvent[]): ReferenceOutcome {
  const timezone = chain.timezone ?? 'UTC';
  const seen: CountingEvent[] = [];
  for (const e of events) {
    if (e.occurredUs < chain.startUs || e.occurredUs >= chain.endUs) continue;
    if (seen.some((s) => s.id === e.id)) continue;
    seen.push(e);
  }
  // Selection sort into (timestamp, id) order.
  const ordered: CountingEvent[] = [];
  while (seen.length > 0) {
    let best = 0;
    for (let i = 1; i < seen.length; i++) {
      const a = seen[i]!;
      const b = seen[best]!;
      if (a.occurredUs < b.occurredUs || (a.occurredUs === b.occurredUs && a.id < b.id)) best = i;
    }
    ordered.push(seen.splice(best, 1)[0]!);
  }

  const byNumber = [...chain.tasks];
  for (let i = 0; i < byNumber.length; i++) {
    for (let j = i + 1; j < byNumber.length; j++) {
      if (byNumber[j]!.sequenceNumber < byNumber[i]!.sequenceNumber) [byNumber[i], byNumber[j]] = [byNumber[j]!, byNumber[i]!];
    }
  }
  const outcome: ReferenceOutcome = { completions: [], counted: [], tallies: [] };
  const done = (t: TaskCondition) => outcome.completions.some((c) => c.taskId === t.id);
  // Per task: count, total in millionths, streak, last period with a counted event.
  const state: { id: string; count: number; total: number; streak: number; last: number | null }[] = [];
  const stateOf = (t: TaskCondition) => {
    let s = state.find((x) => x.id === t.id);
    if (s === undefined) state.push((s = { id: t.id, count: 0, total: 0, streak: 0, last: null }));
    return s;
  };

  for (const e of ordered) {
    if (byNumber.every(done)) break;
    let target: TaskCondition | undefined;
    if (chain.allowAnyOrder) target = byNumber.find((t) => !done(t) && accepts(t, e));
    else {
      const current = byNumber.find((t) => !done(t));
      if (current !== undefined && accepts(current, e)) target = current;
    }
    if (target === undefined) continue;
    outcome.counted.push([e.id, target.id]);
    const s = stateOf(target);
    s.count += 1;
    s.total += Math.round((e.amount ?? 0) * 1e6);
    if (target.streak) {
      const p = period(e.occurredUs, target.streak.every, timezone);
      if (s.last === null || p > s.last + 1) s.streak = 1;
      else if (p === s.last + 1) s.streak += 1;
      s.last = p;
    }
    const enough =
      s.count >= (target.minCount ?? 1) &&
      (target.minTotal == null || s.total >= Math.round(target.minTotal * 1e6)) &&
      (!target.streak || s.streak >= target.streak.periods);
    if (enough) outcome.completions.push({ taskId: target.id, eventId: e.id, completedUs: e.occurredUs });
  }
  outcome.tallies = state.map((s) => [s.id, s.count, s.total, s.streak]);
  return outcome;
}

/**
 * The run an instant falls in, named the naive way: the local calendar date
 * (day), the local date of that week's Monday (week), or the local year and
 * month (month), each read from toLocaleDateString.
 */
export function referenceRunName(us: bigint, every: 'day' | 'week' | 'month', timezone: string): string {
  const day = dayNumber(us, timezone);
  const date = (n: number) => new Date(n * 86_400_000).toISOString().slice(0, 10);
  if (every === 'day') return date(day);
  if (every === 'month') return date(day).slice(0, 7);
  let monday = day;
  while (new Date(monday * 86_400_000).getUTCDay() !== 1) monday--;
  return date(monday);
}
