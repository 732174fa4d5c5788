import { and, eq, sql } from 'drizzle-orm';
import type { BacktestDraft, BacktestResult, BacktestTally } from '../domain/backtest.js';
import type { TaskCondition } from '../domain/conditions.js';
import type { ServiceUserId } from '../domain/ids.js';
import type { Recurrence } from '../domain/recurrence.js';
import type { Executor } from './client.js';
import { backtests } from './schema/index.js';

type BacktestColumns = typeof backtests.$inferSelect;

/** A backtest as stored, its JSON columns read back into domain values. */
export type StoredBacktest = Pick<
  BacktestColumns,
  'id' | 'platformId' | 'status' | 'usersTotal' | 'usersDone' | 'cursor' | 'error' | 'runnerId'
> & {
  draft: BacktestDraft;
  tally: BacktestTally;
  result: BacktestResult | null;
};

// JSON has no bigint: the draft's microsecond times travel as decimal strings.
type Micros = string | null;
type DraftJson = Omit<BacktestDraft, 'rules'> & {
  rules: {
    allowAnyOrder: boolean;
    startUs: string;
    endUs: string;
    timezone?: string;
    recurrence?: Recurrence | null;
    tasks: (Omit<TaskCondition, 'afterUs' | 'beforeUs'> & { afterUs: Micros; beforeUs: Micros })[];
  };
};

const micros = (us: bigint | null): Micros => (us === null ? null : us.toString());
const bigintOrNull = (text: Micros) => (text === null ? null : BigInt(text));

function draftToJson(draft: BacktestDraft): DraftJson {
  const { rules } = draft;
  return {
    ...draft,
    rules: {
      allowAnyOrder: rules.allowAnyOrder,
      startUs: rules.startUs.toString(),
      endUs: rules.endUs.toString(),
      ...(rules.timezone === undefined ? {} : { timezone: rules.timezone }),
      ...(rules.recurrence == null ? {} : { recurrence: rules.recurrence }),
      tasks: rules.tasks.map((task) => ({ ...task, afterUs: micros(task.afterUs), beforeUs: micros(task.beforeUs) })),
    },
  };
}

function draftFromJson(json: DraftJson): BacktestDraft {
  const { rules } = json;
  return {
    ...json,
    rules: {
      allowAnyOrder: rules.allowAnyOrder,
      startUs: BigInt(rules.startUs),
      endUs: BigInt(rules.endUs),
      ...(rules.timezone === undefined ? {} : { timezone: rules.timezone }),
      ...(rules.recurrence == null ? {} : { recurrence: rules.recurrence }),
      tasks: rules.tasks.map((task) => ({ ...task, afterUs: bigintOrNull(task.afterUs), beforeUs: bigintOrNull(task.beforeUs) })),
    },
  };
}

const columns = {
  id: backtests.id,
  platformId: backtests.platformId,
  status: backtests.status,
  usersTotal: backtests.usersTotal,
  usersDone: backtests.usersDone,
  cursor: backtests.cursor,
  error: backtests.error,
  runnerId: backtests.runnerId,
  draft: backtests.draft,
  tally: backtests.tally,
  result: backtests.result,
};

type Row = Pick<BacktestColumns, keyof typeof columns>;

const toStored = (row: Row): StoredBacktest => ({
  ...row,
  draft: draftFromJson(row.draft as DraftJson),
  tally: row.tally as BacktestTally,
  result: (row.result ?? null) as BacktestResult | null,
});

/** Stores a new running backtest, with no runner yet (the job that runs it takes it). */
export async function insertBacktest(
  db: Executor,
  input: { draft: BacktestDraft; tally: BacktestTally; usersTotal: number },
): Promise<StoredBacktest> {
  const [row] = await db
    .insert(backtests)
    .values({
      platformId: input.draft.platformId,
      draft: draftToJson(input.draft),
      tally: input.tally,
      usersTotal: input.usersTotal,
    })
    .returning(columns);
  return toStored(row!);
}

export async function findBacktest(db: Executor, id: string): Promise<StoredBacktest | null> {
  const [row] = await db.select(columns).from(backtests).where(eq(backtests.id, id));
  return row ? toStored(row) : null;
}

/**
 * Makes `runnerId` the owner of a running backtest: the run BullMQ handed its
 * job to, after a worker that held it stopped. One statement; from here on the
 * previous owner's writes are refused (a stopped process that wakes up finds
 * it is no longer the runner and stops). Null when it is not running.
 */
export async function takeBacktest(db: Executor, id: string, runnerId: string): Promise<StoredBacktest | null> {
  const [row] = await db
    .update(backtests)
    .set({ runnerId, heartbeatAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(backtests.id, id), eq(backtests.status, 'running')))
    .returning(columns);
  return row ? toStored(row) : null;
}

/** Ids of the running backtests, oldest first: what the worker's reconciler queues again. */
export async function listRunningBacktestIds(db: Executor, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: backtests.id })
    .from(backtests)
    .where(eq(backtests.status, 'running'))
    .orderBy(backtests.createdAt)
    .limit(limit);
  return rows.map((row) => row.id);
}

/** Which backtest, and who claims to run it: every write below is refused (false) once another runner took it over. */
export type BacktestOwner = { id: string; runnerId: string };

const owned = (owner: BacktestOwner) =>
  and(eq(backtests.id, owner.id), eq(backtests.runnerId, owner.runnerId), eq(backtests.status, 'running'));

/** Records a page done: the cursor and counts to resume from, and the heartbeat. */
export async function checkpointBacktest(
  db: Executor,
  owner: BacktestOwner,
  progress: { cursor: ServiceUserId; usersDone: number; tally: BacktestTally },
): Promise<boolean> {
  const updated = await db
    .update(backtests)
    .set({
      ...progress,
      usersTotal: sql`greatest(${backtests.usersTotal}, ${progress.usersDone})`,
      heartbeatAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(owned(owner))
    .returning({ id: backtests.id });
  return updated.length > 0;
}

export async function completeBacktest(
  db: Executor,
  owner: BacktestOwner,
  done: { usersDone: number; tally: BacktestTally; result: BacktestResult },
): Promise<boolean> {
  const updated = await db
    .update(backtests)
    // Users registered while it ran were evaluated too: the total is what was done.
    .set({ ...done, status: 'completed', usersTotal: done.usersDone, heartbeatAt: sql`now()`, updatedAt: sql`now()` })
    .where(owned(owner))
    .returning({ id: backtests.id });
  return updated.length > 0;
}

export async function failBacktest(db: Executor, owner: BacktestOwner, error: string): Promise<void> {
  await db.update(backtests).set({ status: 'failed', error, updatedAt: sql`now()` }).where(owned(owner));
}
