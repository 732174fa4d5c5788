import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type EventInput, ingestEvents, type ProviderEvent } from '../../core/events/ingest-events.js';
import { installRefusingEventTrigger } from '../../shared/db/refusing-trigger.test-helper.js';
import { events } from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import type { EventRef } from '../../shared/queue/contract.js';
import type { MatchingProducer } from '../../shared/queue/producer.js';
import { useTestService } from '../testing/test-service.js';
import { GroupCommit } from './group-commit.js';

// Concurrent single events share one statement and one enqueue; each caller
// still gets its own event's id and status, and a failed flush fails only
// the callers in it.

const { database, api, platform, advertiser } = useTestService('group_commit');

beforeAll(async () => {
  // Two ways a flush can fail: an error the database raises for the statement (P0001), and
  // a refused value (23514, a data error: the flush's other events are then retried alone).
  await installRefusingEventTrigger(database.db);
});

let clock = Date.UTC(2026, 3, 1);
const input = (userId: string, overrides: Partial<EventInput> = {}): EventInput => ({
  userId: senderUserId(userId),
  eventType: 'deposit',
  occurredUs: BigInt((clock += 1000) * 1000),
  ...overrides,
});

/** A committer on the real ingest whose enqueues are recorded (one list of ids per call). */
function recordingCommitter(options = { maxBatch: 500, maxInFlight: 1 }) {
  const enqueued: string[][] = [];
  const flushed: number[] = [];
  const producer = {
    enqueueEvents: async (refs: readonly EventRef[]) => (enqueued.push(refs.map((ref) => ref.eventId)), true),
  } as unknown as MatchingProducer;
  const committer = new GroupCommit(async (events: readonly ProviderEvent[]) => {
    flushed.push(events.length);
    return ingestEvents({ db: database.db, producer }, { events });
  }, options);
  return { committer, enqueued, flushed };
}

const storedIds = async (userId: string) =>
  (
    await database.db
      .select({ id: events.id })
      .from(events)
      .where(eq(events.userId, senderUserId(userId)))
      .orderBy(events.occurredAt)
  ).map((row) => row.id);

describe('GroupCommit', () => {
  it('answers concurrent events from one flush, one enqueue, each with its own event id', async () => {
    const { committer, enqueued, flushed } = recordingCommitter();
    const events = Array.from({ length: 20 }, (_, i) => ({
      providerId: i % 2 ? platform.id : advertiser.id,
      input: input('together'),
    }));
    const results = await Promise.all(events.map((event) => committer.submit(event)));
    expect(flushed).toEqual([20]);
    expect(enqueued).toHaveLength(1);
    expect(results.every((result) => result.status === 'received')).toBe(true);
    expect(new Set(results.map((result) => result.eventId)).size).toBe(20);
    expect(new Set(enqueued[0])).toEqual(new Set(results.map((result) => result.eventId)));
    // Each answer is its own row: the ids in occurrence order are the answers in submission order.
    expect(await storedIds('together')).toEqual(results.map((result) => result.eventId));
  });

  it('two identical events in one flush: the first received, the other a duplicate of it', async () => {
    const { committer, flushed } = recordingCommitter();
    const same = { providerId: platform.id, input: input('twins') };
    const [first, second] = await Promise.all([
      committer.submit(same),
      committer.submit({ ...same, input: { ...same.input, amount: 5 } }),
    ]);
    expect(flushed).toEqual([2]);
    expect(first).toMatchObject({ status: 'received' });
    expect(second).toEqual({ ...first, status: 'duplicate' });
    // The same event from another provider is another event.
    const other = await committer.submit({ providerId: advertiser.id, input: same.input });
    expect(other.status).toBe('received');
    expect(other.eventId).not.toBe(first.eventId);
  });

  it('events arriving while a flush runs go to the next one', async () => {
    const { committer, flushed } = recordingCommitter();
    const early = [committer.submit({ providerId: platform.id, input: input('waves') })];
    await new Promise((resolve) => setImmediate(resolve));
    expect(committer.pending.flushing).toBe(1);
    const late = Array.from({ length: 5 }, () => committer.submit({ providerId: platform.id, input: input('waves') }));
    await Promise.all([...early, ...late]);
    expect(flushed).toEqual([1, 5]);
  });

  it('a failing flush rejects its own callers only, and commits none of its events', async () => {
    const { committer, flushed } = recordingCommitter();
    const doomed = [input('doomed'), input('poison'), input('doomed')].map((event) =>
      committer.submit({ providerId: platform.id, input: event }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const next = [input('next'), input('next')].map((event) => committer.submit({ providerId: platform.id, input: event }));
    const outcomes = await Promise.allSettled([...doomed, ...next]);
    expect(flushed).toEqual([3, 2]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect(await storedIds('doomed')).toEqual([]);
    expect(await storedIds('next')).toEqual(
      outcomes.slice(3).map((outcome) => (outcome as PromiseFulfilledResult<{ eventId: string }>).value.eventId),
    );
  });

  it('a value the database refuses fails only its own event: the others of the flush are retried alone', async () => {
    const { committer, flushed } = recordingCommitter();
    const outcomes = await Promise.allSettled(
      [input('neighbour'), input('bad-data'), input('neighbour')].map((event) =>
        committer.submit({ providerId: platform.id, input: event }),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(flushed).toEqual([3, 1, 1, 1]);
    expect(await storedIds('neighbour')).toHaveLength(2);
  });
});

describe('POST /v1/events through the group commit', () => {
  const send = (body: unknown) => api.call('POST', '/v1/events', { headers: platform.headers, body });
  const event = (userId: string, second: number) => ({
    user_id: userId,
    event_type: 'purchase',
    timestamp: `2026-05-01T10:00:${String(second).padStart(2, '0')}Z`,
  });

  it('answers each of many concurrent requests with its own event, and repeats as duplicates', async () => {
    const bodies = Array.from({ length: 30 }, (_, i) => event('http-many', i));
    const answers = await Promise.all([...bodies, bodies[0], bodies[1]].map(send));
    expect(answers.map((answer) => answer.status)).toEqual(Array(32).fill(200));
    const data = answers.map((answer) => answer.json.data);
    expect(data.slice(0, 30).every((d: { status: string }) => d.status === 'received')).toBe(true);
    expect(data.slice(30)).toEqual([
      { ...data[0], status: 'duplicate' },
      { ...data[1], status: 'duplicate' },
    ]);
    expect(await storedIds('http-many')).toEqual(data.slice(0, 30).map((d: { event_id: string }) => d.event_id));
  });

  it('a failed flush answers 500 in the envelope, without internals; every 200 is stored, no 500 is', async () => {
    const bodies = [event('poison', 1), ...Array.from({ length: 10 }, (_, i) => event('http-fail', i))];
    const answers = await Promise.all(bodies.map(send));
    expect(answers[0]!.status).toBe(500);
    expect(answers[0]!.json).toEqual({
      success: false,
      livemode: true,
      error: 'The operation could not be completed',
      code: 'internal',
    });
    // Requests that shared the poisoned flush failed with it; the others were committed in flushes of their own.
    const stored = new Set(await storedIds('http-fail'));
    for (const answer of answers.slice(1)) {
      expect([200, 500]).toContain(answer.status);
      if (answer.status === 200) expect(stored.has(answer.json.data.event_id)).toBe(true);
    }
    expect(stored.size).toBe(answers.slice(1).filter((answer) => answer.status === 200).length);
    // A client's retry of a failed one succeeds.
    const retried = await Promise.all(bodies.slice(1).map(send));
    expect(retried.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(await storedIds('http-fail')).toHaveLength(10);
  });
});
