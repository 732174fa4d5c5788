import { findPlatformUser, insertUserIfNew } from '../../shared/db/user-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import type { CoreDeps } from '../deps.js';

export interface RegisterUserInput {
  platformId: string;
  platformUserId: SenderUserId;
  countryCode?: string | null | undefined;
  userMetadata?: Record<string, unknown> | null | undefined;
}

export interface RegisteredUser {
  id: string;
  platformUserId: SenderUserId;
  createdUs: bigint;
  alreadyExists: boolean;
}

/**
 * Idempotent: the unique (platform, platform_user_id) key decides the winner
 * of concurrent registrations; everyone else reads the winner's row. A
 * re-registration returns the stored user unchanged. A new user is created
 * with needs_evaluation set, so events received before the registration are
 * matched (now via the queue, or later by the reconciler if Redis is down).
 * A new user is also announced on their registration channel for live streams.
 */
export async function registerUser(
  deps: Pick<CoreDeps, 'db' | 'producer' | 'changes'>,
  input: RegisterUserInput,
): Promise<RegisteredUser> {
  const created = await insertUserIfNew(deps.db, {
    platformId: input.platformId,
    platformUserId: input.platformUserId,
    countryCode: input.countryCode?.toUpperCase() ?? null,
    userMetadata: input.userMetadata ?? null,
  });
  if (created) {
    // Live streams opened for this user before now wait for this notice. Best effort, not awaited:
    // a lost notice only delays them until the subscriber reconnects (api/live/session.ts).
    void deps.changes.userRegistered(input.platformId, input.platformUserId, created.id);
    await deps.producer.enqueue('evaluate-user', [{ userId: created.id }]);
    return { id: created.id, platformUserId: input.platformUserId, createdUs: created.createdAt, alreadyExists: false };
  }

  const existing = await findPlatformUser(deps.db, input.platformId, input.platformUserId);
  if (!existing) throw new Error('user neither inserted nor found');
  return { id: existing.id, platformUserId: input.platformUserId, createdUs: existing.createdAt, alreadyExists: true };
}
