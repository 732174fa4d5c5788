import { createRoute } from '@hono/zod-openapi';
import { claimReward } from '../../../core/rewards/claim-reward.js';
import { parseOffsetTimestamp } from '../../../shared/domain/chain-timestamp.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { claimResponseSchema, claimRewardSchema, toClaimResultResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/rewards/claim',
  operationId: 'claimReward',
  tags: ['Rewards'],
  summary: "Claim a completed task's or chain's reward",
  description: [
    'Platform credentials (`rewards:claim`). Give exactly one of `task_id` or `quest_chain_id` (the chain reward).',
    'Granted at most once, even under concurrent calls: a repeat answers 200 with the first claim and `already_claimed: true`.',
    '409 when not claimable yet (task or chain not completed, chain without a reward); 400 for an unknown user, task or chain.',
    'Rewards of chains that have since been paused or ended stay claimable.',
  ].join(' '),
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: claimRewardSchema } }, required: true } },
  responses: {
    200: { description: 'The claim.', content: { 'application/json': { schema: claimResponseSchema } } },
    ...errorResponses(400, 409, 413, 415, 500),
  },
});

export const claimRewardRoute = defineRoute({
  access: { operation: 'claimReward' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const body = c.req.valid('json');
    const target = body.task_id !== undefined ? { taskId: body.task_id } : { chainId: body.quest_chain_id! };
    const runStartUs = body.period_start === undefined ? undefined : parseOffsetTimestamp(body.period_start)!;
    const claim = await claimReward(deps, {
      platformId: caller.providerId,
      platformUserId: senderUserId(body.platform_user_id),
      runStartUs,
      ...target,
    });
    return ok(c, toClaimResultResponse(claim));
  },
});
