import { describe, expect, it } from 'vitest';
import type { ChainDefinition } from '../../shared/db/chain-store.js';
import type { StoredWalk } from '../../shared/db/progress-store.js';
import { senderUserId, serviceUserId } from '../../shared/domain/ids.js';
import type { MatchUser } from '../../shared/domain/sources.js';
import { walkKey } from '../../shared/domain/walk-key.js';
import type { BatchView, BatchWrites } from '../matching/plan-batch.js';
import { batchFacts } from './batch-facts.js';

// Which facts a batch announces (§10), from what it loaded under its users' locks.

const PLATFORM = 'platform-1';
const ADVERTISER = 'advertiser-1';
const chain = {
  chain: { id: 'chain-1', platformId: PLATFORM, advertiserId: ADVERTISER },
  tasks: [
    { id: 'task-1', sequenceNumber: 1 },
    { id: 'task-2', sequenceNumber: 2 },
  ],
} as unknown as ChainDefinition;
const linked: MatchUser = {
  id: serviceUserId('user-1'),
  platformId: PLATFORM,
  platformUserId: senderUserId('pu-1'),
  registeredUs: 0n,
  links: new Map([[ADVERTISER, senderUserId('adv-1')]]),
};
const unlinked: MatchUser = {
  id: serviceUserId('user-2'),
  platformId: PLATFORM,
  platformUserId: senderUserId('pu-2'),
  registeredUs: 0n,
  links: new Map(),
};

function view(walks: StoredWalk[] = []): BatchView {
  return {
    users: new Map([linked, unlinked].map((u) => [u.id, u])),
    chainsByPlatform: new Map([[PLATFORM, [chain]]]),
    walks: new Map(walks.map((w) => [walkKey(w.userId, w.chainId), w])),
  };
}
const completion = (userId: string, taskId: string, us = 1_000_000n) => ({
  userId: serviceUserId(userId),
  chainId: 'chain-1',
  runStartUs: 0n,
  taskId,
  eventId: `event-${taskId}`,
  completedUs: us,
  sinceJoinedUs: us,
  held: false,
});
const progress = (userId: string, completedTasks: number) => ({
  userId: serviceUserId(userId),
  chainId: 'chain-1',
  runStartUs: 0n,
  completedTasks,
  totalTasks: 2,
  completedUs: completedTasks === 2 ? 2_000_000n : null,
  firstCompletedUs: 1_000_000n,
  mark: null,
  takesStamp: false,
  changedUs: null,
  generation: 0,
  tallies: null,
});
const writes = (w: Partial<BatchWrites>): BatchWrites => ({
  completions: [],
  undone: [],
  progress: [],
  standings: [],
  chainsUndone: new Set(),
  changedChains: new Map(),
  scoresMoved: new Set(),
  ...w,
});
const chains = new Map([['chain-1', chain]]);
// Both providers listen: every fact is built.
const everyone = new Set([PLATFORM, ADVERTISER]);
const stored = (userId: string, taskIds: string[]): StoredWalk => ({
  userId: serviceUserId(userId),
  chainId: 'chain-1',
  runStartUs: 0n,
  mark: null,
  completions: new Map(taskIds.map((t) => [t, { eventId: `old-${t}`, completedUs: 500_000n, held: false }])),
  generation: 0,
  tallies: null,
});

describe('batchFacts', () => {
  it('announces a new completion to the platform (platform_user_id) and to the linked sponsor (advertiser_user_id only)', () => {
    const facts = batchFacts(view(), writes({ completions: [completion('user-1', 'task-1')] }), chains, everyone);
    expect(facts).toEqual([
      {
        providerId: PLATFORM,
        type: 'task.completed',
        fact: 'task.completed/user-1/task-1',
        data: {
          quest_chain_id: 'chain-1',
          task_id: 'task-1',
          sequence_number: 1,
          completed_at: '1970-01-01T00:00:01.000Z',
          event_id: 'event-task-1',
          platform_user_id: 'pu-1',
        },
      },
      {
        providerId: ADVERTISER,
        type: 'task.completed',
        fact: 'task.completed/user-1/task-1',
        data: {
          quest_chain_id: 'chain-1',
          task_id: 'task-1',
          sequence_number: 1,
          completed_at: '1970-01-01T00:00:01.000Z',
          event_id: 'event-task-1',
          advertiser_user_id: 'adv-1',
        },
      },
    ]);
  });

  it("gives an unlinked user's completion to the platform only", () => {
    expect(
      batchFacts(view(), writes({ completions: [completion('user-2', 'task-1')] }), chains, everyone).map((f) => f.providerId),
    ).toEqual([PLATFORM]);
  });

  it('does not announce a completion moved to an earlier event (it was stored before)', () => {
    expect(
      batchFacts(
        view([stored('user-1', ['task-1'])]),
        writes({ completions: [completion('user-1', 'task-1', 100n)] }),
        chains,
        everyone,
      ),
    ).toEqual([]);
  });

  it('announces a chain completion on the batch that completes it, and not again', () => {
    const first = batchFacts(
      view([stored('user-2', ['task-1'])]),
      writes({ progress: [progress('user-2', 2)] }),
      chains,
      everyone,
    );
    expect(first).toEqual([
      {
        providerId: PLATFORM,
        type: 'chain.completed',
        fact: 'chain.completed/user-2/chain-1',
        data: { quest_chain_id: 'chain-1', completed_at: '1970-01-01T00:00:02.000Z', platform_user_id: 'pu-2' },
      },
    ]);
    expect(
      batchFacts(view([stored('user-2', ['task-1', 'task-2'])]), writes({ progress: [progress('user-2', 2)] }), chains, everyone),
    ).toEqual([]);
    expect(batchFacts(view(), writes({ progress: [progress('user-2', 1)] }), chains, everyone)).toEqual([]);
  });

  it('builds facts only for providers with an endpoint, none at all when nobody has one', () => {
    const batch = writes({ completions: [completion('user-1', 'task-1')] });
    expect(batchFacts(view(), batch, chains, new Set())).toEqual([]);
    expect(batchFacts(view(), batch, chains, new Set([ADVERTISER])).map((f) => f.providerId)).toEqual([ADVERTISER]);
    expect(batchFacts(view(), batch, chains, new Set([PLATFORM])).map((f) => f.providerId)).toEqual([PLATFORM]);
  });

  it('announces undone completions and an undone chain with the new generation, to the same recipients, at the batch stamp', () => {
    const before = { ...stored('user-1', ['task-1', 'task-2']), generation: 2 };
    const undoing = writes({
      undone: [{ userId: serviceUserId('user-1'), chainId: 'chain-1', runStartUs: 0n, taskId: 'task-2', eventId: 'old-task-2' }],
      progress: [{ ...progress('user-1', 1), generation: 3, changedUs: 3_000_000n }],
      chainsUndone: new Set(['user-1/chain-1']),
    });
    const facts = batchFacts(view([before]), undoing, chains, everyone);
    expect(facts.filter((f) => f.providerId === PLATFORM)).toEqual([
      {
        providerId: PLATFORM,
        type: 'task.reverted',
        fact: 'task.reverted/user-1/task-2/3',
        data: {
          quest_chain_id: 'chain-1',
          task_id: 'task-2',
          sequence_number: 2,
          reverted_at: '1970-01-01T00:00:03.000Z',
          event_id: 'old-task-2',
          platform_user_id: 'pu-1',
        },
      },
      {
        providerId: PLATFORM,
        type: 'chain.reverted',
        fact: 'chain.reverted/user-1/chain-1/3',
        data: { quest_chain_id: 'chain-1', reverted_at: '1970-01-01T00:00:03.000Z', platform_user_id: 'pu-1' },
      },
    ]);
    expect(facts.filter((f) => f.providerId === ADVERTISER).map((f) => f.type)).toEqual(['task.reverted', 'chain.reverted']);
  });

  it('names a completion made again after an undoing with its generation, and announces no held completion', () => {
    const after = { ...stored('user-2', []), generation: 1 };
    const again = batchFacts(
      view([after]),
      writes({ completions: [completion('user-2', 'task-1')], progress: [{ ...progress('user-2', 1), generation: 1 }] }),
      chains,
      everyone,
    );
    expect(again.map((f) => f.fact)).toEqual(['task.completed/user-2/task-1/1']);
    const held = batchFacts(
      view([after]),
      writes({ completions: [{ ...completion('user-2', 'task-1'), held: true }] }),
      chains,
      everyone,
    );
    expect(held).toEqual([]);
  });
});
