import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../shared/config.js';
import { createLogger } from '../shared/observability/logger.js';

/**
 * The API launcher: API_PROCESSES API processes (api/main.ts) sharing PORT
 * through node:cluster (Node 20 has no `reusePort`; the primary accepts the
 * connections and hands them round-robin to the processes). Each process that
 * exits on its own is restarted alone after a growing delay (1 s, doubling to
 * 30 s, reset by a run of 30 s); after 10 short runs in a row of one process
 * the launcher stops them all and exits 1. SIGTERM, SIGINT or SIGHUP stops
 * every process with SIGTERM (each drains: api/main.ts) and exits once all
 * have, SIGKILLing what is left past SHUTDOWN_TIMEOUT_MS and a margin. With
 * METRICS_PORT set, process i listens for /metrics on METRICS_PORT + i.
 * `npm start` runs it when API_PROCESSES > 1; so can a container (with one, it
 * is the API process itself).
 */
const FIRST_RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
const HEALTHY_RUN_MS = 30_000;
const MAX_SHORT_RUNS = 10;
// Below the supervisor's own grace (scripts/start.mjs), so the launcher kills its processes before it is killed.
const STOP_MARGIN_MS = 3000;

const config = loadConfig();
// One process: the launcher is that process (no primary in front of it), exactly as api/main.ts runs.
if (config.API_PROCESSES === 1) await import('./main.js');
else launch();

interface Slot {
  index: number;
  worker?: Worker;
  startedAt: number;
  delayMs: number;
  shortRuns: number;
  timer?: NodeJS.Timeout;
}

/** Forks the API processes and keeps them running until a signal. */
function launch() {
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'api-launcher' });

  cluster.setupPrimary({ exec: fileURLToPath(new URL('./main.js', import.meta.url)) });
  const slots: Slot[] = Array.from({ length: config.API_PROCESSES }, (_, index) => ({
    index,
    startedAt: 0,
    delayMs: FIRST_RESTART_DELAY_MS,
    shortRuns: 0,
  }));
  let stopping = false;

  function start(slot: Slot) {
    const env = config.METRICS_PORT ? { METRICS_PORT: String(config.METRICS_PORT + slot.index) } : {};
    const worker = cluster.fork(env);
    slot.worker = worker;
    slot.startedAt = Date.now();
    logger.info({ index: slot.index, childPid: worker.process.pid }, 'api process started');
    worker.once('exit', (code, signal) => {
      slot.worker = undefined;
      if (stopping) return;
      const ranMs = Date.now() - slot.startedAt;
      if (ranMs >= HEALTHY_RUN_MS) {
        slot.delayMs = FIRST_RESTART_DELAY_MS;
        slot.shortRuns = 0;
      }
      slot.shortRuns += 1;
      if (slot.shortRuns > MAX_SHORT_RUNS) {
        logger.error({ index: slot.index, code, signal, runs: slot.shortRuns }, 'api process keeps exiting; giving up');
        void stop('crash-loop', 1);
        return;
      }
      const delayMs = slot.delayMs;
      slot.delayMs = Math.min(slot.delayMs * 2, MAX_RESTART_DELAY_MS);
      logger.warn(
        { index: slot.index, code, signal, ranMs, restartInMs: delayMs, restarts: slot.shortRuns },
        `api process exited; restarting in ${delayMs} ms`,
      );
      slot.timer = setTimeout(() => {
        slot.timer = undefined;
        if (!stopping) start(slot);
      }, delayMs);
    });
  }

  async function stop(reason: string, exitCode = 0) {
    // Once: Ctrl-C reaches the whole process group, and a supervisor's SIGTERM follows; the deadline ends a stuck drain.
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'stopping the api processes');
    const exits = slots.flatMap((slot) => {
      clearTimeout(slot.timer);
      const worker = slot.worker;
      if (!worker || worker.isDead()) return [];
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.process.kill('SIGTERM');
      return [exited];
    });
    const deadline = setTimeout(() => {
      logger.warn('api processes still running after their shutdown deadline: killing them');
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
    }, config.SHUTDOWN_TIMEOUT_MS + STOP_MARGIN_MS);
    await Promise.all(exits);
    clearTimeout(deadline);
    logger.info({ reason }, 'api processes stopped');
    process.exit(exitCode);
  }

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));
  // Whoever started the launcher is gone without passing a signal on (a supervisor killed): stop, leave nothing serving.
  const parentAtStart = process.ppid;
  setInterval(() => process.ppid !== parentAtStart && void stop('parent-exited'), 500).unref();
  for (const slot of slots) start(slot);
}
