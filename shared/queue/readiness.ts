import { withTimeout } from '../async/with-timeout.js';
import type { RedisClient } from './connection.js';

/** How long a probe may take before the queue counts as unreachable. */
const PROBE_TIMEOUT_MS = 1000;
// Long enough to see in redis-cli, short enough to leave nothing behind.
const PROBE_TTL_MS = 60_000;

/** A key in the hash slot of the queue `name` of `prefix` (BullMQ's keys are `prefix:name:…`), used by no BullMQ structure. */
export const queueProbeKey = (prefix: string, name: string) => `${prefix}:${name}:readyz`;

/**
 * Readiness of queues, honestly: a write (SET with a TTL) to each queue's own
 * hash slot, so it fails when the master owning that slot is gone, the cluster
 * is down or refuses the slot (MOVED to a node this client cannot reach, a
 * read-only replica), not only when no Redis at all answers. A PING would
 * pass on any node. Rejects naming the first key that failed.
 */
export async function probeQueueSlots(connection: RedisClient, keys: readonly string[]): Promise<void> {
  const stamp = String(Date.now());
  await Promise.all(
    keys.map((key) =>
      withTimeout(connection.set(key, stamp, 'PX', PROBE_TTL_MS), PROBE_TIMEOUT_MS, `queue slot of ${key} did not answer`).catch(
        (error: unknown) => {
          throw new Error(`queue slot of ${key} unavailable: ${error instanceof Error ? error.message : String(error)}`);
        },
      ),
    ),
  );
}
