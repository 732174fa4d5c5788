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

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * `count` chains spread over the platforms, each funded by one of the
 * advertisers: 3-5 tasks on the producers' event types, half of them ordered,
 * with amount, currency and time-window conditions, windows around `nowMs`
 * so that late events fall on both sides of some task's start.
 */
export function worldChains(
  random: SeededRandom,
  count: number,
  platforms: number,
  advertisers: number,
  nowMs: number,
): WorldChain[] {
  const types = EVENT_TYPES.map(([type]) => type);
  return Array.from({ length: count }, (_, index) => {
    const platformIndex = index % platforms;
    const tasks = Array.from({ length: random.int(3, 5) }, (): WorldTask => {
      const task: WorldTask = { condition_event_type: random.pick(types) };
      if (random.chance(0.4)) task.condition_min_amount = random.pick([10, 50, 100, 250]);
      if (random.chance(0.4)) task.condition_currency = random.pick(CURRENCIES);
      if (random.chance(0.2)) task.condition_after_timestamp = iso(nowMs - random.int(5, 90) * 60_000);
      if (random.chance(0.1)) task.condition_before_timestamp = iso(nowMs + random.int(1, 30) * 86_400_000);
      return task;
    });
    // The first chain of each platform opens with a bare signup task: the probes' event.
    if (index < platforms) tasks[0] = { condition_event_type: PROBE_EVENT_TYPE };
    return {
      platformIndex,
      advertiserIndex: index % advertisers,
      name: `world chain ${index}`,
      allow_any_order: index >= platforms && random.chance(0.5),
      start_date: iso(nowMs - 30 * 86_400_000),
      end_date: iso(nowMs + 365 * 86_400_000),
      tasks,
    };
  });
}

/** The admin API body of a chain, with a chain reward. */
export function chainBody(chain: WorldChain, platformId: string, advertiserId: string) {
  return {
    ...wireChainBody(chain, platformId, advertiserId, 10),
    chain_reward: { type: 'points', name: 'chain bonus', value: 100 },
  };
}
