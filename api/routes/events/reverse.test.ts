import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../core/backtests/run-backtest.js';
import { events, pendingEvents, taskCompletions, users } from '../../../shared/db/schema/index.js';
import type { ServiceUserId } from '../../../shared/domain/ids.js';
import { createTestChain, createTestUser } from '../../../shared/testing/chains.js';
import { useTestService } from '../../testing/test-service.js';

// POST /v1/events/{event_id}/reverse and its batch form over HTTP: who may
// reverse what, idempotency, and the answers. What a reversal does to
// progress is core/events/reverse-events.test.ts.

const { database, api, platform, advertiser } = useTestService('reverse_events');

let counter = 0;
async function sent(headers = platform.headers, userId = 'rev-user') {
  const body = {
    user_id: userId,
    event_type: 'purchase',
    timestamp: `2026-03-01T10:00:${String((counter += 1) % 60).padStart(2, '0')}.${counter}Z`,
    amount: 10,
  };
  const answer = await api.call('POST', '/v1/events', { headers, body });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data.event_id as string;
}
const reverse = (eventId: string, body?: unknown, headers = platform.headers) =>
  api.call('POST', `/v1/events/${eventId}/reverse`, body === undefined ? { headers } : { headers, body });

describe('POST /v1/events/{event_id}/reverse', () => {
  it("reverses the caller's event, then answers the first reversal with already_reversed", async () => {
    const id = await sent();
    const first = await reverse(id, { reason: 'refund R-1' });
    expect(first.status, first.text).toBe(200);
    expect(first.json.data).toEqual({
      event_id: id,
      reversed_at: expect.stringMatching(/Z$/),
      reason: 'refund R-1',
      already_reversed: false,
    });
    const [row] = await database.db.select().from(events).where(eq(events.id, id));
    expect(row?.reversedAt).not.toBeNull();
    expect(await database.db.$count(pendingEvents, eq(pendingEvents.eventId, id))).toBe(0);

    const again = await reverse(id, { reason: 'other' });
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual({ ...first.json.data, already_reversed: true });
  });

  it('takes a bare POST without a body, from an advertiser too', async () => {
    const id = await sent(advertiser.headers, 'adv-user');
    const answer = await reverse(id, undefined, advertiser.headers);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toMatchObject({ event_id: id, reason: null, already_reversed: false });
  });

  it("answers 404 for another provider's event and for an unknown id, and leaves the event alone", async () => {
    const id = await sent();
    const foreign = await reverse(id, {}, advertiser.headers);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toMatchObject({ success: false, code: 'not_found', param: 'event_id' });
    expect((await reverse('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const [row] = await database.db.select().from(events).where(eq(events.id, id));
    expect(row?.reversedAt).toBeNull();
  });

  it('answers 400 naming what is wrong: an id that is not a UUID, an unknown field, a reason too long', async () => {
    expect((await reverse('not-a-uuid', {})).json).toMatchObject({ success: false, param: 'event_id' });
    const unknown = await reverse(await sent(), { why: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ code: 'unknown_field' });
    const long = await reverse(await sent(), { reason: 'x'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.json).toMatchObject({ param: 'reason' });
  });

  it('flags for re-evaluation the users whose task the event completed, and only them', async () => {
    const chain = await createTestChain(database.db, platform.id, advertiser.id, { tasks: [{ event: 'purchase' }] });
    const flagged = async (userId: ServiceUserId) =>
      (await database.db.select({ flagged: users.needsEvaluation }).from(users).where(eq(users.id, userId)))[0]?.flagged;
    const [completed, passedOver] = [
      await createTestUser(database.db, platform.id, 'rev-completed'),
      await createTestUser(database.db, platform.id, 'rev-passed'),
    ];
    await database.db.update(users).set({ needsEvaluation: false });
    const completing = await sent(platform.headers, 'rev-completed');
    // As the matcher stores it: this event completed the task; the other user's completed nothing.
    await database.db.insert(taskCompletions).values({
      userId: completed,
      taskId: chain.taskIds[0]!,
      chainId: chain.id,
      eventId: completing,
      completedAt: 1n,
      sinceJoinedUs: 0n,
    });
    expect((await reverse(completing)).status).toBe(200);
    expect((await reverse(await sent(platform.headers, 'rev-passed'))).status).toBe(200);
    expect([await flagged(completed), await flagged(passedOver)]).toEqual([true, false]);
  });
});

describe('POST /v1/events/reverse', () => {
  it('answers each item in input order: reversed, already reversed, not found', async () => {
    const [a, b] = [await sent(), await sent()];
    await reverse(b);
    const foreign = await sent(advertiser.headers, 'adv-2');
    const answer = await api.call('POST', '/v1/events/reverse', {
      headers: platform.headers,
      body: { events: [{ event_id: a, reason: 'chargeback' }, { event_id: b }, { event_id: foreign }] },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.results).toEqual([
      { status: 'reversed', event_id: a, reversed_at: expect.any(String), reason: 'chargeback', already_reversed: false },
      { status: 'reversed', event_id: b, reversed_at: expect.any(String), reason: null, already_reversed: true },
      { status: 'rejected', event_id: foreign, error: `No event ${foreign} sent by you`, code: 'not_found' },
    ]);
  });

  it('answers 400 for an empty list, more than 500 items, or an id that is not a UUID', async () => {
    for (const body of [
      { events: [] },
      { events: Array.from({ length: 501 }, () => ({ event_id: '00000000-0000-4000-8000-000000000000' })) },
      { events: [{ event_id: 'x' }] },
    ]) {
      const answer = await api.call('POST', '/v1/events/reverse', { headers: platform.headers, body });
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
  });
});

describe('a reversed event in explain and backtest', () => {
  it('is explained as reversed, and a backtest counts it for nothing', async () => {
    const chainBody = {
      platform_id: platform.id,
      advertiser_id: advertiser.id,
      name: 'Refundable',
      start_date: '2026-01-01T00:00:00Z',
      end_date: '2027-01-01T00:00:00Z',
      tasks: [
        {
          sequence_number: 1,
          name: 'Buy',
          condition_event_type: 'bt-buy',
          reward_type: 'points',
          reward_name: 'Points',
          reward_value: 10,
        },
      ],
    };
    const created = await api.call('POST', '/admin/v1/quest-chains', { headers: api.adminHeaders, body: chainBody });
    expect(created.status, created.text).toBe(200);
    const chainId = created.json.data.quest_chain.id as string;
    for (const user of ['bt-kept', 'bt-refunded']) {
      expect(
        (await api.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: user } })).status,
      ).toBe(200);
      const sentEvent = await api.call('POST', '/v1/events', {
        headers: platform.headers,
        body: { user_id: user, event_type: 'bt-buy', timestamp: '2026-02-01T00:00:00Z' },
      });
      if (user === 'bt-refunded') expect((await reverse(sentEvent.json.data.event_id)).status).toBe(200);
    }

    const explained = await api.call('GET', `/v1/quest-chains/${chainId}/users/bt-refunded/explain`, {
      headers: platform.headers,
    });
    expect(explained.json.data.tasks[0]).toMatchObject({ completed_by: null, candidates: [{ verdict: 'reversed' }] });
    const kept = await api.call('GET', `/v1/quest-chains/${chainId}/users/bt-kept/explain`, { headers: platform.headers });
    // No worker runs in this file: the kept event is still pending, and explained as such.
    expect(kept.json.data.tasks[0].candidates).toMatchObject([{ verdict: 'not_yet_processed' }]);

    const started = await api.call('POST', '/admin/v1/quest-chains/backtest', { headers: api.adminHeaders, body: chainBody });
    expect(started.status).toBe(202);
    const id = started.json.data.backtest_id as string;
    await runBacktest({ db: database.db, logger: api.deps.logger }, { backtestId: id });
    const done = await api.call('GET', `/admin/v1/backtests/${id}`, { headers: api.adminHeaders });
    expect(done.json.data.result).toMatchObject({ users_completed: 1, tasks: [{ sequence_number: 1, users_completed: 1 }] });
    expect(done.json.data.result.sample.map((s: { platform_user_id: string }) => s.platform_user_id)).not.toContain(
      'bt-refunded',
    );
  });
});
