import type { Command } from 'commander';
import { withTimeout } from '../shared/async/with-timeout.js';
import type { Config } from '../shared/config.js';
import { createRedis, type RedisClient } from '../shared/queue/connection.js';
import { readPartitionCount, replacePartitionCount } from '../shared/queue/partition-count.js';
import { partitionLeaseStore } from '../shared/queue/partition-lease-store.js';
import { queueLayout } from '../shared/queue/partitions.js';
import { createMatchingProducer } from '../shared/queue/producer.js';
import { CliInputError, runCommand } from './context.js';

/**
 * `quest-chains workers …`: who consumes which matching partition
 * (docs/operations.md, "Matching partitions"), read from Redis as the workers
 * keep it, and the one way to change the deployment's partition count.
 */

// A Redis that does not answer fails the command instead of hanging it.
const REDIS_TIMEOUT_MS = 5000;

/** The deployment as Redis holds it: its stored partition count (the CLI's own setting only before any start). */
async function withDeployment<T>(
  config: Config,
  use: (redis: RedisClient, deployment: { partitions: number; stored: number | null }) => Promise<T>,
): Promise<T> {
  // Waits for the connection (the worker role queues commands until then); the timeout bounds it.
  const redis = createRedis(config.REDIS_URL, 'worker', { cluster: config.REDIS_CLUSTER });
  try {
    return await withTimeout(
      (async () => {
        const probe = queueLayout({ prefix: config.QUEUE_PREFIX, cluster: config.REDIS_CLUSTER, partitions: 1 });
        const stored = await readPartitionCount(redis, probe);
        return use(redis, { partitions: stored ?? config.MATCHING_PARTITIONS, stored });
      })(),
      REDIS_TIMEOUT_MS,
      `Redis did not answer within ${REDIS_TIMEOUT_MS / 1000} s (REDIS_URL): is it running?`,
    );
  } finally {
    redis.disconnect();
  }
}

/** 0,1,2,3,7,9,10 -> "0-3,7,9-10". */
function partitionRanges(partitions: readonly number[]): string {
  const sorted = [...partitions].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j += 1;
    ranges.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return ranges.join(',') || 'none';
}

const seconds = (ms: number) =>
  ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

async function describeWorkers(config: Config, redis: RedisClient, deployment: { partitions: number; stored: number | null }) {
  const layout = queueLayout({ prefix: config.QUEUE_PREFIX, cluster: config.REDIS_CLUSTER, partitions: deployment.partitions });
  const store = partitionLeaseStore(redis, layout);
  const producer = createMatchingProducer(redis, layout);
  try {
    const [live, leases, counts] = await Promise.all([
      store.workers(config.PARTITION_LEASE_MS),
      store.leases(),
      producer.getJobCountsByPartition('waiting', 'prioritized', 'active'),
    ]);
    const pinnedBy = (partition: number) => live.filter((worker) => worker.pins?.includes(partition)).map((worker) => worker.id);
    const workers = live.map((worker) => ({
      id: worker.id,
      host: worker.info?.host ?? null,
      pid: worker.info?.pid ?? null,
      health_port: worker.info?.healthPort ?? null,
      started_at: worker.info?.startedAt ?? null,
      seen_ms_ago: worker.seenMsAgo,
      pinned: worker.pins !== undefined,
      partitions: worker.pins
        ? worker.pins.map((partition) => ({ partition, lease_age_ms: null, lease_expires_in_ms: null }))
        : leases
            .filter((lease) => lease.holder === worker.id)
            .map((lease) => ({ partition: lease.partition, lease_age_ms: lease.heldMs, lease_expires_in_ms: lease.expiresInMs })),
    }));
    const live_ids = new Set(live.map((worker) => worker.id));
    return {
      partitions: deployment.partitions,
      partitions_stored: deployment.stored,
      lease_ms: config.PARTITION_LEASE_MS,
      workers,
      // Held by no live worker, leased or pinned: nobody consumes them now.
      unconsumed: leases
        .filter((lease) => (lease.holder === null || !live_ids.has(lease.holder)) && pinnedBy(lease.partition).length === 0)
        .map((lease) => lease.partition),
      // A lease whose holder is no longer registered: a worker that died, until the lease runs out.
      leases_of_gone_workers: leases
        .filter((lease) => lease.holder !== null && !live_ids.has(lease.holder))
        .map((lease) => ({ partition: lease.partition, holder: lease.holder, expires_in_ms: lease.expiresInMs })),
      jobs: counts.map((count, partition) => ({
        partition,
        waiting: (count.waiting ?? 0) + (count.prioritized ?? 0),
        active: count.active ?? 0,
      })),
    };
  } finally {
    await producer.close();
  }
}

type WorkersView = Awaited<ReturnType<typeof describeWorkers>>;

function humanWorkers(view: WorkersView): string[] {
  const waiting = view.jobs.reduce((sum, jobs) => sum + jobs.waiting, 0);
  const active = view.jobs.reduce((sum, jobs) => sum + jobs.active, 0);
  const busiest = [...view.jobs].filter((jobs) => jobs.waiting > 0).sort((a, b) => b.waiting - a.waiting);
  const lines = [
    `${view.partitions} matching partitions${view.partitions_stored === null ? ' (no process has started yet)' : ''}, ${view.workers.length} live worker${view.workers.length === 1 ? '' : 's'}`,
  ];
  for (const worker of view.workers) {
    const ages = worker.partitions.flatMap((held) => (held.lease_age_ms === null ? [] : [held.lease_age_ms]));
    lines.push(
      `  ${worker.id}  ${worker.host ?? '?'} pid ${worker.pid ?? '?'}  seen ${seconds(worker.seen_ms_ago)} ago  ` +
        `${worker.pinned ? 'pinned' : 'leased'} ${worker.partitions.length}: ${partitionRanges(worker.partitions.map((held) => held.partition))}` +
        (ages.length > 0 ? `  lease ages ${seconds(Math.min(...ages))} to ${seconds(Math.max(...ages))}` : ''),
    );
  }
  lines.push(`not consumed: ${partitionRanges(view.unconsumed)}`);
  for (const lease of view.leases_of_gone_workers)
    lines.push(
      `  partition ${lease.partition}: lease of gone worker ${lease.holder}, runs out in ${seconds(lease.expires_in_ms ?? 0)}`,
    );
  lines.push(
    `jobs waiting: ${waiting}${
      busiest.length > 0
        ? ` (${busiest
            .slice(0, 5)
            .map((jobs) => `partition ${jobs.partition}: ${jobs.waiting}`)
            .join(', ')}${busiest.length > 5 ? ', …' : ''})`
        : ''
    }, active: ${active}`,
  );
  return lines;
}

export function registerWorkerCommands(program: Command, json: () => boolean) {
  const workers = program
    .command('workers')
    .description('live matching workers, the partitions each consumes and their lease ages')
    .action(() =>
      runCommand(json(), ({ config, out }) =>
        withDeployment(config, async (redis, deployment) => {
          const view = await describeWorkers(config, redis, deployment);
          out.result(view, () => humanWorkers(view));
        }),
      ),
    );

  workers
    .command('set-partitions <count>')
    .description("change the deployment's MATCHING_PARTITIONS: every API and worker stopped, the matching queues drained")
    .option('--force', 'even with jobs still queued (the reconciler puts their events back, after RECONCILE_MIN_AGE_MS)')
    .action((text: string, options: { force?: boolean }) =>
      runCommand(json(), ({ config, out }) =>
        withDeployment(config, async (redis, deployment) => {
          const count = Number(text);
          if (!Number.isInteger(count) || count < 1 || count > 1024)
            throw new CliInputError('count: must be a whole number from 1 to 1024');
          const view = await describeWorkers(config, redis, deployment);
          if (view.workers.length > 0)
            throw new CliInputError(
              `${view.workers.length} worker(s) still running (${view.workers.map((worker) => worker.id).join(', ')}): stop every worker and API first`,
            );
          const queued = view.jobs.reduce((sum, jobs) => sum + jobs.waiting + jobs.active, 0);
          if (queued > 0 && !options.force)
            throw new CliInputError(
              `${queued} matching job(s) still queued in the ${deployment.partitions} partitions: let the workers drain them first (stop the APIs, keep the workers until \`quest-chains workers\` shows none waiting), or --force`,
            );
          const layout = queueLayout({ prefix: config.QUEUE_PREFIX, cluster: config.REDIS_CLUSTER, partitions: count });
          await replacePartitionCount(redis, layout, count);
          const result = { partitions: count, previous: deployment.stored };
          out.result(result, () => [
            `MATCHING_PARTITIONS is now ${count} for this deployment (was ${deployment.stored ?? 'unset'}): start every process with MATCHING_PARTITIONS=${count}`,
          ]);
        }),
      ),
    );
}
