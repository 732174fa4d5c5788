import { withTimeout } from '../../shared/async/with-timeout.js';
import { pingDatabase } from '../../shared/db/ping.js';
import { probeQueueSlots } from '../../shared/queue/readiness.js';
import type { CoreDeps } from '../deps.js';

export type Dependency = 'postgres' | 'redis';

/** How long a probe may take before its dependency counts as unreachable. */
const PROBE_TIMEOUT_MS = 1000;

/**
 * Probes Postgres and the queues at once; answers the ones that did not answer in time (none: ready).
 * Redis is probed where the API writes: a write to every matching shard's hash slot and the webhook
 * queue's (shared/queue/readiness.ts), so a cluster missing a master is not ready, as a PING would say.
 */
export async function checkReadiness(
  deps: Pick<CoreDeps, 'db' | 'redis' | 'producer' | 'webhooks'>,
): Promise<{ unreachable: Dependency[] }> {
  const [postgres, redis] = await Promise.allSettled([
    withTimeout(pingDatabase(deps.db), PROBE_TIMEOUT_MS),
    Promise.all([deps.producer.probe(), probeQueueSlots(deps.redis, [deps.webhooks.queue.toKey('readyz')])]),
  ]);
  const unreachable: Dependency[] = [];
  if (postgres.status === 'rejected') unreachable.push('postgres');
  if (redis.status === 'rejected') unreachable.push('redis');
  return { unreachable };
}
