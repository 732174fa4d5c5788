import { createRoute } from '@hono/zod-openapi';
import { completeAccountLink } from '../../../core/account-links/complete-account-link.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { completeLinkResponseSchema, completeLinkSchema, toCompletedLinkResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/account-links/complete',
  operationId: 'completeAccountLink',
  tags: ['Account links'],
  summary: 'Complete an account link after OAuth (advertiser)',
  description: [
    'Advertiser credentials (`account_links:write`). Links the platform user behind `connection_token` to your `advertiser_user_id`;',
    'your events for that id then count for the user (earlier ones included), and a `link_account` event is recorded at the link time.',
    '400: token unknown, issued for another advertiser, or expired. 200 with `already_linked: true`: a retry with the same token and id',
    '(even after expiry), or the two accounts are already linked. 409: the token was used for another id, the id is linked to another',
    'user of the platform, or the user is linked to another id of yours.',
  ].join(' '),
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: completeLinkSchema } }, required: true } },
  responses: {
    200: { description: 'The link.', content: { 'application/json': { schema: completeLinkResponseSchema } } },
    ...errorResponses(400, 409, 413, 415, 500),
  },
});

export const completeAccountLinkRoute = defineRoute({
  access: { operation: 'completeAccountLink' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const body = c.req.valid('json');
    const link = await completeAccountLink(deps, {
      advertiserId: caller.providerId,
      connectionToken: body.connection_token,
      advertiserUserId: senderUserId(body.advertiser_user_id),
    });
    return ok(c, toCompletedLinkResponse(link));
  },
});
