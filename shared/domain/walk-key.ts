import type { ServiceUserId } from './ids.js';

/** One walk: a user's progress in one chain, as a map key (`user/chain`; both are uuids, so `/` cannot occur inside either). */
export const walkKey = (userId: ServiceUserId, chainId: string) => `${userId}/${chainId}`;

export const parseWalkKey = (key: string) => key.split('/') as [ServiceUserId, string];
