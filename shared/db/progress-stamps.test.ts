import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ServiceUserId, serviceUserId } from '../domain/ids.js';
import { createTestUser } from '../testing/chains.js';
import { useTestData } from '../testing/test-data.js';
import { stampUsers } from './progress-store.js';
import { users } from './schema/index.js';
import { loadProgressChangeSince, lockUsers } from './user-store.js';

// Live clients resume `since` the latest stamp they saw, so stamps must grow in
// commit order. The trap: a transaction that began earlier but waited for the
// user's lock commits after a newer stamp; stamped with its own start time it
// would go backwards, and a client resuming from the newer stamp would miss it.

const { database, platform } = useTestData('progress_stamps');
let userId: ServiceUserId;

beforeAll(async () => {
  userId = await createTestUser(database.db, platform.id, 'stamped');
});

/** A promise with its resolver outside, to step two transactions in a fixed order. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('progress stamps', () => {
  it('grow in commit order when an earlier transaction waited for the user lock', async () => {
    const bStarted = gate();
    const aLocked = gate();
    const stamps: { a?: bigint; b?: bigint } = {};

    // B begins first (its transaction time is now fixed), then waits for the lock A holds.
    const b = database.db.transaction(async (tx) => {
      await tx.execute('select 1');
      bStarted.open();
      await aLocked.opened;
      await lockUsers(tx, [userId]);
      stamps.b = (await stampUsers(tx, [userId])).get(userId);
    });
    await bStarted.opened;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const a = database.db.transaction(async (tx) => {
      await lockUsers(tx, [userId]);
      aLocked.open();
      await new Promise((resolve) => setTimeout(resolve, 50)); // B is now blocked on the lock
      stamps.a = (await stampUsers(tx, [userId])).get(userId);
    });
    await Promise.all([a, b]);

    expect(stamps.a).toBeDefined();
    expect(stamps.b! > stamps.a!, `B committed after A, so its stamp ${stamps.b} must be after ${stamps.a}`).toBe(true);
    const [stamp] = await database.db
      .select({ progressChangedAt: users.progressChangedAt })
      .from(users)
      .where(eq(users.id, serviceUserId(userId)));
    const row = stamp && { stored: String(stamp.progressChangedAt) };
    expect(BigInt(row!.stored)).toBe(stamps.b);
    // A client that saw A's stamp and resumes from it is told about B's change.
    expect(await loadProgressChangeSince(database.db, userId, stamps.a!)).not.toBeNull();
  });

  it('stay strictly increasing when two changes land within one millisecond', async () => {
    const first = (await database.db.transaction((tx) => stampUsers(tx, [userId]))).get(userId)!;
    const second = (await database.db.transaction((tx) => stampUsers(tx, [userId]))).get(userId)!;
    expect(second > first).toBe(true);
  });
});
