import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../core/deps.js';
import { matchBatch } from '../../core/matching/match-batch.js';
import { insertOrFindEvents } from '../../shared/db/event-store.js';
import { readFigures } from '../../shared/db/points-store.js';
import { autoClaims } from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { createLogger } from '../../shared/observability/logger.js';
import type { AutoClaimProducer } from '../../shared/queue/auto-claim-producer.js';
import { createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { recordChanges } from '../../shared/testing/change-notices.js';
import { useTestData } from '../../shared/testing/test-data.js';
import { createAutoClaimProcessor } from './processor.js';
import { sweepAutoClaimsOnce } from './sweeper.js';

// The worker's side of auto-claim (§18.5): the sweeper queues what is overdue,
// and the processor claims it; a job whose payload can never be valid fails for good.

const { database, platform, advertiser } = useTestData('auto_claim_worker');
const logger = createLogger({ level: 'silent', name: 'auto-claims-test' });
const webhooks = { deliver: async () => true } as unknown as CoreDeps['webhooks'];

function recordingProducer() {
  const queued: { id: string; dueUs: bigint }[] = [];
  const producer = { claim: async (rows: { id: string; dueUs: bigint }[]) => (queued.push(...rows), true) };
  return { queued, producer: producer as unknown as AutoClaimProducer };
}

describe('auto-claims in the worker', () => {
  it('queues the overdue rows again, and the processor claims each once', async () => {
    await createTestChain(database.db, platform.id, advertiser.id, {
      start: '2026-01-01T00:00:00Z',
      end: '2099-01-01T00:00:00Z',
      autoClaim: true,
      tasks: [{ event: 'w-deposit' }],
      reward: false,
    });
    const userId = await createTestUser(database.db, platform.id, 'w-1');
    const [event] = await insertOrFindEvents(database.db, [
      { providerId: platform.id, userId: senderUserId('w-1'), eventType: 'w-deposit', occurredAt: 1_772_323_200_000_000n },
    ]);
    const { autoClaims: stored } = await matchBatch({ db: database.db }, { eventIds: [event!.id], evaluateUserIds: [] });
    expect(stored).toHaveLength(1);

    // Its job was lost (Redis down at the commit, say): not queued yet while young, queued once overdue.
    const young = recordingProducer();
    expect(await sweepAutoClaimsOnce({ db: database.db, autoClaims: young.producer }, 60_000)).toBe(0);
    const overdue = recordingProducer();
    expect(await sweepAutoClaimsOnce({ db: database.db, autoClaims: overdue.producer }, 0)).toBe(1);
    expect(overdue.queued.map((row) => row.id)).toEqual([stored[0]!.id]);

    const process = createAutoClaimProcessor({ db: database.db, logger, webhooks, changes: recordChanges().changes });
    const job = (data: unknown, name = 'auto-claim') => ({ id: 'j', name, data }) as unknown as Job;
    expect(await process(job({ autoClaimId: stored[0]!.id }))).toBe('claimed');
    expect(await process(job({ autoClaimId: stored[0]!.id }))).toBe('gone');
    expect((await readFigures(database.db, userId)).balance).toBe(10n);
    expect(await database.db.select().from(autoClaims)).toEqual([]);
    await expect(process(job({ autoClaimId: 'not-a-uuid' }))).rejects.toThrow(/invalid auto-claim job/);
  });
});
