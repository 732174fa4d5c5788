import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ServiceUserId } from '../domain/ids.js';
import type { Executor } from './client.js';
import { type DriverRow, decodeTimestampUs } from './driver-row.js';
import { afterKey, type Page, type PageRequest, rowsToRead, toPage } from './keyset.js';
import { pointBalances, pointEntries, pointSpends } from './schema/index.js';

// The points ledger (product rules §18, docs/points.md): every statement of
// it. An entry is written only under its user's balance row lock (taken by
// the upsert of `appendEntry`, or `lockBalance` before a spend), so a user's
// entries are numbered and their balances follow commit order.

export type PointEntryKind = (typeof pointEntries.$inferSelect)['kind'];

export interface PointEntry {
  id: string;
  seq: bigint;
  kind: PointEntryKind;
  /** Signed. */
  amount: bigint;
  balanceAfter: bigint;
  claimId: string | null;
  spendId: string | null;
  questChainId: string | null;
  createdUs: bigint;
}

/** A balance and its three figures: balance = earned - spent - reversed. */
export interface PointFigures {
  balance: bigint;
  earned: bigint;
  spent: bigint;
  reversed: bigint;
}

export const NO_POINTS: PointFigures = { balance: 0n, earned: 0n, spent: 0n, reversed: 0n };

export interface PointSpend {
  spendId: string;
  amount: bigint;
  balanceAfter: bigint;
}

type EntryColumns = typeof pointEntries.$inferSelect;

const toEntry = (row: EntryColumns): PointEntry => ({
  id: row.id,
  seq: row.seq,
  kind: row.kind,
  amount: row.amount,
  balanceAfter: row.balanceAfter,
  claimId: row.claimId,
  spendId: row.spendId,
  questChainId: row.questChainId,
  createdUs: row.createdAt,
});

/** How an entry of each kind moves the figures beside the balance. */
function figureDeltas(kind: PointEntryKind, amount: bigint) {
  return {
    earned: kind === 'claim' ? amount : 0n,
    spent: kind === 'spend' ? -amount : 0n,
    reversed: kind === 'reversal' ? -amount : 0n,
  };
}

/**
 * Appends one entry to the user's ledger, in the caller's transaction: the
 * balance row is made or moved first (its row lock held to commit, so the
 * user's next entry waits), then the entry takes the row's new balance and
 * count as its `balance_after` and `seq`. One statement.
 */
export async function appendEntry(
  tx: Executor,
  entry: {
    userId: ServiceUserId;
    kind: PointEntryKind;
    amount: bigint;
    claimId?: string | null;
    spendId?: string | null;
    questChainId?: string | null;
  },
): Promise<PointEntry> {
  const { earned, spent, reversed } = figureDeltas(entry.kind, entry.amount);
  const int8 = (value: bigint) => sql`${value.toString()}::bigint`;
  const [row] = await tx.execute<DriverRow<Pick<EntryColumns, 'id' | 'seq' | 'balanceAfter'>> & { createdAt: string }>(sql`
    with moved as (
      insert into point_balances as b (user_id, balance, earned, spent, reversed, entries)
      values (${entry.userId}, ${int8(entry.amount)}, ${int8(earned)}, ${int8(spent)}, ${int8(reversed)}, 1)
      on conflict (user_id) do update set
        balance = b.balance + excluded.balance, earned = b.earned + excluded.earned,
        spent = b.spent + excluded.spent, reversed = b.reversed + excluded.reversed, entries = b.entries + 1
      returning user_id, balance, entries
    )
    insert into point_entries (user_id, seq, kind, amount, balance_after, claim_id, spend_id, quest_chain_id)
    select user_id, entries, ${entry.kind}::point_entry_kind, ${int8(entry.amount)}, balance, ${entry.claimId ?? null}::uuid,
           ${entry.spendId ?? null}::uuid, ${entry.questChainId ?? null}::uuid
    from moved
    returning id, seq, balance_after as "balanceAfter", created_at::text as "createdAt"`);
  return {
    id: row!.id,
    seq: BigInt(row!.seq),
    kind: entry.kind,
    amount: entry.amount,
    balanceAfter: BigInt(row!.balanceAfter),
    claimId: entry.claimId ?? null,
    spendId: entry.spendId ?? null,
    questChainId: entry.questChainId ?? null,
    createdUs: decodeTimestampUs(pointEntries.createdAt, row!.createdAt),
  };
}

/** The user's balance, locked to the end of the caller's transaction; null when they have no entry yet (a balance of 0). */
export async function lockBalance(tx: Executor, userId: ServiceUserId): Promise<bigint | null> {
  const [row] = await tx
    .select({ balance: pointBalances.balance })
    .from(pointBalances)
    .where(eq(pointBalances.userId, userId))
    .for('update');
  return row?.balance ?? null;
}

/** The user's spend under this idempotency key, if any. */
export async function findSpend(
  db: Executor,
  userId: ServiceUserId,
  idempotencyKey: string,
): Promise<(PointSpend & { createdUs: bigint }) | null> {
  const [row] = await db
    .select()
    .from(pointSpends)
    .where(and(eq(pointSpends.userId, userId), eq(pointSpends.idempotencyKey, idempotencyKey)));
  return row ? { spendId: row.id, amount: row.amount, balanceAfter: row.balanceAfter, createdUs: row.createdAt } : null;
}

/** Records a spend and its entry; the caller holds the balance lock (`lockBalance`) and checked that the balance covers it. */
export async function insertSpend(
  tx: Executor,
  spend: { userId: ServiceUserId; idempotencyKey: string; amount: bigint; reason: string | null; balanceAfter: bigint },
): Promise<PointSpend> {
  const [row] = await tx.insert(pointSpends).values(spend).returning({ id: pointSpends.id });
  const entry = await appendEntry(tx, { userId: spend.userId, kind: 'spend', amount: -spend.amount, spendId: row!.id });
  if (entry.balanceAfter !== spend.balanceAfter) throw new Error('point spend written without its balance lock');
  return { spendId: row!.id, amount: spend.amount, balanceAfter: entry.balanceAfter };
}

/** The user's balance and figures (all 0 without an entry). */
export async function readFigures(db: Executor, userId: ServiceUserId): Promise<PointFigures> {
  const [row] = await db
    .select({
      balance: pointBalances.balance,
      earned: pointBalances.earned,
      spent: pointBalances.spent,
      reversed: pointBalances.reversed,
    })
    .from(pointBalances)
    .where(eq(pointBalances.userId, userId));
  return row ?? NO_POINTS;
}

/** A page of the user's entries, newest first; null when `startingAfter` names no entry of theirs. */
export async function listEntries(db: Executor, userId: ServiceUserId, page: PageRequest): Promise<Page<PointEntry> | null> {
  let after: ReturnType<typeof afterKey> | undefined;
  if (page.startingAfter !== undefined) {
    const [cursor] = await db
      .select({ seq: pointEntries.seq })
      .from(pointEntries)
      .where(and(eq(pointEntries.userId, userId), eq(pointEntries.id, page.startingAfter)));
    if (!cursor) return null;
    after = afterKey([pointEntries.seq], [cursor.seq], 'desc');
  }
  const rows = await db
    .select()
    .from(pointEntries)
    .where(and(eq(pointEntries.userId, userId), after))
    .orderBy(desc(pointEntries.seq))
    .limit(rowsToRead(page.limit));
  return toPage(rows.map(toEntry), page.limit);
}

/** What these claims credited when they were made (their `claim` entries), with whom and which chain; a claim without one credited nothing. */
export async function claimCredits(
  db: Executor,
  claimIds: readonly string[],
): Promise<{ claimId: string; userId: ServiceUserId; questChainId: string | null; credited: bigint }[]> {
  if (claimIds.length === 0) return [];
  const rows = await db
    .select({
      claimId: pointEntries.claimId,
      userId: pointEntries.userId,
      questChainId: pointEntries.questChainId,
      credited: pointEntries.amount,
    })
    .from(pointEntries)
    .where(and(inArray(pointEntries.claimId, [...claimIds]), eq(pointEntries.kind, 'claim')));
  return rows.map((row) => ({ ...row, claimId: row.claimId! }));
}

/** The points a chain's claims credited, less their reversals standing now (the chain stats, §17). */
export async function chainPointsPaidOut(db: Executor, chainId: string): Promise<bigint> {
  const [row] = await db
    .select({ paid: sql<string>`coalesce(sum(${pointEntries.amount}), 0)::text` })
    .from(pointEntries)
    .where(eq(pointEntries.questChainId, chainId));
  return BigInt(row?.paid ?? '0');
}
