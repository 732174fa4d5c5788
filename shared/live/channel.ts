import { z } from 'zod';

/**
 * Redis pub/sub contract for live updates: the worker publishes one message
 * per user whose progress changed; any API replica relays it to that user's streams.
 */
export const progressChannel = (prefix: string, userId: string) => `${prefix}:live:user:${userId}`;

export const progressMessageSchema = z.object({
  quest_chain_ids: z.array(z.string()),
  changed_at: z.string(),
});

export type ProgressMessage = z.infer<typeof progressMessageSchema>;

/**
 * Registration notices: the API publishes the new user's id here when a
 * platform registers them, so a stream opened before the registration starts
 * following them at once, without polling Postgres.
 */
export const registrationChannel = (prefix: string, platformId: string, platformUserId: string) =>
  `${prefix}:live:registered:${platformId}:${platformUserId}`;
