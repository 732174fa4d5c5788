import type { Executor } from '../../shared/db/client.js';
import {
  archiveLeaderboard as archiveStored,
  findLeaderboard,
  insertLeaderboard,
  type Leaderboard,
  listLeaderboards,
  type NewLeaderboard,
} from '../../shared/db/leaderboard-store.js';
import { ensureTestTwin, findProvider } from '../../shared/db/provider-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { issueParam, issueText } from '../../shared/domain/chain-definition-rules.js';
import { currentPeriod, leaderboardIssues } from '../../shared/domain/leaderboards.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import { invalidInput, notFound } from '../../shared/errors.js';
import type { CoreDeps, LeaderboardSource } from '../deps.js';
import { type Page, type PageRequest, pageOrRefuse } from '../page.js';
import { openPeriods, periodKey, timingOf } from './periods.js';

// The operator's leaderboards (§19): create, read, list, archive; and a
// platform's list of its own.

/** A board to create, as the admin API and the CLI give it: the live platform id, dates in epoch µs. */
export type CreateLeaderboardInput = Omit<NewLeaderboard, 'finalizedUntilUs'>;

/**
 * Creates a board, for the platform's test twin when its mode is `test`
 * (docs/test-mode.md). Periods over before it existed are readable but were
 * never announced: the finalizer starts at the period it was created in.
 */
export async function createLeaderboard(
  deps: Pick<CoreDeps, 'db'>,
  input: CreateLeaderboardInput,
  nowUs: bigint = dateToMicros(new Date()),
): Promise<Leaderboard> {
  const [issue] = leaderboardIssues({
    startDate: input.startUs,
    endDate: input.endUs,
    recurrence: input.recurrence,
    size: input.size,
  });
  if (issue) throw invalidInput(issueText(issue), issueParam(issue));
  return withTransaction(deps.db, async (tx) => {
    const platform = await findProvider(tx, input.platformId);
    if (platform?.type !== 'platform') throw invalidInput(`platform_id: no platform with id ${input.platformId}`, 'platform_id');
    const platformId = input.mode === 'test' ? await ensureTestTwin(tx, platform) : platform.id;
    const timing = timingOf(input);
    const finalizedUntilUs =
      nowUs < input.startUs
        ? input.startUs
        : input.endUs !== null && nowUs >= input.endUs
          ? input.endUs
          : currentPeriod(timing, nowUs).startUs;
    return insertLeaderboard(tx, { ...input, platformId, finalizedUntilUs });
  });
}

/** Boards read as they are stored, each time: the source of a process that keeps none (the CLI, the worker, tests). */
export const storedLeaderboards = (db: Executor): LeaderboardSource => ({
  get: (id) => findLeaderboard(db, id),
  forget: () => {},
});

/** One board, whatever its status or mode; an unknown id is a 404. */
export async function getLeaderboard(deps: Pick<CoreDeps, 'db'>, input: { id: string }): Promise<Leaderboard> {
  const board = await findLeaderboard(deps.db, input.id);
  if (!board) throw notFound(`Leaderboard ${input.id} not found`, 'id');
  return board;
}

/** The operator's list, newest first: every board, or one platform's in both modes. */
export async function listAllLeaderboards(
  deps: Pick<CoreDeps, 'db'>,
  input: { platformId?: string | undefined; page: PageRequest },
): Promise<Page<Leaderboard>> {
  return pageOrRefuse(await listLeaderboards(deps.db, { platformId: input.platformId, bothModes: true }, input.page), input.page);
}

/** A platform's active boards of its caller's mode (the platform id as the credential stores it), newest first. */
export async function listPlatformLeaderboards(
  deps: Pick<CoreDeps, 'db'>,
  input: { platformId: string; page: PageRequest },
): Promise<Page<Leaderboard>> {
  return pageOrRefuse(
    await listLeaderboards(deps.db, { platformId: input.platformId, status: 'active' }, input.page),
    input.page,
  );
}

/**
 * Archives a board: it stops ranking, finalizes nothing more, leaves the
 * platform's list and answers 404 to the platform (every API process within
 * CHAIN_CACHE_TTL_MS); the operator still reads it. Its standings in Redis are dropped; its final standings stay.
 */
export async function archiveLeaderboard(
  deps: Pick<CoreDeps, 'db' | 'standings' | 'logger'> & Partial<Pick<CoreDeps, 'leaderboards'>>,
  input: { id: string },
  nowUs: bigint = dateToMicros(new Date()),
): Promise<Leaderboard> {
  if (!(await archiveStored(deps.db, input.id))) throw notFound(`Leaderboard ${input.id} not found`, 'id');
  // This process's reads see it at once; other API processes within CHAIN_CACHE_TTL_MS.
  deps.leaderboards?.forget(input.id);
  const board = await getLeaderboard(deps, input);
  await Promise.all(openPeriods(board, nowUs).map((period) => deps.standings.forget(periodKey(board, period)))).catch(
    (error: unknown) => deps.logger.warn({ err: error, leaderboardId: board.id }, 'could not drop archived standings from Redis'),
  );
  return board;
}
