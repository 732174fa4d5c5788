import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { SenderUserId, ServiceUserId } from '../domain/ids.js';
import type { LeaderboardMetric, LeaderboardStatus, Period, Standing } from '../domain/leaderboards.js';
import type { Recurrence } from '../domain/recurrence.js';
import type { Mode } from '../domain/test-mode.js';
import { twinId } from '../domain/test-mode.js';
import type { Executor } from './client.js';
import { decodeTimestampUs } from './driver-row.js';
import { afterKey, type Page, type PageRequest, rowsToRead, toPage } from './keyset.js';
import { leaderboardPeriods, leaderboardRefreshes, leaderboardStandings, leaderboards, users } from './schema/index.js';
import { idArray, instant } from './sql-fragments.js';

// The rows of leaderboards (product rules §19, docs/leaderboards.md): the
// boards, the scores each metric computes from its source, the refresh
// outbox, and finished periods with their final standings.

/** A board as stored: its platform (a test board's is the twin's), dates in epoch µs. */
export interface Leaderboard {
  id: string;
  platformId: string;
  mode: Mode;
  name: string;
  metric: LeaderboardMetric;
  startUs: bigint;
  endUs: bigint | null;
  recurrence: Recurrence | null;
  size: number;
  status: LeaderboardStatus;
  finalizedUntilUs: bigint;
  createdUs: bigint;
  archivedUs: bigint | null;
}

export type NewLeaderboard = Omit<Leaderboard, 'id' | 'status' | 'createdUs' | 'archivedUs'>;

const columns = {
  id: leaderboards.id,
  platformId: leaderboards.platformId,
  mode: leaderboards.mode,
  name: leaderboards.name,
  metric: leaderboards.metric,
  startUs: leaderboards.startDate,
  endUs: leaderboards.endDate,
  recurrence: leaderboards.recurrence,
  size: leaderboards.size,
  status: leaderboards.status,
  finalizedUntilUs: leaderboards.finalizedUntil,
  createdUs: leaderboards.createdAt,
  archivedUs: leaderboards.archivedAt,
};

export async function insertLeaderboard(db: Executor, board: NewLeaderboard): Promise<Leaderboard> {
  const [row] = await db
    .insert(leaderboards)
    .values({
      platformId: board.platformId,
      mode: board.mode,
      name: board.name,
      metric: board.metric,
      startDate: board.startUs,
      endDate: board.endUs,
      recurrence: board.recurrence,
      size: board.size,
      finalizedUntil: board.finalizedUntilUs,
    })
    .returning(columns);
  return row!;
}

export async function findLeaderboard(db: Executor, id: string): Promise<Leaderboard | null> {
  const [row] = await db.select(columns).from(leaderboards).where(eq(leaderboards.id, id));
  return row ?? null;
}

/** A page of boards, newest first: every board, or one platform's (a live platform id lists its test boards too, as chains do). */
export async function listLeaderboards(
  db: Executor,
  filter: { platformId?: string | undefined; bothModes?: boolean; status?: LeaderboardStatus | undefined },
  page: PageRequest,
): Promise<Page<Leaderboard> | null> {
  const { platformId } = filter;
  const scope = and(
    platformId === undefined
      ? undefined
      : filter.bothModes
        ? inArray(leaderboards.platformId, [platformId, twinId(platformId)])
        : eq(leaderboards.platformId, platformId),
    filter.status ? eq(leaderboards.status, filter.status) : undefined,
  );
  const order = [leaderboards.createdAt, leaderboards.id] as const;
  let after: SQL | undefined;
  if (page.startingAfter !== undefined) {
    const [cursor] = await db
      .select({ createdAt: leaderboards.createdAt, id: leaderboards.id })
      .from(leaderboards)
      .where(and(scope, eq(leaderboards.id, page.startingAfter)));
    if (!cursor) return null;
    after = afterKey(order, [cursor.createdAt, cursor.id], 'desc');
  }
  const rows = await db
    .select(columns)
    .from(leaderboards)
    .where(and(scope, after))
    .orderBy(...order.map((column) => desc(column)))
    .limit(rowsToRead(page.limit));
  return toPage(rows, page.limit);
}

/** Archives an active board; false when there is no such board. Archiving twice changes nothing. */
export async function archiveLeaderboard(db: Executor, id: string): Promise<boolean> {
  const rows = await db
    .update(leaderboards)
    .set({ status: 'archived', archivedAt: sql`coalesce(${leaderboards.archivedAt}, now())` })
    .where(eq(leaderboards.id, id))
    .returning({ id: leaderboards.id });
  return rows.length > 0;
}

/** The active boards of these platforms. */
export async function activeBoardsOf(db: Executor, platformIds: readonly string[]): Promise<Leaderboard[]> {
  if (platformIds.length === 0) return [];
  return db
    .select(columns)
    .from(leaderboards)
    .where(and(eq(leaderboards.status, 'active'), inArray(leaderboards.platformId, [...platformIds])));
}

/** Every active board: the finalizer's round. */
export async function activeBoards(db: Executor): Promise<Leaderboard[]> {
  return db.select(columns).from(leaderboards).where(eq(leaderboards.status, 'active'));
}

/** Moves the finalizer's mark of a board forward (never back). */
export async function advanceFinalizedUntil(db: Executor, id: string, untilUs: bigint): Promise<void> {
  await db
    .update(leaderboards)
    .set({ finalizedUntil: sql`greatest(${leaderboards.finalizedUntil}, ${instant(untilUs)})` })
    .where(eq(leaderboards.id, id));
}

// --- Scores, computed from each metric's source ------------------------------------------------------------------

/** A user's standing with the service's id beside the platform's. */
export interface UserStanding extends Standing {
  userId: ServiceUserId;
}

type ScoreRow = { user_id: ServiceUserId; platform_user_id: SenderUserId; score: number | string; reached_at: string };

const toStanding = (row: ScoreRow): UserStanding => ({
  userId: row.user_id,
  platformUserId: row.platform_user_id,
  score: Number(row.score),
  reachedUs: decodeTimestampUs(leaderboardStandings.reachedAt, row.reached_at),
});

/**
 * The statement that computes a period's standings from the metric's source,
 * one row per user with a positive score: the chains the user completed in
 * the period (their chain_progress rows completed inside it; reached at the
 * last of those completions), or the points credited in it less their
 * reversals (leaderboard_point_entries; reached at the last entry that
 * counts). `only`: those users alone (a refresh); absent, the whole platform (a rebuild).
 */
function standingsStatement(board: Pick<Leaderboard, 'platformId' | 'metric'>, period: Period, only?: SQL): SQL {
  const from = instant(period.startUs);
  const until = period.endUs === null ? sql`'infinity'::timestamptz` : instant(period.endUs);
  if (board.metric === 'chains_completed') {
    return sql`
      select u.id as user_id, u.platform_user_id, count(*)::float8 as score, max(cp.completed_at) as reached_at
      from chain_progress cp
      join users u on u.id = cp.user_id
      where cp.chain_id in (select id from quest_chains where platform_id = ${board.platformId})
        and u.platform_id = ${board.platformId}
        and cp.completed_at >= ${from} and cp.completed_at < ${until}
        ${only ? sql`and cp.user_id = any(${only})` : sql``}
      group by u.id, u.platform_user_id`;
  }
  return sql`
    select u.id as user_id, u.platform_user_id, sum(e.amount)::float8 as score, max(e.at) as reached_at
    from leaderboard_point_entries e
    join users u on u.id = e.user_id
    where u.platform_id = ${board.platformId}
      and e.credited_at >= ${from} and e.credited_at < ${until}
      ${only ? sql`and e.user_id = any(${only})` : sql``}
    group by u.id, u.platform_user_id
    having sum(e.amount) > 0`;
}

/** The statement's rows as the driver reads them (the time as Postgres text, which timestampUs decodes). */
const asText = (statement: SQL): SQL =>
  sql`select s.user_id, s.platform_user_id, s.score, s.reached_at::text as reached_at from (${statement}) s`;

/** The standings of these users in the period (a user absent from the answer has no score). */
export async function standingsOfUsers(
  db: Executor,
  board: Pick<Leaderboard, 'platformId' | 'metric'>,
  period: Period,
  userIds: readonly ServiceUserId[],
): Promise<UserStanding[]> {
  if (userIds.length === 0) return [];
  const rows = await db.execute<ScoreRow>(asText(standingsStatement(board, period, idArray(userIds))));
  return rows.map(toStanding);
}

const ORDER = sql`s.score desc, s.reached_at, s.platform_user_id collate "C"`;

/**
 * Ranks first..last (inclusive) of the period computed from the source, for
 * a read while Redis cannot answer (its set lost and being rebuilt, or Redis
 * away): exact, and as slow as the board is large.
 */
export async function sourceStandings(
  db: Executor,
  board: Pick<Leaderboard, 'platformId' | 'metric'>,
  period: Period,
  ranks: { first: number; last: number },
): Promise<(UserStanding & { rank: number })[]> {
  const rows = await db.execute<ScoreRow & { rank: string }>(sql`
    select r.* from (
      select s.user_id, s.platform_user_id, s.score, s.reached_at::text as reached_at, row_number() over (order by ${ORDER}) as rank
      from (${standingsStatement(board, period)}) s
    ) r
    where r.rank between ${ranks.first} and ${ranks.last}
    order by r.rank`);
  return rows.map((row) => ({ ...toStanding(row), rank: Number(row.rank) }));
}

/** How many users the period ranks, and the rank of one of them (null when unranked), from the source. */
export async function sourceRankOf(
  db: Executor,
  board: Pick<Leaderboard, 'platformId' | 'metric'>,
  period: Period,
  platformUserId: SenderUserId | undefined,
): Promise<{ total: number; rank: number | null }> {
  const [row] = await db.execute<{ total: string; rank: string | null }>(sql`
    select count(*) as total, max(r.rank) filter (where r.platform_user_id = ${platformUserId ?? null}) as rank
    from (
      select s.platform_user_id, row_number() over (order by ${ORDER}) as rank
      from (${standingsStatement(board, period)}) s
    ) r`);
  return { total: Number(row?.total ?? 0), rank: row?.rank == null ? null : Number(row.rank) };
}

const REBUILD_STATEMENT_MS = 120_000;

/**
 * Every standing of the period, in chunks from one snapshot (a cursor in the
 * caller's transaction), handed to `take` as they come: a rebuild of a board
 * of a million users never holds them all.
 */
export async function eachStandingsChunk(
  tx: Executor,
  board: Pick<Leaderboard, 'platformId' | 'metric'>,
  period: Period,
  chunkSize: number,
  take: (chunk: UserStanding[]) => Promise<void>,
): Promise<number> {
  // The first fetch aggregates the whole period (seconds on a board of a million users): more than a request's time
  // limit allows a statement, and the rebuild is background work, so its transaction gets a limit of its own.
  await tx.execute(sql`set local statement_timeout = '${sql.raw(String(REBUILD_STATEMENT_MS))}'`);
  await tx.execute(sql`declare leaderboard_rebuild no scroll cursor for ${asText(standingsStatement(board, period))}`);
  let total = 0;
  for (;;) {
    const rows = await tx.execute<ScoreRow>(sql`fetch ${sql.raw(String(chunkSize))} from leaderboard_rebuild`);
    if (rows.length === 0) break;
    total += rows.length;
    await take(rows.map(toStanding));
    if (rows.length < chunkSize) break;
  }
  await tx.execute(sql`close leaderboard_rebuild`);
  return total;
}

// --- The refresh outbox ------------------------------------------------------------------------------------------

/**
 * Queues a refresh of these users' standings, in the transaction of the
 * change: only users whose platform has an active board (no row for the
 * others). An upsert, not "do nothing": it waits for a refresh holding the
 * user's row, so a change committed during a refresh is refreshed again.
 */
export async function queueStandingsRefresh(tx: Executor, userIds: readonly ServiceUserId[]): Promise<ServiceUserId[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.execute<{ user_id: ServiceUserId }>(sql`
    insert into leaderboard_refreshes (user_id)
    select u.id from users u
    where u.id = any(${idArray([...userIds].sort())})
      and exists (select 1 from leaderboards l where l.platform_id = u.platform_id and l.status = 'active')
    order by u.id
    on conflict (user_id) do update set queued_at = excluded.queued_at
    returning user_id`);
  return rows.map((row) => row.user_id);
}

/** A user whose standings a refresh computes. */
export interface RefreshedUser {
  userId: ServiceUserId;
  platformId: string;
  platformUserId: SenderUserId;
}

/**
 * Takes the queued refreshes of these users (or, for the sweeper, the oldest
 * ones queued more than `olderThanMs` ago), locked until the caller commits,
 * so a user's refreshes run one at a time; rows another refresh holds are
 * skipped (it reads after their change committed).
 */
export async function lockStandingsRefreshes(
  tx: Executor,
  request: { userIds: readonly ServiceUserId[] } | { olderThanMs: number; limit: number },
): Promise<RefreshedUser[]> {
  if ('userIds' in request && request.userIds.length === 0) return [];
  const which =
    'userIds' in request
      ? sql`r.user_id = any(${idArray(request.userIds)})`
      : sql`r.queued_at < now() - ${request.olderThanMs} * interval '1 millisecond'`;
  const limit = 'userIds' in request ? sql`` : sql`limit ${request.limit}`;
  const rows = await tx.execute<{ user_id: ServiceUserId; platform_id: string; platform_user_id: SenderUserId }>(sql`
    select r.user_id, u.platform_id, u.platform_user_id
    from leaderboard_refreshes r join users u on u.id = r.user_id
    where ${which}
    order by r.user_id
    ${limit}
    for update of r skip locked`);
  return rows.map((row) => ({ userId: row.user_id, platformId: row.platform_id, platformUserId: row.platform_user_id }));
}

export async function deleteStandingsRefreshes(tx: Executor, userIds: readonly ServiceUserId[]): Promise<void> {
  if (userIds.length === 0) return;
  await tx.delete(leaderboardRefreshes).where(sql`${leaderboardRefreshes.userId} = any(${idArray(userIds)})`);
}

// --- Finished periods --------------------------------------------------------------------------------------------

export interface FinalizedPeriod {
  startUs: bigint;
  endUs: bigint;
  ranked: number;
  finalizedUs: bigint;
}

export async function findFinalizedPeriod(db: Executor, boardId: string, startUs: bigint): Promise<FinalizedPeriod | null> {
  const [row] = await db
    .select({
      startUs: leaderboardPeriods.periodStart,
      endUs: leaderboardPeriods.periodEnd,
      ranked: leaderboardPeriods.ranked,
      finalizedUs: leaderboardPeriods.finalizedAt,
    })
    .from(leaderboardPeriods)
    .where(and(eq(leaderboardPeriods.leaderboardId, boardId), eq(leaderboardPeriods.periodStart, startUs)));
  return row ?? null;
}

/**
 * Finalizes a finished period once: computes its standings from the source
 * in one statement and keeps the top `size`, ranked in §19's order (user ids
 * by bytes, as Redis orders them). Null when another call finalized it first.
 */
export async function finalizePeriod(
  tx: Executor,
  board: Pick<Leaderboard, 'id' | 'platformId' | 'metric' | 'size'>,
  period: { startUs: bigint; endUs: bigint },
): Promise<FinalizedPeriod | null> {
  const [claimed] = await tx.execute<{ finalized_at: string }>(sql`
    insert into leaderboard_periods (leaderboard_id, period_start, period_end, ranked)
    values (${board.id}, ${instant(period.startUs)}, ${instant(period.endUs)}, 0)
    on conflict do nothing
    returning finalized_at::text`);
  if (!claimed) return null;
  // A period of a large board is aggregated and sorted whole, like a rebuild's: its limit, not a request's.
  await tx.execute(sql`set local statement_timeout = '${sql.raw(String(REBUILD_STATEMENT_MS))}'`);
  const ranked = await tx.execute<{ rank: number }>(sql`
    insert into leaderboard_standings (leaderboard_id, period_start, rank, user_id, score, reached_at)
    select ${board.id}, ${instant(period.startUs)},
      row_number() over (order by ${ORDER}), s.user_id, s.score, s.reached_at
    from (${standingsStatement(board, period)}) s
    order by ${ORDER}
    limit ${board.size}
    returning rank`);
  await tx
    .update(leaderboardPeriods)
    .set({ ranked: ranked.length })
    .where(and(eq(leaderboardPeriods.leaderboardId, board.id), eq(leaderboardPeriods.periodStart, period.startUs)));
  return {
    ...period,
    ranked: ranked.length,
    finalizedUs: decodeTimestampUs(leaderboardPeriods.finalizedAt, claimed.finalized_at),
  };
}

export interface FinalStanding extends Standing {
  rank: number;
}

const finalColumns = {
  rank: leaderboardStandings.rank,
  score: leaderboardStandings.score,
  reachedAt: leaderboardStandings.reachedAt,
  platformUserId: users.platformUserId,
};

const toFinal = (row: { rank: number; score: number; reachedAt: bigint; platformUserId: SenderUserId }): FinalStanding => ({
  rank: row.rank,
  score: row.score,
  reachedUs: row.reachedAt,
  platformUserId: row.platformUserId,
});

/** Ranks first..last (inclusive) of a finished period's final standings. */
export async function finalStandings(
  db: Executor,
  boardId: string,
  periodStartUs: bigint,
  ranks: { first: number; last: number },
): Promise<FinalStanding[]> {
  const rows = await db
    .select(finalColumns)
    .from(leaderboardStandings)
    .innerJoin(users, eq(users.id, leaderboardStandings.userId))
    .where(
      and(
        eq(leaderboardStandings.leaderboardId, boardId),
        eq(leaderboardStandings.periodStart, periodStartUs),
        sql`${leaderboardStandings.rank} between ${ranks.first} and ${ranks.last}`,
      ),
    )
    .orderBy(leaderboardStandings.rank);
  return rows.map(toFinal);
}

/** A user's place in a finished period's final standings; null when they are not among them. */
export async function finalStandingOf(
  db: Executor,
  board: Pick<Leaderboard, 'id' | 'platformId'>,
  periodStartUs: bigint,
  platformUserId: SenderUserId,
): Promise<FinalStanding | null> {
  const [row] = await db
    .select(finalColumns)
    .from(leaderboardStandings)
    .innerJoin(users, eq(users.id, leaderboardStandings.userId))
    .where(
      and(
        eq(leaderboardStandings.leaderboardId, board.id),
        eq(leaderboardStandings.periodStart, periodStartUs),
        eq(users.platformId, board.platformId),
        eq(users.platformUserId, platformUserId),
      ),
    );
  return row ? toFinal(row) : null;
}
