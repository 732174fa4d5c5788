import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../shared/observability/logger.js';
import { createRedis } from '../shared/queue/connection.js';
import { type PartitionLeaseStore, partitionLeaseStore } from '../shared/queue/partition-lease-store.js';
import { queueLayout } from '../shared/queue/partitions.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import type { PartitionConsumption } from './partition-consumers.js';
import { type PartitionLeases, startPartitionLeases } from './partition-leases.js';

// The partition lease keeper in process, against the real Redis (its own prefix per test), with a
// consumption that records what it was told: who consumes what, and when each partition stopped.

const redis = createRedis('redis://127.0.0.1:6379', 'producer');
const silent = createLogger({ level: 'silent', name: 'partition-leases-test' });
const LEASE_MS = 1500;
const PARTITIONS = 16;

interface Keeper {
  id: string;
  leases: PartitionLeases;
  consuming: Set<number>;
  stoppedAt: Map<number, number>;
}

const running: Keeper[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((keeper) => keeper.leases.stop()));
});
afterAll(() => redis.disconnect());

const info = { host: 'test', pid: 0, pins: null, healthPort: null, startedAt: new Date(0).toISOString() };

function layoutFor(label: string) {
  return queueLayout({ prefix: `test-${label}-${uniqueSuffix()}`, cluster: false, partitions: PARTITIONS });
}

async function startKeeper(
  id: string,
  store: PartitionLeaseStore,
  options: { pins?: number[]; lease?: number; wait?: boolean } = {},
): Promise<Keeper> {
  const consuming = new Set<number>();
  const stoppedAt = new Map<number, number>();
  const consumption: PartitionConsumption = {
    start: (partition) => void consuming.add(partition),
    stop: async (partition) => {
      consuming.delete(partition);
      stoppedAt.set(partition, Date.now());
    },
  };
  const leases = startPartitionLeases(
    { store, logger: silent, consumption },
    {
      workerId: id,
      partitions: PARTITIONS,
      leaseMs: options.lease ?? LEASE_MS,
      pins: options.pins ?? null,
      info: { ...info, pins: options.pins ?? null },
    },
  );
  const keeper = { id, leases, consuming, stoppedAt };
  running.push(keeper);
  if (options.wait !== false) await leases.start();
  else void leases.start();
  return keeper;
}

/** Each keeper's partitions once every partition has exactly one holder and each holds a fair share. */
async function settled(keepers: Keeper[], partitions = PARTITIONS, what = 'a fair share each') {
  return eventually(
    async () => {
      const counts = keepers.map((keeper) => keeper.consuming.size);
      const all = keepers.flatMap((keeper) => [...keeper.consuming]);
      const fair = partitions / keepers.length;
      const even = counts.every((count) => count >= Math.floor(fair) && count <= Math.ceil(fair));
      return all.length === partitions && new Set(all).size === partitions && even ? counts : undefined;
    },
    { timeoutMs: 15_000, intervalMs: 50, what },
  );
}

describe('partition leases', () => {
  it('three workers share the partitions evenly; one stopping hands its share over at once; one joining takes its share', async () => {
    const store = partitionLeaseStore(redis, layoutFor('share'));
    const keepers = [await startKeeper('a', store), await startKeeper('b', store), await startKeeper('c', store)];
    expect(await settled(keepers)).toEqual(expect.arrayContaining([5, 5, 6]));
    const leases = await store.leases();
    for (const keeper of keepers)
      expect(
        leases.filter((lease) => lease.holder === keeper.id).map((lease) => lease.partition),
        'Redis agrees with what each consumes',
      ).toEqual([...keeper.consuming].sort((a, b) => a - b));

    // SIGTERM: its leases are released at once, so the others take them at their next tick, not a lease later.
    const stopping = performance.now();
    await keepers[0]!.leases.stop();
    running.splice(running.indexOf(keepers[0]!), 1);
    await settled(keepers.slice(1));
    expect(performance.now() - stopping).toBeLessThan(LEASE_MS);

    const late = await startKeeper('d', store);
    await settled([keepers[1]!, keepers[2]!, late]);
    const history = await store.history();
    expect(history.filter((entry) => entry.worker === 'a' && entry.change === 'released')).toHaveLength(
      history.filter((entry) => entry.worker === 'a' && entry.change === 'acquired').length,
    );
  });

  it('a worker whose renewals hang stops consuming before its leases can run out; the others take them after', async () => {
    const layout = layoutFor('fence');
    const store = partitionLeaseStore(redis, layout);
    let hung = false;
    // Every call of the hung worker's store waits forever, as over a connection to a Redis that stopped answering.
    const hanging = new Proxy(store, {
      get: (target, name: keyof PartitionLeaseStore) =>
        hung ? () => new Promise(() => {}) : (target[name] as (...args: unknown[]) => unknown).bind(target),
    });
    const [victim, other] = [await startKeeper('victim', hanging), await startKeeper('other', store)];
    await settled([victim, other]);
    const held = [...victim.consuming];
    hung = true;
    const hungAt = Date.now();
    await eventually(async () => (victim.consuming.size === 0 ? true : undefined), {
      timeoutMs: 5000,
      what: 'the victim to stop',
    });
    // Each lease was last renewed before the hang, so it runs out no earlier than LEASE_MS after its last renewal;
    // the victim stopped every partition while Redis still held its lease (the other could not have taken it yet).
    const leases = await store.leases();
    for (const partition of held) {
      expect(victim.stoppedAt.get(partition)! - hungAt, `partition ${partition}`).toBeLessThan(LEASE_MS);
      expect(leases[partition]!.holder, `partition ${partition} still the victim's when it stopped`).toBe('victim');
    }
    await settled([other], PARTITIONS, 'the other to hold everything');
  });

  it("a lease taken by another worker (it ran out during a stall) is dropped at once, never renewed over the other's", async () => {
    const layout = layoutFor('stolen');
    const store = partitionLeaseStore(redis, layout);
    // A long lease, so that only the failed renewal (a tick, a second), not the expiry fence, can stop it in time.
    const keeper = await startKeeper('slow', store, { lease: 6000 });
    await settled([keeper]);
    // As if the lease had run out and another worker had taken partition 3.
    await redis.set(layout.leaseKey(3), 'thief@1', 'PX', 60_000);
    const stolenAt = Date.now();
    await eventually(async () => (!keeper.consuming.has(3) ? true : undefined), {
      timeoutMs: 10_000,
      what: 'partition 3 dropped',
    });
    expect(Date.now() - stolenAt).toBeLessThan(2500);
    expect(await redis.get(layout.leaseKey(3))).toBe('thief@1');
    expect(keeper.consuming.size).toBe(PARTITIONS - 1);
  });

  it('pinned workers consume their pins with no lease; leasing workers share out the rest', async () => {
    const layout = layoutFor('pins');
    const store = partitionLeaseStore(redis, layout);
    const pinned = await startKeeper('pinned', store, { pins: [0, 1, 2, 3] });
    const pinnedToo = await startKeeper('pinned-too', store, { pins: [3] });
    const leasing = [await startKeeper('x', store), await startKeeper('y', store)];
    expect(await settled(leasing, PARTITIONS - 4)).toEqual([6, 6]);
    expect([...pinned.consuming].sort()).toEqual([0, 1, 2, 3]);
    expect([...pinnedToo.consuming]).toEqual([3]);
    expect((await store.leases()).filter((lease) => lease.partition < 4).map((lease) => lease.holder)).toEqual([
      null,
      null,
      null,
      null,
    ]);
    // A pinned worker gone, its pins go back to the share.
    await pinned.leases.stop();
    running.splice(running.indexOf(pinned), 1);
    await settled(leasing, PARTITIONS - 1);
  });
});
