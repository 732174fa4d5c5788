import type { CoreDeps } from '../../core/deps.js';
import { finalizeDuePeriods } from '../../core/leaderboards/finalize-periods.js';
import { rebuildLostStandings } from '../../core/leaderboards/rebuild-standings.js';
import { refreshStandings } from '../../core/leaderboards/refresh-standings.js';
import { startPeriodic } from '../periodic.js';

/** Refreshes left behind are taken after this long: the process that queued one refreshes it at once, normally. */
const LEFT_BEHIND_MS = 2000;
const REFRESH_PAGE = 500;

type SweepDeps = Pick<CoreDeps, 'db' | 'standings' | 'config' | 'logger' | 'webhooks'>;

/**
 * One round of the leaderboards' safety net and clock (docs/leaderboards.md):
 * standings refreshes left queued (a crash or a Redis outage after their
 * commit), the periods that are over and settled, finalized, and the open
 * periods Redis lost (restarted empty), rebuilt before a read has to.
 */
async function sweepLeaderboardsOnce(deps: SweepDeps): Promise<{ refreshed: number; finalized: number; rebuilt: number }> {
  let refreshed = 0;
  for (let page = REFRESH_PAGE; page === REFRESH_PAGE; refreshed += page)
    page = await refreshStandings(deps, { olderThanMs: LEFT_BEHIND_MS, limit: REFRESH_PAGE });
  const finalized = await finalizeDuePeriods(deps);
  return { refreshed, finalized, rebuilt: await rebuildLostStandings(deps) };
}

/** Runs a round now and every `intervalMs` (RECONCILE_INTERVAL_MS), one at a time. */
export function startLeaderboardSweeper(deps: SweepDeps, options: { intervalMs: number }) {
  return startPeriodic({
    pass: async () => {
      const { refreshed, finalized, rebuilt } = await sweepLeaderboardsOnce(deps);
      if (refreshed + finalized + rebuilt > 0) deps.logger.info({ refreshed, finalized, rebuilt }, 'leaderboard sweep');
    },
    intervalMs: options.intervalMs,
    immediately: true,
    logger: deps.logger,
    failure: 'leaderboard sweep failed; will retry',
  });
}
