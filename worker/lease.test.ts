import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../shared/db/client.js';
import { type EndedWorker, renewLease, sessionsNamed } from '../shared/db/lease-store.js';
import { workerLeases } from '../shared/db/schema/index.js';
import { withTransaction } from '../shared/db/transaction.js';
import { createLogger } from '../shared/observability/logger.js';
import { eventually } from '../shared/testing/eventually.js';
import { useTestData } from '../shared/testing/test-data.js';
import { startLease, workerApplicationName } from './lease.js';

const { database } = useTestData('worker_lease', { providers: false });
const opened: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
});

/** A worker's pool as main.ts opens it; `timeouts` 0 so that only the lease can end its sessions here. */
function workerPool(workerId: string) {
  const pool = createDatabase({
    url: database.url,
    poolSize: 2,
    applicationName: workerApplicationName(workerId),
    timeouts: { statementMs: 0, lockMs: 0, idleInTransactionMs: 0 },
  });
  opened.push(pool);
  return pool;
}

const silent = createLogger({ level: 'silent', name: 'lease-test' });

describe('worker leases', () => {
  it("ends a lapsed worker's sessions, so its open transaction can neither hold locks nor commit; a live worker's are kept", async () => {
    const stopped = workerPool('stopped');
    const live = workerPool('live');
    await renewLease(stopped.db, 'stopped', 1000); // and never again: the process "stopped"

    // The stopped worker sits inside a transaction holding a row lock (its write), as a SIGSTOP leaves it.
    let wake!: () => void;
    const asleep = new Promise<void>((resolve) => (wake = resolve));
    let inside!: () => void;
    const began = new Promise<void>((resolve) => (inside = resolve));
    // Settled (and handled) at once: it fails the moment its session is ended, while its callback still sleeps.
    const outcome = withTransaction(stopped.db, async (tx) => {
      await renewLease(tx, 'written-while-stopped', 3_600_000);
      inside();
      await asleep;
      await renewLease(tx, 'written-after-waking', 3_600_000);
    }).then(
      () => 'committed',
      (error: unknown) => error,
    );
    await began;
    expect((await sessionsNamed(database.db, workerApplicationName('stopped'))).some((s) => s.inTransaction)).toBe(true);

    const takeovers: EndedWorker[][] = [];
    const lease = startLease(
      { db: live.db, logger: silent, onTakeover: async (ended) => takeovers.push(ended) },
      { workerId: 'live', leaseMs: 60_000, heartbeatMs: 100 },
    );
    await lease.start();
    await eventually(async () => (takeovers.length > 0 ? true : undefined), { what: 'the lapsed lease to be taken over' });
    expect(takeovers[0]).toEqual([{ workerId: 'stopped', sessions: expect.any(Number) }]);
    expect(takeovers[0]![0]!.sessions).toBeGreaterThanOrEqual(1);
    expect(await sessionsNamed(database.db, workerApplicationName('stopped'))).toEqual([]);

    // It wakes: its transaction is gone, so nothing it wrote in it is stored.
    wake();
    expect(await outcome).toBeInstanceOf(Error);
    const leases = await database.db.select({ workerId: workerLeases.workerId }).from(workerLeases);
    expect(leases.map((row) => row.workerId)).toEqual(['live']);

    // The live worker, renewing every heartbeat, keeps its lease and its sessions.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(takeovers).toHaveLength(1);
    expect((await sessionsNamed(database.db, workerApplicationName('live'))).length).toBeGreaterThan(0);
    await lease.stop();
    expect(await database.db.select().from(workerLeases).where(eq(workerLeases.workerId, 'live'))).toEqual([]);
  });
});
