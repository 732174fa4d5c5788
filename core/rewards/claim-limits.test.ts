import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  questChains,
  questTasks,
  rewardClaims,
  taskCompletions,
  webhookEndpoints,
  webhookMessages,
} from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { WEBHOOK_EVENT_TYPES } from '../../shared/domain/webhooks.js';
import { DomainError } from '../../shared/errors.js';
import { createTestChain, createTestUser, type TestChain } from '../../shared/testing/chains.js';
import { recordChanges } from '../../shared/testing/change-notices.js';
import { useTestData } from '../../shared/testing/test-data.js';
import type { CoreDeps } from '../deps.js';
import { claimReward } from './claim-reward.js';

// Budgets and claim caps (docs/budgets.md) under concurrent claims, on the real
// database. The test chains' first task rewards 10 (shared/testing/chains.ts).

const { database, platform, advertiser } = useTestData('claim_limits');
const webhooks = { deliver: async () => {} } as unknown as CoreDeps['webhooks'];

/** `count` users who completed the chain's first task (as the matcher stores it); answers their platform user ids. */
async function completers(chain: TestChain, prefix: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const platformUserId = `${prefix}-${i}`;
    const userId = await createTestUser(database.db, platform.id, platformUserId);
    await database.db.insert(taskCompletions).values({
      userId,
      taskId: chain.taskIds[0]!,
      chainId: chain.id,
      eventId: randomUUID(),
      completedAt: 1_000_000n,
      sinceJoinedUs: 0n,
    });
    ids.push(platformUserId);
  }
  return ids;
}

/** Every user claims the first task's reward at once; answers how many were granted and the codes of the refusals. */
async function claimAll(chain: TestChain, users: string[], changes = recordChanges().changes) {
  const outcomes = await Promise.all(
    users.map((id) =>
      claimReward(
        { db: database.db, webhooks, changes },
        { platformId: platform.id, platformUserId: senderUserId(id), taskId: chain.taskIds[0]! },
      ).then(
        () => 'granted',
        (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
      ),
    ),
  );
  return { granted: outcomes.filter((o) => o === 'granted').length, refused: new Set(outcomes.filter((o) => o !== 'granted')) };
}

describe('claim limits', () => {
  it('grants exactly the budget (10 rewards of 10) under 50 concurrent claims, refuses the rest, and tells the advertiser once', async () => {
    const [endpoint] = await database.db
      .insert(webhookEndpoints)
      .values({
        providerId: advertiser.id,
        url: 'https://example.com/hook',
        eventTypes: [...WEBHOOK_EVENT_TYPES],
        secret: 'whsec_dGVzdA==',
      })
      .returning({ id: webhookEndpoints.id });
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      budget: 100,
      tasks: [{ event: 'budget-step' }],
    });
    const { granted, refused } = await claimAll(chain, await completers(chain, 'budget', 50));
    expect({ granted, refused: [...refused] }).toEqual({ granted: 10, refused: ['budget_exhausted'] });
    const [row] = await database.db
      .select({ spent: questChains.budgetSpent })
      .from(questChains)
      .where(eq(questChains.id, chain.id));
    expect(row?.spent).toBe(100);
    expect(await database.db.$count(rewardClaims, eq(rewardClaims.chainId, chain.id))).toBe(10);
    const messages = await database.db.select().from(webhookMessages).where(eq(webhookMessages.endpointId, endpoint!.id));
    expect(messages.map((m) => [m.type, m.data])).toEqual([
      ['chain.budget_exhausted', { quest_chain_id: chain.id, budget: 100 }],
    ]);
  });

  it('tells each granted claimer that their answer changed, and tells nothing of a refused claim', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      maxClaimsPerReward: 2,
      tasks: [{ event: 'told-step' }],
    });
    const { changes, told } = recordChanges();
    const users = await completers(chain, 'told', 5);
    const { granted } = await claimAll(chain, users, changes);
    expect(granted).toBe(2);
    expect(told.map(([kind]) => kind)).toEqual(['answerChanged', 'answerChanged']);
    expect(told.every(([, platformId, user]) => platformId === platform.id && users.includes(user!))).toBe(true);
  });

  it('grants each reward to at most max_claims_per_reward users, however many claim at once, and takes nothing from a refused claim', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      maxClaimsPerReward: 3,
      budget: 1000,
      tasks: [{ event: 'cap-step' }],
    });
    const { granted, refused } = await claimAll(chain, await completers(chain, 'cap', 20));
    expect({ granted, refused: [...refused] }).toEqual({ granted: 3, refused: ['reward_cap_reached'] });
    const [task] = await database.db
      .select({ claims: questTasks.claimsCount })
      .from(questTasks)
      .where(eq(questTasks.id, chain.taskIds[0]!));
    const [spent] = await database.db
      .select({ spent: questChains.budgetSpent })
      .from(questChains)
      .where(eq(questChains.id, chain.id));
    expect([task?.claims, spent?.spent]).toEqual([3, 30]);
  });

  it('leaves a chain without limits alone: every claim granted, nothing counted', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, { tasks: [{ event: 'free-step' }] });
    const { granted } = await claimAll(chain, await completers(chain, 'free', 5));
    expect(granted).toBe(5);
    const [task] = await database.db
      .select({ claims: questTasks.claimsCount })
      .from(questTasks)
      .where(eq(questTasks.id, chain.taskIds[0]!));
    expect(task?.claims).toBe(0);
  });
});
