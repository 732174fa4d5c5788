import type { Logger } from '../shared/observability/logger.js';

/**
 * Runs `pass` every `intervalMs` (and at once with `immediately`), never two at
 * a time: a pass still running when the next is due makes that one a no-op. A
 * failed pass is logged with `failure` and the next one tries again. `stop`
 * ends the schedule and waits for the pass in flight: the worker's sweepers.
 */
export function startPeriodic(options: {
  pass: () => Promise<unknown>;
  intervalMs: number;
  immediately?: boolean;
  logger: Logger;
  failure: string;
}) {
  let running: Promise<unknown> | null = null;
  const pass = () => {
    running ??= options
      .pass()
      .catch((error: unknown) => options.logger.warn({ err: error }, options.failure))
      .finally(() => {
        running = null;
      });
  };
  if (options.immediately) pass();
  const timer = setInterval(pass, options.intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
