import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  type BacktestOwner,
  checkpointBacktest,
  completeBacktest,
  failBacktest,
  type StoredBacktest,
  takeBacktest,
} from '../../shared/db/backtest-store.js';
import type { Executor } from '../../shared/db/client.js';
import { loadMatchUsers, pagePlatformUserIds } from '../../shared/db/user-store.js';
import { type BacktestDraft, type BacktestTally, backtestResult, tallyUser } from '../../shared/domain/backtest.js';
import type { ServiceUserId } from '../../shared/domain/ids.js';
import { eventsByRun, runRules } from '../../shared/domain/runs.js';
import { computeCompletions } from '../../shared/domain/walk.js';
import type { CoreDeps } from '../deps.js';
import { loadCountingHistory } from '../matching/counting-history.js';

// A backtest runs as a job on the backtest queue, in a worker (never in the
// API: it is a long read, and an API replica's requests come first). Its
// state lives in Postgres, checkpointed after every page of users, so GET on
// any replica reads it, and when a worker dies BullMQ hands the stalled job
// to another, which claims the row and resumes from the last page. Each run
// has its own runner id: a stopped process that wakes up finds its writes
// refused and stops.

/**
 * Memory holds one page of users and their events of the chain's types, never
 * more. Pages are sized by events, not users: each page's user count is set
 * from the events per user the last page had, aiming at this many events
 * (one user's events at least, whatever their number).
 */
const BACKTEST_PAGE_EVENTS = 10_000;
const MAX_PAGE_USERS = 500;

/** The next page's user count, from what the last one loaded. */
const nextPageUsers = (users: number, events: number) =>
  Math.max(1, Math.min(MAX_PAGE_USERS, Math.floor((users * BACKTEST_PAGE_EVENTS) / Math.max(1, events))));

/**
 * The backtest queue's job: claims the backtest for this run and evaluates it
 * from its cursor, page by page, until it completes, fails (status `failed`
 * with the reason, never a rejection) or another run takes it over. Nothing to
 * do when it is no longer running.
 */
export async function runBacktest(
  deps: Pick<CoreDeps, 'db' | 'logger'>,
  input: {
    backtestId: string /** Asked between pages: true stops the run there, the backtest left running for another run to resume. */;
    stopping?: () => boolean;
  },
): Promise<void> {
  const runnerId = randomUUID();
  const backtest = await takeBacktest(deps.db, input.backtestId, runnerId);
  if (!backtest) return;
  const owner = { id: backtest.id, runnerId };
  try {
    await runPages(deps.db, owner, backtest, input.stopping ?? (() => false));
  } catch (error) {
    deps.logger.error({ err: error, backtestId: backtest.id }, 'backtest failed');
    await failBacktest(deps.db, owner, error instanceof Error ? error.message : String(error));
  }
}

async function runPages(db: Executor, owner: BacktestOwner, backtest: StoredBacktest, stopping: () => boolean): Promise<void> {
  const { draft } = backtest;
  const tally = structuredClone(backtest.tally);
  let cursor = backtest.cursor;
  let usersDone = backtest.usersDone;
  let pageUsers = MAX_PAGE_USERS / 10;
  for (;;) {
    const userIds = await pagePlatformUserIds(db, draft.platformId, { afterId: cursor, limit: pageUsers });
    if (userIds.length === 0) {
      await completeBacktest(db, owner, { usersDone, tally, result: backtestResult(tally, draft) });
      return;
    }
    const events = await evaluatePage(db, draft, userIds, tally);
    pageUsers = nextPageUsers(userIds.length, events);
    cursor = userIds.at(-1)!;
    usersDone += userIds.length;
    // Another process took it over (we were thought dead): it carries on, we stop.
    if (!(await checkpointBacktest(db, owner, { cursor, usersDone, tally }))) return;
    // This worker is shutting down: the next run resumes from this checkpoint.
    if (stopping()) return;
    // Pages are CPU between awaits: let the API's requests in between them.
    await yieldToEventLoop();
  }
}

/** The §4-5 rules for one page of users, as the matcher's recompute applies them, added to `tally`; answers how many events it read. */
async function evaluatePage(
  db: Executor,
  draft: BacktestDraft,
  userIds: readonly ServiceUserId[],
  tally: BacktestTally,
): Promise<number> {
  const users = await loadMatchUsers(db, userIds, []);
  const eventTypes = draft.rules.tasks.map((task) => task.eventType);
  const span = { fromUs: draft.rules.startUs, untilUs: draft.rules.endUs };
  // Every stored event, those the matcher has yet to process too: a backtest writes nothing.
  const history = await loadCountingHistory(
    db,
    users.map((user) => ({ user, chain: draft, eventTypes, span })),
    { claimedIds: null },
  );
  const scope = {
    platformId: draft.platformId,
    advertiserId: draft.advertiserId,
    startUs: draft.rules.startUs,
    endUs: draft.rules.endUs,
  };
  // In id order, so the sample is the same however the work was split between processes.
  for (const user of [...users].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    // One walk per run (a repeating draft's runs each earn their rewards; others have one).
    const runs = [...eventsByRun(draft.rules, history.countingOf(user, scope))].map(([runStart, events]) =>
      computeCompletions(runRules(draft.rules, runStart)!, events),
    );
    tallyUser(tally, draft, user.platformUserId, runs);
  }
  return history.size;
}
