import { execFileSync } from 'node:child_process';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../api/testing/sse-reader.js';
import { users as usersTable } from '../shared/db/schema/index.js';
import { senderUserId } from '../shared/domain/ids.js';
import { adminHeaders } from '../shared/testing/admin-token.js';
import { createTestDatabase, uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { seededRandom } from '../shared/testing/random.js';
import { serviceEnv } from '../shared/testing/service-env.js';
import { type LocalCluster, startLocalCluster } from './harness/redis-cluster.js';
import { clientOf, type ServiceProcess, startService, workerIdOf } from './harness/service.js';
import { type Stack, startStack } from './harness/stack.js';
import { createPlayChain } from './support/play-chain.js';
import {
  createModelChains,
  type GeneratedEvent,
  generateEvents,
  matchedIn,
  modelMismatches,
  quiescent,
  sendAll,
} from './support/progress-model.js';

// The service on a 6-node Redis Cluster (scripts/redis-cluster.sh), as REDIS_CLUSTER=true runs it:
// two API and two worker processes, four matching partitions shared out by leases. `npm run test:cluster`.

const PARTITIONS = 4;
const SEED = Number(process.env.E2E_SEED ?? Date.now() % 2 ** 31);

let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await startLocalCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

interface ClusterStack extends Stack {
  /** GET /readyz of every API and worker: their statuses. */
  readiness(): Promise<number[]>;
}

let stack: ClusterStack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** Two APIs (requests alternate between them) and two workers on the cluster, with their own database and prefix. */
async function startClusterStack(label: string, env: Record<string, string> = {}): Promise<ClusterStack> {
  const started = await startStack(label, {
    apiCount: 2,
    workerCount: 2,
    redis: { url: cluster.url, cluster: true },
    env: { MATCHING_PARTITIONS: String(PARTITIONS), ...env },
  });
  return Object.assign(started, {
    async readiness() {
      const urls = [
        ...started.apis.map((api) => api.url),
        ...started.workers.filter((w) => w.exit === undefined).map((worker) => worker.url),
      ];
      return Promise.all(urls.map(async (url) => (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) })).status));
    },
  });
}

async function expectStoredEqualsModel(
  current: Stack,
  chains: Awaited<ReturnType<typeof createModelChains>>,
  unique: GeneratedEvent[],
  ids: Map<string, string>,
  userIds: string[],
) {
  expect(await modelMismatches(current.database, chains, unique, ids, userIds), `seed ${SEED}`).toEqual([]);
}

/** Every stored event matched by one committed job only, across every worker's log. */
function expectMatchedOnce(current: ClusterStack, ids: Map<string, string>) {
  const processed = current.workers.flatMap((worker) => worker.lines().flatMap(matchedIn));
  expect(processed.length).toBeGreaterThan(0);
  expect(new Set(processed).size).toBe(processed.length);
  const known = new Set(ids.values());
  expect(processed.filter((id) => !known.has(id))).toEqual([]);
}

const register = (current: Stack, headers: Record<string, string>, id: string) =>
  current
    .call('POST', '/v1/users/register', { headers, body: { platform_user_id: id } })
    .then((answer) => expect(answer.status).toBe(200));

describe('on a Redis Cluster with four matching partitions', () => {
  it('ingest, match and read through two APIs and two workers: each event matched once, progress equal to the model', async () => {
    console.info(`cluster e2e seed: ${SEED} (replay with E2E_SEED=${SEED})`);
    const random = seededRandom(SEED);
    stack = await startClusterStack('cluster_flow');
    const platform = await stack.createProvider('platform');
    const advertiser = await stack.createProvider('advertiser');
    const chains = await createModelChains(stack, platform.id, advertiser.id);
    const users = Array.from({ length: 8 }, (_, i) => `c${i}`);
    for (const id of users.slice(0, 4)) await register(stack, platform.headers, id);

    const { unique, sends } = generateEvents(random, users, 25);
    const ids = await sendAll(stack, platform.headers, sends);
    expect(ids.size).toBe(unique.length);
    for (const id of users.slice(4)) await register(stack, platform.headers, id); // their stored events must count too

    await eventually(() => quiescent(stack!.database), { timeoutMs: 60_000, what: 'all events processed' });
    await expectStoredEqualsModel(stack, chains, unique, ids, users);
    expectMatchedOnce(stack, ids);
    // Work went to every partition, and the partitions live on more than one master.
    const masters = new Set<number>();
    for (let partition = 0; partition < PARTITIONS; partition++)
      masters.add((await cluster.masterOf(`{${stack.queuePrefix}:${partition}}`)).port);
    expect(masters.size).toBeGreaterThan(1);
    // Each worker holds two partitions by lease, each lease key in its partition's slot (the tag decides the slot).
    const holders = stack.workers.map(workerIdOf);
    // A steady state: a renewal in flight can leave a lease key briefly unset, so the shares are read until they settle.
    const readLeases = () =>
      Array.from({ length: PARTITIONS }, (_, partition) =>
        execFileSync(
          'redis-cli',
          ['-c', '-p', String(cluster.ports[0]), 'get', `{${stack!.queuePrefix}:${partition}}:partition-lease`],
          { encoding: 'utf8' },
        )
          .trim()
          .replace(/@\d+$/, ''),
      );
    await eventually(
      async () => {
        const leases = readLeases();
        const shares = holders.map((id) => leases.filter((holder) => holder === id).length);
        return shares.every((share) => share === 2) ? shares : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: 'each worker to hold two partitions by lease' },
    );
    // BullMQ numbers a queue's jobs without an id of their own (match jobs) with its `id` counter.
    const perPartition = Array.from({ length: PARTITIONS }, (_, partition) =>
      Number(
        execFileSync(
          'redis-cli',
          ['-c', '-p', String(cluster.ports[0]), 'get', `{${stack!.queuePrefix}:${partition}}:matching:id`],
          {
            encoding: 'utf8',
          },
        ).trim() || 0,
      ),
    );
    expect(
      perPartition.every((jobs) => jobs > 0),
      `jobs per partition ${perPartition}`,
    ).toBe(true);
    expect(await stack.readiness()).toEqual([200, 200, 200, 200]);
  });

  it('loses nothing when the master of a partition fails over during a burst, and resumes by itself', async () => {
    const seed = SEED + 1;
    console.info(`failover e2e seed: ${seed}`);
    const random = seededRandom(seed);
    stack = await startClusterStack('cluster_failover', { WORKER_CONCURRENCY: '8' });
    const platform = await stack.createProvider('platform');
    const advertiser = await stack.createProvider('advertiser');
    const chains = await createModelChains(stack, platform.id, advertiser.id);
    const users = Array.from({ length: 6 }, (_, i) => `f${i}`);
    for (const id of users) await register(stack, platform.headers, id);

    const first = generateEvents(random, users, 100);
    // Counts the burst's calls answered once the failover is over: some must be, or it did not happen during the
    // burst. After its first ten calls the burst waits for the failover, so a machine that sends it all faster than
    // a replica takes over still fails over mid-burst (CI once sent the whole burst first).
    let failedOver = false;
    let answeredAfter = 0;
    let started = 0;
    let releaseRest = () => {};
    const rest = new Promise<void>((resolve) => {
      releaseRest = resolve;
    });
    const counted: Stack = {
      ...stack,
      call: async (...args) => {
        if (++started > 10) await rest;
        return stack!.call(...args).finally(() => void (failedOver && (answeredAfter += 1)));
      },
    };
    const sending = sendAll(counted, platform.headers, first.sends, 2);
    // Fail over once the workers are at work, while the burst is still coming in.
    await eventually(
      async () => (stack!.workers.some((w) => w.lines().some((line) => matchedIn(line).length > 0)) ? true : undefined),
      { what: 'workers to process' },
    );
    const { from, to } = await cluster.failover(`{${stack.queuePrefix}:0}`);
    failedOver = true;
    releaseRest();
    expect(to.port).not.toBe(from.port);
    const ids = await sending;
    expect(answeredAfter, 'calls of the burst answered after the failover').toBeGreaterThan(0);

    await eventually(() => quiescent(stack!.database), { timeoutMs: 90_000, what: 'all events processed after the failover' });
    // And later work on the moved partition goes through as well, with no restart of anything.
    const second = generateEvents(random, users, 10);
    const laterIds = await sendAll(stack, platform.headers, second.sends, 4);
    await eventually(() => quiescent(stack!.database), { timeoutMs: 60_000, what: 'the second burst processed' });

    const allIds = new Map([...ids, ...laterIds]);
    await expectStoredEqualsModel(stack, chains, [...first.unique, ...second.unique], allIds, users);
    expectMatchedOnce(stack, allIds);
    await eventually(async () => ((await stack!.readiness()).every((status) => status === 200) ? true : undefined), {
      what: 'every process ready',
    });
  });

  it('streams live progress over sharded pub/sub, and the answer caches follow changes and claims', async () => {
    // A long answer cache: a read after the change can only be fresh if the worker's changed-user notice reached this API.
    stack = await startClusterStack('cluster_live', { CHAIN_CACHE_TTL_MS: '60000' });
    const platform = await stack.createProvider('platform');
    const advertiser = await stack.createProvider('advertiser');
    const chainId = await createPlayChain(stack, platform.id, advertiser.id);
    const [first, second] = stack.apis as [ServiceProcess, ServiceProcess];
    const onFirst = (method: string, path: string, body?: unknown) =>
      clientOf(first).call(method, path, { headers: platform.headers, body });
    const onSecond = (method: string, path: string, body?: unknown) =>
      clientOf(second).call(method, path, { headers: platform.headers, body });

    // A stream opened on the first API before the user exists: it waits for the registration notice.
    const before = await onFirst('GET', '/v1/quest-chains/active/live-1');
    const { token } = before.json.data.liveUpdates;
    const response = await fetch(`${first.url}/v1/live?${new URLSearchParams({ token })}`);
    expect(response.status).toBe(200);
    const live = readSse(response.body!);
    await live.nextEvent('ready');

    expect((await onSecond('POST', '/v1/users/register', { platform_user_id: 'live-1' })).status).toBe(200);
    await eventually(
      async () => {
        const [user] = await stack!.database.db
          .select({ pending: usersTable.needsEvaluation })
          .from(usersTable)
          .where(eq(usersTable.platformUserId, senderUserId('live-1')));
        return user?.pending === false ? true : undefined;
      },
      { what: 'registration evaluated' },
    );
    // Cached on the first API now, before any progress.
    const completedTasks = (answer: { json: any }): number => answer.json.data.quest_chains[0].user_progress.completed_tasks;
    expect(completedTasks(await onFirst('GET', '/v1/quest-chains/active/live-1'))).toBe(0);

    expect(
      (await onSecond('POST', '/v1/events', { user_id: 'live-1', event_type: 'play', timestamp: new Date().toISOString() }))
        .status,
    ).toBe(200);
    const progress = await live.nextEvent('progress', 20_000);
    expect(JSON.parse(progress.data!).quest_chain_ids).toContain(chainId);

    // The first API's cached answer (60 s) was dropped by the worker's changed-user notice.
    const fresh = await eventually(
      async () => {
        const answer = await onFirst('GET', '/v1/quest-chains/active/live-1');
        return completedTasks(answer) === 1 ? answer : undefined;
      },
      { timeoutMs: 3000, what: 'the first API to drop its cached answer' },
    );
    expect(fresh.json.data.claimable_tasks).toHaveLength(1);

    // A claim on the second API drops the first API's cached answer too.
    const taskId: string = fresh.json.data.quest_chains[0].tasks[0].id;
    const claimed = await onSecond('POST', '/v1/rewards/claim', { platform_user_id: 'live-1', task_id: taskId });
    expect(claimed.status, JSON.stringify(claimed.json)).toBe(200);
    await eventually(
      async () =>
        (await onFirst('GET', '/v1/quest-chains/active/live-1')).json.data.claimable_tasks.length === 0 ? true : undefined,
      { timeoutMs: 3000, what: 'the first API to drop its cached answer after the claim' },
    );
  });

  it('pointed at one node without REDIS_CLUSTER: not ready, enqueue failures logged and counted, a worker that backs off instead of spinning', async () => {
    // A misconfiguration an operator may try first: one node's URL and a hash-tagged prefix. The node answers
    // PING, but most slots are elsewhere (MOVED), the queue's among them.
    const shard0 = `{${uniqueSuffix()}}`;
    const owner = await cluster.masterOf(shard0);
    const node = (await cluster.nodes()).find((n) => n.role === 'master' && n.port !== owner.port)!;
    const database = await createTestDatabase('cluster_misconfigured');
    // One partition: its queue's slot is on another node, so every enqueue is refused (with 64, a third would land here).
    const env = serviceEnv({
      databaseUrl: database.url,
      queuePrefix: shard0,
      redis: { url: `redis://127.0.0.1:${node.port}` },
      env: { MATCHING_PARTITIONS: '1' },
    });
    const api = await startService('api', env);
    const worker = await startService('worker', env);
    try {
      const started = Date.now();
      const workerHealth = worker.url;
      expect((await fetch(`${api.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${workerHealth}/readyz`)).status).toBe(503);

      const admin = adminHeaders;
      const provider = await clientOf(api).call('POST', '/admin/v1/providers', {
        headers: admin,
        body: { type: 'platform', name: 'misconfigured' },
      });
      const credential = await clientOf(api).call('POST', `/admin/v1/providers/${provider.json.data.id}/credentials`, {
        headers: admin,
        body: {},
      });
      const headers = { 'x-api-key': credential.json.data.key, 'x-api-secret': credential.json.data.secret };
      for (let i = 0; i < 20; i++) {
        const sent = await clientOf(api).call('POST', '/v1/events', {
          headers,
          body: { user_id: `m${i}`, event_type: 'play', timestamp: new Date().toISOString() },
        });
        expect(sent.status).toBe(200); // Postgres is the record
      }
      // Log lines leave the API from a buffer drained every 200 ms: wait for the first one.
      const failures = () => api.lines().filter((line) => line.includes('enqueue failed'));
      await eventually(async () => (failures().length > 0 ? true : undefined), {
        timeoutMs: 5_000,
        what: "the API's 'enqueue failed' log line",
      });
      expect(failures().length).toBeLessThan(5);
      const metrics = await fetch(`${api.url}/metrics`, { headers: admin }).then((r) => r.text());
      expect(Number(/^qcr_enqueue_failures_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(20);

      // Ten seconds of a worker whose every fetch is refused: a few lines, not tens of thousands.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 10_000 - (Date.now() - started))));
      expect(worker.lines().length, worker.lines().slice(-5).join('\n')).toBeLessThan(100);
      expect(worker.lines().some((line) => line.includes('pausing its fetching'))).toBe(true);
    } finally {
      await Promise.all([api.stop('SIGTERM'), worker.stop('SIGTERM')]);
      await database.drop();
    }
  });

  it('with the whole cluster down, events are still accepted and /readyz answers 503; once it returns, everything is processed', async () => {
    const random = seededRandom(SEED + 2);
    stack = await startClusterStack('cluster_outage');
    const platform = await stack.createProvider('platform');
    const advertiser = await stack.createProvider('advertiser');
    const chains = await createModelChains(stack, platform.id, advertiser.id);
    const users = ['o0', 'o1', 'o2', 'o3'];
    for (const id of users) await register(stack, platform.headers, id);

    await cluster.down();
    try {
      await eventually(async () => ((await stack!.readiness()).every((status) => status === 503) ? true : undefined), {
        timeoutMs: 20_000,
        what: 'every /readyz to answer 503',
      });
      const { unique, sends } = generateEvents(random, users, 15);
      const ids = await sendAll(stack, platform.headers, sends, 4); // throws unless every call answers 200
      expect(ids.size).toBe(unique.length);
      // The failed enqueues were logged (rate-limited), not swallowed. The API writes its log lines from a
      // buffer drained every 200 ms, so the line may reach the output a moment after the last answer.
      const enqueueFailures = () => stack!.apis.flatMap((api) => api.lines()).filter((line) => line.includes('enqueue failed'));
      await eventually(async () => (enqueueFailures().length > 0 ? true : undefined), {
        timeoutMs: 5_000,
        what: "the APIs' 'enqueue failed' log line",
      });
      expect(enqueueFailures().length).toBeLessThan(10);

      await cluster.up();
      await eventually(() => quiescent(stack!.database), {
        timeoutMs: 90_000,
        what: 'everything processed after the cluster returned',
      });
      await expectStoredEqualsModel(stack, chains, unique, ids, users);
      await eventually(async () => ((await stack!.readiness()).every((status) => status === 200) ? true : undefined), {
        timeoutMs: 30_000,
        what: 'every process ready again',
      });
      // A worker that could not reach Redis backed off: a handful of lines, not thousands.
      for (const worker of stack.workers) expect(worker.lines().length, worker.lines().slice(0, 20).join('\n')).toBeLessThan(300);
    } finally {
      await cluster.up().catch(() => {});
    }
  });
});
