import type { Redis } from 'ioredis';
import { progressChannel, type ProgressMessage } from '../shared/live/channel.js';
import type { Logger } from '../shared/observability/logger.js';
import type { ProgressChange } from './matching/evaluate-chains.js';

/**
 * Tells every API replica that a user's progress changed (Redis pub/sub).
 * Fire-and-forget after commit: a lost message only delays a live client,
 * which catches up from the read's baselineTimestamp when it reconnects.
 */
export function createLivePublisher(redis: Redis, prefix: string, logger: Logger) {
  return async function publish(changes: readonly ProgressChange[]): Promise<void> {
    const changedAt = new Date().toISOString();
    await Promise.all(
      changes.map(async (change) => {
        const message: ProgressMessage = { quest_chain_ids: change.chainIds, changed_at: changedAt };
        try {
          await redis.publish(progressChannel(prefix, change.userId), JSON.stringify(message));
        } catch (error) {
          logger.warn({ err: error, userId: change.userId }, 'live update not published');
        }
      }),
    );
  };
}

export type LivePublisher = ReturnType<typeof createLivePublisher>;
