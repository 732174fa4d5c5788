import type { UserProgressChange } from '../core/matching/match-batch.js';
import { formatIsoMillis } from '../shared/domain/timestamp.js';
import { CHANGED_USER_BUCKETS, changedUsersChannel, type ProgressMessage, progressChannel } from '../shared/live/channel.js';
import { publishOn } from '../shared/live/publish.js';
import { logThrottle } from '../shared/observability/log-throttle.js';
import type { Logger } from '../shared/observability/logger.js';
import type { RedisClient } from '../shared/queue/connection.js';
import { bucketOf } from '../shared/queue/partitions.js';

const FAILURE_LOG_MS = 10_000;

/**
 * Tells every API replica that a user's progress changed (Redis pub/sub),
 * stamped with the value the database stored (never this process's clock), so
 * a client may resume `since` it. Fire-and-forget after commit: a lost message
 * only delays a live client, which catches up from the read's baselineTimestamp.
 *
 * `sharded` (REDIS_CLUSTER=true): SPUBLISH on each user's hash-tagged channel,
 * plus one message per changed-user bucket for the API's answer caches
 * (shared/live/channel.ts); the commands go out together, each to the master
 * of its slot (a cluster pipeline must stay within one slot, so none is used).
 */
export function createLivePublisher(redis: RedisClient, prefix: string, logger: Logger, sharded = false) {
  const failures = logThrottle(FAILURE_LOG_MS);
  const report = (error: unknown, users: number) =>
    failures.run((suppressed) => logger.warn({ err: error, users, suppressed }, 'live updates not published'));

  return async function publish(changes: readonly UserProgressChange[]): Promise<void> {
    if (changes.length === 0) return;
    const messages = changes.map((change) => {
      const message: ProgressMessage = {
        quest_chain_ids: change.chainIds,
        changed_at: formatIsoMillis(change.changedUs),
        ...(change.progress && change.progress.length > 0 ? { progress: change.progress } : {}),
      };
      return [progressChannel(prefix, change.userId, sharded), JSON.stringify(message)] as const;
    });
    if (!sharded) {
      const pipeline = redis.pipeline();
      for (const [channel, message] of messages) pipeline.publish(channel, message);
      try {
        await pipeline.exec();
      } catch (error) {
        report(error, changes.length);
      }
      return;
    }
    const buckets = new Map<number, string[]>();
    for (const { userId } of changes) {
      const bucket = bucketOf(userId, CHANGED_USER_BUCKETS);
      buckets.set(bucket, [...(buckets.get(bucket) ?? []), userId]);
    }
    const sent = await Promise.allSettled([
      ...messages.map(([channel, message]) => publishOn(redis, channel, message, true)),
      ...[...buckets].map(([bucket, userIds]) =>
        publishOn(redis, changedUsersChannel(prefix, bucket), JSON.stringify(userIds), true),
      ),
    ]);
    const failed = sent.find((outcome) => outcome.status === 'rejected');
    if (failed) report(failed.reason, changes.length);
  };
}

export type LivePublisher = ReturnType<typeof createLivePublisher>;
