import { randomUUID } from 'node:crypto';
import { activeBoards, eachStandingsChunk, type Leaderboard } from '../../shared/db/leaderboard-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import type { Period } from '../../shared/domain/leaderboards.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import type { CoreDeps } from '../deps.js';
import { expireAtMs, openPeriods, periodKey } from './periods.js';

/** Standings read from Postgres and sent to Redis at a time. */
const CHUNK = 2000;
/** How long the rebuild holds its mark without a chunk before another process may take over. */
const REBUILD_LEASE_MS = 30_000;

export type RebuildOutcome = 'rebuilt' | 'busy' | 'lost';

/**
 * Builds a period's standings in Redis from Postgres (docs/leaderboards.md,
 * "Rebuilt from Postgres"): into keys of their own, from one snapshot read
 * by a cursor, then swapped in at once. Reads go on meanwhile (from the old
 * set, or from Postgres when there is none), and refreshes write to both
 * sets, so none is lost. One process at a time: `busy` when another holds
 * it, `lost` when its mark lapsed and another took over.
 */
export async function rebuildStandings(
  deps: Pick<CoreDeps, 'db' | 'standings' | 'config'>,
  board: Pick<Leaderboard, 'id' | 'platformId' | 'metric'>,
  period: Period,
): Promise<RebuildOutcome> {
  const key = periodKey(board, period);
  const token = randomUUID();
  if (!(await deps.standings.beginRebuild(key, token, REBUILD_LEASE_MS))) return 'busy';
  let kept = true;
  await withTransaction(deps.db, (tx) =>
    eachStandingsChunk(tx, board, period, CHUNK, async (chunk) => {
      if (kept) kept = await deps.standings.rebuildChunk(key, token, REBUILD_LEASE_MS, chunk);
    }),
  );
  if (!kept) return 'lost';
  return (await deps.standings.finishRebuild(key, token, expireAtMs(period, deps.config.LEADERBOARD_SETTLE_MS)))
    ? 'rebuilt'
    : 'lost';
}

/**
 * The worker's round: every open period of every active board whose set
 * Redis does not hold (restarted empty, evicted) is rebuilt now, before a
 * read finds it missing. Answers how many it rebuilt.
 */
export async function rebuildLostStandings(
  deps: Pick<CoreDeps, 'db' | 'standings' | 'config'>,
  nowUs: bigint = dateToMicros(new Date()),
): Promise<number> {
  let rebuilt = 0;
  for (const board of await activeBoards(deps.db))
    for (const period of openPeriods(board, nowUs)) {
      const key = periodKey(board, period);
      if ((await deps.standings.built(key)) || (await deps.standings.rebuilding(key))) continue;
      if ((await rebuildStandings(deps, board, period)) === 'rebuilt') rebuilt++;
    }
  return rebuilt;
}
