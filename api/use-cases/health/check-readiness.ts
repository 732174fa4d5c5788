import { withTimeout } from '../../../shared/async/with-timeout.js';
import { pingDatabase } from '../../../shared/db/ping.js';
import type { AppDeps } from '../../app-env.js';

export type Dependency = 'postgres' | 'redis';

/** How long a probe may take before its dependency counts as unreachable. */
const PROBE_TIMEOUT_MS = 1000;


/** Probes Postgres and Redis at once; answers the ones that did not answer in time (none: ready). */
export async function checkReadiness(deps: Pick<AppDeps, 'db' | 'redis'>): Promise<{ unreachable: Dependency[] }> {
  const [postgres, redis] = await Promise.allSettled([withTimeout(pingDatabase(deps.db), PROBE_TIMEOUT_MS), withTimeout(deps.redis.ping(), PROBE_TIMEOUT_MS)]);
  const unreachable: Dependency[] = [];
  if (postgres.status === 'rejected') unreachable.push('postgres');
  if (redis.status === 'rejected') unreachable.push('redis');
  return { unreachable };
}
