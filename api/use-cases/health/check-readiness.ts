import { pingDatabase } from '../../../shared/db/ping.js';
import type { AppDeps } from '../../app-env.js';

export type Dependency = 'postgres' | 'redis';

/** How long a probe may take before its dependency counts as unreachable. */
const PROBE_TIMEOUT_MS = 1000;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), PROBE_TIMEOUT_MS).unref()),
  ]);
}

/** Probes Postgres and Redis at once; answers the ones that did not answer in time (none: ready). */
export async function checkReadiness(deps: Pick<AppDeps, 'db' | 'redis'>): Promise<{ unreachable: Dependency[] }> {
  const [postgres, redis] = await Promise.allSettled([withTimeout(pingDatabase(deps.db)), withTimeout(deps.redis.ping())]);
  const unreachable: Dependency[] = [];
  if (postgres.status === 'rejected') unreachable.push('postgres');
  if (redis.status === 'rejected') unreachable.push('redis');
  return { unreachable };
}
