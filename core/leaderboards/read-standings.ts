import {
  finalStandingOf,
  finalStandings,
  findFinalizedPeriod,
  type Leaderboard,
  sourceRankOf,
  sourceStandings,
} from '../../shared/db/leaderboard-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import { type Period, type RankedStanding, requestedPeriod, windowAround } from '../../shared/domain/leaderboards.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import { invalidInput, notFound } from '../../shared/errors.js';
import type { StandingsRead } from '../../shared/leaderboards/standings-cache.js';
import type { CoreDeps } from '../deps.js';
import { finalizeOne } from './finalize-periods.js';
import { isSettled, periodKey, timingOf } from './periods.js';
import { rebuildStandings } from './rebuild-standings.js';

export interface StandingsAnswer {
  board: Leaderboard;
  period: Period;
  /** True once the period is over and its standings stored for good. */
  final: boolean;
  entries: RankedStanding[];
  /** The user read around, when ranked (in a final period: among its kept ranks). */
  user: RankedStanding | null;
}

export interface ReadStandingsInput {
  /** The caller's platform as its credential stores it (a test credential's is the twin's). */
  platformId: string;
  boardId: string;
  limit: number;
  around?: SenderUserId | undefined;
  periodStartUs?: bigint | undefined;
}

type ReadDeps = Pick<CoreDeps, 'db' | 'standings' | 'config' | 'logger' | 'webhooks' | 'leaderboards'>;

/** How long a read waits for the rebuild it started before answering from Postgres. */
const REBUILD_WAIT_MS = 250;

/**
 * GET /v1/leaderboards/{id} (§19): the top `limit`, or `limit` around a user,
 * of the period asked (by default the current one). A period in progress or
 * still settling is read from Redis (one round trip); a set Redis lost is
 * rebuilt from Postgres, and until it is the read is answered from Postgres.
 * A final period is read from its stored standings, finalized first if no
 * one has yet. Another platform's board, or an archived one: 404.
 */
export async function readStandings(
  deps: ReadDeps,
  input: ReadStandingsInput,
  nowUs: bigint = dateToMicros(new Date()),
): Promise<StandingsAnswer> {
  const board = await deps.leaderboards.get(input.boardId);
  if (!board || board.platformId !== input.platformId || board.status !== 'active')
    throw notFound(`Leaderboard ${input.boardId} not found`, 'id');
  const period = requestedPeriod(timingOf(board), input.periodStartUs, nowUs);
  if (typeof period === 'string') throw invalidInput(`period_start: ${period}`, 'period_start');
  if (isSettled(period, nowUs, deps.config.LEADERBOARD_SETTLE_MS)) return readFinal(deps, board, period, input);
  const read = (await readLive(deps, board, period, input)) ?? (await readSource(deps, board, period, input));
  return { board, period, final: false, entries: read.entries, user: read.user };
}

async function readLive(deps: ReadDeps, board: Leaderboard, period: Period, input: ReadStandingsInput) {
  const key = periodKey(board, period);
  const request = { limit: input.limit, around: input.around };
  try {
    const read = await deps.standings.read(key, request);
    if (read) return read;
    // Not built (never, or Redis lost it): rebuild, and wait a little for it.
    const rebuild = rebuildStandings(deps, board, period).catch((error: unknown) => {
      deps.logger.warn({ err: error, leaderboardId: board.id }, 'leaderboard rebuild failed');
      return 'failed' as const;
    });
    const outcome = await Promise.race([rebuild, new Promise((resolve) => setTimeout(resolve, REBUILD_WAIT_MS))]);
    return outcome === 'rebuilt' ? await deps.standings.read(key, request) : null;
  } catch (error) {
    deps.logger.warn({ err: error, leaderboardId: board.id }, 'standings not read from Redis; answered from Postgres');
    return null;
  }
}

/** The period's standings computed from the source: exact, for when Redis cannot answer. */
async function readSource(deps: ReadDeps, board: Leaderboard, period: Period, input: ReadStandingsInput): Promise<StandingsRead> {
  const { total, rank } = await sourceRankOf(deps.db, board, period, input.around);
  const ranks = rank === null ? { first: 1, last: input.limit } : windowAround(rank, total, input.limit);
  const entries = await sourceStandings(deps.db, board, period, ranks);
  return { total, entries, user: entries.find((entry) => entry.rank === rank) ?? null };
}

async function readFinal(
  deps: ReadDeps,
  board: Leaderboard,
  period: Period,
  input: ReadStandingsInput,
): Promise<StandingsAnswer> {
  const endUs = period.endUs!;
  const stored =
    (await findFinalizedPeriod(deps.db, board.id, period.startUs)) ??
    (await finalizeOne(deps, board, { startUs: period.startUs, endUs }));
  const user = input.around ? await finalStandingOf(deps.db, board, period.startUs, input.around) : null;
  const ranks = user ? windowAround(user.rank, stored.ranked, input.limit) : { first: 1, last: input.limit };
  const entries = await finalStandings(deps.db, board.id, period.startUs, ranks);
  return { board, period, final: true, entries, user };
}
