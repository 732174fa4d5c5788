import { providersWithEndpoints } from '../../shared/db/webhook-endpoint-store.js';
import type { WorkerDeps } from '../worker-deps.js';

/**
 * Which providers have a webhook endpoint, refreshed in the background every
 * `intervalMs`, so the matcher's hot path reads a set instead of asking
 * Postgres: a batch touching none of them skips the outbox statement. The
 * price: an endpoint receives facts from about `intervalMs` after its
 * creation (docs/webhooks.md). Null until the first read answered, and then
 * the matcher writes the outbox unconditionally (correct, only slower).
 */
export function watchWebhookProviders(deps: Pick<WorkerDeps, 'db' | 'logger'>, intervalMs: number) {
  let current: ReadonlySet<string> | null = null;
  const refresh = () =>
    providersWithEndpoints(deps.db)
      .then((providers) => {
        current = providers;
      })
      .catch((error: unknown) => {
        // Unknown again: better a statement too many than a message too few.
        current = null;
        deps.logger.warn({ err: error }, 'could not read webhook endpoints; the matcher writes its outbox unconditionally');
      });
  void refresh();
  const timer = setInterval(() => void refresh(), intervalMs);
  timer.unref();
  return {
    current: () => current,
    stop: () => clearInterval(timer),
  };
}
