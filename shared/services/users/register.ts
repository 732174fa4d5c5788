import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import type { MatchingProducer } from '../../queue/producer.js';

export interface RegisterInput {
  platform_user_id: string;
  country_code?: string | null | undefined;
  user_metadata?: Record<string, unknown> | undefined;
}

export interface RegisteredUser {
  id: string;
  platformUserId: string;
  createdAt: bigint;
  alreadyExists: boolean;
}

/**
 * Idempotent: the unique (platform, platform_user_id) key decides the winner
 * of concurrent registrations; everyone else reads the winner's row. A
 * re-registration returns the stored user unchanged. A new user is created
 * with needs_evaluation set, so events received before the registration are
 * matched (now via the queue, or later by the reconciler if Redis is down).
 */
export async function registerUser(
  deps: { db: Database; producer: MatchingProducer },
  platformId: string,
  input: RegisterInput,
): Promise<RegisteredUser> {
  const [created] = await deps.db
    .insert(users)
    .values({
      platformId,
      platformUserId: input.platform_user_id,
      countryCode: input.country_code?.toUpperCase() ?? null,
      userMetadata: input.user_metadata ?? null,
    })
    .onConflictDoNothing({ target: [users.platformId, users.platformUserId] })
    .returning({ id: users.id, createdAt: users.createdAt });

  if (created) {
    await deps.producer.enqueue('evaluate-user', [{ userId: created.id }]);
    return { id: created.id, platformUserId: input.platform_user_id, createdAt: created.createdAt, alreadyExists: false };
  }

  const [existing] = await deps.db
    .select({ id: users.id, createdAt: users.createdAt })
    .from(users)
    .where(and(eq(users.platformId, platformId), eq(users.platformUserId, input.platform_user_id)))
    .limit(1);
  if (!existing) throw new Error('user neither inserted nor found');
  return { id: existing.id, platformUserId: input.platform_user_id, createdAt: existing.createdAt, alreadyExists: true };
}
