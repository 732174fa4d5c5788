import { Worker } from 'bullmq';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../../../core/backtests/run-backtest.js';
import { type ServiceProcess, startService } from '../../../../e2e/harness/service.js';
import { insertOrFindEvents, type NewEvent } from '../../../../shared/db/event-store.js';
import { accountLinks, backtests, users } from '../../../../shared/db/schema/index.js';
import type { CountingEvent } from '../../../../shared/domain/conditions.js';
import { senderUserId } from '../../../../shared/domain/ids.js';
import { referenceCompletions } from '../../../../shared/domain/progress.reference.test-helper.js';
import { parseUtcTimestamp } from '../../../../shared/domain/timestamp.js';
import type { ChainRules } from '../../../../shared/domain/walk.js';
import { BACKTEST_QUEUE } from '../../../../shared/queue/backtest-contract.js';
import { createRedis } from '../../../../shared/queue/connection.js';
import { eventually } from '../../../../shared/testing/eventually.js';
import { createTestProvider, type TestProvider } from '../../../../shared/testing/fixtures.js';
import { seededRandom } from '../../../../shared/testing/random.js';
import { serviceEnv } from '../../../../shared/testing/service-env.js';
import { chainBody } from '../../../testing/chains.js';
import { useTestService } from '../../../testing/test-service.js';

// §12 over HTTP on a seeded data set: users over several pages (500 each),
// events from the platform, from the chain's advertiser about linked ids, and
// from senders that must not count (another advertiser, another platform).
// The prediction must equal the naive reference model of §4-5, user by user.
// Backtests run in the built worker, as real processes on the file's database
// and queue prefix: the API only stores and queues them, and reads them.

const { database, api, platform, advertiser } = useTestService('backtests');
const workers: ServiceProcess[] = [];
/** A worker process on this file's database and queues, sweeping every 300 ms, taking a dead worker's job within 2 s. */
async function startWorker() {
  const worker = await startService(
    'worker',
    serviceEnv({
      databaseUrl: database.url,
      queuePrefix: api.config.QUEUE_PREFIX,
      env: { RECONCILE_INTERVAL_MS: '300', JOB_LOCK_MS: '1000' },
    }),
  );
  workers.push(worker);
  return worker;
}
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.stop('SIGKILL')));
});
let otherAdvertiser: TestProvider;
let otherPlatform: TestProvider;

const USERS = 1_100;
const SEED = 1_512;
const START = '2026-01-01T00:00:00Z';
const END = '2026-02-01T00:00:00Z';
const TYPES = ['kyc', 'deposit', 'trade'];
const tasks = [
  { event: 'kyc' },
  { event: 'deposit', min_amount: 50, currency: 'EUR' },
  { event: 'trade', after: '2026-01-10T00:00:00Z' },
];

/** Each seeded user as the model sees them: their platform id, linked id and counting events. */
const model: { platformUserId: string; linkedId: string | null; events: CountingEvent[] }[] = [];

const body = (spec: Parameters<typeof chainBody>[2] = {}, over: Record<string, unknown> = {}) => ({
  ...chainBody(platform.id, advertiser.id, { start: START, end: END, tasks, status: 'draft', ...spec }),
  ...over,
});

async function runToCompletion(payload: unknown) {
  const started = await api.call('POST', '/admin/v1/quest-chains/backtest', { headers: api.adminHeaders, body: payload });
  expect(started.status, started.text).toBe(202);
  expect(started.json.data).toEqual({ backtest_id: expect.any(String), status: 'running' });
  const id = started.json.data.backtest_id as string;
  return eventually(
    async () => {
      const answer = await api.call('GET', `/admin/v1/backtests/${id}`, { headers: api.adminHeaders });
      expect(answer.status).toBe(200);
      return answer.json.data.status === 'running' ? undefined : answer.json.data;
    },
    { timeoutMs: 60_000, what: 'the backtest to finish' },
  );
}

beforeAll(async () => {
  otherAdvertiser = await createTestProvider(database.db, 'advertiser');
  otherPlatform = await createTestProvider(database.db, 'platform');
  const random = seededRandom(SEED);
  const rows = Array.from({ length: USERS }, (_, i) => ({
    platformId: platform.id,
    platformUserId: senderUserId(`u${String(i).padStart(5, '0')}`),
  }));
  const stored = await database.db.insert(users).values(rows).returning({ id: users.id, platformUserId: users.platformUserId });
  const links = stored
    .filter(() => random.chance(0.3))
    .map((user) => ({
      userId: user.id,
      platformId: platform.id,
      advertiserId: advertiser.id,
      advertiserUserId: senderUserId(`adv-${user.platformUserId}`),
    }));
  if (links.length > 0) await database.db.insert(accountLinks).values(links);
  const linked = new Map(links.map((link) => [link.userId, link.advertiserUserId]));

  const newEvents: NewEvent[] = [];
  /** Which seeded event each model event is: the stored ids come back in input order. */
  const modelIndex: [CountingEvent, number][] = [];
  const startUs = parseUtcTimestamp(START)!;
  const spanUs = parseUtcTimestamp(END)! - startUs;
  for (const user of stored) {
    const entry = { platformUserId: user.platformUserId, linkedId: linked.get(user.id) ?? null, events: [] as CountingEvent[] };
    model.push(entry);
    for (let k = random.int(0, 12); k > 0; k--) {
      // A tenth of them before the chain's start or after its end.
      const offset = BigInt(Math.floor((random.next() * 1.2 - 0.1) * Number(spanUs)));
      const sender = random.pick(['platform', 'platform', 'advertiser', 'other-advertiser', 'other-platform'] as const);
      const providerId = {
        platform: platform.id,
        advertiser: advertiser.id,
        'other-advertiser': otherAdvertiser.id,
        'other-platform': otherPlatform.id,
      }[sender];
      const userId =
        sender === 'advertiser' || sender === 'other-advertiser'
          ? senderUserId(`adv-${user.platformUserId}`)
          : user.platformUserId;
      const event = {
        providerId,
        userId,
        eventType: random.pick(TYPES),
        occurredAt: startUs + offset,
        amount: random.chance(0.8) ? random.int(0, 100) : null,
        currency: random.pick(['EUR', 'eur', 'USD', null]),
      };
      newEvents.push(event);
      // §4: the platform's own events, and the chain's advertiser's about the linked id only.
      if (sender === 'platform' || (sender === 'advertiser' && entry.linkedId !== null)) {
        const counted: CountingEvent = {
          id: '',
          eventType: event.eventType,
          occurredUs: event.occurredAt,
          amount: event.amount,
          currency: event.currency,
        };
        entry.events.push(counted);
        modelIndex.push([counted, newEvents.length - 1]);
      }
    }
  }
  const ids: string[] = [];
  for (let i = 0; i < newEvents.length; i += 1_000) {
    const outcomes = await insertOrFindEvents(database.db, newEvents.slice(i, i + 1_000));
    expect(outcomes.every((o) => o.inserted)).toBe(true);
    ids.push(...outcomes.map((o) => o.id));
  }
  // The walk breaks timestamp ties by event id, so the model walks the stored ids.
  for (const [counted, index] of modelIndex) counted.id = ids[index]!;
}, 120_000);

/** What the naive reference model predicts for a draft over the seeded users. */
function predicted(rules: ChainRules, rewards: number[], chainReward: number) {
  const perTask = rules.tasks.map(() => 0);
  let started = 0;
  let completed = 0;
  let taskRewards = 0;
  const sample: { platform_user_id: string; completed_tasks: number }[] = [];
  // Evaluated in user id order (uuid), which the sample follows.
  for (const entry of model) {
    const done = referenceCompletions(rules, entry.events);
    if (done.length === 0) continue;
    started += 1;
    if (done.length === rules.tasks.length) completed += 1;
    for (const c of done) {
      const index = rules.tasks.findIndex((t) => t.id === c.taskId);
      perTask[index]! += 1;
      taskRewards += rewards[index]!;
    }
    sample.push({ platform_user_id: entry.platformUserId, completed_tasks: done.length });
  }
  return {
    users_evaluated: USERS,
    users_started: started,
    users_completed: completed,
    tasks: perTask.map((n, i) => ({ sequence_number: i + 1, users_completed: n })),
    reward_cost: { task_rewards: taskRewards, chain_rewards: chainReward * completed },
    budget: { budget: null, projected_cost: taskRewards + chainReward * completed, within_budget: true },
    sample,
    perTask,
  };
}

const rulesOf = (anyOrder: boolean): ChainRules => ({
  allowAnyOrder: anyOrder,
  startUs: parseUtcTimestamp(START)!,
  endUs: parseUtcTimestamp(END)!,
  tasks: [
    { id: 't1', sequenceNumber: 1, eventType: 'kyc', minAmount: null, currency: null, afterUs: null, beforeUs: null },
    { id: 't2', sequenceNumber: 2, eventType: 'deposit', minAmount: 50, currency: 'EUR', afterUs: null, beforeUs: null },
    {
      id: 't3',
      sequenceNumber: 3,
      eventType: 'trade',
      minAmount: null,
      currency: null,
      afterUs: parseUtcTimestamp('2026-01-10T00:00:00Z')!,
      beforeUs: null,
    },
  ],
});

/** A running backtest of the seeded draft as stored with no job behind it (a lost enqueue, or a runner that died before its first page). */
async function orphanBacktest(runnerId: string | null) {
  const [row] = await database.db
    .insert(backtests)
    .values({
      platformId: platform.id,
      draft: orphanDraft(),
      tally: { usersEvaluated: 0, usersStarted: 0, usersCompleted: 0, tasksCompleted: {}, taskRewards: 0, sample: [] },
      usersTotal: USERS,
      runnerId,
    })
    .returning({ id: backtests.id });
  return row!.id;
}
let storedDraft: unknown;
const orphanDraft = () => storedDraft;
const rowOf = async (id: string) => (await database.db.select().from(backtests).where(eq(backtests.id, id)))[0]!;

describe('with no worker running', () => {
  it('GET reads a backtest and starts nothing: no claim, no page', async () => {
    const started = await api.call('POST', '/admin/v1/quest-chains/backtest', { headers: api.adminHeaders, body: body() });
    expect(started.status, started.text).toBe(202);
    const id = started.json.data.backtest_id as string;
    storedDraft = (await rowOf(id)).draft;
    for (let i = 0; i < 3; i++) {
      const answer = await api.call('GET', `/admin/v1/backtests/${id}`, { headers: api.adminHeaders });
      expect(answer.json.data).toMatchObject({
        status: 'running',
        progress: { users_done: 0, users_total: USERS },
        result: null,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const row = await rowOf(id);
    expect({ runnerId: row.runnerId, usersDone: row.usersDone, cursor: row.cursor }).toEqual({
      runnerId: null,
      usersDone: 0,
      cursor: null,
    });
  });
});

describe('POST /admin/v1/quest-chains/backtest, then GET /admin/v1/backtests/{id}', () => {
  beforeAll(async () => {
    await startWorker();
  }, 30_000);

  it.each([false, true])('predicts exactly what the reference model does (any order: %s)', async (anyOrder) => {
    const data = await runToCompletion(body({ anyOrder }));
    const expected = predicted(rulesOf(anyOrder), [10, 20, 30], 50);
    expect(expected.users_completed).toBeGreaterThan(10); // the data set exercises the rules
    // The sample is the first 20 users with a completion in id order; the model walks them in seeding order.
    const ordered = [
      ...(await database.db
        .select({ platformUserId: users.platformUserId, id: users.id })
        .from(users)
        .where(eq(users.platformId, platform.id))),
    ].sort((a, b) => (a.id < b.id ? -1 : 1));
    const byName = new Map(expected.sample.map((s) => [s.platform_user_id, s]));
    const sample = ordered.flatMap((u) => byName.get(u.platformUserId) ?? []).slice(0, 20);
    const { perTask: _perTask, ...result } = expected;
    expect(data).toEqual({
      backtest_id: expect.any(String),
      status: 'completed',
      progress: { users_done: USERS, users_total: USERS },
      result: { ...result, sample },
      error: null,
    });
  });

  it("reports the projected cost against the draft's budget, each reward's claims capped", async () => {
    const cap = 5;
    const expected = predicted(rulesOf(false), [10, 20, 30], 50);
    const capped =
      expected.perTask.reduce((sum, n, i) => sum + Math.min(n, cap) * [10, 20, 30][i]!, 0) +
      Math.min(expected.users_completed, cap) * 50;
    expect(capped).toBeLessThan(expected.budget.projected_cost); // the cap bites on this data set
    const under = await runToCompletion(body({}, { budget: capped - 1, max_claims_per_reward: cap }));
    expect(under.result.budget).toEqual({ budget: capped - 1, projected_cost: capped, within_budget: false });
    const enough = await runToCompletion(body({}, { budget: capped }));
    expect(enough.result.budget).toEqual({
      budget: capped,
      projected_cost: expected.budget.projected_cost,
      within_budget: expected.budget.projected_cost <= capped,
    });
    // max_completions bounds every reward the same way: no more users are admitted.
    const admitting = await runToCompletion(body({}, { budget: capped, max_completions: cap }));
    expect(admitting.result.budget).toEqual({ budget: capped, projected_cost: capped, within_budget: true });
  });

  it('stores nothing as a chain, and ignores the status', async () => {
    const before = await api.call('GET', `/admin/v1/quest-chains?platform_id=${platform.id}`, { headers: api.adminHeaders });
    await runToCompletion(body({ status: 'active' }));
    const after = await api.call('GET', `/admin/v1/quest-chains?platform_id=${platform.id}`, { headers: api.adminHeaders });
    expect(after.json.data.quest_chains).toEqual(before.json.data.quest_chains);
  });

  it('refuses a body a create would refuse, naming the field (400)', async () => {
    const cases: [unknown, string][] = [
      [body({}, { platform_id: advertiser.id }), 'platform_id'],
      [body({}, { end_date: START }), 'end_date'],
      [body({ tasks: [{ event: 'kyc', sequence_number: 2 }] }), 'tasks'],
      [body({}, { name: undefined }), 'name'],
      [body({}, { tasks: 'many' }), 'tasks'],
    ];
    for (const [payload, param] of cases) {
      const answer = await api.call('POST', '/admin/v1/quest-chains/backtest', { headers: api.adminHeaders, body: payload });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.json).toMatchObject({ success: false, param });
    }
    expect((await api.call('POST', '/admin/v1/quest-chains/backtest', { body: body() })).status).toBe(401);
  });

  it('answers 404 for an unknown backtest and 400 naming the id for a malformed one', async () => {
    const unknown = await api.call('GET', '/admin/v1/backtests/00000000-0000-4000-8000-000000000000', {
      headers: api.adminHeaders,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ success: false, code: 'not_found', param: 'id' });
    const malformed = await api.call('GET', '/admin/v1/backtests/nope', { headers: api.adminHeaders });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ success: false, param: 'id' });
  });

  it("runs a backtest whose job never reached Redis: the worker's sweeper queues every running one", async () => {
    const finished = await runToCompletion(body());
    const orphan = await orphanBacktest('a-dead-process');
    const resumed = await eventually(
      async () => {
        const answer = await api.call('GET', `/admin/v1/backtests/${orphan}`, { headers: api.adminHeaders });
        return answer.json.data.status === 'completed' ? answer.json.data : undefined;
      },
      { timeoutMs: 60_000, what: 'the orphaned backtest to be queued and finish' },
    );
    expect(resumed.result).toEqual(finished.result);
  });

  it('is finished by another worker when its worker dies mid-run, with the uninterrupted result', async () => {
    const finished = await runToCompletion(body());
    // The backtests the tests above left running (those of "with no worker running") must be done
    // first: the hanging worker below takes the oldest job it finds, and would hang on one of theirs.
    // (A job of a finished backtest, queued again by a sweep that listed it just before it finished,
    // is harmless: its run finds nothing to do and the worker below lets it complete.)
    await eventually(
      async () =>
        (await database.db.select().from(backtests).where(eq(backtests.status, 'running'))).length === 0 ? true : undefined,
      { timeoutMs: 60_000, what: 'the backtests left running by the tests above to finish' },
    );
    // A worker of our own that takes the job, checkpoints the first page and then hangs like a dead
    // process: its lock is no longer renewed once it is closed, so BullMQ calls the job stalled.
    await Promise.all(workers.splice(0).map((worker) => worker.stop('SIGKILL')));
    const connection = createRedis(api.config.REDIS_URL, 'worker');
    const dying = new Worker(
      BACKTEST_QUEUE,
      async (job) => {
        await runBacktest(
          { db: database.db, logger: api.deps.logger },
          { backtestId: job.data.backtestId, stopping: () => true },
        );
        if ((await rowOf(job.data.backtestId)).status === 'running') await new Promise(() => {});
      },
      { connection, prefix: api.config.QUEUE_PREFIX, lockDuration: 1000, stalledInterval: 1000 },
    );
    const started = await api.call('POST', '/admin/v1/quest-chains/backtest', { headers: api.adminHeaders, body: body() });
    const id = started.json.data.backtest_id as string;
    const firstRunner = await eventually(
      async () => {
        const row = await rowOf(id);
        return row.usersDone > 0 ? row.runnerId : undefined;
      },
      { what: 'the first checkpoint' },
    );
    expect((await rowOf(id)).status).toBe('running');
    await dying.close(true);
    connection.disconnect();

    await startWorker();
    const resumed = await eventually(
      async () => {
        const answer = await api.call('GET', `/admin/v1/backtests/${id}`, { headers: api.adminHeaders });
        return answer.json.data.status === 'completed' ? answer.json.data : undefined;
      },
      { timeoutMs: 60_000, what: 'a worker to take the stalled job over and finish' },
    );
    expect(resumed.result).toEqual(finished.result);
    expect(resumed.progress).toEqual({ users_done: USERS, users_total: USERS });
    expect((await rowOf(id)).runnerId).not.toBe(firstRunner);
  });
});
