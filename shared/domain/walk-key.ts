import type { ServiceUserId } from './ids.js';
import { ONLY_RUN } from './recurrence.js';

/**
 * One walk: a user's progress in one run of one chain, as a map key
 * (`user/chain`, and `/runStart` for a run of a repeating chain; ids are uuids
 * and the run's start an integer, so `/` cannot occur inside any of them).
 */
export const walkKey = (userId: ServiceUserId, chainId: string, runStartUs: bigint = ONLY_RUN) =>
  runStartUs === ONLY_RUN ? `${userId}/${chainId}` : `${userId}/${chainId}/${runStartUs}`;

export const parseWalkKey = (key: string): [ServiceUserId, string, bigint] => {
  const [userId, chainId, runStart] = key.split('/') as [ServiceUserId, string, string | undefined];
  return [userId, chainId, runStart === undefined ? ONLY_RUN : BigInt(runStart)];
};
