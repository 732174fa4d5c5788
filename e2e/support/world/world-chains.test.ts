import { describe, expect, it } from 'vitest';
import { isKnownTimezone } from '../../../shared/domain/calendar.js';
import { streakFitIssues, taskThresholdIssues } from '../../../shared/domain/chain-definition-rules.js';
import type { CountingEvent } from '../../../shared/domain/conditions.js';
import { referenceQuestWalk, referenceRunName } from '../../../shared/domain/quest-language.reference.test-helper.js';
import { isAccumulating } from '../../../shared/domain/tally.js';
import { parseUtcTimestamp } from '../../../shared/domain/timestamp.js';
import { computeCompletions } from '../../../shared/domain/walk.js';
import { seededRandom } from '../../../shared/testing/random.js';
import { modelWalks } from '../model-walks.js';
import { rulesOfWireChain } from '../wire-rules.js';
import { createEventSource } from './event-source.js';
import { questKindOf, worldChains, zoneOfRecentMidnight } from './world-chains.js';
import { DEFAULT_WORLD } from './world-options.js';

const localHour = (ms: number, timezone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: timezone, hour: '2-digit', hourCycle: 'h23' }).format(new Date(ms));

/** The world's chains at `nowMs` with the pure model's rules (task ids made up). */
function worldAt(nowMs: number) {
  const chains = worldChains(seededRandom(DEFAULT_WORLD.seed), DEFAULT_WORLD.chains, 2, 4, nowMs);
  return chains.map((chain, index) => ({
    ...chain,
    rules: rulesOfWireChain(
      chain,
      chain.tasks.map((_, task) => `c${index}-t${task + 1}`),
    ),
  }));
}

/** A short run of the producers from `nowMs` (`seconds` at `rate`), as the model reads it: events by user, ids by dedup key. */
function runEvents(nowMs: number, seconds: number, rate: number) {
  const users = Array.from({ length: 5_000 }, (_, i) => ({ platformIndex: i % 2, platformUserId: `w${i % 2}-${i}` }));
  const source = createEventSource(seededRandom(DEFAULT_WORLD.seed + 1), users, DEFAULT_WORLD);
  const ids = new Map<string, string>();
  const byUser = new Map<string, CountingEvent[]>();
  let sent = 0;
  while (sent < seconds * rate) {
    for (const event of source.next(nowMs + (sent / rate) * 1000).events) {
      sent += 1;
      const key = `${event.user_id}|${event.event_type}|${event.timestamp}`;
      if (ids.has(key)) continue;
      const id = `e${String(ids.size).padStart(7, '0')}`;
      ids.set(key, id);
      const events = byUser.get(event.user_id) ?? [];
      events.push({
        id,
        eventType: event.event_type,
        occurredUs: parseUtcTimestamp(event.timestamp)!,
        amount: event.amount ?? null,
        currency: event.currency ?? null,
      });
      byUser.set(event.user_id, events);
    }
  }
  return { byUser, hottest: source.hottest(10).map((user) => user.platformUserId) };
}

describe('the world speaks the quest language', () => {
  it("puts every hour's zone at 00:mm local (its day began in the hour before)", () => {
    for (let ms = Date.UTC(2026, 10, 28); ms < Date.UTC(2026, 10, 29); ms += 7 * 60_000) {
      const zone = zoneOfRecentMidnight(ms);
      expect(isKnownTimezone(zone)).toBe(true);
      expect(localHour(ms, zone), `${new Date(ms).toISOString()} in ${zone}`).toBe('00');
    }
  });

  it('gives every third chain counted, summed or streak tasks or a recurrence, each kind on each platform, all valid', () => {
    const chains = worldAt(Date.UTC(2026, 10, 28, 14, 20));
    const quest = chains.filter((_, index) => questKindOf(index) !== null);
    expect(quest).toHaveLength(10);
    for (const [index, chain] of chains.entries()) {
      const kind = questKindOf(index)?.kind;
      const tasks = chain.tasks;
      const speaks =
        chain.recurrence !== undefined ||
        tasks.some((t) => t.condition_min_count !== undefined || t.condition_min_total !== undefined || t.condition_streak);
      expect(speaks, chain.name).toBe(kind !== undefined);
      if (kind === 'streak' || kind === 'mixed') expect(tasks.some((t) => t.condition_streak)).toBe(true);
      expect(streakFitIssues({ ...chain, tasks: tasks.map((t) => ({ conditionStreak: t.condition_streak })) })).toEqual([]);
      for (const task of tasks)
        expect(
          taskThresholdIssues({ conditionMinTotal: task.condition_min_total, conditionCurrency: task.condition_currency }),
        ).toEqual([]);
    }
    for (const platformIndex of [0, 1]) {
      const kinds = chains.flatMap((chain, index) => (chain.platformIndex === platformIndex ? [questKindOf(index)?.kind] : []));
      expect(new Set(kinds)).toEqual(new Set([undefined, 'counted', 'summed', 'streak', 'repeating', 'mixed']));
    }
    expect(new Set(quest.map((chain) => chain.recurrence?.every))).toEqual(new Set([undefined, 'day', 'week']));
  });

  // 20 s at 500 events/s (the naive reference is quadratic in a user's events), started early and late in the local hour after midnight.
  for (const minute of [5, 55]) {
    it(`makes progress on every kind in a short run started at 00:${minute} local, and the model reads it as the naive reference does`, () => {
      const nowMs = Date.UTC(2026, 10, 28, 14, minute);
      const chains = worldAt(nowMs);
      const { byUser, hottest } = runEvents(nowMs, 20, 500);
      const reached = { counted: 0, summed: 0, streak: 0, streakOfTwo: 0, runs: 0, usersWithTwoRuns: 0 };
      for (const userId of hottest) {
        const events = byUser.get(userId) ?? [];
        for (const chain of chains.filter((c) => c.platformIndex === Number(userId[1]))) {
          const walks = modelWalks(chain.rules, events);
          if (chain.rules.recurrence) {
            reached.runs += walks.size;
            if (walks.size > 1) reached.usersWithTwoRuns += 1;
          }
          for (const [period, walk] of walks) {
            for (const task of chain.rules.tasks) {
              const tally = walk.tallies?.get(task.id);
              if (!tally) continue;
              if (task.streak) {
                reached.streak += 1;
                if (tally.streak >= 2) reached.streakOfTwo += 1;
              } else if (task.minTotal != null) reached.summed += walk.completions.has(task.id) ? 1 : 0;
              else reached.counted += walk.completions.has(task.id) ? 1 : 0;
            }
            // The naive reading (its own calendar and runs): the same completions and tallies.
            const recurrence = chain.rules.recurrence;
            const runName = (us: bigint) => (recurrence ? referenceRunName(us, recurrence.every, recurrence.timezone) : '');
            const mine = events.filter((e) => runName(e.occurredUs) === runName(period === 0n ? chain.rules.startUs : period));
            const reference = referenceQuestWalk({ ...chain.rules, recurrence: null }, mine);
            expect(new Map(reference.completions.map((c) => [c.taskId, c.eventId]))).toEqual(
              new Map([...walk.completions.values()].map((c) => [c.taskId, c.eventId])),
            );
            // The reference tallies every task; the walk only those that need more than one event.
            const accumulating = new Set(chain.rules.tasks.filter(isAccumulating).map((task) => task.id));
            expect(reference.tallies.filter(([id]) => accumulating.has(id)).sort()).toEqual(
              [...(walk.tallies ?? new Map())].map(([id, t]) => [id, t.count, t.totalMicros, t.streak]).sort(),
            );
          }
          if (!chain.rules.recurrence)
            expect(walks.get(0n)?.completions ?? new Map()).toEqual(computeCompletions(chain.rules, events));
        }
      }
      expect(reached.counted, 'counted tasks completed').toBeGreaterThan(0);
      expect(reached.summed, 'summed tasks completed').toBeGreaterThan(0);
      expect(reached.streakOfTwo, 'streaks two days long').toBeGreaterThan(0);
      expect(reached.usersWithTwoRuns, 'users in two runs of a repeating chain').toBeGreaterThan(0);
    });
  }
});
