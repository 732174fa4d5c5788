import { describe, expect, it } from 'vitest';
import { takePlaces } from '../../shared/db/admission-store.js';
import { loadChainStamps, loadMatchingChainsByIds, type MatchingChain, updateChainStatus } from '../../shared/db/chain-store.js';
import { createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { useTestData } from '../../shared/testing/test-data.js';
import { ChainCache } from './chain-cache.js';

// Chains kept between batches (docs/matching.md): what a batch gets from the
// cache must be what reading its chains whole would give, after every change
// a chain can go through once created (a status, places taken, a new chain),
// and a kept chain is reused only while nothing of it moved.

const { database, platform, advertiser } = useTestData('chain-cache');

describe('chains kept between batches', () => {
  it('give what a whole read gives after every change, and reuse a chain only while its stamp holds', async () => {
    const userId = await createTestUser(database.db, platform.id, 'chain-cache-user');
    const spec = { start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z', reward: false as const };
    const first = await createTestChain(database.db, platform.id, advertiser.id, { ...spec, name: 'first', maxCompletions: 5 });
    const cache = new ChainCache();

    /** The batch's chains through the cache, checked against the whole read of the same chains. */
    const batchChains = async (): Promise<MatchingChain[]> => {
      const stamps = await loadChainStamps(database.db, [userId]);
      const chains = await cache.chainsOf(database.db, stamps);
      expect(chains).toEqual(
        await loadMatchingChainsByIds(
          database.db,
          stamps.map((stamp) => stamp.id),
        ),
      );
      return chains;
    };

    const [read] = await batchChains();
    expect(read!.chain.id).toBe(first.id);
    // Nothing moved: the very object kept, not a new read.
    const [again] = await batchChains();
    expect(again).toBe(read);

    expect(await updateChainStatus(database.db, first.id, 'paused')).toBe(true);
    const [paused] = await batchChains();
    expect(paused!.chain.status).toBe('paused');
    expect(paused).not.toBe(read);

    // Places taken move without a new read of the chain: its tasks are the ones kept.
    await takePlaces(database.db, new Map([[first.id, 2]]));
    const [admitted] = await batchChains();
    expect(admitted!.chain.admittedUsers).toBe(2);
    expect(admitted!.tasks).toBe(paused!.tasks);
    expect((await batchChains())[0]).toBe(admitted);

    const second = await createTestChain(database.db, platform.id, advertiser.id, { ...spec, name: 'second' });
    const both = await batchChains();
    expect(both.map((chain) => chain.chain.id).sort()).toEqual([first.id, second.id].sort());
    expect(both.find((chain) => chain.chain.id === first.id)).toBe(admitted);
  });

  it('has no chains for users it cannot find', async () => {
    const stamps = await loadChainStamps(database.db, ['00000000-0000-4000-8000-000000000000']);
    expect(stamps).toEqual([]);
    expect(await new ChainCache().chainsOf(database.db, stamps)).toEqual([]);
  });
});
