import { sql } from 'drizzle-orm';
import type { Database } from '../../shared/db/client.js';
import { chainsForTarget, evaluateChains, lockUser, type ProgressChange } from './evaluate-chains.js';

/**
 * Re-matches every stored event of a user against every chain of the
 * platform: after registration (events sent before it), a new account link
 * (the advertiser's earlier events) or a new chain. The flag is cleared
 * first, under the user lock, so a request raised while this runs is not lost:
 * its writer either committed before our reads (we see its data) or sets the flag again after us.
 */
export async function evaluateUser(db: Database, userId: string): Promise<ProgressChange | null> {
  return db.transaction(async (tx) => {
    await lockUser(tx, userId);
    const [user] = await tx.execute<{ id: string; platform_id: string; platform_user_id: string }>(sql`
      update users set needs_evaluation = false where id = ${userId}
      returning id, platform_id, platform_user_id`);
    if (!user) return null;
    const target = { userId: user.id, platformId: user.platform_id, platformUserId: user.platform_user_id };
    return evaluateChains(tx, target, await chainsForTarget(tx, target));
  });
}
