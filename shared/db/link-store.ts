import { and, eq, or, type SQL, sql } from 'drizzle-orm';
import type { SenderUserId } from '../domain/ids.js';
import type { Executor } from './client.js';
import type { DriverRow } from './driver-row.js';
import { afterKey, type Page, type PageRequest, rowsToRead, toPage } from './keyset.js';
import { accountLinks, linkTokens, providers, users } from './schema/index.js';

type LinkColumns = typeof accountLinks.$inferSelect;
type TokenColumns = typeof linkTokens.$inferSelect;

/** Who a link would join: the platform's registered user (null if none) and whether the advertiser is an active advertiser. */
export type LinkParties = { userId: LinkColumns['userId'] | null; advertiserActive: boolean };

/** The parties of a link (see LinkParties), in one statement. */
export async function findLinkParties(
  db: Executor,
  input: { platformId: string; platformUserId: SenderUserId; advertiserId: string },
): Promise<LinkParties> {
  const [row] = await db.execute<DriverRow<LinkParties>>(sql`
    select
      (select ${users.id} from ${users}
       where ${users.platformId} = ${input.platformId} and ${users.platformUserId} = ${input.platformUserId}) as "userId",
      exists (select 1 from ${providers}
              where ${providers.id} = ${input.advertiserId} and ${providers.type} = 'advertiser' and ${providers.status} = 'active') as "advertiserActive"`);
  return { userId: row?.userId ?? null, advertiserActive: row?.advertiserActive ?? false };
}

/** A connection token to store: only its SHA-256, valid `ttlMinutes` from the database clock. */
export type NewLinkToken = Pick<TokenColumns, 'tokenHash' | 'userId' | 'platformId' | 'advertiserId'> & { ttlMinutes: number };

/** Stores a connection token; answers when it expires. */
export async function insertLinkToken(db: Executor, token: NewLinkToken): Promise<TokenColumns['expiresAt']> {
  const [row] = await db
    .insert(linkTokens)
    .values({
      tokenHash: token.tokenHash,
      userId: token.userId,
      platformId: token.platformId,
      advertiserId: token.advertiserId,
      expiresAt: sql`now() + make_interval(mins => ${token.ttlMinutes})`,
    })
    .returning({ expiresAt: linkTokens.expiresAt });
  return row!.expiresAt;
}

/** A connection token as completing a link reads it, with its state at the database clock. */
export type LockedLinkToken = Pick<TokenColumns, 'userId' | 'platformId' | 'advertiserId' | 'usedAdvertiserUserId' | 'linkId'> & {
  expired: boolean;
  used: boolean;
};

/** The token with this hash, row-locked until the transaction ends (so one token completes once); undefined if unknown. */
export async function lockLinkToken(tx: Executor, tokenHash: string): Promise<LockedLinkToken | undefined> {
  const [token] = await tx
    .select({
      userId: linkTokens.userId,
      platformId: linkTokens.platformId,
      advertiserId: linkTokens.advertiserId,
      expired: sql<boolean>`${linkTokens.expiresAt} <= now()`,
      used: sql<boolean>`${linkTokens.usedAt} is not null`,
      usedAdvertiserUserId: linkTokens.usedAdvertiserUserId,
      linkId: linkTokens.linkId,
    })
    .from(linkTokens)
    .where(eq(linkTokens.tokenHash, tokenHash))
    .for('update');
  return token;
}

/** Records the token's use: by which advertiser user id, for which link. */
export async function markLinkTokenUsed(
  tx: Executor,
  tokenHash: string,
  use: { advertiserUserId: SenderUserId; linkId: string },
): Promise<void> {
  await tx
    .update(linkTokens)
    .set({ usedAt: sql`now()`, usedAdvertiserUserId: use.advertiserUserId, linkId: use.linkId })
    .where(eq(linkTokens.tokenHash, tokenHash));
}

/** A link as completing one answers it. */
export type StoredLink = Pick<LinkColumns, 'id' | 'userId' | 'advertiserUserId' | 'linkedAt'>;

const storedLinkColumns = {
  id: accountLinks.id,
  userId: accountLinks.userId,
  advertiserUserId: accountLinks.advertiserUserId,
  linkedAt: accountLinks.linkedAt,
};

/** Inserts the link unless one of account_links' two unique keys already holds one; undefined then. */
export async function insertLinkIfFree(
  tx: Executor,
  link: Pick<LinkColumns, 'userId' | 'platformId' | 'advertiserId' | 'advertiserUserId'>,
): Promise<StoredLink | undefined> {
  const [inserted] = await tx.insert(accountLinks).values(link).onConflictDoNothing().returning(storedLinkColumns);
  return inserted;
}

export async function findLink(db: Executor, linkId: string): Promise<StoredLink | undefined> {
  const [link] = await db.select(storedLinkColumns).from(accountLinks).where(eq(accountLinks.id, linkId));
  return link;
}

/** The advertiser's links that hold either unique key a new link (user, or platform and advertiser user id) would take. */
export async function findClashingLinks(
  db: Executor,
  link: Pick<LinkColumns, 'userId' | 'platformId' | 'advertiserId' | 'advertiserUserId'>,
): Promise<StoredLink[]> {
  return db
    .select(storedLinkColumns)
    .from(accountLinks)
    .where(
      and(
        eq(accountLinks.advertiserId, link.advertiserId),
        or(
          eq(accountLinks.userId, link.userId),
          and(eq(accountLinks.platformId, link.platformId), eq(accountLinks.advertiserUserId, link.advertiserUserId)),
        ),
      ),
    );
}

/** A link as its platform lists it. */
export type PlatformLink = Pick<LinkColumns, 'id' | 'advertiserId' | 'advertiserUserId' | 'linkedAt'>;

/**
 * A page of the links of one of a platform's users, oldest first. An unknown
 * user, or one of another platform, has no links here (no leak). Null when
 * the cursor names none of this user's links.
 */
export async function listPlatformUserLinks(
  db: Executor,
  platformId: string,
  platformUserId: SenderUserId,
  page: PageRequest,
): Promise<Page<PlatformLink> | null> {
  const ofUser = and(
    eq(users.platformId, platformId),
    eq(users.platformUserId, platformUserId),
    eq(accountLinks.platformId, platformId),
  );
  const order = [accountLinks.linkedAt, accountLinks.id] as const;
  let after: SQL | undefined;
  if (page.startingAfter !== undefined) {
    const [cursor] = await db
      .select({ linkedAt: accountLinks.linkedAt, id: accountLinks.id })
      .from(accountLinks)
      .innerJoin(users, eq(users.id, accountLinks.userId))
      .where(and(ofUser, eq(accountLinks.id, page.startingAfter)));
    if (!cursor) return null;
    after = afterKey(order, [cursor.linkedAt, cursor.id]);
  }
  const rows = await db
    .select({
      id: accountLinks.id,
      advertiserId: accountLinks.advertiserId,
      advertiserUserId: accountLinks.advertiserUserId,
      linkedAt: accountLinks.linkedAt,
    })
    .from(accountLinks)
    .innerJoin(users, eq(users.id, accountLinks.userId))
    .where(and(ofUser, after))
    .orderBy(...order)
    .limit(rowsToRead(page.limit));
  return toPage(rows, page.limit);
}
