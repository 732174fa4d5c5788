import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps, AppEnv } from '../../app-env.js';
import { requireAdminForDashboard } from './auth.js';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * bull-board for the matching queue(s) and the backtest queue: waiting/active/failed jobs, their data
 * (ids only, never secrets) and errors, with retry. Outside the OpenAPI
 * document; guarded like the admin API.
 */
export function registerQueueDashboard(
  app: OpenAPIHono<AppEnv>,
  deps: Pick<AppDeps, 'config' | 'producer' | 'backtests' | 'rateLimits'>,
) {
  const adminToken = deps.config.ADMIN_TOKEN;
  const guard = requireAdminForDashboard(adminToken, deps.rateLimits);
  app.use(DASHBOARD_PATH, guard);
  app.use(`${DASHBOARD_PATH}/*`, guard);
  if (!adminToken) return; // the guard answers 404 for every path

  const serverAdapter = new HonoAdapter(serveStatic).setBasePath(DASHBOARD_PATH);
  createBullBoard({
    // One board per matching partition (MATCHING_PARTITIONS), told apart by a name prefix.
    queues: [
      ...(deps.producer.layout.partitions === 1
        ? [new BullMQAdapter(deps.producer.queue)]
        : deps.producer.queues.map(
            (queue, partition) =>
              new BullMQAdapter(queue, { prefix: `partition ${partition} `, displayName: `matching (partition ${partition})` }),
          )),
      new BullMQAdapter(deps.backtests.queue, { displayName: 'backtests' }),
    ],
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Quest-chain queues' } },
  });
  app.route(DASHBOARD_PATH, serverAdapter.registerPlugin());
}
