import type { ApiClient } from '../../../shared/testing/api-client.js';
import type { EventSource } from '../../support/world/event-source.js';
import { type OpenLoopResult, openLoop } from '../../support/world/open-loop.js';
import type { WorldOptions } from '../../support/world/world-options.js';
import { type SeededWorld, seedProductionWorld } from '../../support/world/world-seed.js';
import { type Sample, sendEvents } from './event-load.js';
import type { History } from './history.js';
import type { Tenant } from './world.js';

// Sends open past this many calls are dropped and counted (the benchmark's bound): an overloaded service shows as a shortfall.
const MAX_OUTSTANDING_SENDS = 256;

/**
 * The benchmark's production-shaped world (e2e/support/world: chains,
 * users, Zipf producers) seeded through the API, its platforms as the
 * checker's tenants: every registered user, the chains' rules for the model.
 */
export async function seedProductionTenants(
  client: ApiClient,
  options: WorldOptions,
  log: (message: string) => void,
): Promise<{ world: SeededWorld; tenants: Tenant[] }> {
  const world = await seedProductionWorld(client, options, 0, log);
  const tenants = world.platforms.map((platform, index) => ({
    id: platform.id,
    headers: platform.headers,
    users: world.users.filter((user) => user.platformIndex === index).map((user) => user.platformUserId),
    strangers: [],
    chains: world.chains
      .filter((chain) => chain.platformIndex === index)
      .map((chain) => ({ id: chain.id, taskIds: chain.rules.tasks.map((task) => task.id), rules: chain.rules })),
  }));
  return { world, tenants };
}

/**
 * The world's producers at `ratePerS` (open loop: a slow or absent API does
 * not lower the offered rate) until `stop()`; every answer is recorded in
 * the chaos history, so the checker judges each event as it judges the
 * other scenarios' load.
 */
export function driveWorld(client: ApiClient, history: History, tenants: Tenant[], source: EventSource, ratePerS: number) {
  const samples: Sample[] = [];
  const stopping = new AbortController();
  const running: Promise<OpenLoopResult> = openLoop({
    ratePerS,
    durationS: Number.POSITIVE_INFINITY,
    maxOutstanding: MAX_OUTSTANDING_SENDS,
    signal: stopping.signal,
    start: (nowMs) => {
      const send = source.next(nowMs);
      return { units: send.events.length, done: sendEvents(client, history, tenants[send.platformIndex]!, send.events, samples) };
    },
  });
  return {
    samples,
    /** Stops sending and waits for the calls in flight; what the open loop started and dropped. */
    async stop(): Promise<OpenLoopResult> {
      stopping.abort();
      return running;
    },
  };
}
