import { senderUserId } from '../../../shared/domain/ids.js';
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { requireOperation } from '../../auth/authenticate.js';
import { platformUserIdParams } from '../../http/common-schemas.js';
import { errorResponses } from '../../http/envelope.js';
import { requestHeader } from '../../http/request-headers.js';
import { apiKeySecurity } from '../../http/security.js';
import { activeAnswer } from '../../read-cache/active-answer.js';
import { activeChainsResponseSchema, toActiveChainsResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/quest-chains/active/{platformUserId}',
  operationId: 'getActiveQuestChains',
  tags: ['Quest chains'],
  summary: "A user's active quest chains with task states and progress",
  description: [
    'Platform credentials (`quest_chains:read`). Every chain of your platform with status `active` and `start_date <= now < end_date`, with the user\'s progress (completed chains included, so rewards can be claimed). An unknown user, or one of another platform, answers 200 with `user.exists: false` and no chains.',
    'The answer carries an `ETag` that changes exactly when what it says does (progress, claims, the chains); send it back in `If-None-Match` to get `304 Not Modified` while nothing changed.',
    'The tag leaves out `liveUpdates.token`: a 304 means keep the answer you hold, token included. That token stays valid 1 hour from its issue; when GET /v1/live answers 401 to it, read again without `If-None-Match` for a fresh one.',
  ].join(' '),
  security: apiKeySecurity,
  middleware: [requireOperation('readActiveChains')] as const,
  request: { params: platformUserIdParams },
  responses: {
    200: { description: 'Active chains of the user.', content: { 'application/json': { schema: activeChainsResponseSchema } } },
    304: { description: 'Not modified: the `If-None-Match` tag is still current; keep the answer you have.' },
    ...errorResponses(400, 401, 403, 500),
  },
});

export function registerReadActiveChains(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { platformUserId } = c.req.valid('param');
    // c.get, not c.var: c.var copies every variable into a new object on each access.
    const deps = c.get('deps');
    const caller = c.get('caller');
    // The use-case's answer is rendered by the wire shaper once per cache fill; a cached answer is sent as stored.
    const ifNoneMatch = requestHeader(c, 'if-none-match');
    const answer = await activeAnswer(deps, { platformId: caller.providerId, platformUserId: senderUserId(platformUserId), livemode: caller.livemode, ifNoneMatch }, toActiveChainsResponse);
    // Set before the response is built (keeps @hono/node-server's fast path); per credential, so private.
    c.header('ETag', answer.etag);
    c.header('Cache-Control', 'private, no-cache');
    if (answer.body === null) return c.body(null, 304);
    c.header('Content-Type', 'application/json');
    // Already serialised (and cached as text): typed as the schema's answer, which it is.
    return c.body(answer.body as Uint8Array<ArrayBuffer>, 200) as never;
  });
}
