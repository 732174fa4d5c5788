import { and, asc, count, eq, gt, isNotNull, sql } from 'drizzle-orm';
import type { SenderUserId, ServiceUserId } from '../domain/ids.js';
import { ONLY_RUN } from '../domain/recurrence.js';
import type { EventSource, MatchUser } from '../domain/sources.js';
import { type TallyNotice, tallyNotices } from '../domain/tally.js';
import { formatIsoMillis } from '../domain/timestamp.js';
import type { Executor } from './client.js';
import { type DriverRow, decodeTimestampUs, fromJson } from './driver-row.js';
import { type accountLinks, chainProgress, users } from './schema/index.js';
import { exclusiveSenderLock } from './sender-locks.js';
import { idArray, instant, textArray } from './sql-fragments.js';
import { type TalliesJson, talliesFromJson } from './tally-column.js';

type UserColumns = typeof users.$inferSelect;
type LinkColumns = typeof accountLinks.$inferSelect;

/** A platform's user as registration answers it. */
export type StoredUser = Pick<UserColumns, 'id' | 'createdAt'>;

/** A new platform user: created with needs_evaluation set, so events received before it are matched. */
export type NewUser = Pick<typeof users.$inferInsert, 'platformId' | 'platformUserId' | 'countryCode' | 'userMetadata'>;

/**
 * Inserts the user unless the platform already registered that id; undefined
 * then (the unique key decided). One statement that first takes the sender's
 * lock (sender-locks.ts): it commits only once no matching batch holds
 * claimed events of that sender, so each such batch either saw the user or
 * had its events processed before the user's re-evaluation reads them.
 */
export async function insertUserIfNew(db: Executor, user: NewUser): Promise<StoredUser | undefined> {
  const metadata = user.userMetadata ? JSON.stringify(user.userMetadata) : null;
  const [created] = await db.execute<DriverRow<StoredUser>>(sql`
    with sender_locked as (
      select count(${exclusiveSenderLock(user.platformId, user.platformUserId)}) as n
    )
    insert into users (platform_id, platform_user_id, country_code, user_metadata)
    select ${user.platformId}::uuid, ${user.platformUserId}, ${user.countryCode ?? null}, ${metadata}::jsonb
    from sender_locked
    on conflict (platform_id, platform_user_id) do nothing
    returning id, created_at as "createdAt"`);
  return created && { id: created.id, createdAt: decodeTimestampUs(users.createdAt, created.createdAt) };
}

/**
 * A platform's user by its id there, or undefined when that platform has not
 * registered them. Scoped by platform, so another platform's user is unknown
 * here (tenancy: no leak).
 */
export async function findPlatformUser(
  db: Executor,
  platformId: string,
  platformUserId: SenderUserId,
): Promise<StoredUser | undefined> {
  const [user] = await db
    .select({ id: users.id, createdAt: users.createdAt })
    .from(users)
    .where(and(eq(users.platformId, platformId), eq(users.platformUserId, platformUserId)))
    .limit(1);
  return user;
}

/** The service user id of a platform's user, or null (see findPlatformUser). */
export async function findUserId(db: Executor, platformId: string, platformUserId: SenderUserId): Promise<ServiceUserId | null> {
  return (await findPlatformUser(db, platformId, platformUserId))?.id ?? null;
}

/**
 * Flags these users for re-evaluation (a new link made earlier events count,
 * a reversal took one back), in one statement. Always written, even when already set: the row
 * lock orders it with an evaluation clearing the flag right now
 * (loadMatchUsers), so either that evaluation reads its history after this
 * commit, or the flag is set again after it. Skipping a set flag let an
 * evaluation that cleared it a moment later walk the event as not reversed,
 * while the new evaluation job was dropped as a duplicate of the running one.
 */
export async function flagUsersForEvaluation(db: Executor, userIds: readonly ServiceUserId[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.execute(sql`update users set needs_evaluation = true where id = any(${idArray(userIds)})`);
}

/**
 * Flags every user of a platform whose events must be matched against
 * something new (a chain): the reconciler re-evaluates them. Users already
 * flagged are left alone (no needless row versions).
 */
export async function flagPlatformUsersForEvaluation(db: Executor, platformId: string): Promise<void> {
  await db
    .update(users)
    .set({ needsEvaluation: true })
    .where(and(eq(users.platformId, platformId), eq(users.needsEvaluation, false)));
}

/** A user's latest progress change: its stamp and the chains whose progress it rewrote. */
export interface ProgressChange {
  changedUs: bigint;
  /** Sorted chain ids. */
  chainIds: string[];
  /** The tallies of the changed walks that keep them (docs/quest-language.md); absent or empty when none. */
  progress?: TallyNotice[];
}

/**
 * The user's latest progress change if it is after `sinceUs` (null: any
 * recorded change), with the chains whose progress was rewritten since then;
 * null when nothing changed. One statement.
 */
export async function loadProgressChangeSince(
  db: Executor,
  userId: ServiceUserId,
  sinceUs: bigint | null,
): Promise<ProgressChange | null> {
  const after = (column: typeof users.progressChangedAt | typeof chainProgress.updatedAt) =>
    sinceUs === null ? sql`true` : sql`${column} > ${instant(sinceUs)}`;
  const [row] = await db
    .select({
      changedUs: users.progressChangedAt,
      chainIds: sql<string[]>`coalesce(
        (select array_agg(distinct ${chainProgress.chainId}::text order by ${chainProgress.chainId}::text)
         from ${chainProgress} where ${chainProgress.userId} = ${users.id} and ${after(chainProgress.updatedAt)}),
        '{}'::text[])`,
      tallies: sql<string | [string, string, TalliesJson][]>`coalesce(
        (select json_agg(json_build_array(${chainProgress.chainId}, ${chainProgress.runStartUs}::text, ${chainProgress.tallies})
                         order by ${chainProgress.chainId}, ${chainProgress.runStartUs})
         from ${chainProgress} where ${chainProgress.userId} = ${users.id} and ${after(chainProgress.updatedAt)} and ${chainProgress.tallies} is not null),
        '[]'::json)`,
    })
    .from(users)
    .where(and(eq(users.id, userId), isNotNull(users.progressChangedAt), after(users.progressChangedAt)));
  if (!row || row.changedUs === null) return null;
  const progress = fromJson(row.tallies).flatMap(([chainId, runStart, tallies]) =>
    tallyNotices(chainId, BigInt(runStart) === ONLY_RUN ? null : formatIsoMillis(BigInt(runStart)), talliesFromJson(tallies)),
  );
  return { changedUs: row.changedUs, chainIds: row.chainIds, ...(progress.length > 0 ? { progress } : {}) };
}

/** Ids of users flagged for re-evaluation, in id order, after `afterId` (keyset paging). */
export async function pageUsersToEvaluate(
  tx: Executor,
  options: { afterId: ServiceUserId | null; limit: number },
): Promise<ServiceUserId[]> {
  const rows = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.needsEvaluation, true), options.afterId ? gt(users.id, options.afterId) : undefined))
    .orderBy(asc(users.id))
    .limit(options.limit);
  return rows.map((row) => row.id);
}

/**
 * The users whose events the given senders may have sent: the index lookup
 * behind §4's reverse (a platform's user by its id there, every user an
 * advertiser linked by that id). Which of them an event counts for is decided
 * by shared/domain/sources.ts once they are loaded (usersBySource).
 */
export async function findSourceUsers(tx: Executor, sources: readonly EventSource[]): Promise<ServiceUserId[]> {
  if (sources.length === 0) return [];
  const rows = await tx.execute<DriverRow<Pick<UserColumns, 'id'>>>(sql`
    with s as (select * from unnest(${idArray(sources.map((s) => s.providerId))}, ${textArray(sources.map((s) => s.userId))}) as s(provider_id, user_id))
    ${usersOfSenders}`);
  return rows.map((row) => row.id);
}

// §4's reverse over senders `s(provider_id, user_id)`: the platform's users by their id there, and every user an
// advertiser linked by that id. One text for every statement that resolves senders.
const usersOfSenders =
  sql.raw(`select u.id from s join users u on u.platform_id = s.provider_id and u.platform_user_id = s.user_id
    union
    select l.user_id from s join account_links l on l.advertiser_id = s.provider_id and l.advertiser_user_id = s.user_id`);

/**
 * Serialises matching per user across transactions, workers and processes.
 * One statement takes every lock in id order, so two batches sharing users
 * cannot deadlock; the locks go with the transaction.
 */
export async function lockUsers(tx: Executor, userIds: readonly ServiceUserId[]): Promise<void> {
  if (userIds.length === 0) return;
  await tx.execute(sql`
    select count(${userLock}) from (select id from unnest(${idArray(userIds)}) as id order by id) ordered`);
}

// One user's matching lock, on a row with its `id`: every locker uses this key.
const userLock = sql.raw(`pg_advisory_xact_lock(hashtextextended('user:' || id::text, 0))`);

/**
 * The users of the pending events `eventIds` (§4: the platform's user, and
 * the users an advertiser's sender is linked to) and the users `alsoIds`,
 * locked in id order as lockUsers locks them; answers their ids in that
 * order. It reads the events' senders itself, so the matcher sends it in the
 * same round trip as the statement that claims those events
 * (takePendingEvents): the server runs the two in turn. It may find an event
 * the claim skipped (another transaction holds it) and lock its users too,
 * which costs a wait, never a result.
 */
export async function lockPendingEventUsers(
  tx: Executor,
  eventIds: readonly string[],
  alsoIds: readonly ServiceUserId[],
): Promise<ServiceUserId[]> {
  if (eventIds.length === 0 && alsoIds.length === 0) return [];
  const rows = await tx.execute<DriverRow<Pick<UserColumns, 'id'>>>(sql`
    with s as (
      select distinct e.provider_id, e.user_id
      from pending_events p
      -- By the event's full key, so only its month's partition is read (as takePendingEvents reads it).
      cross join lateral (select provider_id, user_id from events e where e.id = p.event_id and e.occurred_at = p.occurred_at limit 1) e
      where p.event_id = any(${idArray(eventIds)})
    ),
    found as (
      ${usersOfSenders}
      union
      select unnest(${idArray(alsoIds)})
    )
    select id, ${userLock} from (select id from found order by id) ordered`);
  return rows.map((row) => row.id);
}

/** The columns of a MatchUserRow, for `users u`: the user, its registration and its links as [advertiser id, advertiser user id] pairs. */
const matchUserColumns =
  sql.raw(`u.id, u.platform_id as "platformId", u.platform_user_id as "platformUserId", u.created_at as "createdAt",
  coalesce((select json_agg(json_build_array(l.advertiser_id, l.advertiser_user_id)) from account_links l where l.user_id = u.id), '[]'::json) as links`);

type MatchUserRow = DriverRow<Pick<UserColumns, 'id' | 'platformId' | 'platformUserId' | 'createdAt'>> & {
  /** [advertiser id, advertiser user id] pairs; the driver may hand json over unparsed (drizzle configures postgres.js that way). */
  links: string | [LinkColumns['advertiserId'], LinkColumns['advertiserUserId']][];
};

/**
 * The users with their links, read under their locks. Users in `evaluateIds`
 * have their re-evaluation flag cleared in the same statement: a flag raised
 * after this statement (a new link, a new chain) is seen by a later evaluation.
 */
export async function loadMatchUsers(
  tx: Executor,
  userIds: readonly ServiceUserId[],
  evaluateIds: readonly ServiceUserId[],
): Promise<LockedMatchUser[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.execute<MatchUserRow & { walksVersion: string }>(sql`
    with cleared as (
      update users set needs_evaluation = false where id = any(${idArray(evaluateIds)}) and needs_evaluation
    )
    select ${matchUserColumns}, u.walks_version::text as "walksVersion"
    from users u where u.id = any(${idArray(userIds)})`);
  return rows.map((row) => ({ ...toMatchUser(row), walksVersion: BigInt(row.walksVersion) }));
}

/** A user as the matcher reads them under their lock: with the version of their stored walks (users.walks_version). */
export interface LockedMatchUser extends MatchUser {
  walksVersion: bigint;
}

const toMatchUser = (row: MatchUserRow): MatchUser => ({
  id: row.id,
  platformId: row.platformId,
  platformUserId: row.platformUserId,
  registeredUs: decodeTimestampUs(users.createdAt, row.createdAt),
  links: new Map(fromJson(row.links)),
});

/** A platform's user with its links, by its id there (read only: what explain needs); undefined when not registered. */
export async function findMatchUser(
  db: Executor,
  platformId: string,
  platformUserId: SenderUserId,
): Promise<MatchUser | undefined> {
  const [row] = await db.execute<MatchUserRow>(sql`
    select ${matchUserColumns}
    from users u where u.platform_id = ${platformId} and u.platform_user_id = ${platformUserId}`);
  return row && toMatchUser(row);
}

/** A platform's registered users, in id order after `afterId` (keyset paging): what a backtest walks. */
export async function pagePlatformUserIds(
  db: Executor,
  platformId: string,
  options: { afterId: ServiceUserId | null; limit: number },
): Promise<ServiceUserId[]> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.platformId, platformId), options.afterId ? gt(users.id, options.afterId) : undefined))
    .orderBy(asc(users.id))
    .limit(options.limit);
  return rows.map((row) => row.id);
}

export async function countPlatformUsers(db: Executor, platformId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users).where(eq(users.platformId, platformId));
  return row?.n ?? 0;
}
