/**
 * Gathers the work of concurrently delivered jobs into batches: the queue
 * hands a worker many jobs at once (WORKER_CONCURRENCY), each job submits its
 * event ids or user id here and waits for the batch that carried it. Up to
 * `inFlight` batches run at once (one computes while another waits on
 * Postgres), and whatever arrives meanwhile forms the next (group commit): a
 * busy worker makes large batches, an idle one answers a lone job at once. A
 * user in two batches at once is serialised by its lock, which a batch holds
 * only for its own short transaction.
 */

export interface MatchWork {
  eventIds: readonly string[];
  userIds: readonly string[];
}

interface Pending<R> {
  work: MatchWork;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

const size = (work: MatchWork) => work.eventIds.length + work.userIds.length;

export function createBatcher<R>(run: (work: MatchWork) => Promise<R>, options: { maxBatchSize: number; inFlight: number }) {
  const queue: Pending<R>[] = [];
  let running = 0;

  function takeBatch(): Pending<R>[] {
    const batch: Pending<R>[] = [];
    let total = 0;
    // A job larger than the limit still goes, alone: jobs are never split.
    while (queue.length > 0 && (batch.length === 0 || total + size(queue[0]!.work) <= options.maxBatchSize)) {
      const next = queue.shift()!;
      total += size(next.work);
      batch.push(next);
    }
    return batch;
  }

  async function runBatch(batch: Pending<R>[]): Promise<void> {
    const merged = {
      eventIds: [...new Set(batch.flatMap((p) => p.work.eventIds))],
      userIds: [...new Set(batch.flatMap((p) => p.work.userIds))],
    };
    try {
      const result = await run(merged);
      for (const p of batch) p.resolve(result);
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One job's failure must not fail the jobs it happened to share a batch with: run each alone.
      for (const p of batch) await runBatch([p]);
    }
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) await runBatch(takeBatch());
    } finally {
      running -= 1;
    }
  }

  return {
    /** Resolves with the result of the batch that carried this work. */
    submit(work: MatchWork): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        queue.push({ work, resolve, reject });
        // Start on the next turn, so jobs delivered together start together.
        if (running < options.inFlight) {
          running += 1;
          setImmediate(() => void drain());
        }
      });
    },
    get waiting() {
      return queue.length;
    },
  };
}
