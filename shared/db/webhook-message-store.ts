import { and, asc, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import { appendTo } from '../collections.js';
import type { Executor } from './client.js';
import { type DriverRow, decodeTimestampUs, fromJson } from './driver-row.js';
import { afterKey, type Page, type PageRequest, rowsToRead, toPage } from './keyset.js';
import { providerIsLive } from './provider-mode.js';
import { providers, type WebhookMessageStatus, webhookAttempts, webhookEndpoints, webhookMessages } from './schema/index.js';
import { fromUs, numberArray, textArray } from './sql-fragments.js';

/**
 * The outbox and delivery log of webhooks (product rules §10). Messages are
 * written in the transaction of the fact they announce (insertMessages), then
 * delivered from the queue; Postgres stays the source of truth, so a lost job
 * only delays a delivery (the sweeper finds what is due).
 */

/** One fact for one recipient provider: every live endpoint of that provider subscribed to `type` gets a message. */
export interface WebhookFact {
  providerId: string;
  type: string;
  /** Names the fact, the same for every recipient: `task.completed/<user id>/<task id>`. */
  fact: string;
  /** The message's `data`, already in the recipient's terms (its own user identifier only). */
  data: Record<string, unknown>;
}

/**
 * Fans facts out to the subscribed endpoints in one statement. The unique
 * key (endpoint, fact) drops a fact announced before, so a retry, a
 * redelivery or a second worker can never make a second message. Answers the
 * new messages' ids.
 */
export async function insertMessages(tx: Executor, facts: readonly WebhookFact[]): Promise<string[]> {
  if (facts.length === 0) return [];
  const rows = await tx.execute<DriverRow<Pick<typeof webhookMessages.$inferSelect, 'id'>>>(sql`
    insert into webhook_messages (id, endpoint_id, fact, type, data)
    select 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.id, r.fact, r.type, r.data
    from jsonb_to_recordset(${JSON.stringify(facts.map((f) => ({ provider_id: f.providerId, type: f.type, fact: f.fact, data: f.data })))}::jsonb)
      as r(provider_id uuid, type text, fact text, data jsonb)
    join webhook_endpoints e on e.provider_id = r.provider_id and e.deleted_at is null and r.type = any(e.event_types)
    on conflict (endpoint_id, fact) do nothing
    returning id`);
  return rows.map((row) => row.id);
}

export interface WebhookAttempt {
  atUs: bigint;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookMessageView {
  id: string;
  type: string;
  createdUs: bigint;
  status: WebhookMessageStatus;
  attempts: WebhookAttempt[];
}

const messageOrder = [webhookMessages.createdAt, webhookMessages.id] as const;

/** A page of an endpoint's messages, newest first, with their attempts in order; null when the cursor is not one of them. */
export async function listMessages(
  db: Executor,
  endpointId: string,
  filter: { status?: WebhookMessageStatus | undefined },
  page: PageRequest,
): Promise<Page<WebhookMessageView> | null> {
  const scope = and(
    eq(webhookMessages.endpointId, endpointId),
    filter.status ? eq(webhookMessages.status, filter.status) : undefined,
  );
  let after: SQL | undefined;
  if (page.startingAfter !== undefined) {
    const [cursor] = await db
      .select({ createdAt: webhookMessages.createdAt, id: webhookMessages.id })
      .from(webhookMessages)
      .where(and(eq(webhookMessages.endpointId, endpointId), eq(webhookMessages.id, page.startingAfter)));
    if (!cursor) return null;
    after = afterKey(messageOrder, [cursor.createdAt, cursor.id], 'desc');
  }
  const rows = await db
    .select({
      id: webhookMessages.id,
      type: webhookMessages.type,
      createdUs: webhookMessages.createdAt,
      status: webhookMessages.status,
    })
    .from(webhookMessages)
    .where(and(scope, after))
    .orderBy(...messageOrder.map((column) => desc(column)))
    .limit(rowsToRead(page.limit));
  const messages = toPage(rows, page.limit);
  const attempts = await attemptsOf(
    db,
    messages.items.map((m) => m.id),
  );
  return { items: messages.items.map((m) => ({ ...m, attempts: attempts.get(m.id) ?? [] })), hasMore: messages.hasMore };
}

async function attemptsOf(db: Executor, messageIds: readonly string[]): Promise<Map<string, WebhookAttempt[]>> {
  const byMessage = new Map<string, WebhookAttempt[]>();
  if (messageIds.length === 0) return byMessage;
  const rows = await db
    .select({
      messageId: webhookAttempts.messageId,
      atUs: webhookAttempts.at,
      statusCode: webhookAttempts.statusCode,
      error: webhookAttempts.error,
      durationMs: webhookAttempts.durationMs,
    })
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.messageId, [...messageIds]))
    .orderBy(asc(webhookAttempts.id));
  for (const { messageId, ...attempt } of rows) appendTo(byMessage, messageId, attempt);
  return byMessage;
}

/** Whether the endpoint has the message (replay's 404 otherwise). */
export async function messageExists(db: Executor, endpointId: string, messageId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: webhookMessages.id })
    .from(webhookMessages)
    .where(and(eq(webhookMessages.endpointId, endpointId), eq(webhookMessages.id, messageId)));
  return row !== undefined;
}

/** A message ready to send: its body's parts, and where and with what secret to send it. */
export interface OutgoingMessage {
  id: string;
  type: string;
  createdUs: bigint;
  data: Record<string, unknown>;
  attempts: number;
  url: string;
  secret: string;
  /** False when the endpoint is a test twin's (docs/test-mode.md): the body says so. */
  livemode: boolean;
}

const outgoingColumns = {
  id: webhookMessages.id,
  type: webhookMessages.type,
  createdUs: webhookMessages.createdAt,
  data: webhookMessages.data,
  attempts: webhookMessages.attempts,
  url: webhookEndpoints.url,
  secret: webhookEndpoints.secret,
  livemode: providerIsLive(),
};

type OutgoingRow = DriverRow<Pick<typeof webhookMessages.$inferSelect, 'id' | 'type' | 'attempts'>> & {
  createdAt: string;
  /** jsonb; the driver may hand it over unparsed. */
  data: string | Record<string, unknown>;
  url: string;
  secret: string;
  deleted: boolean;
  livemode: boolean;
};

/**
 * Takes scheduled attempt number `attempt + 1` of each message for `leaseMs`:
 * only those still pending, at that count, unleased, and whose endpoint is
 * not deleted. A message that another worker has, that moved on, or that is
 * done is left out of the answer. A message whose endpoint was deleted since
 * it was written is given up in the same statement. One statement for all of
 * them: a delivery's cost is mostly its round trips (docs/performance.md, "Webhooks").
 */
export async function takeAttempts(
  db: Executor,
  messageIds: readonly string[],
  attempt: number,
  leaseMs: number,
): Promise<OutgoingMessage[]> {
  if (messageIds.length === 0) return [];
  const rows = await db.execute<OutgoingRow>(sql`
    update webhook_messages m
    set locked_until = case when e.deleted_at is null then now() + ${leaseMs} * interval '1 millisecond' end,
        status = case when e.deleted_at is null then m.status else 'failed' end
    from webhook_endpoints e join providers on providers.id = e.provider_id
    where m.id = any(${textArray(messageIds)}) and e.id = m.endpoint_id and m.status = 'pending' and m.attempts = ${attempt}
      and (m.locked_until is null or m.locked_until < now())
    returning m.id, m.type, m.created_at::text as "createdAt", m.data, m.attempts, e.url, e.secret, e.deleted_at is not null as deleted,
      ${providerIsLive()} as livemode`);
  return rows
    .filter((row) => !row.deleted)
    .map((row) => ({
      id: row.id,
      type: row.type,
      createdUs: decodeTimestampUs(webhookMessages.createdAt, row.createdAt),
      data: fromJson(row.data),
      attempts: row.attempts,
      url: row.url,
      secret: row.secret,
      livemode: row.livemode,
    }));
}

/** A message to replay, whatever its status; null when unknown or its endpoint is deleted. */
export async function loadForReplay(db: Executor, messageId: string): Promise<OutgoingMessage | null> {
  const [row] = await db
    .select(outgoingColumns)
    .from(webhookMessages)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookMessages.endpointId))
    .innerJoin(providers, eq(providers.id, webhookEndpoints.providerId))
    .where(and(eq(webhookMessages.id, messageId), isNull(webhookEndpoints.deletedAt)));
  return row ?? null;
}

/** What an attempt leads to: delivered, another attempt after `delayMs`, failed for good, or (a replay) no change to the schedule. */
export type AttemptOutcome =
  | { next: 'delivered' }
  | { next: 'retry'; delayMs: number }
  | { next: 'failed' }
  | { next: 'unchanged' };

/** An attempt made, for recordAttempts: the message, what happened, and what it leads to. */
export interface AttemptRecord {
  messageId: string;
  attempt: WebhookAttempt;
  outcome: AttemptOutcome;
}

/**
 * Records attempts and their consequences in one statement, however many. A
 * scheduled attempt advances the count and releases the lease; a replay
 * touches only the status, and only when it succeeded.
 */
export async function recordAttempts(db: Executor, records: readonly AttemptRecord[], scheduled: boolean): Promise<void> {
  if (records.length === 0) return;
  const statusOf = (outcome: AttemptOutcome) => (outcome.next === 'delivered' || outcome.next === 'failed' ? outcome.next : null);
  await db.execute(sql`
    with made as (
      select * from unnest(
        ${textArray(records.map((r) => r.messageId))},
        ${numberArray(
          records.map((r) => r.attempt.atUs),
          'bigint',
        )},
        ${numberArray(
          records.map((r) => r.attempt.statusCode),
          'int',
        )},
        ${textArray(records.map((r) => r.attempt.error))},
        ${numberArray(
          records.map((r) => r.attempt.durationMs),
          'int',
        )},
        ${textArray(records.map((r) => statusOf(r.outcome)))},
        ${numberArray(
          records.map((r) => (r.outcome.next === 'retry' ? r.outcome.delayMs : null)),
          'int',
        )}
      ) with ordinality as r(message_id, at_us, status_code, error, duration_ms, status, delay_ms, n)
    ), attempt as (
      insert into webhook_attempts (message_id, at, status_code, error, duration_ms)
      select message_id, ${fromUs(sql`at_us`)}, status_code, error, duration_ms from made order by n
    )
    update webhook_messages m
    set attempts = m.attempts + ${scheduled ? 1 : 0},
        locked_until = ${scheduled ? null : sql`m.locked_until`},
        status = coalesce(made.status, m.status),
        next_attempt_at = coalesce(now() + made.delay_ms * interval '1 millisecond', m.next_attempt_at)
    from made
    where m.id = made.message_id`);
}

/** One attempt (recordAttempts for one). */
export function recordAttempt(
  db: Executor,
  messageId: string,
  attempt: WebhookAttempt,
  outcome: AttemptOutcome,
  scheduled: boolean,
): Promise<void> {
  return recordAttempts(db, [{ messageId, attempt, outcome }], scheduled);
}

/** Pending messages whose attempt is overdue by `minAgeMs` and not leased: the sweeper's page. */
export function dueMessages(db: Executor, minAgeMs: number, limit: number): Promise<{ id: string; attempts: number }[]> {
  return db
    .select({ id: webhookMessages.id, attempts: webhookMessages.attempts })
    .from(webhookMessages)
    .where(
      and(
        eq(webhookMessages.status, 'pending'),
        sql`${webhookMessages.nextAttemptAt} < now() - ${minAgeMs} * interval '1 millisecond'`,
        sql`(${webhookMessages.lockedUntil} is null or ${webhookMessages.lockedUntil} < now())`,
      ),
    )
    .orderBy(asc(webhookMessages.nextAttemptAt))
    .limit(limit);
}
