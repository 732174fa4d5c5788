import type { Job } from 'bullmq';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateWebhookSecret } from '../../core/webhooks/signing.js';
import type { Database } from '../../shared/db/client.js';
import { textArray } from '../../shared/db/sql-fragments.js';
import { insertEndpoint } from '../../shared/db/webhook-endpoint-store.js';
import { insertMessages } from '../../shared/db/webhook-message-store.js';
import type { WebhookProducer } from '../../shared/queue/webhook-producer.js';
import { createTestDatabase, type TestDatabase } from '../../shared/testing/database.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../shared/testing/webhook-receiver.js';
import { createDeliveryProcessor } from './delivery.js';
import { createMatchingFirstGate, type MatchingFirstGate } from './matching-first.js';
import { createSender, type Sender } from './send.js';

// A first-attempts job (a matching batch's messages) is claimed, sent and recorded in groups:
// its statements do not grow with its messages (two a message would be most of what an
// endpoint costs the matching drain: docs/performance.md, "Webhooks"). Each attempt is still
// claimed exactly once, recorded with its consequence, and a failure gets its own retry.

let database: TestDatabase;
let receiver: WebhookReceiver;
let sender: Sender;
let providerId: string;

beforeAll(async () => {
  database = await createTestDatabase('webhook_delivery');
  receiver = await startWebhookReceiver();
  sender = createSender({ allowPrivate: true });
  providerId = (await createTestProvider(database.db, 'platform')).id;
  await insertEndpoint(
    database.db,
    { providerId, url: receiver.url, eventTypes: ['reward.claimed'], secret: generateWebhookSecret() },
    10,
  );
});
afterAll(async () => {
  sender.close();
  await receiver.stop();
  await database.drop();
});
beforeEach(() => {
  receiver.answer = () => 200;
});

let factCount = 0;
const newMessages = (count: number) =>
  insertMessages(
    database.db,
    Array.from({ length: count }, () => ({
      providerId,
      type: 'reward.claimed',
      fact: `reward.claimed/delivery-${factCount++}`,
      data: { n: factCount },
    })),
  );

/** The database with its statements counted (every webhook statement is an `execute`). */
function counted(db: Database) {
  const count = { statements: 0 };
  const proxy = new Proxy(db, {
    get(target, key, receiver) {
      if (key === 'execute' || key === 'select' || key === 'update' || key === 'insert') count.statements += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { db: proxy, count };
}

function processorWith(db: Database, gate?: MatchingFirstGate) {
  const retries: { messageId: string; attempt: number; delayMs?: number }[] = [];
  const webhooks = {
    deliver: (attempts: { messageId: string; attempt: number; delayMs?: number }[]) => {
      retries.push(...attempts);
      return Promise.resolve(true);
    },
  } as unknown as WebhookProducer;
  const process = createDeliveryProcessor({
    db,
    logger: pino({ level: 'silent' }),
    webhooks,
    sender,
    retryScale: 1,
    random: () => 0.5,
    ...(gate ? { gate } : {}),
  });
  return { process, retries };
}

const job = (messageIds: string[]) => ({ name: 'deliver-webhooks', data: { messageIds } }) as unknown as Job;

const rowsOf = (ids: string[]) =>
  database.db.execute<{ id: string; status: string; attempts: number; leased: boolean; later: boolean; logged: number }>(sql`
    select m.id, m.status, m.attempts, m.locked_until is not null as leased, m.next_attempt_at > now() as later,
      (select count(*)::int from webhook_attempts a where a.message_id = m.id) as logged
    from webhook_messages m where m.id = any(${textArray(ids)})`);

describe('first attempts of a batch of messages', () => {
  it('delivers 120 messages in a bounded number of statements, each recorded once', async () => {
    const ids = await newMessages(120);
    const { db, count } = counted(database.db);
    const { process } = processorWith(db);
    const before = receiver.received.length;
    expect(JSON.parse(await process(job(ids)))).toEqual({ delivered: 120 });
    // Three groups of at most 50: a claim and a record each.
    expect(count.statements).toBeLessThanOrEqual(6);
    expect(new Set(receiver.received.slice(before).map((r) => r.json.id))).toEqual(new Set(ids));
    const rows = await rowsOf(ids);
    expect(rows).toHaveLength(120);
    for (const row of rows) expect(row).toMatchObject({ status: 'delivered', attempts: 1, leased: false, logged: 1 });
  });

  it('schedules a retry of each failed message on its own, and leaves the delivered ones delivered', async () => {
    const ids = await newMessages(10);
    const failing = new Set(ids.slice(0, 3));
    receiver.answer = ({ id }) => (failing.has(id) ? 500 : 200);
    const { process, retries } = processorWith(database.db);
    expect(JSON.parse(await process(job(ids)))).toEqual({ delivered: 7, retry: 3 });
    expect(retries.map((r) => r.messageId).sort()).toEqual([...failing].sort());
    for (const retry of retries) {
      expect(retry.attempt).toBe(1);
      expect(retry.delayMs).toBeGreaterThan(0);
    }
    for (const row of await rowsOf(ids)) {
      expect(row).toMatchObject({ attempts: 1, leased: false, logged: 1, status: failing.has(row.id) ? 'pending' : 'delivered' });
      expect(row.later).toBe(failing.has(row.id));
    }
    // The scheduled second attempt, as its own job: claimed at attempt 1 and delivered.
    receiver.answer = () => 200;
    expect(
      await process({ name: 'deliver-webhook', data: { messageId: retries[0]!.messageId, attempt: 1 } } as unknown as Job),
    ).toBe('delivered');
    expect(
      await process({ name: 'deliver-webhook', data: { messageId: retries[0]!.messageId, attempt: 1 } } as unknown as Job),
    ).toBe('skipped');
  });

  it('attempts each message once when two jobs carry it at the same time (a first-attempts job and a sweeper)', async () => {
    const ids = await newMessages(60);
    const { process } = processorWith(database.db);
    const before = receiver.received.length;
    const outcomes = await Promise.all([process(job(ids)), process(job([...ids].reverse()))]);
    const delivered = outcomes.map((o) => (JSON.parse(o) as { delivered?: number }).delivered ?? 0);
    expect(delivered[0]! + delivered[1]!).toBe(60);
    expect(receiver.received.length - before).toBe(60);
    for (const row of await rowsOf(ids)) expect(row).toMatchObject({ status: 'delivered', attempts: 1, logged: 1 });
  });

  it('waits for a matching backlog to clear before a first attempt (WEBHOOK_YIELD_MS), never before a retry', async () => {
    const ids = await newMessages(5);
    let backlog = 3;
    const gate = createMatchingFirstGate({ backlog: async () => backlog, maxYieldMs: 10_000, pollMs: 20 });
    const { process } = processorWith(database.db, gate);
    const before = receiver.received.length;
    const done = process(job(ids));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.length - before).toBe(0);
    for (const row of await rowsOf(ids)) expect(row).toMatchObject({ status: 'pending', attempts: 0, leased: false });
    // A retry keeps its schedule (§10: the first within ~5 s): it does not wait.
    const [retried] = await newMessages(1);
    await database.db.execute(sql`update webhook_messages set attempts = 1 where id = ${retried!}`);
    expect(await process({ name: 'deliver-webhook', data: { messageId: retried, attempt: 1 } } as unknown as Job)).toBe(
      'delivered',
    );
    expect(receiver.received.length - before).toBe(1);
    backlog = 0;
    expect(JSON.parse(await done)).toEqual({ delivered: 5 });
    expect(receiver.received.length - before).toBe(6);
  });
});
