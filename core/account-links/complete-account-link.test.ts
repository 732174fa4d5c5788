import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrFindEvents, takePendingEvents } from '../../shared/db/event-store.js';
import { insertUserIfNew } from '../../shared/db/user-store.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import { createTestDatabase, type TestDatabase } from '../../shared/testing/database.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import { holdTransaction, settlesWithin } from '../../shared/testing/held-transaction.js';
import { recordingQueues } from '../../shared/testing/recording-queues.js';
import type { CoreDeps } from '../deps.js';
import { completeAccountLink } from './complete-account-link.js';
import { startAccountLink } from './start-account-link.js';

// docs/matching.md, "Late events absorbed" (a sender's users do not change under a batch): a link gives the
// advertiser's sender a user, so it waits for a batch that holds claimed events of that sender.

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('complete-account-link');
});
afterAll(async () => {
  await database?.drop();
});

describe('completing an account link', () => {
  it("waits while a matching batch holds the advertiser user's claimed events, and links once it commits", async () => {
    const { db } = database;
    const { producer } = recordingQueues<CoreDeps['producer'], CoreDeps['webhooks']>();
    const platform = await createTestProvider(db, 'platform');
    const advertiser = await createTestProvider(db, 'advertiser');
    await insertUserIfNew(db, {
      platformId: platform.id,
      platformUserId: senderUserId('p-1'),
      countryCode: null,
      userMetadata: null,
    });
    const { connectionToken } = await startAccountLink(
      { db },
      { platformId: platform.id, platformUserId: senderUserId('p-1'), advertiserId: advertiser.id, livemode: true },
    );
    const [event] = await insertOrFindEvents(db, [
      {
        providerId: advertiser.id,
        userId: senderUserId('adv-1'),
        eventType: 'deposit',
        occurredAt: dateToMicros(new Date('2026-06-01T00:00:00Z')),
        amount: null,
        currency: null,
        reference: null,
        metadata: null,
      },
    ]);
    const batch = await holdTransaction(db, async (tx) => {
      expect(await takePendingEvents(tx, [event!.id])).toHaveLength(1);
    });

    const link = completeAccountLink(
      { db, producer },
      { advertiserId: advertiser.id, connectionToken, advertiserUserId: senderUserId('adv-1') },
    );
    expect(await settlesWithin(link, 400)).toBe(false);
    await batch.commit();
    expect((await link).alreadyLinked).toBe(false);
  });
});
