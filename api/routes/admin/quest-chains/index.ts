import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { createChain, getChain, listChains, setChainStatus } from '../../../../shared/services/quest-chains/admin.js';
import { chainDefinitionView } from '../../../../shared/services/quest-chains/definition-view.js';
import type { AppEnv } from '../../../app-env.js';
import { requireAdmin } from '../../../auth/admin-auth.js';
import { BATCH_BODY_LIMIT, jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses } from '../../../http/envelope.js';
import { adminSecurity } from '../../../http/security.js';
import {
  chainIdParams,
  chainListQuery,
  chainListResponseSchema,
  chainResponseSchema,
  createChainSchema,
  updateChainSchema,
} from './schema.js';

export function registerAdminQuestChainRoutes(app: OpenAPIHono<AppEnv>, adminToken: string | undefined) {
  const admin = requireAdmin(adminToken);
  const chainAnswer = { description: 'The chain as stored, with ids.', content: { 'application/json': { schema: chainResponseSchema } } };

  const create = createRoute({
    method: 'post',
    path: '/admin/v1/quest-chains',
    tags: ['Admin'],
    summary: 'Create a quest chain with its tasks and optional reward',
    description:
      "One transaction. 400 naming the field when platform_id is not a platform, advertiser_id not an advertiser, there are no tasks, sequence numbers are not exactly 1..n, or end_date is not after start_date. The platform's users are flagged for re-evaluation so their stored events count for the new chain.",
    security: adminSecurity,
    // Up to 100 tasks with descriptions do not fit the 64 KiB single-item limit; a chain gets the batch limit.
    middleware: [admin, jsonBodyGuard(BATCH_BODY_LIMIT)],
    request: { body: { content: { 'application/json': { schema: createChainSchema } }, required: true } },
    responses: { 200: chainAnswer, ...errorResponses(400, 401, 404, 413, 415, 500) },
  });
  app.openapi(create, async (c) => {
    const definition = await createChain(c.var.deps.db, c.req.valid('json'));
    c.var.deps.chainCache.invalidate(definition.chain.platformId);
    return c.json({ success: true as const, data: chainDefinitionView(definition) }, 200);
  });

  const list = createRoute({
    method: 'get',
    path: '/admin/v1/quest-chains',
    tags: ['Admin'],
    summary: 'List quest chains, newest first',
    security: adminSecurity,
    middleware: [admin],
    request: { query: chainListQuery },
    responses: {
      200: { description: 'Chains, newest first.', content: { 'application/json': { schema: chainListResponseSchema } } },
      ...errorResponses(400, 401, 404, 500),
    },
  });
  app.openapi(list, async (c) => {
    const definitions = await listChains(c.var.deps.db, { platformId: c.req.valid('query').platform_id });
    return c.json({ success: true as const, data: definitions.map(chainDefinitionView) }, 200);
  });

  const get = createRoute({
    method: 'get',
    path: '/admin/v1/quest-chains/{id}',
    tags: ['Admin'],
    summary: 'One quest chain',
    security: adminSecurity,
    middleware: [admin],
    request: { params: chainIdParams },
    responses: { 200: chainAnswer, ...errorResponses(400, 401, 404, 500) },
  });
  app.openapi(get, async (c) => {
    const definition = await getChain(c.var.deps.db, c.req.valid('param').id);
    return c.json({ success: true as const, data: chainDefinitionView(definition) }, 200);
  });

  const update = createRoute({
    method: 'patch',
    path: '/admin/v1/quest-chains/{id}',
    tags: ['Admin'],
    summary: 'Set the status of a quest chain (draft, active, paused, ended)',
    description: 'Progress keeps being computed in every status; the status only decides whether GET active lists the chain.',
    security: adminSecurity,
    middleware: [admin, jsonBodyGuard(SINGLE_BODY_LIMIT)],
    request: { params: chainIdParams, body: { content: { 'application/json': { schema: updateChainSchema } }, required: true } },
    responses: { 200: chainAnswer, ...errorResponses(400, 401, 404, 413, 415, 500) },
  });
  app.openapi(update, async (c) => {
    const definition = await setChainStatus(c.var.deps.db, c.req.valid('param').id, c.req.valid('json').status);
    c.var.deps.chainCache.invalidate(definition.chain.platformId);
    return c.json({ success: true as const, data: chainDefinitionView(definition) }, 200);
  });
}
