import { groupBy } from '../../shared/collections.js';
import type { Executor } from '../../shared/db/client.js';
import {
  activeBoardsOf,
  deleteStandingsRefreshes,
  lockStandingsRefreshes,
  queueStandingsRefresh,
  type RefreshedUser,
  standingsOfUsers,
} from '../../shared/db/leaderboard-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import type { ServiceUserId } from '../../shared/domain/ids.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import type { CoreDeps } from '../deps.js';
import { expireAtMs, openPeriods, periodKey } from './periods.js';

// Keeping the standings in Redis in step with their sources (docs/leaderboards.md, "Kept in step"):
//
// 1. The transaction that changes a user's score (the matcher's, for chain completions and reversed claims; a claim's,
//    for points) calls `queueRefresh`: a row in leaderboard_refreshes, committed with the change.
// 2. After its commit the same process calls `refreshStandings` with those users: under the rows' locks it computes
//    each user's standing in every open period of their platform's boards from Postgres, writes them to Redis, and
//    deletes the rows.
// 3. The worker's sweeper refreshes rows left behind (a crash or a Redis outage between 1 and 2).
//
// A refresh recomputes the whole standing from the source rather than adding a delta: any number of refreshes of a
// user, in any order, leave the one standing the source gives, and the rows' locks make the last write the latest read.

/** Step 1, in the transaction of the change: the users whose standings it may move. Answers those queued (their platform has a board). */
export const queueRefresh = (tx: Executor, userIds: readonly ServiceUserId[]) => queueStandingsRefresh(tx, userIds);

type RefreshDeps = Pick<CoreDeps, 'db' | 'standings' | 'config'>;

/** Steps 2 and 3: refreshes these users' queued standings (or the sweeper's share of those left); answers how many users. */
export async function refreshStandings(
  deps: RefreshDeps,
  request: { userIds: readonly ServiceUserId[] } | { olderThanMs: number; limit: number },
  nowUs: bigint = dateToMicros(new Date()),
): Promise<number> {
  if ('userIds' in request && request.userIds.length === 0) return 0;
  return withTransaction(deps.db, async (tx) => {
    const locked = await lockStandingsRefreshes(tx, request);
    if (locked.length === 0) return 0;
    const usersByPlatform = groupBy(locked, (user) => user.platformId);
    const boards = await activeBoardsOf(tx, [...usersByPlatform.keys()]);
    for (const board of boards) {
      const users = usersByPlatform.get(board.platformId) ?? [];
      for (const period of openPeriods(board, nowUs)) {
        const found = new Map(
          (
            await standingsOfUsers(
              tx,
              board,
              period,
              users.map((u) => u.userId),
            )
          ).map((s) => [s.userId, s]),
        );
        await deps.standings.apply(
          periodKey(board, period),
          users.map((user: RefreshedUser) => ({ platformUserId: user.platformUserId, standing: found.get(user.userId) ?? null })),
          expireAtMs(period, deps.config.LEADERBOARD_SETTLE_MS),
        );
      }
    }
    // Deleted only once Redis took every write: a failure rolls back and leaves the rows to the sweeper.
    await deleteStandingsRefreshes(
      tx,
      locked.map((user) => user.userId),
    );
    return locked.length;
  });
}

/**
 * Step 2 after a commit, best effort: a failure (Redis away) is logged and
 * left to the sweeper, never thrown at the change that already committed.
 */
export async function refreshAfterCommit(
  deps: RefreshDeps & Pick<CoreDeps, 'logger'>,
  userIds: readonly ServiceUserId[],
): Promise<void> {
  if (userIds.length === 0) return;
  await refreshStandings(deps, { userIds }).catch((error: unknown) =>
    deps.logger.warn({ err: error, users: userIds.length }, 'leaderboard refresh failed; the sweeper retries it'),
  );
}
