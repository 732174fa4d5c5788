import { createDatabase } from './client.js';
import { pingDatabase } from './ping.js';
import { withTransaction } from './transaction.js';

/**
 * A child process for connection-loss.test.ts: the defect it guards against
 * (an uncaught TypeError inside postgres.js) kills the whole process, so it
 * cannot run inside the test runner. It keeps 20 multi-statement
 * transactions going against DATABASE_URL and prints its counts as JSON
 * lines; SIGTERM ends it cleanly (exit 0). It installs no uncaughtException
 * handler on purpose: a driver crash must show as a dead process.
 */
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const { db, close } = createDatabase({ url, poolSize: 10 });
const counts = { committed: 0, failed: 0 };
let running = true;

async function transactionsUntilStopped() {
  while (running) {
    try {
      // Several statements on one reserved connection: the restart lands between them.
      await withTransaction(db, async (tx) => {
        await pingDatabase(tx);
        await pingDatabase(tx);
        await pingDatabase(tx);
      });
      counts.committed += 1;
    } catch {
      counts.failed += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

const loops = Array.from({ length: 20 }, transactionsUntilStopped);
const reporter = setInterval(() => process.stdout.write(`${JSON.stringify(counts)}\n`), 50);
process.once('SIGTERM', async () => {
  running = false;
  await Promise.all(loops);
  clearInterval(reporter);
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  await close();
  process.exit(0);
});
