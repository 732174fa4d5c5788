import type { Database, Transaction } from '../db/client.js';
import { withTransaction } from '../db/transaction.js';

/**
 * Runs `body` in a transaction and keeps it open (its locks held) until
 * `commit` is called: for tests of what another transaction waits for.
 */
export async function holdTransaction(db: Database, body: (tx: Transaction) => Promise<void>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let ready!: () => void;
  const started = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const done = withTransaction(db, async (tx) => {
    await body(tx);
    ready();
    await released;
  });
  // A body that fails rejects `done` before `ready`: surface that instead of waiting forever.
  await Promise.race([started, done]);
  return {
    commit: async () => {
      release();
      await done;
    },
  };
}

/** Whether `promise` settles within `withinMs` (it keeps running either way). */
export const settlesWithin = (promise: Promise<unknown>, withinMs: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), withinMs))]);
