import { once } from 'node:events';
import { serve } from '@hono/node-server';
import type { Config } from '../shared/config.js';
import type { BufferedStdout, Logger } from '../shared/observability/logger.js';
import { checkPartitionCount } from '../shared/queue/partition-count.js';
import { openDatabase } from '../shared/wiring/databases.js';
import { createApp } from './app.js';
import { createAppDeps } from './deps.js';
import { apiServerOptions } from './http/api-response.js';
import { startMetricsServer } from './operator/metrics.js';

/** A listening API process; `stop` ends it gracefully and closes every connection (it does not exit). */
export interface RunningApi {
  /** The port it listens on (PORT, or the one picked for 0). */
  port: number;
  stop(signal: string): Promise<void>;
}

/**
 * The API from its config: its pool, its dependencies (api/deps.ts), the HTTP
 * listener on PORT and the internal metrics listener on METRICS_PORT.
 * api/main.ts runs it until a signal.
 */
export async function startApi(config: Config, logger: Logger, logOutput: BufferedStdout): Promise<RunningApi> {
  const database = openDatabase(config, { applicationName: 'qcr-api', poolSize: config.DB_POOL_SIZE, budget: 'api' });
  let shuttingDown = false;
  const { deps, release } = await createAppDeps({
    config,
    database,
    logger,
    isShuttingDown: () => shuttingDown,
    defaultMetrics: true,
  });
  const app = createApp(deps);
  // A count other than the deployment's stops the process here (or once Redis answers): its events would go where no worker looks.
  await checkPartitionCount({
    redis: deps.redis,
    layout: deps.producer.layout,
    logger,
    exit: (code) => {
      logOutput.flushSync();
      process.exit(code);
    },
  });

  // The internal Prometheus listener (docs/operations.md); without METRICS_PORT, /metrics is on PORT behind the admin token.
  const metricsServer =
    config.METRICS_PORT === undefined
      ? null
      : await startMetricsServer(deps.metrics, { port: config.METRICS_PORT, host: config.HOST });
  const server = serve(
    { fetch: app.fetch, port: config.PORT, hostname: config.HOST, serverOptions: apiServerOptions },
    (info) => {
      logger.info({ port: info.port }, 'api listening');
      // Supervisors and tests wait for this line: do not leave it in the buffer.
      logOutput.flush();
    },
  );
  await once(server, 'listening');
  const address = server.address();

  return {
    port: typeof address === 'object' && address ? address.port : config.PORT,
    async stop(signal) {
      if (shuttingDown) return;
      shuttingDown = true;
      logger.info({ signal }, 'api shutting down');
      // Open live streams never finish on their own and would hold server.close until the deadline: end them first.
      await deps.liveHub.close();
      // Stop accepting, let in-flight requests finish, then release connections.
      await new Promise<void>((resolve) => server.close(() => resolve()));
      metricsServer?.close();
      await Promise.allSettled([release(), database.close()]);
      logger.info('api stopped');
    },
  };
}
