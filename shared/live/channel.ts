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

/**
 * Change notices (core/deps.ts `ChangeNotices`): what a writer changed that
 * cached reads depend on, published by whichever process made the change and
 * followed by every API process. One channel for the service; on a cluster a
 * sharded channel in one slot (writes of definitions, claims and resets are few).
 */
export const changesChannel = (prefix: string, sharded = false) =>
  sharded ? `{${untagged(prefix)}:read:changes}` : `${prefix}:read:changes`;

export const changeNoticeSchema = z.discriminatedUnion('kind', [
  /** A platform's chain definitions (created, status, stock, seed). */
  z.object({ kind: z.literal('chains'), platformId: z.string() }),
  /** One user's answer, otherwise than by progress (a claim). */
  z.object({ kind: z.literal('answer'), platformId: z.string(), platformUserId: z.string() }),
  /** Every answer of a platform (or of its test twin): a test-mode reset. */
  z.object({ kind: z.literal('answers'), platformId: z.string() }),
  /**
   * Every answer of every platform: progress may have been committed and never announced (a worker
   * killed between a batch's commit and its publish). A worker sends it as it starts and when it takes
   * over a lapsed worker's work (docs/reliability.md, "What it does not show").
   */
  z.object({ kind: z.literal('all') }),
]);

export type ChangeNotice = z.infer<typeof changeNoticeSchema>;

/**
 * A probe: a message an API publishes on a channel it follows to learn that
 * the channel delivers (api/read-cache/notice-watch.ts). Every follower of the
 * channel sees it and ignores it unless it is its own.
 */
const PROBE_PREFIX = '{"probe":';
export const probeMessage = (token: string) => `${PROBE_PREFIX}${JSON.stringify(token)}}`;
export const probeToken = (raw: string): string | undefined =>
  raw.startsWith(PROBE_PREFIX) ? (JSON.parse(raw) as { probe: string }).probe : undefined;

/** The user id of the progress channel that probes of the classic (pattern) subscription are published on. */
export const PROBE_USER = '~probe';
