import type { FinalStanding, Leaderboard } from '../../shared/db/leaderboard-store.js';
import type { WebhookFact } from '../../shared/db/webhook-message-store.js';
import { formatIsoMillis } from '../../shared/domain/timestamp.js';

/**
 * §19 `leaderboard.finalized`: a period of a board is over and its standings
 * are final; the top entries ride along (the rest are read with
 * `period_start`). For the board's platform only, once per period.
 */
export function leaderboardFinalizedFact(
  board: Pick<Leaderboard, 'id' | 'platformId' | 'name' | 'metric'>,
  period: { startUs: bigint; endUs: bigint; ranked: number },
  top: readonly FinalStanding[],
): WebhookFact {
  return {
    providerId: board.platformId,
    type: 'leaderboard.finalized',
    fact: `leaderboard.finalized/${board.id}/${period.startUs}`,
    data: {
      leaderboard_id: board.id,
      name: board.name,
      metric: board.metric,
      period_start: formatIsoMillis(period.startUs),
      period_end: formatIsoMillis(period.endUs),
      ranked: period.ranked,
      entries: top.map((entry) => ({ rank: entry.rank, platform_user_id: entry.platformUserId, score: entry.score })),
    },
  };
}
