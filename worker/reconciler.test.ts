import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../shared/queue/connection.js';
import { createMatchingProducer, type MatchingProducer } from '../shared/queue/producer.js';
import { createTestDatabase, uniqueSuffix, type TestDatabase } from '../shared/testing/database.js';
import { createTestProvider } from '../shared/testing/fixtures.js';
import { reconcileOnce } from './reconciler.js';

let database: TestDatabase;
let producer: MatchingProducer;
const redis = createRedis('redis://127.0.0.1:6379', 'producer');

beforeAll(async () => {
  database = await createTestDatabase('reconciler');
  producer = createMatchingProducer(redis, `test-${uniqueSuffix()}`);
});
afterAll(async () => {
  await producer.queue.obliterate({ force: true });
  await producer.close();
  redis.disconnect();
  await database.drop();
});

describe('reconcileOnce', () => {
  it('puts every pending event and flagged user back on the queue, over several pages, in one pass', async () => {
    const platform = await createTestProvider(database.db, 'platform');
    // Stale unprocessed events (enqueue lost) and users flagged for evaluation, more than one page of each.
    await database.sql`
      with inserted as (
        insert into events (provider_id, user_id, event_type, occurred_at, received_at)
        select ${platform.id}, 'u' || n, 'kyc', '2026-01-01T00:00:00Z'::timestamptz + n * interval '1 second', now() - interval '1 hour'
        from generate_series(1, 700) as n
        returning id, provider_id, received_at)
      insert into pending_events (event_id, provider_id, received_at) select id, provider_id, received_at from inserted`;
    await database.sql`
      insert into users (platform_id, platform_user_id, needs_evaluation)
      select ${platform.id}, 'flagged-' || n, true from generate_series(1, 1200) as n`;
    // A fresh pending event and a matched one (no pending row) are left to the normal path.
    await database.sql`
      with inserted as (
        insert into events (provider_id, user_id, event_type, occurred_at)
        values (${platform.id}, 'fresh', 'kyc', now()), (${platform.id}, 'done', 'kyc', now())
        returning id, provider_id, user_id, received_at)
      insert into pending_events (event_id, provider_id, received_at)
      select id, provider_id, received_at from inserted where user_id = 'fresh'`;

    expect(await reconcileOnce({ db: database.db, producer }, { minAgeMs: 10_000 })).toEqual({ events: 700, users: 1200 });

    // 700 events travel as two jobs (500 + 200 ids), the users one job each.
    expect((await producer.queue.getJobCounts('waiting')).waiting).toBe(1202);
    const jobs = await producer.queue.getJobs(['waiting'], 0, 2000);
    const queuedEventIds = jobs.filter((job) => job.name === 'match-events').flatMap((job) => job.data.eventIds as string[]);
    const [event] = await database.sql<{ id: string }[]>`select id from events where user_id = 'u700'`;
    expect(queuedEventIds).toHaveLength(700);
    expect(queuedEventIds).toContain(event!.id);

    // A second pass finds the same work already queued: nothing is added twice.
    await reconcileOnce({ db: database.db, producer }, { minAgeMs: 10_000 });
    expect((await producer.queue.getJobCounts('waiting')).waiting).toBe(1202);
  });
});
