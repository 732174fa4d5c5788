import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmptyTestDatabase } from '../testing/database.js';
import { createDatabase, type Database } from './client.js';
import { sqlStateOf } from './connection-loss.js';
import { withTransaction } from './transaction.js';

/**
 * A transaction whose session is ended while its callback waits on something
 * else (the worker's turnstile; a lapsed lease ends a stopped worker's
 * sessions, worker/lease.ts): postgres.js 3.4.9 rejects the transaction, but
 * reconnects the same pool connection for other work, and the statements the
 * callback sends after that ran on the new session, each committed alone,
 * outside any transaction and without its locks (porsager/postgres#1133). A
 * woken worker then wrote half a batch unlocked beside the worker that had
 * taken its partitions over (the chaos suite's "worker SIGSTOP": completions
 * credited to other events than the model's, and its pool left hanging).
 * patches/postgres+3.4.9.patch makes every statement of a transaction whose
 * connection closed fail at once; this reproduces the case with the data
 * layer's own client.
 */

let database: Awaited<ReturnType<typeof createEmptyTestDatabase>>;
let admin: ReturnType<typeof createDatabase>;
let client: ReturnType<typeof createDatabase>;

beforeAll(async () => {
  database = await createEmptyTestDatabase('ended-transaction');
  admin = createDatabase({ url: database.url, poolSize: 1 });
  // One connection: the one reconnected after the end is the one the transaction held.
  client = createDatabase({ url: database.url, poolSize: 1, applicationName: 'ended-transaction' });
  await admin.db.execute(sql`create table rows_written (n int not null)`);
});

afterAll(async () => {
  await client?.close();
  await admin?.close();
  await database?.drop();
});

/** A promise and its resolve (Promise.withResolvers is Node 22's). */
function signal() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function backendPid(db: Database): Promise<number> {
  const [row] = await db.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`);
  return row!.pid;
}

describe('a transaction whose session is ended while it waits', () => {
  it('stores none of the statements its callback sends afterwards, and the pool keeps working', async () => {
    let pid = 0;
    const began = signal();
    const ended = signal();
    const afterEnd: string[] = [];
    const transaction = withTransaction(client.db, async (tx) => {
      pid = await backendPid(tx as unknown as Database);
      began.resolve();
      // Waiting on something that is not this connection (the worker's turnstile, say).
      await ended.promise;
      for (const n of [1, 2]) {
        afterEnd.push(
          await tx.execute(sql`insert into rows_written values (${n})`).then(
            () => 'stored',
            (error: unknown) => sqlStateOf(error) ?? 'failed',
          ),
        );
      }
    }).then(
      () => 'committed',
      (error: unknown) => sqlStateOf(error) ?? 'failed',
    );
    await began.promise;
    // Queued behind the transaction: the pool reconnects the ended connection for it.
    const queued = client.db.execute(sql`select 1`).then(() => 'answered');
    await admin.db.execute(sql`select pg_terminate_backend(${pid})`);
    expect(await transaction).toBe('CONNECTION_CLOSED');
    expect(await queued).toBe('answered');
    // The new session is up and idle: what the callback sends now would have run there.
    await sleep(200);
    ended.resolve();
    await sleep(200);

    expect(afterEnd).toEqual(['CONNECTION_CLOSED', 'CONNECTION_CLOSED']);
    const [stored] = await admin.db.execute<{ count: number }>(sql`select count(*)::int as count from rows_written`);
    expect(stored!.count).toBe(0);
    expect(await backendPid(client.db)).not.toBe(pid);
    await expect(withTransaction(client.db, (tx) => tx.execute(sql`insert into rows_written values (3)`))).resolves.toBeDefined();
  });
});
