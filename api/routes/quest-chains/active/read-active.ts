import { createRoute } from '@hono/zod-openapi';
import { senderUserId } from '../../../../shared/domain/ids.js';
import { stringProblem } from '../../../../shared/validation/json-value.js';
import { answerDirectly } from '../../../http/direct-answer.js';
import { errorResponses } from '../../../http/envelope.js';
import { validationHook } from '../../../http/errors.js';
import { answerLivemode } from '../../../http/livemode.js';
import { requestHeader } from '../../../http/request-headers.js';
import { activeAnswer } from '../../../read-cache/active-answer.js';
import { defineUnvalidatedRoute } from '../../route-entry.js';
import { platformUserIdParams } from '../../shared-shapes.js';
import { activeChainsJson } from './active-json.js';
import { activeChainsResponseSchema } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/quest-chains/active/{platformUserId}',
  operationId: 'getActiveQuestChains',
  tags: ['Quest chains'],
  summary: "A user's active quest chains with task states and progress",
  description: [
    "Platform credentials (`quest_chains:read`). Every chain of your platform with status `active` and `start_date <= now < end_date`, with the user's progress (completed chains included, so rewards can be claimed). An unknown user, or one of another platform, answers 200 with `user.exists: false` and no chains.",
    'The answer carries an `ETag` that changes exactly when what it says does (progress, claims, the chains); send it back in `If-None-Match` to get `304 Not Modified` while nothing changed.',
    'The tag leaves out `liveUpdates.token`: a 304 means keep the answer you hold, token included. That token stays valid 1 hour from its issue; when GET /v1/live answers 401 to it, read again without `If-None-Match` for a fresh one.',
  ].join(' '),
  request: { params: platformUserIdParams },
  responses: {
    200: { description: 'Active chains of the user.', content: { 'application/json': { schema: activeChainsResponseSchema } } },
    304: { description: 'Not modified: the `If-None-Match` tag is still current; keep the answer you have.' },
    ...errorResponses(400, 500),
  },
});

/**
 * Registered by hand rather than through `app.openapi` (the document is the
 * same, from `route`): its validator middleware for the one path parameter
 * read the request's Content-Type (building undici Headers for the request)
 * and ran zod on every read, ~5 % of a cached read. The parameter is checked
 * here with the schema's own rule, and a refusal goes through the schema and
 * the validation hook, so the 400 is the one `app.openapi` would give.
 */
export const getActiveQuestChainsRoute = defineUnvalidatedRoute({
  access: { operation: 'readActiveChains' },
  route,
  handler: async (c) => {
    const platformUserId = c.req.param('platformUserId');
    if (!acceptable(platformUserId)) {
      const parsed = platformUserIdParams.safeParse({ platformUserId });
      if (!parsed.success)
        return validationHook({ success: false, error: parsed.error, target: 'param', data: { platformUserId } }, c);
    }
    // c.get, not c.var: c.var copies every variable into a new object on each access.
    const deps = c.get('deps');
    const caller = c.get('caller');
    // The use-case's answer is rendered in its envelope once per cache fill; a cached answer is sent as stored.
    const ifNoneMatch = requestHeader(c, 'if-none-match');
    const input = {
      platformId: caller.providerId,
      platformUserId: senderUserId(platformUserId),
      livemode: caller.livemode,
      ifNoneMatch,
    };
    const answer = await activeAnswer(deps, input, (read) => activeChainsJson(read, answerLivemode(c)));
    // Per credential, so private.
    const headers = { ETag: answer.etag, 'Cache-Control': 'private, no-cache' };
    if (answer.body === null) return answerDirectly(c, 304, headers);
    return answerDirectly(c, 200, { ...headers, 'Content-Type': 'application/json' }, answer.body);
  },
});

// What `platformUserIdParams` accepts (1-255 UTF-16 units, storable), without zod on the hot path.
const acceptable = (value: string) => value.length >= 1 && value.length <= 255 && stringProblem(value) === null;
