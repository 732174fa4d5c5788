import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { senderUserId } from '../domain/ids.js';
import { dateToMicros } from '../domain/timestamp.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { createTestProvider } from '../testing/fixtures.js';
import { holdTransaction, settlesWithin } from '../testing/held-transaction.js';
import { insertOrFindEvents, takePendingEvents } from './event-store.js';
import { lockSenderExclusive } from './sender-locks.js';
import { withTransaction } from './transaction.js';
import { insertUserIfNew } from './user-store.js';

// docs/matching.md, "Late events absorbed": a sender's users do not change while a batch that claimed its
// events is in flight. Without it, a user registered between a batch's resolution of the sender (no user
// then) and its commit had a re-evaluation that left those still-pending events out, and the batch never
// walked them for the user: they were lost for that user (seen once in the Redis Cluster suite).

const SETTLE_MS = 400;

let database: TestDatabase;
let platformId: string;
beforeAll(async () => {
  database = await createTestDatabase('sender-locks');
  platformId = (await createTestProvider(database.db, 'platform')).id;
});
afterAll(async () => {
  await database?.drop();
});

const storeEvent = async (sender: string) => {
  const [stored] = await insertOrFindEvents(database.db, [
    {
      providerId: platformId,
      userId: senderUserId(sender),
      eventType: 'trade',
      occurredAt: dateToMicros(new Date('2026-06-01T00:00:00Z')),
      amount: null,
      currency: null,
      reference: null,
      metadata: null,
    },
  ]);
  return stored!.id;
};

const register = (sender: string) =>
  insertUserIfNew(database.db, { platformId, platformUserId: senderUserId(sender), countryCode: null, userMetadata: null });

const settlesSoon = (promise: Promise<unknown>) => settlesWithin(promise, SETTLE_MS);

describe('a sender whose events a batch has claimed', () => {
  it('gets a platform user only once the batch has committed', async () => {
    const eventId = await storeEvent('late-user');
    const batch = await holdTransaction(database.db, async (tx) => {
      expect((await takePendingEvents(tx, [eventId])).map((e) => e.id)).toEqual([eventId]);
    });
    const registration = register('late-user');
    expect(await settlesSoon(registration)).toBe(false);
    await batch.commit();
    expect((await registration)?.id).toEqual(expect.any(String));
  });

  it('is not claimed while a link or registration of it is being made, and is once that commits', async () => {
    const eventId = await storeEvent('linked-user');
    const link = await holdTransaction(database.db, async (tx) => {
      await lockSenderExclusive(tx, platformId, senderUserId('linked-user'));
    });
    const claim = withTransaction(database.db, (tx) => takePendingEvents(tx, [eventId]));
    expect(await settlesSoon(claim)).toBe(false);
    await link.commit();
    expect((await claim).map((e) => e.id)).toEqual([eventId]);
  });

  it('leaves other senders alone: another user registers while the batch is open', async () => {
    const eventId = await storeEvent('busy-sender');
    const batch = await holdTransaction(database.db, async (tx) => {
      await takePendingEvents(tx, [eventId]);
    });
    try {
      const registration = register('someone-else');
      expect(await settlesSoon(registration)).toBe(true);
    } finally {
      await batch.commit();
    }
  });
});
