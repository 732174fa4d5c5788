import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { type Handler, Hono } from 'hono';
import { z } from 'zod';
import { getChain } from '../../../core/quest-chains/chains.js';
import { readChainStats } from '../../../core/quest-chains/read-chain-stats.js';
import { projectRoot } from '../../../shared/db/project-root.js';
import { notFound } from '../../../shared/errors.js';
import type { AppDeps, AppEnv } from '../../app-env.js';
import { createErrorHandler, notFoundHandler } from '../../http/errors.js';
import { toStatsResponse } from '../../routes/quest-chains/stats/schema.js';
import { requireAdminForDashboard } from '../queue-dashboard/auth.js';
import { campaignPageHtml } from './page-html.js';

const CAMPAIGN_PAGE_PATH = '/admin/campaigns';
// Chart.js (MIT, pinned in package.json) from the service's own node_modules: the page needs no CDN.
const CHART_FILE = join('node_modules', 'chart.js', 'dist', 'chart.umd.min.js');
const CHART_PATH = `${CAMPAIGN_PAGE_PATH}/assets/chart.umd.min.js`;

const chainId = (raw: string) => {
  const parsed = z.uuid().safeParse(raw);
  if (!parsed.success) throw notFound(`Quest chain ${raw} not found`, 'id');
  return parsed.data;
};

/**
 * /admin/campaigns/{id}: a campaign's funnel, daily series and budget as
 * charts (page-html.ts), and /admin/campaigns/{id}/stats, the admin stats
 * answer it polls. Guarded like the queue dashboard (the admin token as
 * bearer or as Basic password, so a browser can open it; 404 without
 * ADMIN_TOKEN). On an app of its own behind one wildcard, as the dashboard is:
 * the static asset path beside the id would move the main app off RegExpRouter.
 */
export function mountCampaignPage(app: OpenAPIHono<AppEnv>, deps: AppDeps) {
  const page = new Hono<AppEnv>();
  page.onError(createErrorHandler(deps.logger));
  page.notFound(notFoundHandler);
  page.use('*', requireAdminForDashboard(deps.config.ADMIN_TOKEN, deps.rateLimits));
  let chartScript: string | undefined;
  page.get(CHART_PATH, (c) => {
    chartScript ??= readFileSync(join(projectRoot(), CHART_FILE), 'utf8');
    c.header('cache-control', 'private, max-age=86400');
    return c.body(chartScript, 200, { 'content-type': 'text/javascript; charset=utf-8' });
  });
  page.get(`${CAMPAIGN_PAGE_PATH}/:id`, async (c) => {
    await getChain(deps, { chainId: chainId(c.req.param('id')) });
    c.header('cache-control', 'no-store');
    return c.html(campaignPageHtml('assets/chart.umd.min.js'));
  });
  page.get(`${CAMPAIGN_PAGE_PATH}/:id/stats`, async (c) => {
    const stats = await readChainStats(deps, { chainId: chainId(c.req.param('id')) });
    c.header('cache-control', 'no-store');
    return c.json({ success: true, data: toStatsResponse(stats) });
  });
  const forward: Handler<AppEnv> = (c) => page.fetch(c.req.raw, c.env);
  app.all(`${CAMPAIGN_PAGE_PATH}/*`, forward);
}
