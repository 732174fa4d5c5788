import { type IngestedEvent, ingestEvents, type ProviderEvent } from '../../core/events/ingest-events.js';
import { sqlStateOf } from '../../shared/db/connection-loss.js';
import { MAX_EVENTS_PER_JOB } from '../../shared/queue/contract.js';

export type FlushEvents = (events: readonly ProviderEvent[]) => Promise<IngestedEvent[]>;

export interface GroupCommitOptions {
  /** Most events one flush carries (one statement, one enqueue). */
  maxBatch: number;
  /** Flushes running at once; while they run, new events gather for the next one. */
  maxInFlight: number;
}

interface Waiting {
  event: ProviderEvent;
  resolve(result: IngestedEvent): void;
  reject(error: unknown): void;
}

/**
 * Group commit for single events: concurrent POST /v1/events requests share
 * one INSERT (and one enqueue) instead of paying a commit and a queue add
 * each. A flush starts on the turn of the event loop after the first event
 * arrives, taking every event that arrived meanwhile; while `maxInFlight`
 * flushes run, events gather for the next one. There is no timer: an idle
 * service adds no latency, a busy one batches more.
 *
 * Each caller is answered from its own event's row once the flush committed,
 * with its own status (two identical events in one flush: the first
 * `received`, the other `duplicate`). A failed flush rejects only its own
 * callers; when Postgres refused the data itself (SQLSTATE class 22 or 23),
 * its events are retried one by one, so one bad event cannot fail the others.
 */
export class GroupCommit {
  private queue: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly flushEvents: FlushEvents,
    private readonly options: GroupCommitOptions,
  ) {}

  submit(event: ProviderEvent): Promise<IngestedEvent> {
    return new Promise((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      this.schedule();
    });
  }

  /** Events waiting for a flush and flushes running (for tests and metrics). */
  get pending(): { waiting: number; flushing: number } {
    return { waiting: this.queue.length, flushing: this.inFlight };
  }

  private schedule() {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate runs after the current I/O phase: every request parsed in this turn joins the flush.
    setImmediate(() => {
      this.scheduled = false;
      this.startFlush();
    });
  }

  private startFlush() {
    if (this.queue.length === 0 || this.inFlight >= this.options.maxInFlight) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    this.inFlight += 1;
    void this.flush(batch).finally(() => {
      this.inFlight -= 1;
      this.schedule();
    });
    this.schedule();
  }

  private async flush(batch: Waiting[]): Promise<void> {
    try {
      const results = await this.flushEvents(batch.map((waiting) => waiting.event));
      for (const [i, waiting] of batch.entries()) waiting.resolve(results[i]!);
    } catch (error) {
      if (batch.length > 1 && refusedData(error)) {
        await Promise.all(batch.map((waiting) => this.flush([waiting])));
        return;
      }
      for (const waiting of batch) waiting.reject(error);
    }
  }
}

/**
 * Postgres refused a value or a constraint (data exception, integrity
 * violation), not the connection. drizzle wraps the driver's error: its SQLSTATE is on `cause`.
 */
function refusedData(error: unknown): boolean {
  const code = sqlStateOf(error);
  return code !== undefined && /^2[23][0-9A-Z]{3}$/.test(code);
}

type IngestDeps = Parameters<typeof ingestEvents>[0];

// One job carries at most this many ids (shared/queue/contract.ts): a flush stays one enqueue.
const MAX_BATCH = MAX_EVENTS_PER_JOB;
const MAX_IN_FLIGHT = 2;

const committers = new WeakMap<IngestDeps, GroupCommit>();

/** The group commit of one app's dependencies (one per process in production; one per test app in tests). */
export function groupCommitFor(deps: IngestDeps): GroupCommit {
  let committer = committers.get(deps);
  if (!committer) {
    committer = new GroupCommit((events) => ingestEvents(deps, { events }), { maxBatch: MAX_BATCH, maxInFlight: MAX_IN_FLIGHT });
    committers.set(deps, committer);
  }
  return committer;
}
