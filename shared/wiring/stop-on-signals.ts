import type { Logger } from '../observability/logger.js';

/**
 * Graceful shutdown with a deadline, the same for every long-running process:
 * SIGTERM or SIGINT calls `stop` once (a second signal is ignored), and the
 * process exits 0 when it resolves, or 1 when SHUTDOWN_TIMEOUT_MS passes first.
 * `beforeExit` writes what the logger still buffers.
 */
export function stopOnSignals(
  stop: (signal: string) => Promise<void>,
  options: { timeoutMs: number; logger: Logger; deadlineMessage: string; beforeExit?: () => void },
): void {
  let stopping = false;
  const exit = (code: number) => {
    options.beforeExit?.();
    process.exit(code);
  };
  const onSignal = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const deadline = setTimeout(() => {
      options.logger.error(options.deadlineMessage);
      exit(1);
    }, options.timeoutMs);
    deadline.unref();
    await stop(signal);
    exit(0);
  };
  process.on('SIGTERM', () => void onSignal('SIGTERM'));
  process.on('SIGINT', () => void onSignal('SIGINT'));
}
