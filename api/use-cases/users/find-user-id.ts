import { findUserId as findStoredUserId } from '../../../shared/db/user-store.js';
import type { AppDeps } from '../../app-env.js';

/** The service user id of one of a platform's users, or null while that platform has not registered them. */
export function findUserId(deps: Pick<AppDeps, 'db'>, input: { platformId: string; platformUserId: string }): Promise<string | null> {
  return findStoredUserId(deps.db, input.platformId, input.platformUserId);
}
