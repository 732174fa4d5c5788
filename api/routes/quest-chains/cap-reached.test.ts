import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { matchBatch } from '../../../core/matching/match-batch.js';
import { insertOrFindEvents } from '../../../shared/db/event-store.js';
import { chainAdmissions, questChains, taskCompletions } from '../../../shared/db/schema/index.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { createTestChain, createTestUser } from '../../../shared/testing/chains.js';
import { useTestService } from '../../testing/test-service.js';

// max_completions (docs/budgets.md, "Completion caps"): the matcher admits at
// most that many users to a chain, under concurrent batches, and GET active
// and explain show the others `cap_reached`. Definitions uncached, so the
// reads see the places taken at once.

const { database, api, platform, advertiser } = useTestService('cap_reached', { config: { CHAIN_CACHE_TTL_MS: '0' } });

const send = async (platformUserId: string, eventType: string) => {
  const [event] = await insertOrFindEvents(database.db, [
    { providerId: platform.id, userId: senderUserId(platformUserId), eventType, occurredAt: BigInt(Date.now()) * 1000n },
  ]);
  return event!.id;
};
const match = (eventIds: string[]) => matchBatch({ db: database.db }, { eventIds, evaluateUserIds: [] });

const active = async (platformUserId: string, chainId: string) => {
  const answer = await api.call('GET', `/v1/quest-chains/active/${platformUserId}`, { headers: platform.headers });
  return answer.json.data.quest_chains.find((c: { quest_chain: { id: string } }) => c.quest_chain.id === chainId).user_progress;
};
const explain = async (platformUserId: string, chainId: string) =>
  (await api.call('GET', `/v1/quest-chains/${chainId}/users/${platformUserId}/explain`, { headers: platform.headers })).json.data;

describe('max_completions', () => {
  it('admits exactly max_completions users under concurrent batches; the rest make no progress and read cap_reached', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, {
      maxCompletions: 3,
      tasks: [{ event: 'cap-a' }, { event: 'cap-b' }],
    });
    const people = Array.from({ length: 10 }, (_, i) => `cap-user-${i}`);
    for (const id of people) await createTestUser(database.db, platform.id, id);
    const firstEvents = await Promise.all(people.map((id) => send(id, 'cap-a')));
    // Five batches at once, two users each: they contend for the same places.
    await Promise.all([0, 2, 4, 6, 8].map((i) => match(firstEvents.slice(i, i + 2))));

    const admitted = await database.db
      .select({ userId: chainAdmissions.userId })
      .from(chainAdmissions)
      .where(eq(chainAdmissions.chainId, chain.id));
    const completers = await database.db
      .selectDistinct({ userId: taskCompletions.userId })
      .from(taskCompletions)
      .where(eq(taskCompletions.chainId, chain.id));
    const [row] = await database.db
      .select({ admitted: questChains.admittedUsers })
      .from(questChains)
      .where(eq(questChains.id, chain.id));
    expect([admitted.length, completers.length, row?.admitted]).toEqual([3, 3, 3]);
    expect(new Set(completers.map((c) => c.userId))).toEqual(new Set(admitted.map((a) => a.userId)));

    // Everyone sends the second task's event: the admitted complete the chain, the others stay at nothing.
    await match(await Promise.all(people.map((id) => send(id, 'cap-b'))));
    const progress = await Promise.all(people.map((id) => active(id, chain.id)));
    const completed = progress.filter((p) => p.status === 'completed');
    const shutOut = progress.filter((p) => p.cap_reached === true);
    expect([completed.length, shutOut.length]).toEqual([3, 7]);
    expect(completed.every((p) => p.cap_reached === false)).toBe(true);
    expect(shutOut.every((p) => p.status === 'not_started' && p.completed_tasks === 0)).toBe(true);

    const outIndex = progress.findIndex((p) => p.cap_reached === true);
    const inIndex = progress.findIndex((p) => p.status === 'completed');
    const outside = await explain(people[outIndex]!, chain.id);
    expect(outside.cap_reached).toBe(true);
    expect(outside.tasks.map((t: { candidates: { verdict: string }[] }) => t.candidates.map((c) => c.verdict))).toEqual([
      ['cap_reached'],
      ['cap_reached'],
    ]);
    const inside = await explain(people[inIndex]!, chain.id);
    expect(inside.cap_reached).toBe(false);
    expect(inside.tasks.every((t: { user_status: string }) => t.user_status === 'completed')).toBe(true);
  });

  it('leaves a chain without max_completions alone: every user admitted, no place counted', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, { tasks: [{ event: 'free-a' }] });
    const people = ['free-1', 'free-2', 'free-3', 'free-4'];
    for (const id of people) await createTestUser(database.db, platform.id, id);
    await match(await Promise.all(people.map((id) => send(id, 'free-a'))));
    const progress = await Promise.all(people.map((id) => active(id, chain.id)));
    expect(progress.map((p) => [p.status, p.cap_reached])).toEqual(people.map(() => ['completed', false]));
    expect(await database.db.$count(chainAdmissions, eq(chainAdmissions.chainId, chain.id))).toBe(0);
  });
});
