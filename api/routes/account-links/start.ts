import { createRoute } from '@hono/zod-openapi';
import { startAccountLink } from '../../../core/account-links/start-account-link.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { startLinkResponseSchema, startLinkSchema, toStartedLinkResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/account-links',
  operationId: 'startAccountLink',
  tags: ['Account links'],
  summary: 'Start linking a user to an advertiser account (platform)',
  description:
    "Platform credentials (`account_links:write`). Returns a single-use connection token valid 15 minutes; pass it through the advertiser's OAuth `state`. 400 when the user is not registered with you or `advertiser_id` is not an active advertiser.",
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: startLinkSchema } }, required: true } },
  responses: {
    200: { description: 'The connection token.', content: { 'application/json': { schema: startLinkResponseSchema } } },
    ...errorResponses(400, 413, 415, 500),
  },
});

export const startAccountLinkRoute = defineRoute({
  access: { operation: 'startAccountLink' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const body = c.req.valid('json');
    const started = await startAccountLink(deps, {
      platformId: caller.providerId,
      platformUserId: senderUserId(body.platform_user_id),
      advertiserId: body.advertiser_id,
      livemode: caller.livemode,
    });
    return ok(c, toStartedLinkResponse(started));
  },
});
