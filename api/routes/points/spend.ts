import { createRoute } from '@hono/zod-openapi';
import { spendPoints } from '../../../core/points/spend-points.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { pointsUserParams, spendPointsSchema, spendResponseSchema, toSpendResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/users/{platformUserId}/points/spend',
  operationId: 'spendPoints',
  tags: ['Points'],
  summary: "Spend a user's points",
  description: [
    'Platform credentials (`rewards:claim`). Takes `amount` points once per `idempotency_key`: the same key again answers the first spend with `already_spent: true`; with another amount, 409 `idempotency_key_reused`.',
    'A balance below the amount (a negative one included) answers 409 `insufficient_points` with the balance in `balance`, and takes nothing.',
    'Concurrent spends never overdraw: each waits for the one before and sees the balance it left (docs/points.md). 400 for an unknown user.',
  ].join(' '),
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)] as const,
  request: {
    params: pointsUserParams,
    body: { content: { 'application/json': { schema: spendPointsSchema } }, required: true },
  },
  responses: {
    200: { description: 'The spend.', content: { 'application/json': { schema: spendResponseSchema } } },
    ...errorResponses(400, 409, 413, 415, 500),
  },
});

export const spendPointsRoute = defineRoute({
  access: { operation: 'spendPoints' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const body = c.req.valid('json');
    const spend = await spendPoints(deps, {
      platformId: caller.providerId,
      platformUserId: senderUserId(c.req.valid('param').platformUserId),
      amount: BigInt(body.amount),
      idempotencyKey: body.idempotency_key,
      reason: body.reason ?? null,
    });
    return ok(c, toSpendResponse(spend));
  },
});
