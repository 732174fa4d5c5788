import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis } from '../shared/queue/connection.js';
import { jobId } from '../shared/queue/contract.js';
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
      insert into events (provider_id, user_id, event_type, occurred_at, received_at)
      select ${platform.id}, 'u' || n, 'kyc', '2026-01-01T00:00:00Z'::timestamptz + n * interval '1 second', now() - interval '1 hour'
      from generate_series(1, 700) as n`;
    await database.sql`
      insert into users (platform_id, platform_user_id, needs_evaluation)
      select ${platform.id}, 'flagged-' || n, true from generate_series(1, 1200) as n`;
    // Fresh and processed events are left to the normal path.
    await database.sql`
      insert into events (provider_id, user_id, event_type, occurred_at, processed_at)
      values (${platform.id}, 'fresh', 'kyc', now(), null), (${platform.id}, 'done', 'kyc', now(), now())`;

    expect(await reconcileOnce({ db: database.db, producer }, 10_000)).toBe(1900);

    const counts = await producer.queue.getJobCounts('waiting');
    expect(counts.waiting).toBe(1900);
    const [event] = await database.sql<{ id: string }[]>`select id from events where user_id = 'u700'`;
    expect(await producer.queue.getJobState(jobId['process-event']({ eventId: event!.id }))).toBe('waiting');

    // A second pass finds the same work already queued: nothing is added twice.
    await reconcileOnce({ db: database.db, producer }, 10_000);
    expect((await producer.queue.getJobCounts('waiting')).waiting).toBe(1900);
  });
});
