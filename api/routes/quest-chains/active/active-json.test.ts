import { describe, expect, it } from 'vitest';
import type { ActiveChainProgress, ActiveChains, ClaimableTask } from '../../../../core/quest-chains/read-active-chains.js';
import { type ChainDefinition, loadLiveChains } from '../../../../shared/db/chain-store.js';
import type { ServiceUserId } from '../../../../shared/domain/ids.js';
import { createTestChain } from '../../../../shared/testing/chains.js';
import { seededRandom } from '../../../../shared/testing/random.js';
import { useTestData } from '../../../../shared/testing/test-data.js';
import { activeChainsJson } from './active-json.js';
import { toActiveChainsResponse } from './schema.js';

// GET active's body is written as text from kept parts (active-json.ts): it must be, byte for byte, what
// JSON.stringify writes for the published shape (toActiveChainsResponse in successBody's envelope). Checked over
// stored definitions of every kind (no reward, a mystery box's prizes, a repeating chain, counted tasks, text that
// JSON escapes) and random standings in them, twice over each definition (the second from the kept parts).

const { database, platform, advertiser } = useTestData('active-json');
const SEED = 20_261_128;

async function storedDefinitions(): Promise<ChainDefinition[]> {
  const spec = { start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' };
  const chain = (extra: Parameters<typeof createTestChain>[3]) =>
    createTestChain(database.db, platform.id, advertiser.id, { ...spec, ...extra });
  await chain({ name: 'plain "quoted" \\ chain', reward: false });
  await chain({
    name: 'mystery box ✓ – ünïcode',
    reward: {
      type: 'mystery_box',
      name: 'Box\n"of" prizes',
      value: 10,
      prizes: [
        { prize_id: 'gold', name: 'Gold', value: 100, weight: 1, stock: 0 },
        { prize_id: 'silver', name: 'Silver', weight: 3, stock: 5 },
        { prize_id: 'bronze', name: 'Bronze', value: null, weight: 6 },
      ],
    },
  });
  await chain({
    name: 'daily',
    recurrence: { every: 'day', timezone: 'Europe/Berlin' },
    timezone: 'Europe/Berlin',
    reward: { type: 'points', name: 'Points', value: 5 },
  });
  await chain({
    name: 'counted',
    tasks: [{ event: 'trade', min_count: 3 }, { event: 'deposit', min_amount: 10.5, currency: 'USD' }, { event: 'kyc' }],
  });
  return loadLiveChains(database.db, platform.id);
}

const US = 1_767_225_600_000_000n; // 2026-01-01T00:00:00Z

function randomStanding(definition: ChainDefinition, random: ReturnType<typeof seededRandom>): ActiveChainProgress {
  const us = () => US + BigInt(random.int(0, 10_000_000)) * 1000n;
  const statuses = ['completed', 'available', 'locked'] as const;
  const run = () => {
    const startUs = us();
    return { startUs, endUs: startUs + 86_400_000_000n };
  };
  const completedTasks = random.int(0, definition.tasks.length);
  return {
    definition,
    taskStatuses: new Map(definition.tasks.map((task) => [task.id, random.pick(statuses)])),
    taskProgress: new Map(
      definition.tasks
        .filter(() => random.chance(0.5))
        .map((task) => [
          task.id,
          {
            count: random.int(0, 5),
            countRequired: random.int(1, 5),
            total: random.chance(0.5) ? null : random.int(0, 1000) / 7,
            totalRequired: random.chance(0.5) ? null : 50,
            streak: random.chance(0.5) ? null : random.int(0, 9),
            streakRequired: random.chance(0.5) ? null : 3,
          },
        ]),
    ),
    progress: {
      status: random.pick(['not_started', 'in_progress', 'completed'] as const),
      progress: random.int(0, 100),
      completedTasks,
      totalTasks: definition.tasks.length,
      completedUs: random.chance(0.5) ? null : us(),
      joinedUs: us(),
    },
    rewardClaimable: random.chance(0.5),
    rewardClaimableUs: random.chance(0.5) ? null : us(),
    capReached: random.chance(0.2),
    run: random.chance(0.5) ? null : run(),
    claimableRuns: Array.from({ length: random.int(0, 3) }, () => {
      const completedUs = us();
      return { runStartUs: us(), run: random.chance(0.3) ? null : run(), completedUs, claimableUs: completedUs + 1000n };
    }),
  };
}

function randomAnswer(definitions: ChainDefinition[], random: ReturnType<typeof seededRandom>): ActiveChains {
  const known = random.chance(0.9);
  const chains = known ? definitions.filter(() => random.chance(0.8)).map((d) => randomStanding(d, random)) : [];
  const claimableTasks: ClaimableTask[] = chains.flatMap(({ definition }) =>
    definition.tasks
      .filter(() => random.chance(0.3))
      .map((task) => ({
        chainId: definition.chain.id,
        task,
        completedUs: US,
        claimableUs: US + 5_000n,
        run: random.chance(0.5) ? null : { startUs: US, endUs: US + 1n },
      })),
  );
  return {
    userId: known ? ('00000000-0000-4000-8000-000000000001' as ServiceUserId) : null,
    liveToken: random.chance(0.5) ? '' : `tok.${random.int(0, 1e9)}`,
    baselineUs: random.chance(0.3) ? null : US + 123_456n,
    chains,
    claimableTasks,
  };
}

describe('the active answer written as text', () => {
  it('is what JSON.stringify writes for the published shape, for every kind of chain and standing', async () => {
    const definitions = await storedDefinitions();
    expect(definitions.length).toBe(4);
    const random = seededRandom(SEED);
    for (let i = 0; i < 400; i++) {
      const answer = randomAnswer(definitions, random);
      const livemode = random.pick([true, false, undefined]);
      const data = toActiveChainsResponse(answer);
      const expected = JSON.stringify(livemode === undefined ? { success: true, data } : { success: true, livemode, data });
      expect(activeChainsJson(answer, livemode)).toBe(expected);
    }
  });
});
