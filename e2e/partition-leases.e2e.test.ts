import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../shared/config.js';
import { createRedis } from '../shared/queue/connection.js';
import { type LeaseState, partitionLeaseStore } from '../shared/queue/partition-lease-store.js';
import { queueLayout } from '../shared/queue/partitions.js';
import { eventually } from '../shared/testing/eventually.js';
import { seededRandom } from '../shared/testing/random.js';
import { type ServiceProcess, startService, workerIdOf } from './harness/service.js';
import { type Stack, startStack } from './harness/stack.js';
import { createModelChains, generateEvents, matchedIn, modelMismatches, quiescent, sendAll } from './support/progress-model.js';

// Matching partitions shared out by leases, with real worker processes on the real Redis and Postgres:
// three workers spread the shipped partitions evenly, one SIGKILLed mid-burst leaves its partitions to the
// other two within its lease, a worker started later takes its share, every event is matched once and
// as the model says, and the lease history shows no partition with two holders at once. Then two
// workers made to consume the same partitions at once (both pinned to all of them): the model still holds.

const SEED = Number(process.env.E2E_SEED ?? Date.now() % 2 ** 31);
/** The shipped MATCHING_PARTITIONS: the workers below start with no setting of their own. */
const PARTITIONS = parseConfig({}).MATCHING_PARTITIONS;
const LEASE_MS = 3000;
// What one worker can have committed and not yet logged: its batches in flight at the shipped size and count.
const shipped = parseConfig({});
const IN_FLIGHT_MAX = shipped.MATCH_BATCH_SIZE * shipped.MATCH_BATCHES_IN_FLIGHT;
const redis = createRedis('redis://127.0.0.1:6379', 'worker');

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});
afterAll(() => redis.disconnect());

/** Partitions held per worker id, by the lease keys in Redis. */
const holders = (leases: LeaseState[]) => {
  const held = new Map<string, number[]>();
  for (const lease of leases) if (lease.holder) held.set(lease.holder, [...(held.get(lease.holder) ?? []), lease.partition]);
  return held;
};

/** Resolves once the live workers, and only they, hold every partition, each the floor or the ceiling of its share. */
function evenlyHeldBy(
  store: ReturnType<typeof partitionLeaseStore>,
  workers: ServiceProcess[],
  what: string,
  timeoutMs = 20_000,
) {
  const ids = workers.map(workerIdOf);
  return eventually(
    async () => {
      const held = holders(await store.leases());
      const counts = ids.map((id) => held.get(id)?.length ?? 0);
      const total = [...held.values()].reduce((sum, partitions) => sum + partitions.length, 0);
      const fair = PARTITIONS / ids.length;
      return total === PARTITIONS &&
        [...held.keys()].every((id) => ids.includes(id)) &&
        counts.every((count) => count >= Math.floor(fair) && count <= Math.ceil(fair))
        ? counts
        : undefined;
    },
    { timeoutMs, intervalMs: 50, what },
  );
}

interface Holding {
  worker: string;
  partition: number;
  from: number;
  to: number;
}

/**
 * The lease history as holdings: from each acquisition to the holder's release or loss (or, for a worker
 * killed on purpose, its kill), the later records of one worker's unbroken holding merged.
 */
function holdingsOf(
  history: { change: string; partition: number; worker: string; at: number }[],
  killed: Map<string, number>,
  now: number,
): Holding[] {
  const open = new Map<string, Holding>();
  const closed: Holding[] = [];
  for (const entry of [...history].sort((a, b) => a.at - b.at)) {
    const key = `${entry.partition}:${entry.worker}`;
    if (entry.change === 'acquired') {
      if (!open.has(key)) open.set(key, { worker: entry.worker, partition: entry.partition, from: entry.at, to: now });
    } else {
      const holding = open.get(key);
      if (holding) closed.push({ ...holding, to: entry.at });
      open.delete(key);
    }
  }
  for (const holding of open.values()) closed.push({ ...holding, to: Math.min(now, killed.get(holding.worker) ?? now) });
  return closed;
}

/** The longest time two workers held one partition together, over every partition (ms; ≤ 0: never together). */
function longestOverlap(holdings: Holding[]): { ms: number; partition: number | null } {
  let longest = { ms: Number.NEGATIVE_INFINITY, partition: null as number | null };
  for (const a of holdings)
    for (const b of holdings) {
      if (a.partition !== b.partition || a.worker >= b.worker) continue;
      const ms = Math.min(a.to, b.to) - Math.max(a.from, b.from);
      if (ms > longest.ms) longest = { ms, partition: a.partition };
    }
  return longest;
}

async function seedModel(current: Stack, seed: number, perUser: number) {
  const platform = await current.createProvider('platform');
  const advertiser = await current.createProvider('advertiser');
  const chains = await createModelChains(current, platform.id, advertiser.id);
  const users = Array.from({ length: 12 }, (_, i) => `p${i}`);
  for (const id of users)
    expect(
      (await current.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: id } })).status,
    ).toBe(200);
  return { platform, chains, users, ...generateEvents(seededRandom(seed), users, perUser) };
}

/**
 * Every event's match logged once. A SIGKILLed worker may die between its batch's commit and the job's log line:
 * those events are matched (the model check above counts them) but unlogged, so with a kill the log may miss up
 * to what one worker has in flight, never more, and never an event twice.
 */
function expectMatchedOnce(workers: ServiceProcess[], ids: Map<string, string>, killed = false) {
  const matched = workers.flatMap((worker) => worker.lines().flatMap(matchedIn));
  expect(new Set(matched).size, 'no event matched by two committed batches').toBe(matched.length);
  const sent = new Set(ids.values());
  expect(
    matched.filter((id) => !sent.has(id)),
    'only sent events matched',
  ).toEqual([]);
  const unlogged = [...sent].filter((id) => !matched.includes(id));
  if (!killed) expect(unlogged, 'every event matched').toEqual([]);
  else expect(unlogged.length, "unlogged: at most the killed worker's batches in flight").toBeLessThanOrEqual(IN_FLIGHT_MAX);
}

describe('matching partitions shared out by leases', () => {
  it('three workers, one SIGKILLed mid-burst and one started later: even shares, takeover within the lease, every event matched once as the model says', async () => {
    console.info(`partition-leases e2e seed: ${SEED} (replay with E2E_SEED=${SEED})`);
    stack = await startStack('partition_leases', {
      workerCount: 3,
      partitions: 'shipped',
      env: { PARTITION_LEASE_MS: String(LEASE_MS), WORKER_CONCURRENCY: '16' },
    });
    const current = stack;
    const store = partitionLeaseStore(
      redis,
      queueLayout({ prefix: current.queuePrefix, cluster: false, partitions: PARTITIONS }),
    );
    const started = await evenlyHeldBy(store, current.workers, 'three workers to share the partitions');
    console.info(`three workers hold ${started.join(', ')} partitions`);

    const { platform, chains, users, unique, sends } = await seedModel(current, SEED, 40);
    const sending = sendAll(current, platform.headers, sends, 4);
    const [victim, ...survivors] = current.workers as [ServiceProcess, ...ServiceProcess[]];
    await eventually(async () => (victim.lines().some((line) => matchedIn(line).length > 0) ? true : undefined), {
      timeoutMs: 60_000,
      what: 'the victim to match',
    });
    const victimId = workerIdOf(victim);
    await victim.stop('SIGKILL');
    const killedAt = Date.now();
    await evenlyHeldBy(store, survivors, 'the two survivors to hold every partition', LEASE_MS + 10_000);
    const takeoverMs = Date.now() - killedAt;
    console.info(`SIGKILL: the two others held all ${PARTITIONS} partitions ${takeoverMs} ms after the kill`);
    // Its leases run out LEASE_MS after its last renewal (a second or less before the kill); the others' next tick takes them.
    expect(takeoverMs).toBeLessThan(LEASE_MS + 2000);

    const late = await current.startWorker();
    const joinedAt = Date.now();
    const shares = await evenlyHeldBy(store, [...survivors, late], 'the late worker to take its share');
    console.info(`a worker started later held its share (${shares.join(', ')}) ${Date.now() - joinedAt} ms after it was ready`);

    const ids = await sending;
    await eventually(() => quiescent(current.database), { timeoutMs: 60_000, what: 'every event matched' });
    expect(await modelMismatches(current.database, chains, unique, ids, users), `seed ${SEED}`).toEqual([]);
    expectMatchedOnce(current.workers, ids, true);

    // The lease history: acquisitions and releases as the workers recorded them, the killed one's holdings ending at
    // its kill. No partition ever had two holders at once (a few ms of slack for the two clocks of one machine).
    const holdings = holdingsOf(await store.history(), new Map([[victimId, killedAt]]), Date.now());
    expect(new Set(holdings.map((holding) => holding.partition)).size).toBe(PARTITIONS);
    const overlap = longestOverlap(holdings);
    console.info(`lease history: ${holdings.length} holdings; longest overlap ${overlap.ms} ms (partition ${overlap.partition})`);
    expect(overlap.ms).toBeLessThanOrEqual(50);

    // A count other than the deployment's, or a pin to a partition that does not exist: refused at start, saying why.
    const refusal = await startService('worker', { ...current.env, MATCHING_PARTITIONS: '32' }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refusal).toContain('MATCHING_PARTITIONS=32, but this deployment');
    expect(refusal).toContain('quest-chains workers set-partitions 32');
    const apiRefusal = await startService('api', { ...current.env, MATCHING_PARTITIONS: '128' }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(apiRefusal).toContain('MATCHING_PARTITIONS=128, but this deployment');
    const pinRefusal = await startService('worker', { ...current.env, WORKER_SHARDS: `3,${PARTITIONS}` }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(pinRefusal).toContain(
      `WORKER_SHARDS: partition ${PARTITIONS} does not exist: MATCHING_PARTITIONS=${PARTITIONS} numbers them 0 to ${PARTITIONS - 1}`,
    );
  }, 150_000);

  it('two workers consuming the same partitions at once (both pinned to all): every event matched once, as the model says', async () => {
    const seed = SEED + 1;
    stack = await startStack('partition_overlap', {
      workerCount: 2,
      env: { MATCHING_PARTITIONS: '4', WORKER_SHARDS: '0,1,2,3', WORKER_CONCURRENCY: '8' },
    });
    const current = stack;
    const { platform, chains, users, unique, sends } = await seedModel(current, seed, 30);
    const ids = await sendAll(current, platform.headers, sends, 6);
    await eventually(() => quiescent(current.database), { timeoutMs: 60_000, what: 'every event matched' });
    expect(await modelMismatches(current.database, chains, unique, ids, users), `seed ${seed}`).toEqual([]);
    expectMatchedOnce(current.workers, ids);
    // Both consumed: the overlap was real.
    for (const worker of current.workers) expect(worker.lines().flatMap(matchedIn).length, worker.name).toBeGreaterThan(0);
  }, 90_000);
});
