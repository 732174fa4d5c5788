import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { chainProgress, questChains, rewardDraws, rewardPrizes } from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { DomainError } from '../../shared/errors.js';
import { drawPrize, seedHash } from '../../shared/rewards/verifiable-draw.js';
import { type ChainRewardSpec, createTestChain, createTestUser, type TestChain } from '../../shared/testing/chains.js';
import { recordChanges } from '../../shared/testing/change-notices.js';
import { useTestData } from '../../shared/testing/test-data.js';
import type { CoreDeps } from '../deps.js';
import { restockPrize, rotateDrawSeed } from '../quest-chains/mystery-box.js';
import { claimReward } from './claim-reward.js';
import { getDraw } from './get-draw.js';

// Mystery boxes (docs/mystery-boxes.md) on the real database: the draw, the
// stock under concurrent claims, restocking, and recomputing a draw from
// the revealed seed.

const { database, platform, advertiser } = useTestData('mystery_box');
const webhooks = { deliver: async () => {} } as unknown as CoreDeps['webhooks'];
// Read when called: the database handle is filled in by beforeAll.
const deps = {
  get db() {
    return database.db;
  },
  webhooks,
  changes: recordChanges().changes,
};

const box = (prizes: NonNullable<ChainRewardSpec['prizes']>, value: number | null = 5): ChainRewardSpec => ({
  type: 'mystery_box',
  name: 'Box',
  value,
  prizes,
});

/** `count` users who completed the one-task chain (its chain_progress as the matcher writes it); answers their platform user ids. */
async function completers(chain: TestChain, prefix: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const platformUserId = `${prefix}-${i}`;
    const userId = await createTestUser(database.db, platform.id, platformUserId);
    await database.db
      .insert(chainProgress)
      .values({ userId, chainId: chain.id, completedTasks: 1, totalTasks: 1, completedAt: 1_000_000n });
    ids.push(platformUserId);
  }
  return ids;
}

const claimBox = (chain: TestChain, platformUserId: string) =>
  claimReward(deps, { platformId: platform.id, platformUserId: senderUserId(platformUserId), chainId: chain.id });

const outcome = (promise: Promise<{ prize: { prizeId: string } | null }>) =>
  promise.then(
    (claim) => claim.prize?.prizeId ?? 'no prize',
    (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
  );

const stockOf = async (chain: TestChain) =>
  Object.fromEntries(
    (await database.db.select().from(rewardPrizes).where(eq(rewardPrizes.chainId, chain.id))).map((prize) => [
      prize.prizeId,
      prize.stock,
    ]),
  );

const tally = (outcomes: string[]) =>
  outcomes.reduce<Record<string, number>>((counts, o) => {
    counts[o] = (counts[o] ?? 0) + 1;
    return counts;
  }, {});

describe('mystery boxes', () => {
  it('draws one prize in the claim, answers it, keeps the draw, and the revealed seed recomputes it', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      tasks: [{ event: 'box-step' }],
      reward: box([
        { prize_id: 'gold', name: 'Gold', value: 50, weight: 1, stock: 3 },
        { prize_id: 'tin', name: 'Tin', value: 1, weight: 9 },
      ]),
    });
    const [user] = await completers(chain, 'draw', 1);
    const claim = await claimBox(chain, user!);
    expect(claim.prize?.prizeId).toMatch(/^(gold|tin)$/);
    expect(claim.reward).toMatchObject({ type: 'mystery_box', name: 'Box' });

    const hidden = await getDraw(deps, { platformId: platform.id, claimId: claim.claimId });
    expect(hidden).toMatchObject({ claimId: claim.claimId, prizeId: claim.prize!.prizeId, serverSeed: null, totalWeight: 10 });
    expect(hidden.candidates).toEqual([
      { prize_id: 'gold', weight: 1 },
      { prize_id: 'tin', weight: 9 },
    ]);
    // Claiming again answers the first claim: nothing drawn twice.
    const again = await claimBox(chain, user!);
    expect([again.alreadyClaimed, again.claimId, again.prize]).toEqual([true, claim.claimId, claim.prize]);
    expect(await database.db.$count(rewardDraws, eq(rewardDraws.chainId, chain.id))).toBe(1);

    const rotated = await rotateDrawSeed(deps, { chainId: chain.id });
    expect(rotated.retired.seedHash).toBe(hidden.seedHash);
    expect(rotated.seedHash).not.toBe(hidden.seedHash);
    const revealed = await getDraw(deps, { platformId: platform.id, claimId: claim.claimId });
    expect(seedHash(revealed.serverSeed!)).toBe(revealed.seedHash);
    const recomputed = drawPrize(
      revealed.serverSeed!,
      revealed.claimId,
      revealed.candidates.map((c) => ({ prizeId: c.prize_id, weight: c.weight })),
    );
    expect(recomputed).toEqual({
      digest: revealed.digest,
      roll: revealed.roll,
      totalWeight: revealed.totalWeight,
      prizeId: claim.prize!.prizeId,
    });
  });

  it('never takes a stock below 0 under 30 concurrent claims: exactly the 10 in stock are drawn, the rest answer out_of_stock, and a restock reopens the box', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      tasks: [{ event: 'stock-step' }],
      reward: box([
        { prize_id: 'gold', name: 'Gold', weight: 1, stock: 4 },
        { prize_id: 'silver', name: 'Silver', weight: 3, stock: 6 },
      ]),
    });
    const users = await completers(chain, 'stock', 30);
    const outcomes = await Promise.all(users.map((user) => outcome(claimBox(chain, user))));
    expect(tally(outcomes)).toEqual({ gold: 4, silver: 6, out_of_stock: 20 });
    expect(await stockOf(chain)).toEqual({ gold: 0, silver: 0 });

    await restockPrize(deps, { chainId: chain.id, prizeId: 'silver', stock: 2 });
    const refused = users.filter((_, index) => outcomes[index] === 'out_of_stock');
    const later = await Promise.all(refused.slice(0, 5).map((user) => outcome(claimBox(chain, user))));
    expect(tally(later)).toEqual({ silver: 2, out_of_stock: 3 });
    expect(await stockOf(chain)).toEqual({ gold: 0, silver: 0 });
  });

  it("charges the prize's value to the budget, and a refused claim gives its prize back", async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      tasks: [{ event: 'budget-box-step' }],
      budget: 10,
      reward: box([{ prize_id: 'big', name: 'Big', value: 8, weight: 1, stock: 5 }]),
    });
    const [first, second] = await completers(chain, 'budget-box', 2);
    expect(await outcome(claimBox(chain, first!))).toBe('big');
    expect(await outcome(claimBox(chain, second!))).toBe('budget_exhausted');
    const [row] = await database.db
      .select({ spent: questChains.budgetSpent })
      .from(questChains)
      .where(eq(questChains.id, chain.id));
    expect(row?.spent).toBe(8);
    expect(await stockOf(chain)).toEqual({ big: 4 });
  });

  it('shows a draw only to the platform of its claim, and refuses what is not a box', async () => {
    const plain = await createTestChain(database.db, platform.id, advertiser.id, { tasks: [{ event: 'plain-step' }] });
    const [user] = await completers(plain, 'plain', 1);
    const claim = await claimBox(plain, user!);
    expect(claim.prize).toBeNull();
    await expect(getDraw(deps, { platformId: platform.id, claimId: claim.claimId })).rejects.toMatchObject({ code: 'not_found' });
    await expect(rotateDrawSeed(deps, { chainId: plain.id })).rejects.toMatchObject({ code: 'not_a_mystery_box' });
    await expect(restockPrize(deps, { chainId: plain.id, prizeId: 'gold', stock: 1 })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
