import { and, asc, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { providers, webhookEndpoints, webhookMessages } from './schema/index.js';
import { withTransaction } from './transaction.js';

/** An endpoint as its owner sees it: never the secret (that is shown once, by create). */
export interface WebhookEndpoint {
  id: string;
  providerId: string;
  url: string;
  eventTypes: string[];
  createdUs: bigint;
}

const endpointColumns = {
  id: webhookEndpoints.id,
  providerId: webhookEndpoints.providerId,
  url: webhookEndpoints.url,
  eventTypes: webhookEndpoints.eventTypes,
  createdUs: webhookEndpoints.createdAt,
};

const live = (providerId: string) => and(eq(webhookEndpoints.providerId, providerId), isNull(webhookEndpoints.deletedAt));

/** Which of these providers have a live endpoint now (a statement's snapshot: every creation committed before it). */
export async function providersListening(db: Executor, providerIds: readonly string[]): Promise<Set<string>> {
  if (providerIds.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ providerId: webhookEndpoints.providerId })
    .from(webhookEndpoints)
    .where(and(inArray(webhookEndpoints.providerId, [...providerIds]), isNull(webhookEndpoints.deletedAt)));
  return new Set(rows.map((row) => row.providerId));
}

/**
 * Adds an endpoint unless the provider has `max` already (null then). The
 * provider's row is locked first, so two concurrent creations cannot both
 * see nine and make eleven.
 */
export async function insertEndpoint(
  db: Executor,
  input: { providerId: string; url: string; eventTypes: string[]; secret: string },
  max: number,
): Promise<WebhookEndpoint | null> {
  return withTransaction(db, async (tx) => {
    await tx.select({ id: providers.id }).from(providers).where(eq(providers.id, input.providerId)).for('update');
    const [existing] = await tx.select({ n: count() }).from(webhookEndpoints).where(live(input.providerId));
    if ((existing?.n ?? 0) >= max) return null;
    const [row] = await tx.insert(webhookEndpoints).values(input).returning(endpointColumns);
    return row!;
  });
}

/** The provider's endpoints (at most the cap, so no pages), oldest first. */
export function listEndpoints(db: Executor, providerId: string): Promise<WebhookEndpoint[]> {
  return db
    .select(endpointColumns)
    .from(webhookEndpoints)
    .where(live(providerId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/** The provider's endpoint `id` unless deleted; another provider's is as unknown. */
export async function findEndpoint(db: Executor, providerId: string, id: string): Promise<WebhookEndpoint | null> {
  const [row] = await db
    .select(endpointColumns)
    .from(webhookEndpoints)
    .where(and(live(providerId), eq(webhookEndpoints.id, id)));
  return row ?? null;
}

/**
 * Deletes the endpoint (keeps the row for its messages' sake) and gives up
 * its pending messages: nothing more is sent, and the sweeper never scans
 * them again. False when the provider has no such endpoint.
 */
export async function deleteEndpoint(db: Executor, providerId: string, id: string): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    const deleted = await tx
      .update(webhookEndpoints)
      .set({ deletedAt: sql`now()` })
      .where(and(live(providerId), eq(webhookEndpoints.id, id)))
      .returning({ id: webhookEndpoints.id });
    if (deleted.length === 0) return false;
    await tx
      .update(webhookMessages)
      .set({ status: 'failed', lockedUntil: null })
      .where(and(eq(webhookMessages.endpointId, id), eq(webhookMessages.status, 'pending')));
    return true;
  });
}
