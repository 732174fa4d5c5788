/**
 * What a use-case changed that a process may hold cached (the API's chain
 * definitions and GET active answers). Every writer says it here and nowhere
 * else: the API's implementation drops its own caches and tells the other
 * processes; the worker's and the CLI's (change-publisher.ts) tell them. Progress is not here: the
 * worker's matching announces each changed user itself (the worker's live publisher).
 */
export interface ChangeNotices {
  /** A platform's chain definitions changed (a chain created, its status, a prize's stock, a box's seed). */
  chainsChanged(platformId: string): Promise<void>;
  /** One user's answer changed otherwise than by progress (a claim). */
  answerChanged(platformId: string, platformUserId: string): Promise<void>;
  /** Every answer of a platform changed at once (its test-mode data was reset). */
  answersChanged(platformId: string): Promise<void>;
  /** A platform registered a user: live streams opened for that user before now start following them. */
  userRegistered(platformId: string, platformUserId: string, userId: string): Promise<void>;
}
