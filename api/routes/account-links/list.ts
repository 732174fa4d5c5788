import { createRoute } from '@hono/zod-openapi';
import { listAccountLinks } from '../../../core/account-links/list-account-links.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { toPageRequest } from '../../http/pagination.js';
import { defineRoute } from '../route-entry.js';
import { platformUserIdParams } from '../shared-shapes.js';
import { linksPageQuery, listLinksResponseSchema, toLinksResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/account-links/{platformUserId}',
  operationId: 'listAccountLinks',
  tags: ['Account links'],
  summary: "List a user's advertiser links (platform)",
  description:
    'Platform credentials (`account_links:write`, the permission that starts links). An unknown user, like a user of another platform, has `links: []`.',
  request: { params: platformUserIdParams, query: linksPageQuery },
  responses: {
    200: { description: "The user's links, oldest first.", content: { 'application/json': { schema: listLinksResponseSchema } } },
    ...errorResponses(400, 500),
  },
});

export const listAccountLinksRoute = defineRoute({
  access: { operation: 'listAccountLinks' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const links = await listAccountLinks(deps, {
      platformId: caller.providerId,
      platformUserId: senderUserId(c.req.valid('param').platformUserId),
      livemode: caller.livemode,
      page: toPageRequest(c.req.valid('query')),
    });
    return ok(c, toLinksResponse(links));
  },
});
