import type { Redis } from 'ioredis';
import { formatIsoMillis } from '../shared/domain/timestamp.js';
import { progressChannel, type ProgressMessage } from '../shared/live/channel.js';
import type { Logger } from '../shared/observability/logger.js';

/** A user whose progress changed, with the chains that changed and the stamp stored for it. */
export interface ProgressChange {
  userId: string;
  chainIds: string[];
  changedUs: bigint;
}

/**
 * Tells every API replica that a user's progress changed (Redis pub/sub),
 * stamped with the value the database stored (never this process's clock), so
 * a client may resume `since` it. Fire-and-forget after commit: a lost message
 * only delays a live client, which catches up from the read's baselineTimestamp.
 */
export function createLivePublisher(redis: Redis, prefix: string, logger: Logger) {
  return async function publish(changes: readonly ProgressChange[]): Promise<void> {
    if (changes.length === 0) return;
    const pipeline = redis.pipeline();
    for (const change of changes) {
      const message: ProgressMessage = { quest_chain_ids: change.chainIds, changed_at: formatIsoMillis(change.changedUs) };
      pipeline.publish(progressChannel(prefix, change.userId), JSON.stringify(message));
    }
    try {
      await pipeline.exec();
    } catch (error) {
      logger.warn({ err: error, users: changes.length }, 'live updates not published');
    }
  };
}

export type LivePublisher = ReturnType<typeof createLivePublisher>;
