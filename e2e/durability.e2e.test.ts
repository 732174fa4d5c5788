import { afterEach, describe, expect, it } from 'vitest';
import { chainBody } from '../api/testing/chains.js';
import { chainProgress, events } from '../shared/db/schema/index.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { createTestDatabase, type TestDatabase, uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { createTestProvider, type TestProvider } from '../shared/testing/fixtures.js';
import { isPending, nothingPending, pendingWork } from '../shared/testing/progress.js';
import { serviceEnv } from '../shared/testing/service-env.js';
import { type PrivateRedis, startPrivateRedis } from './harness/redis-server.js';
import { clientOf, type ServiceProcess, startService } from './harness/service.js';

// Product rules §3: "Nothing accepted is ever lost: an event answered 200 is
// reflected in progress eventually, even if Redis was down when it arrived or
// a worker died while processing it." The built API and worker run as real
// processes; every test has its own database, queue prefix and processes.

const DEAD_REDIS = 'redis://127.0.0.1:1';

// Cleanup of whatever a test started, even when it fails half-way.
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function database(label: string): Promise<TestDatabase> {
  const created = await createTestDatabase(label);
  cleanups.push(() => created.drop());
  return created;
}

async function start(kind: 'api' | 'worker', env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startService(kind, env);
  cleanups.push(() => service.stop('SIGKILL'));
  return service;
}

async function privateRedis(): Promise<PrivateRedis> {
  const redis = await startPrivateRedis();
  cleanups.push(() => redis.destroy());
  return redis;
}

function baseEnv(db: TestDatabase, redisUrl: string): Record<string, string> {
  return serviceEnv({
    databaseUrl: db.url,
    redis: { url: redisUrl },
    queuePrefix: `durability-${uniqueSuffix()}`,
    fastRecovery: true,
    env: { RECONCILE_MIN_AGE_MS: '300' },
  });
}

const http = (api: ServiceProcess, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  clientOf(api).call(method, path, { headers, body });

/** Sends one event and returns its id; it must be accepted (200). */
async function sendEvent(api: ServiceProcess, provider: TestProvider, event: object): Promise<{ id: string; status: string }> {
  const answer = await http(api, 'POST', '/v1/events', provider.headers, event);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return { id: answer.json.data.event_id, status: answer.json.data.status };
}

async function sendBatch(api: ServiceProcess, provider: TestProvider, events: object[]): Promise<string[]> {
  const answer = await http(api, 'POST', '/v1/events/batch', provider.headers, { events });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  for (const result of answer.json.data.results) expect(result.status).toBe('received');
  return answer.json.data.results.map((result: { event_id: string }) => result.event_id);
}

// Event times: an hour ago onwards, one second apart (inside the test chain's window).
const BASE_MS = Date.now() - 3_600_000;
const stamp = (n: number) => new Date(BASE_MS + n * 1000).toISOString();

/**
 * The worker's one line per event job, as eventId -> outcomes ('processed' for
 * an event the job's batch matched, 'already-processed' for one found matched
 * before), across every given process.
 */
function jobOutcomes(...processes: ServiceProcess[]): Map<string, string[]> {
  const outcomes = new Map<string, string[]>();
  const add = (id: string, outcome: string) => outcomes.set(id, [...(outcomes.get(id) ?? []), outcome]);
  for (const line of processes.flatMap((process) => process.lines())) {
    if (!line.includes('"event job done"')) continue;
    const record = JSON.parse(line) as { matched: string[]; skipped: string[] };
    for (const id of record.matched) add(id, 'processed');
    for (const id of record.skipped) add(id, 'already-processed');
  }
  return outcomes;
}

const count = (outcomes: string[] | undefined, outcome: string) => (outcomes ?? []).filter((o) => o === outcome).length;

const pending = (db: TestDatabase) => pendingWork(db.db);

const allDone = (db: TestDatabase) => () => nothingPending(db.db);

async function allEventIds(db: TestDatabase): Promise<string[]> {
  return (await db.db.select({ id: events.id }).from(events)).map((row) => row.id);
}

describe('durability: nothing accepted is lost (API and worker as processes)', () => {
  it('processes, exactly once, every event accepted before, during and after a Redis outage', async () => {
    const db = await database('durability_outage');
    const redis = await privateRedis();
    const env = baseEnv(db, redis.url);
    const api = await start('api', env);
    const platform = await createTestProvider(db.db, 'platform');
    for (const id of ['before-1', 'before-2'])
      expect((await http(api, 'POST', '/v1/users/register', platform.headers, { platform_user_id: id })).status).toBe(200);

    // Before: enqueued into a Redis that is about to lose everything.
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1)
      ids.push(
        (await sendEvent(api, platform, { user_id: `before-${(i % 2) + 1}`, event_type: 'deposit', timestamp: stamp(i) })).id,
      );

    // During: Redis is gone; events and registrations are still accepted.
    await redis.stop();
    for (const id of ['during-1', 'during-2'])
      expect((await http(api, 'POST', '/v1/users/register', platform.headers, { platform_user_id: id })).status).toBe(200);
    const singles = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        sendEvent(api, platform, { user_id: `during-${(i % 2) + 1}`, event_type: 'deposit', timestamp: stamp(100 + i) }),
      ),
    );
    ids.push(...singles.map((s) => s.id));
    for (const offset of [200, 300]) {
      ids.push(
        ...(await sendBatch(
          api,
          platform,
          Array.from({ length: 10 }, (_, i) => ({
            user_id: 'unregistered',
            event_type: 'deposit',
            timestamp: stamp(offset + i),
          })),
        )),
      );
    }
    // A client's retry during the outage is still a duplicate, not a second event.
    expect((await sendEvent(api, platform, { user_id: 'during-1', event_type: 'deposit', timestamp: stamp(100) })).status).toBe(
      'duplicate',
    );

    // After: Redis is back, empty; the API reconnects by itself.
    await redis.restart();
    await eventually(async () => ((await http(api, 'GET', '/readyz', {})).status === 200 ? true : undefined), {
      what: 'api ready again',
    });
    for (let i = 0; i < 10; i += 1)
      ids.push((await sendEvent(api, platform, { user_id: 'before-1', event_type: 'deposit', timestamp: stamp(400 + i) })).id);
    expect(new Set(ids).size).toBe(60);
    expect((await pending(db)).events).toBe(60);

    const worker = await start('worker', env);
    await eventually(allDone(db), { timeoutMs: 30_000, what: 'every event processed and user evaluated' });

    expect((await allEventIds(db)).sort()).toEqual([...ids].sort());
    const outcomes = jobOutcomes(worker);
    for (const id of ids) expect(count(outcomes.get(id), 'processed'), `processed lines of ${id}`).toBe(1);
    expect([...outcomes.keys()].every((id) => ids.includes(id))).toBe(true);
  });

  it('processes every event exactly once when the worker is SIGKILLed mid-burst and replaced', async () => {
    const db = await database('durability_kill');
    const env = baseEnv(db, 'redis://127.0.0.1:6379');
    const api = await start('api', env);
    const platform = await createTestProvider(db.db, 'platform');
    const advertiser = await createTestProvider(db.db, 'advertiser');
    const chain = await http(api, 'POST', '/admin/v1/quest-chains', adminHeaders, chainBody(platform.id, advertiser.id));
    expect(chain.status, JSON.stringify(chain.json)).toBe(200);
    const users = Array.from({ length: 10 }, (_, i) => `burst-${i}`);
    for (const id of users)
      expect((await http(api, 'POST', '/v1/users/register', platform.headers, { platform_user_id: id })).status).toBe(200);

    // 300 events over 10 users, types cycling through the chain's three tasks (and noise).
    const types = ['registration', 'kyc', 'transaction', 'noise'];
    const events = Array.from({ length: 300 }, (_, i) => ({
      user_id: users[i % 10]!,
      event_type: types[Math.floor(i / 10) % 4]!,
      timestamp: stamp(i),
    }));
    const ids: string[] = [];
    for (let i = 0; i < 250; i += 50) ids.push(...(await sendBatch(api, platform, events.slice(i, i + 50))));
    ids.push(...(await Promise.all(events.slice(250).map((event) => sendEvent(api, platform, event)))).map((s) => s.id));

    const victim = await start('worker', { ...env, WORKER_CONCURRENCY: '4' });
    const processedAtKill = await eventually(
      async () => {
        const done = 300 - (await pending(db)).events;
        return done >= 30 ? done : undefined;
      },
      { intervalMs: 10, what: 'the first worker to be under way' },
    );
    await victim.stop('SIGKILL');
    // The kill landed mid-burst, or this test proved nothing.
    expect(processedAtKill).toBeLessThan(300);
    expect((await pending(db)).events).toBeGreaterThan(0);

    const replacement = await start('worker', env);
    await eventually(allDone(db), { timeoutMs: 30_000, what: 'every event processed after the crash' });
    // A job the victim committed but never acknowledged is only re-run (and logged
    // `already-processed`) once its lock lapses (JOB_LOCK_MS): wait for every event's trace.
    await eventually(
      async () => {
        const traced = jobOutcomes(victim, replacement);
        return ids.every((id) => (traced.get(id)?.length ?? 0) > 0) ? true : undefined;
      },
      { timeoutMs: 20_000, what: 'a log trace for every event' },
    );

    const outcomes = jobOutcomes(victim, replacement);
    let committedUnlogged = 0;
    for (const id of ids) {
      const lines = outcomes.get(id);
      expect(count(lines, 'processed'), `processed lines of ${id}`).toBeLessThanOrEqual(1);
      if (count(lines, 'processed') === 0) {
        // SIGKILL between a job's commit and its log line: the replacement's rerun must then find it done.
        expect(count(lines, 'already-processed'), `event ${id} has no trace of processing`).toBeGreaterThanOrEqual(1);
        committedUnlogged += 1;
      }
    }
    // Only the events of the victim's jobs in flight can fall in that window: at most its
    // concurrency (4) jobs, of at most 50 events each (the batch calls above), matched in
    // batches that commit together and log afterwards.
    expect(committedUnlogged).toBeLessThanOrEqual(4 * 50);
    console.info(
      `worker killed after ${processedAtKill}/300 events; ${committedUnlogged} committed but not logged before the kill`,
    );
    expect(jobOutcomes(replacement).size).toBeGreaterThan(0);

    // Reflected in progress: every user completed the chain's three tasks.
    const progress = await db.db
      .select({ completed_tasks: chainProgress.completedTasks, total_tasks: chainProgress.totalTasks })
      .from(chainProgress);
    expect(progress).toHaveLength(10);
    expect(progress.every((row) => row.completed_tasks === 3 && row.total_tasks === 3)).toBe(true);
  });

  it('a retried event whose enqueue was lost is enqueued again by the duplicate, without the reconciler', async () => {
    const db = await database('durability_retry');
    const env = baseEnv(db, 'redis://127.0.0.1:6379');
    const platform = await createTestProvider(db.db, 'platform');
    const event = { user_id: 'retry-user', event_type: 'deposit', timestamp: '2026-03-01T10:00:00.123456Z' };
    const control = { ...event, event_type: 'never-retried' };

    // The first attempt reaches an API whose Redis is unreachable: stored, not enqueued.
    const offline = await start('api', { ...env, REDIS_URL: DEAD_REDIS });
    const first = await sendEvent(offline, platform, event);
    const neverRetried = await sendEvent(offline, platform, control);
    expect(first.status).toBe('received');

    // A worker whose reconciler will not run during this test, and a healthy API instance.
    const worker = await start('worker', { ...env, RECONCILE_INTERVAL_MS: '3600000' });
    const online = await start('api', env);
    const retry = await sendEvent(online, platform, { ...event, timestamp: '2026-03-01T10:00:00.123456+00:00' });
    expect(retry).toEqual({ id: first.id, status: 'duplicate' });

    await eventually(
      async () => {
        const row = { done: !(await isPending(db.db, first.id)) };
        return row?.done ? true : undefined;
      },
      { what: 'the retried event to be processed' },
    );
    expect(count(jobOutcomes(worker).get(first.id), 'processed')).toBe(1);
    // The event nobody retried is still waiting for the reconciler: the retry did the repair.
    const untouched = { done: !(await isPending(db.db, neverRetried.id)) };
    expect(untouched?.done).toBe(false);
    expect(jobOutcomes(worker).has(neverRetried.id)).toBe(false);
  });
});
