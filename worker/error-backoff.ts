import type { Worker } from 'bullmq';
import { type LogThrottle, logThrottle } from '../shared/observability/log-throttle.js';
import type { Logger } from '../shared/observability/logger.js';

export interface ErrorBackoffOptions {
  /** Errors within `windowMs` that make the worker stop fetching for a while. */
  burst?: number;
  windowMs?: number;
  /** First pause; each pause that follows another within `quietMs` doubles, up to `maxPauseMs`. */
  firstPauseMs?: number;
  maxPauseMs?: number;
  /** A pause this long after the last one resets the doubling. */
  quietMs?: number;
  /** One log line per this long at most. */
  logIntervalMs?: number;
  /**
   * Throttles shared with other workers of the process (its matching partitions'): a Redis away fails them
   * all at once, and each would otherwise write its own lines.
   */
  shared?: { errors: LogThrottle; pauses: LogThrottle };
}

/**
 * A BullMQ worker whose Redis keeps refusing it (a MOVED or CLUSTERDOWN
 * storm, a node that owns none of the queue's slots) emits an 'error' per
 * fetch and fetches again at once: tens of thousands of errors a second, and
 * as many log lines. This logs them at most once per interval (with the count
 * left out) and, on a burst, pauses the worker's fetching (jobs in hand run
 * on) for a backoff that doubles while the burst goes on, then resumes it.
 */
export function backOffOnErrors(worker: Worker, logger: Logger, name: string, options: ErrorBackoffOptions = {}) {
  const burst = options.burst ?? 20;
  const windowMs = options.windowMs ?? 1000;
  const firstPauseMs = options.firstPauseMs ?? 1000;
  const maxPauseMs = options.maxPauseMs ?? 30_000;
  const quietMs = options.quietMs ?? 60_000;
  const throttle = options.shared?.errors ?? logThrottle(options.logIntervalMs ?? 10_000);
  const pauses = options.shared?.pauses;
  let windowStart = 0;
  let inWindow = 0;
  let pauseMs = 0;
  let lastPauseAt = -Infinity;
  let paused = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  worker.on('error', (error) => {
    throttle.run((suppressed) => logger.warn({ err: error, queue: name, suppressed }, 'worker connection error'));
    const now = Date.now();
    if (now - windowStart > windowMs) {
      windowStart = now;
      inWindow = 0;
    }
    inWindow += 1;
    if (inWindow < burst || paused || stopped) return;
    pauseMs = now - lastPauseAt > quietMs ? firstPauseMs : Math.min(maxPauseMs, Math.max(firstPauseMs, pauseMs * 2));
    lastPauseAt = now;
    paused = true;
    const logPause = (suppressed: number) =>
      logger.warn({ queue: name, pauseMs, errors: inWindow, suppressed }, 'worker keeps failing; pausing its fetching');
    if (pauses) pauses.run(logPause);
    else logPause(0);
    void worker.pause(true).catch(() => {});
    timer = setTimeout(() => {
      paused = false;
      inWindow = 0;
      if (!stopped) void worker.resume().catch(() => {});
    }, pauseMs);
    timer.unref();
  });

  return {
    get paused() {
      return paused;
    },
    /** No resume after this (shutdown). */
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
