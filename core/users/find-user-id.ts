import type { SenderUserId, ServiceUserId } from '../../shared/domain/ids.js';
import { findUserId as findStoredUserId } from '../../shared/db/user-store.js';
import type { CoreDeps } from '../deps.js';

/** The service user id of one of a platform's users, or null while that platform has not registered them. */
export function findUserId(deps: Pick<CoreDeps, 'db'>, input: { platformId: string; platformUserId: SenderUserId }): Promise<ServiceUserId | null> {
  return findStoredUserId(deps.db, input.platformId, input.platformUserId);
}
