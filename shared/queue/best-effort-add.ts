import type { Queue } from 'bullmq';
import { addJobs, type QueuedJobs } from './add-jobs.js';
import type { RedisClient } from './connection.js';

const DOWN_STATES = new Set(['reconnecting', 'close', 'end']);

/**
 * Adds jobs whose work Postgres already holds (a webhook message, a
 * backtest): at once false when the connection is down, and false after a
 * second at most, never a throw or a long wait for the caller's request. A
 * sweeper finds in Postgres what was not queued.
 */
export async function addBestEffort(connection: RedisClient, queue: Queue, jobs: QueuedJobs): Promise<boolean> {
  if (jobs.length === 0) return true;
  if (DOWN_STATES.has(connection.status)) return false;
  try {
    await addJobs(queue, jobs);
    return true;
  } catch {
    return false;
  }
}
