import type { ServiceUserId } from '../../shared/domain/ids.js';
/**
 * Gathers the work of concurrently delivered jobs into batches: the queue
 * hands a worker many jobs at once (WORKER_CONCURRENCY), each job submits its
 * event ids or user id here and waits for the batch that carried it. Up to
 * `inFlight` batches run at once (one computes while another waits on
 * Postgres), and whatever arrives meanwhile forms the next (group commit): a
 * busy worker makes large batches, an idle one answers a lone job at once. A
 * user in two batches at once is serialised by its lock, which a batch holds
 * only for its own short transaction.
 *
 * Fair between sources: waiting work sits in one lane per source (the
 * provider that sent a job's events) and a batch takes one job from each lane
 * in turn, so a provider's backlog of jobs here cannot keep another provider's
 * job out of the next batch (docs/matching.md, "Fairness between platforms").
 * Within a lane, jobs keep their order.
 */

export interface MatchWork {
  eventIds: readonly string[];
  userIds: readonly ServiceUserId[];
  /** Whose work this is (a provider id); work of one source keeps its order. Absent: one shared lane. */
  source?: string;
}

interface Pending<R> {
  work: MatchWork;
  /** performance.now() at submission. */
  at: number;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

const size = (work: MatchWork) => work.eventIds.length + work.userIds.length;

export function createBatcher<R>(
  run: (work: MatchWork) => Promise<R>,
  options: { maxBatchSize: number; inFlight: number; lingerMs?: number },
) {
  // Lanes in turn order (a Map keeps insertion order): a lane that gave a job goes to the back.
  const lanes = new Map<string, Pending<R>[]>();
  let waiting = 0;
  let waitingSize = 0;
  let running = 0;
  const lingerMs = options.lingerMs ?? 0;

  function takeBatch(): Pending<R>[] {
    const batch: Pending<R>[] = [];
    let total = 0;
    // Lanes in a row whose next job did not fit: when every lane's did not, the batch is full.
    let passed = 0;
    while (lanes.size > 0 && passed < lanes.size) {
      const [source, lane] = lanes.entries().next().value!;
      const next = lane[0]!;
      lanes.delete(source);
      // A job larger than the limit still goes, alone: jobs are never split.
      if (batch.length === 0 || total + size(next.work) <= options.maxBatchSize) {
        lane.shift();
        waiting -= 1;
        waitingSize -= size(next.work);
        total += size(next.work);
        batch.push(next);
        passed = 0;
      } else {
        passed += 1;
      }
      if (lane.length > 0) lanes.set(source, lane);
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

  /**
   * A small batch costs nearly what a large one does (its statements and round
   * trips, whatever their rows): while less than a quarter of a batch waits,
   * give the oldest waiting work up to `lingerMs` to be joined by more.
   */
  async function lingerForMore(): Promise<void> {
    if (lingerMs <= 0 || waitingSize >= options.maxBatchSize / 4) return;
    let oldest = Number.POSITIVE_INFINITY;
    for (const lane of lanes.values()) oldest = Math.min(oldest, lane[0]!.at);
    const left = oldest + lingerMs - performance.now();
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  }

  async function drain(): Promise<void> {
    try {
      while (waiting > 0) {
        await lingerForMore();
        await runBatch(takeBatch());
      }
    } finally {
      running -= 1;
    }
  }

  return {
    /** Resolves with the result of the batch that carried this work. */
    submit(work: MatchWork): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        const source = work.source ?? '';
        const lane = lanes.get(source);
        const pending = { work, resolve, reject, at: performance.now() };
        if (lane) lane.push(pending);
        else lanes.set(source, [pending]);
        waiting += 1;
        waitingSize += size(work);
        // Start on the next turn, so jobs delivered together start together.
        if (running < options.inFlight) {
          running += 1;
          setImmediate(() => void drain());
        }
      });
    },
    get waiting() {
      return waiting;
    },
  };
}
