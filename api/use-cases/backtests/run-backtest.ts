import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  checkpointBacktest,
  completeBacktest,
  failBacktest,
  type BacktestOwner,
  type StoredBacktest,
} from '../../../shared/db/backtest-store.js';
import type { Executor } from '../../../shared/db/client.js';
import { loadHistory, type HistorySource, type StoredEvent } from '../../../shared/db/event-store.js';
import { loadMatchUsers, pagePlatformUserIds } from '../../../shared/db/user-store.js';
import { backtestResult, tallyUser, type BacktestDraft, type BacktestTally } from '../../../shared/domain/backtest.js';
import { countsFor } from '../../../shared/domain/counting.js';
import { computeCompletions } from '../../../shared/domain/progress.js';
import type { AppDeps } from '../../app-env.js';

// A backtest runs in the process that accepted it (an API replica, or the
// CLI), not on the worker's queue: it is a long read that would hold a
// matching slot and connection, and matching is the throughput that matters.
// Its state lives in Postgres, checkpointed after every page of users, so any
// replica answers GET, and one whose owner stopped is resumed by the next
// GET on any replica (get-backtest.ts) from its last page.

/** This process, as the owner of the backtests it runs. */
export const RUNNER_ID = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;

/**
 * Memory holds one page of users and their events of the chain's types, never
 * more. Pages are sized by events, not users: each page's user count is set
 * from the events per user the last page had, aiming at this many events
 * (one user's events at least, whatever their number).
 */
export const BACKTEST_PAGE_EVENTS = 10_000;
const MAX_PAGE_USERS = 500;

/** The next page's user count, from what the last one loaded. */
export const nextPageUsers = (users: number, events: number) =>
  Math.max(1, Math.min(MAX_PAGE_USERS, Math.floor((users * BACKTEST_PAGE_EVENTS) / Math.max(1, events))));

/** A running backtest not checkpointed for this long has lost its process: another may take it over. */
export const BACKTEST_STALE_MS = 30_000;

type RunDeps = Pick<AppDeps, 'db' | 'logger'>;

/**
 * Runs (or resumes) the backtest in the background from its cursor; returns
 * at once. Failures end in status `failed` with the reason, never in an
 * unhandled rejection.
 */
export function launchBacktest(deps: RunDeps, backtest: StoredBacktest): void {
  const owner = { id: backtest.id, runnerId: RUNNER_ID };
  runPages(deps.db, owner, backtest).catch(async (error: unknown) => {
    deps.logger.error({ err: error, backtestId: backtest.id }, 'backtest failed');
    const reason = error instanceof Error ? error.message : String(error);
    await failBacktest(deps.db, owner, reason).catch((cause: unknown) => deps.logger.warn({ err: cause, backtestId: backtest.id }, 'could not record a failed backtest'));
  });
}

async function runPages(db: Executor, owner: BacktestOwner, backtest: StoredBacktest): Promise<void> {
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
    // Pages are CPU between awaits: let the API's requests in between them.
    await yieldToEventLoop();
  }
}

/** The §4-5 rules for one page of users, as the matcher's recompute applies them, added to `tally`; answers how many events it read. */
async function evaluatePage(db: Executor, draft: BacktestDraft, userIds: readonly string[], tally: BacktestTally): Promise<number> {
  const users = await loadMatchUsers(db, userIds, []);
  const sources = new Map<string, HistorySource>();
  for (const user of users) {
    sources.set(`${user.platformId}/${user.platformUserId}`, { providerId: user.platformId, userId: user.platformUserId });
    const linked = user.links.get(draft.advertiserId);
    if (linked !== undefined) sources.set(`${draft.advertiserId}/${linked}`, { providerId: draft.advertiserId, userId: linked });
  }
  const eventTypes = [...new Set(draft.rules.tasks.map((task) => task.eventType))];
  const window = { fromUs: draft.rules.startUs, untilUs: draft.rules.endUs };
  const events = await loadHistory(db, [...sources.values()], eventTypes, window);
  const bySource = new Map<string, StoredEvent[]>();
  for (const event of events) {
    const key = `${event.providerId}/${event.userId}`;
    const list = bySource.get(key);
    if (list) list.push(event);
    else bySource.set(key, [event]);
  }
  const scope = { platformId: draft.platformId, advertiserId: draft.advertiserId, startUs: draft.rules.startUs, endUs: draft.rules.endUs };
  // In id order, so the sample is the same however the work was split between processes.
  for (const user of [...users].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const linked = user.links.get(draft.advertiserId);
    const own = [...(bySource.get(`${user.platformId}/${user.platformUserId}`) ?? []), ...(linked === undefined ? [] : bySource.get(`${draft.advertiserId}/${linked}`) ?? [])];
    tallyUser(tally, draft, user.platformUserId, computeCompletions(draft.rules, own.filter((event) => countsFor(user, scope, event))));
  }
  return events.length;
}
