import { Queue } from 'bullmq';
import { AUTO_CLAIM_QUEUE, autoClaimJobId, autoClaimJobOptions, autoClaimJobPayloads } from './auto-claim-contract.js';
import { addBestEffort } from './best-effort-add.js';
import type { RedisClient } from './connection.js';

export interface AutoClaimProducer {
  /** Queues the claims of stored auto-claims, each at its due time. Best effort: false when Redis is away (the sweeper covers). */
  claim(autoClaims: readonly { id: string; dueUs: bigint }[]): Promise<boolean>;
  queue: Queue;
  close(): Promise<void>;
}

export function createAutoClaimProducer(connection: RedisClient, prefix: string): AutoClaimProducer {
  const queue = new Queue(AUTO_CLAIM_QUEUE, { connection, prefix, defaultJobOptions: autoClaimJobOptions });
  queue.on('error', () => {});
  return {
    claim(autoClaims) {
      const nowMs = Date.now();
      return addBestEffort(
        connection,
        queue,
        autoClaims.map(({ id, dueUs }) => {
          const data = autoClaimJobPayloads['auto-claim'].parse({ autoClaimId: id });
          const delay = Math.max(0, Math.ceil(Number(dueUs / 1000n) - nowMs));
          return { name: 'auto-claim', data, opts: { jobId: autoClaimJobId(data), ...(delay > 0 ? { delay } : {}) } };
        }),
      );
    },
    queue,
    close: () => queue.close(),
  };
}
