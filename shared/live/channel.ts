import { z } from 'zod';

/**
 * Redis pub/sub contract for live updates: the worker publishes one message
 * per user whose progress changed; any API replica relays it to that user's streams.
 *
 * `sharded` (REDIS_CLUSTER=true): the channel is for sharded pub/sub
 * (SPUBLISH/SSUBSCRIBE), which a cluster delivers within the shard owning the
 * channel's hash slot instead of broadcasting to every node. Each user's
 * channel carries the user as its hash tag, so channels spread over the
 * cluster. The prefix's own braces are dropped: a tag there would put every
 * channel in one slot.
 */
export const progressChannel = (prefix: string, userId: string, sharded = false) =>
  sharded ? `${untagged(prefix)}:live:user:{${userId}}` : `${prefix}:live:user:${userId}`;

/** QUEUE_PREFIX without hash-tag braces (shared/queue/shards.ts does the same for queues). */
const untagged = (prefix: string) => prefix.replace(/[{}]/g, '') || 'qcr';

/**
 * On a cluster, changed users are also announced on one of these sharded
 * channels (a bucket by hash of the user), as a JSON array of user ids: the
 * API's answer cache follows every user, which classic pub/sub does with a
 * pattern and sharded pub/sub cannot.
 */
export const CHANGED_USER_BUCKETS = 16;
export const changedUsersChannel = (prefix: string, bucket: number) => `{${untagged(prefix)}:changed:${bucket}}`;
export const changedUsersSchema = z.array(z.string());

export const progressMessageSchema = z.object({
  quest_chain_ids: z.array(z.string()),
  changed_at: z.string(),
  /** Counted, summed and streak tasks' tallies in the changed chains (docs/quest-language.md); absent when none. */
  progress: z
    .array(
      z.object({
        quest_chain_id: z.string(),
        task_id: z.string(),
        period_start: z.string().nullable(),
        count: z.number(),
        total: z.number(),
        streak: z.number(),
      }),
    )
    .optional(),
});

export type ProgressMessage = z.infer<typeof progressMessageSchema>;

/**
 * Registration notices: the API publishes the new user's id here when a
 * platform registers them, so a stream opened before the registration starts
 * following them at once, without polling Postgres.
 */
export const registrationChannel = (prefix: string, platformId: string, platformUserId: string, sharded = false) =>
  sharded
    ? `${untagged(prefix)}:live:registered:{${platformId}:${platformUserId}}`
    : `${prefix}:live:registered:${platformId}:${platformUserId}`;
