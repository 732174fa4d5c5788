/** Product rules §10: the facts a webhook announces, and when a failed delivery is tried again. */
export const WEBHOOK_EVENT_TYPES = [
  'task.completed',
  'chain.completed',
  'reward.claimed',
  'task.reverted',
  'chain.reverted',
  'reward.reversed',
  'chain.budget_exhausted',
  'leaderboard.finalized',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The facts an advertiser's endpoint may receive: completions in the chains it
 * sponsors. A claim is the platform's business (§10: "platforms only").
 */
export const ADVERTISER_EVENT_TYPES: readonly WebhookEventType[] = [
  'task.completed',
  'chain.completed',
  'task.reverted',
  'chain.reverted',
  'chain.budget_exhausted',
];

/** The facts a platform's endpoint may receive: all but the budget's, which is the advertiser's (it funds it); its leaderboards' are its own (§19). */
export const PLATFORM_EVENT_TYPES: readonly WebhookEventType[] = WEBHOOK_EVENT_TYPES.filter(
  (type) => type !== 'chain.budget_exhausted',
);

/**
 * The delay before each retry, before jitter: 5 s, then four times longer
 * each time, capped at 3 h. Eight retries after the first attempt (9 attempts)
 * spread over about 8 hours, so a receiver down for a working night still
 * gets everything; the first retry comes soon enough to ride out a restart.
 */
const FIRST_RETRY_MS = 5_000;
const GROWTH = 4;
const LONGEST_WAIT_MS = 3 * 3_600_000;
export const WEBHOOK_MAX_ATTEMPTS = 9;
/** ±20% keeps the schedule's shape while spreading receivers' retries that failed together. */
const JITTER = 0.2;

/** The schedule without jitter: the wait after attempt n (1-based) failed, for n = 1 .. MAX_ATTEMPTS - 1. */
export const baseRetryDelaysMs = (): number[] =>
  Array.from({ length: WEBHOOK_MAX_ATTEMPTS - 1 }, (_, i) => Math.min(FIRST_RETRY_MS * GROWTH ** i, LONGEST_WAIT_MS));

/**
 * How long to wait after `attemptsMade` scheduled attempts failed before the
 * next one, or null when that was the last. `scale` shrinks the whole schedule
 * (WEBHOOK_RETRY_SCALE, for tests); `random` is in [0, 1).
 */
export function retryDelayMs(attemptsMade: number, scale: number, random: number): number | null {
  if (attemptsMade < 1 || attemptsMade >= WEBHOOK_MAX_ATTEMPTS) return null;
  const base = baseRetryDelaysMs()[attemptsMade - 1]!;
  return Math.max(0, Math.round(base * scale * (1 - JITTER + 2 * JITTER * random)));
}
