import { createRoute } from '@hono/zod-openapi';
import { explainProgress } from '../../../../core/quest-chains/explain-progress.js';
import { parseOffsetTimestamp } from '../../../../shared/domain/chain-timestamp.js';
import { senderUserId } from '../../../../shared/domain/ids.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { explainParams, explainQuery, explanationResponseSchema, toExplanationResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/quest-chains/{questChainId}/users/{platformUserId}/explain',
  operationId: 'explainQuestChainProgress',
  tags: ['Quest chains'],
  summary: 'Why each task of a chain is or is not completed for a user',
  description: [
    "Platform credentials (`quest_chains:read`). For support: per task, the event that completed it and up to 10 of the user's events of the task's type (latest first) with the verdict of the counting rules for each.",
    'The verdicts come from the same walk that computes progress, over the events the matcher has processed; `pending_events` counts those it has not yet (their verdict is `not_yet_processed`: they may still count).',
    'Any chain of your platform, whatever its status. A chain of another platform, or none: 404. A user your platform has not registered: 200 with `user.exists: false` and no tasks.',
  ].join(' '),
  request: { params: explainParams, query: explainQuery },
  responses: {
    200: { description: 'The explanation.', content: { 'application/json': { schema: explanationResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const explainQuestChainProgressRoute = defineRoute({
  access: { operation: 'explainProgress' },
  route,
  handler: async (c) => {
    const { questChainId, platformUserId } = c.req.valid('param');
    const { period_start } = c.req.valid('query');
    const { deps, caller } = c.var;
    const runStartUs = period_start === undefined ? undefined : parseOffsetTimestamp(period_start)!;
    const explanation = await explainProgress(deps, {
      platformId: caller.providerId,
      chainId: questChainId,
      platformUserId: senderUserId(platformUserId),
      runStartUs,
    });
    return ok(c, toExplanationResponse(explanation));
  },
});
